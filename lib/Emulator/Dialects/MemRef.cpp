//===- MemRef.cpp - memref ops: accesses, views, dims, allocations --------===//
#include "Dialects.h"

#include "../Executor.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::pa::emulator;
using namespace mlir::pa::emulator::detail;

namespace {

//===----------------------------------------------------------------------===//
// Views: a new descriptor over the same buffer
//===----------------------------------------------------------------------===//

enum class ViewKind : uint8_t {
  SubView,
  ReinterpretCast,
  ExpandShape,
  CollapseShape
};

struct ViewInfo : Payload {
  ViewKind kind = ViewKind::SubView;
  uint32_t source = 0, sourceRank = 0, resultRank = 0;
  SmallVector<IndexOperand, 4> offsets, sizes, strides;
  /// subview: source dims dropped from the result (rank reduction).
  SmallVector<bool, 4> dropped;
  /// expand / collapse: the groups of result (expand) or source (collapse)
  /// dims of each source (expand) or result (collapse) dim.
  SmallVector<SmallVector<int64_t, 2>, 4> groups;
};

Step executeView(Executor &ex, Wave &wave, const Instr &in) {
  const ViewInfo &info = in.get<ViewInfo>();
  Step status = Step::Next;
  firstFailingLane(wave, [&](int lane, uint64_t *f) {
    const uint64_t *src = f + info.source;
    uint64_t *dst = f + in.dst;
    const int64_t *sizes = reinterpret_cast<const int64_t *>(src + kSizes);
    const int64_t *strides = sizes + info.sourceRank;
    int64_t *outSizes = reinterpret_cast<int64_t *>(dst + kSizes);
    int64_t *outStrides = outSizes + info.resultRank;
    dst[kBuffer] = src[kBuffer];
    dst[kDescriptorBase] = src[kDescriptorBase];
    dst[kDescriptorBytes] = src[kDescriptorBytes];
    switch (info.kind) {
    case ViewKind::SubView: {
      int64_t offset = int64_t(src[kOffset]);
      unsigned out = 0;
      for (unsigned d = 0; d < info.sourceRank; ++d) {
        int64_t start = operandValue(info.offsets[d], f);
        int64_t size = operandValue(info.sizes[d], f);
        int64_t step = operandValue(info.strides[d], f);
        if (start < 0 || size < 0 ||
            (size > 0 && start + (size - 1) * step >= sizes[d])) {
          status =
              ex.fail(&wave, in, lane,
                      "subview [" + Twine(start) + ", size " + Twine(size) +
                          ", stride " + Twine(step) + "] of dim " + Twine(d) +
                          " (size " + Twine(sizes[d]) + ") is out of bounds");
          return false;
        }
        offset += start * strides[d];
        if (info.dropped[d])
          continue;
        outSizes[out] = size;
        outStrides[out] = strides[d] * step;
        ++out;
      }
      dst[kOffset] = uint64_t(offset);
      return true;
    }
    case ViewKind::ReinterpretCast:
      dst[kOffset] = uint64_t(operandValue(info.offsets[0], f));
      for (unsigned d = 0; d < info.resultRank; ++d) {
        outSizes[d] = operandValue(info.sizes[d], f);
        outStrides[d] = operandValue(info.strides[d], f);
      }
      return true;
    case ViewKind::ExpandShape:
      dst[kOffset] = src[kOffset];
      for (unsigned d = 0; d < info.sourceRank; ++d) {
        int64_t stride = strides[d];
        int64_t product = 1;
        const auto &group = info.groups[d];
        for (size_t i = group.size(); i-- > 0;) {
          int64_t size = operandValue(info.sizes[group[i]], f);
          outSizes[group[i]] = size;
          outStrides[group[i]] = stride;
          stride *= size;
          product *= size;
        }
        if (product != sizes[d]) {
          status = ex.fail(&wave, in, lane,
                           "expand_shape of dim " + Twine(d) + " (size " +
                               Twine(sizes[d]) + ") into sizes of product " +
                               Twine(product));
          return false;
        }
      }
      return true;
    case ViewKind::CollapseShape:
      dst[kOffset] = src[kOffset];
      for (unsigned d = 0; d < info.resultRank; ++d) {
        const auto &group = info.groups[d];
        int64_t size = 1;
        for (int64_t source : group)
          size *= sizes[source];
        outSizes[d] = size;
        outStrides[d] = group.empty() ? 1 : strides[group.back()];
      }
      return true;
    }
    return true;
  });
  return status;
}

LogicalResult emitView(OpCompiler &c, Operation *op, ViewInfo info,
                       Value source) {
  FailureOr<size_t> instr = c.emitResult(op, executeView);
  if (failed(instr))
    return failure();
  info.source = c.use(source);
  info.sourceRank = uint32_t(cast<MemRefType>(source.getType()).getRank());
  info.resultRank =
      uint32_t(cast<MemRefType>(op->getResult(0).getType()).getRank());
  c.attach(*instr, std::move(info));
  return success();
}

/// subview and reinterpret_cast: offsets, sizes and strides.
template <typename OpTy, ViewKind Kind>
LogicalResult compileOffsetSizesStrides(OpCompiler &c, Operation *operation) {
  auto op = cast<OpTy>(operation);
  ViewInfo info;
  info.kind = Kind;
  for (OpFoldResult v : op.getMixedOffsets())
    info.offsets.push_back(c.mixed(v));
  for (OpFoldResult v : op.getMixedSizes())
    info.sizes.push_back(c.mixed(v));
  for (OpFoldResult v : op.getMixedStrides())
    info.strides.push_back(c.mixed(v));
  if constexpr (Kind == ViewKind::SubView) {
    llvm::SmallBitVector dropped = op.getDroppedDims();
    for (unsigned i = 0; i < dropped.size(); ++i)
      info.dropped.push_back(dropped.test(i));
  }
  return emitView(c, op, std::move(info), op.getSource());
}

template <typename ReshapeOp, ViewKind Kind>
LogicalResult compileReshape(OpCompiler &c, Operation *operation) {
  auto op = cast<ReshapeOp>(operation);
  ViewInfo info;
  info.kind = Kind;
  for (ReassociationIndices group : op.getReassociationIndices())
    info.groups.push_back(SmallVector<int64_t, 2>(group.begin(), group.end()));
  if constexpr (Kind == ViewKind::ExpandShape)
    for (OpFoldResult v : op.getMixedOutputShape())
      info.sizes.push_back(c.mixed(v));
  return emitView(c, op, std::move(info), op.getSrc());
}

//===----------------------------------------------------------------------===//
// Dims and allocations
//===----------------------------------------------------------------------===//

/// Size b of the memref (a) of rank `count`.
Step executeDim(Executor &ex, Wave &wave, const Instr &in) {
  int lane = firstFailingLane(wave, [&](int, uint64_t *f) {
    uint64_t dim = f[in.b];
    if (dim >= in.count)
      return false;
    f[in.dst] = f[in.a + kSizes + dim];
    return true;
  });
  if (lane >= 0)
    return ex.fail(&wave, in, lane,
                   "memref.dim of a dim the memref does "
                   "not have");
  return Step::Next;
}

LogicalResult compileDim(OpCompiler &c, Operation *operation) {
  auto op = cast<memref::DimOp>(operation);
  FailureOr<size_t> instr =
      c.emitResult(op, executeDim, {op.getSource(), op.getIndex()});
  if (failed(instr))
    return failure();
  c.at(*instr).count =
      uint32_t(cast<MemRefType>(op.getSource().getType()).getRank());
  return success();
}

/// Word b of the memref (a): its offset, a size or a stride, on every
/// active lane (firstFailingLane stops at a lane whose step returns false:
/// returning false here once left the other lanes' words stale).
Step executeDescriptorWord(Executor &, Wave &wave, const Instr &in) {
  firstFailingLane(wave, [&](int, uint64_t *f) {
    f[in.dst] = f[in.a + in.b];
    return true;
  });
  return Step::Next;
}

/// The offset, sizes and strides of memref.extract_strided_metadata that
/// have uses (a kernel reading a run-time stride, e.g. pa-to-mfma's 32-bit
/// range check of a cache with a run-time page stride); its base buffer is
/// not supported.
LogicalResult compileExtractStridedMetadata(OpCompiler &c,
                                            Operation *operation) {
  auto op = cast<memref::ExtractStridedMetadataOp>(operation);
  if (!op.getBaseBuffer().use_empty())
    return c.fail(op, "the base buffer of memref.extract_strided_metadata "
                      "is not supported");
  const uint32_t rank = uint32_t(op.getSizes().size());
  auto word = [&](Value result, uint32_t at) -> LogicalResult {
    if (result.use_empty())
      return success();
    FailureOr<uint32_t> dst = c.define(result, op);
    if (failed(dst))
      return failure();
    size_t instr = c.emit(executeDescriptorWord, op);
    c.at(instr).dst = *dst;
    c.at(instr).a = c.use(op.getSource());
    c.at(instr).b = at;
    c.at(instr).count = 1;
    return success();
  };
  if (failed(word(op.getOffset(), kOffset)))
    return failure();
  for (uint32_t d = 0; d < rank; ++d)
    if (failed(word(op.getSizes()[d], kSizes + d)) ||
        failed(word(op.getStrides()[d], kSizes + rank + d)))
      return failure();
  return success();
}

struct AllocInfo : Payload {
  uint32_t elementBytes = 4;
  SmallVector<IndexOperand, 4> sizes;
};

/// Host memory, filled with 0xFF bytes (a NaN in every float format).
Step executeAlloc(Executor &ex, Wave &wave, const Instr &in) {
  const AllocInfo &info = in.get<AllocInfo>();
  uint64_t *f = wave.frame(llvm::countr_zero(wave.exec));
  SmallVector<int64_t, 4> sizes;
  int64_t elements = 1;
  for (const IndexOperand &size : info.sizes) {
    sizes.push_back(operandValue(size, f));
    elements *= sizes.back();
  }
  if (elements < 0 || elements > (int64_t(1) << 34))
    return ex.fail(&wave, in, -1,
                   "allocation of " + Twine(elements) + " elements");
  uint64_t *out = f + in.dst;
  out[kBuffer] = ex.allocate(elements * info.elementBytes, 0xFF);
  out[kOffset] = 0;
  out[kDescriptorBase] = 0;
  out[kDescriptorBytes] = uint64_t(-1);
  SmallVector<int64_t, 4> strides = rowMajorStrides(sizes);
  for (size_t d = 0; d < sizes.size(); ++d) {
    out[kSizes + d] = uint64_t(sizes[d]);
    out[kSizes + sizes.size() + d] = uint64_t(strides[d]);
  }
  return Step::Next;
}

LogicalResult compileAlloc(OpCompiler &c, Operation *operation) {
  auto op = cast<memref::AllocOp>(operation);
  if (!c.host)
    return c.fail(op, "kernels cannot allocate global memory");
  MemRefType type = op.getType();
  if (!type.getLayout().isIdentity())
    return c.fail(op, "only identity-layout allocations are supported");
  FailureOr<ScalarKind> element = c.kindOf(op, type);
  if (failed(element))
    return failure();
  AllocInfo info;
  info.elementBytes = storageBytes(*element);
  unsigned dynamicIndex = 0;
  for (int64_t size : type.getShape())
    info.sizes.push_back(
        ShapedType::isDynamic(size)
            ? IndexOperand{true,
                           int64_t(c.use(op.getDynamicSizes()[dynamicIndex++]))}
            : IndexOperand{false, size});
  FailureOr<size_t> instr = c.emitResult(op, executeAlloc);
  if (failed(instr))
    return failure();
  c.at(*instr).count = uint32_t(type.getRank());
  c.attach(*instr, std::move(info));
  return success();
}

} // namespace

void mlir::pa::emulator::detail::registerMemRefHandlers(OpRegistry &r) {
  using namespace memref;
  r.add<LoadOp>([](OpCompiler &c, Operation *op) {
    auto load = cast<LoadOp>(op);
    return compileMemoryAccess(c, op, load.getMemRef(), load.getIndices(),
                               load.getResult(), load.getType(), false);
  });
  r.add<StoreOp>([](OpCompiler &c, Operation *op) {
    auto store = cast<StoreOp>(op);
    return compileMemoryAccess(c, op, store.getMemRef(), store.getIndices(),
                               store.getValue(), store.getValue().getType(),
                               true);
  });
  r.add<DimOp>(compileDim);
  r.add<ExtractStridedMetadataOp>(compileExtractStridedMetadata);
  r.add<SubViewOp>(compileOffsetSizesStrides<SubViewOp, ViewKind::SubView>);
  r.add<ReinterpretCastOp>(
      compileOffsetSizesStrides<ReinterpretCastOp, ViewKind::ReinterpretCast>);
  r.add<ExpandShapeOp>(compileReshape<ExpandShapeOp, ViewKind::ExpandShape>);
  r.add<CollapseShapeOp>(
      compileReshape<CollapseShapeOp, ViewKind::CollapseShape>);
  r.add<CastOp>([](OpCompiler &c, Operation *op) {
    return c.emitMove(op, cast<CastOp>(op).getSource());
  });
  r.add<AssumeAlignmentOp>([](OpCompiler &c, Operation *op) {
    return c.emitMove(op, cast<AssumeAlignmentOp>(op).getMemref());
  });
  r.add<MemorySpaceCastOp>([](OpCompiler &c, Operation *op) {
    return c.emitMove(op, cast<MemorySpaceCastOp>(op).getSource());
  });
  r.add<AllocOp>(compileAlloc);
  r.add<DeallocOp>(compileNoEffect);
}
