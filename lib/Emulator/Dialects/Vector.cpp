//===- Vector.cpp - vector ops: accesses, positions, shuffles, reductions -===//
//
// A vector is one word per element in a lane's frame, row-major.
//
//===----------------------------------------------------------------------===//
#include "Dialects.h"
#include "Elementwise.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::pa::emulator;
using namespace mlir::pa::emulator::detail;

namespace {

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

/// vector.transfer_read / write: 1-D along the innermost memref dim.
LogicalResult compileTransfer(OpCompiler &c, Operation *op, Value memref,
                              ValueRange indices, Value value,
                              VectorType vectorType, AffineMap map,
                              std::optional<ArrayAttr> inBounds, Value mask,
                              Value padding, bool store) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type || mask || vectorType.getRank() != 1 ||
      map !=
          AffineMap::getMinorIdentityMap(type.getRank(), 1, op->getContext()))
    return c.fail(op, "only unmasked 1-D transfers along the innermost "
                      "memref dim are supported");
  MemAccess info;
  info.transfer = true;
  info.inBounds = inBounds && !inBounds->empty() &&
                  cast<BoolAttr>((*inBounds)[0]).getValue();
  if (padding)
    info.padding = c.use(padding);
  return compileMemoryAccess(c, op, memref, indices, value, vectorType, store,
                             std::move(info));
}

//===----------------------------------------------------------------------===//
// Positions (extract / insert)
//===----------------------------------------------------------------------===//

struct PositionInfo : Payload {
  SmallVector<IndexOperand, 4> positions;
  SmallVector<int64_t, 4> shape; // of the vector indexed
};

/// Offset of `positions` in a row-major vector of `shape`, and the words
/// the positions select; false for a dynamic position out of range.
bool position(const PositionInfo &info, const uint64_t *frame, int64_t &offset,
              int64_t &selected) {
  offset = 0;
  selected = 1;
  for (size_t d = info.positions.size(); d < info.shape.size(); ++d)
    selected *= info.shape[d];
  int64_t stride = selected;
  for (size_t d = info.positions.size(); d-- > 0;) {
    int64_t p = operandValue(info.positions[d], frame);
    if (p < 0 || p >= info.shape[d])
      return false;
    offset += p * stride;
    stride *= info.shape[d];
  }
  return true;
}

/// vector.extract (a at the position) and vector.insert (b into a).
template <bool Insert>
Step executePositioned(Executor &ex, Wave &wave, const Instr &in) {
  const PositionInfo &info = in.get<PositionInfo>();
  Step status = Step::Next;
  firstFailingLane(wave, [&](int lane, uint64_t *f) {
    int64_t offset, selected;
    if (!position(info, f, offset, selected)) {
      status = ex.fail(&wave, in, lane, "vector position out of range");
      return false;
    }
    if (Insert) {
      for (uint32_t e = 0; e < in.count; ++e)
        f[in.dst + e] = f[in.a + e];
      for (int64_t e = 0; e < selected; ++e)
        f[in.dst + offset + e] = f[in.b + e];
    } else {
      for (int64_t e = 0; e < selected; ++e)
        f[in.dst + e] = f[in.a + offset + e];
    }
    return true;
  });
  return status;
}

template <bool Insert>
LogicalResult compilePositioned(OpCompiler &c, Operation *op, Value vector,
                                ArrayRef<OpFoldResult> positions,
                                Value inserted) {
  auto type = cast<VectorType>(vector.getType());
  PositionInfo info;
  info.shape.assign(type.getShape().begin(), type.getShape().end());
  for (OpFoldResult position : positions)
    info.positions.push_back(c.mixed(position));
  FailureOr<size_t> instr = c.emitResult(op, executePositioned<Insert>, vector);
  if (failed(instr))
    return failure();
  if (inserted)
    c.at(*instr).b = c.use(inserted);
  c.attach(*instr, std::move(info));
  return success();
}

//===----------------------------------------------------------------------===//
// Broadcasts, shuffles, bitcasts, from_elements
//===----------------------------------------------------------------------===//

/// `count` elements repeating the b words of a.
Step executeBroadcast(Executor &, Wave &wave, const Instr &in) {
  forLanes(wave, [&](int, uint64_t *f) {
    for (uint32_t e = 0; e < in.count; ++e)
      f[in.dst + e] = f[in.a + e % in.b];
  });
  return Step::Next;
}

LogicalResult compileBroadcast(OpCompiler &c, Operation *op) {
  Value source = cast<vector::BroadcastOp>(op).getSource();
  auto result = cast<VectorType>(op->getResult(0).getType());
  if (auto vector = dyn_cast<VectorType>(source.getType())) {
    ArrayRef<int64_t> from = vector.getShape(), to = result.getShape();
    if (from.size() > to.size() || to.take_back(from.size()) != from)
      return c.fail(op, "only broadcasts of trailing dims are supported");
  }
  FailureOr<size_t> instr = c.emitResult(op, executeBroadcast, source);
  if (failed(instr))
    return failure();
  c.at(*instr).b = wordsOf(source.getType());
  c.at(*instr).count = uint32_t(result.getNumElements());
  return success();
}

struct List : Payload {
  SmallVector<int64_t, 8> values;
};

/// Mask entries index a (below c) then b; -1 is poison.
Step executeVectorShuffle(Executor &, Wave &wave, const Instr &in) {
  const auto &mask = in.get<List>().values;
  forLanes(wave, [&](int, uint64_t *f) {
    for (size_t e = 0; e < mask.size(); ++e) {
      int64_t from = mask[e];
      f[in.dst + e] = from < 0               ? 0x7FBADBADu
                      : from < int64_t(in.c) ? f[in.a + from]
                                             : f[in.b + from - in.c];
    }
  });
  return Step::Next;
}

LogicalResult compileVectorShuffle(OpCompiler &c, Operation *operation) {
  auto op = cast<vector::ShuffleOp>(operation);
  if (op.getV1VectorType().getRank() != 1)
    return c.fail(op, "only 1-D shuffles are supported");
  FailureOr<size_t> instr =
      c.emitResult(op, executeVectorShuffle, {op.getV1(), op.getV2()});
  if (failed(instr))
    return failure();
  c.at(*instr).c = elementCount(op.getV1VectorType());
  List mask;
  mask.values.assign(op.getMask().begin(), op.getMask().end());
  c.attach(*instr, std::move(mask));
  return success();
}

/// Little endian: element e occupies bits [e * width, (e + 1) * width).
Step executeBitcast(Executor &, Wave &wave, const Instr &in) {
  const unsigned fromBits = bitWidth(in.kind), toBits = bitWidth(in.kind2);
  const uint32_t toCount = in.count * fromBits / toBits;
  SmallVector<uint8_t, 256> bytes(size_t(in.count) * fromBits / 8);
  forLanes(wave, [&](int, uint64_t *f) {
    for (uint32_t e = 0; e < in.count; ++e)
      storeElement(bytes.data() + e * fromBits / 8, fromBits / 8, f[in.a + e]);
    for (uint32_t e = 0; e < toCount; ++e)
      f[in.dst + e] = loadElement(bytes.data() + e * toBits / 8, toBits / 8);
  });
  return Step::Next;
}

LogicalResult compileBitcast(OpCompiler &c, Operation *operation) {
  auto op = cast<vector::BitCastOp>(operation);
  FailureOr<ScalarKind> from = c.kindOf(op, op.getSourceVectorType());
  FailureOr<ScalarKind> to = c.kindOf(op, op.getResultVectorType());
  if (failed(from) || failed(to) || *from == ScalarKind::I1 ||
      *to == ScalarKind::I1)
    return c.fail(op, "unsupported bitcast");
  FailureOr<size_t> instr = c.emitResult(op, executeBitcast, op.getSource());
  if (failed(instr))
    return failure();
  c.at(*instr).kind = *from;
  c.at(*instr).kind2 = *to;
  c.at(*instr).count = elementCount(op.getSourceVectorType());
  return success();
}

/// Element e from slot values[e].
Step executeFromElements(Executor &, Wave &wave, const Instr &in) {
  const auto &elements = in.get<List>().values;
  forLanes(wave, [&](int, uint64_t *f) {
    for (size_t e = 0; e < elements.size(); ++e)
      f[in.dst + e] = f[elements[e]];
  });
  return Step::Next;
}

LogicalResult compileFromElements(OpCompiler &c, Operation *operation) {
  auto op = cast<vector::FromElementsOp>(operation);
  List elements;
  for (Value element : op.getElements())
    elements.values.push_back(c.use(element));
  FailureOr<size_t> instr = c.emitResult(op, executeFromElements);
  if (failed(instr))
    return failure();
  c.attach(*instr, std::move(elements));
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// The `count` elements of a combined by `mode` (a CombiningKind), from
/// the accumulator in slot imm (or -1: none).
Step executeReduction(Executor &, Wave &wave, const Instr &in) {
  const unsigned bits = bitWidth(in.kind);
  const uint64_t mask = lowMask(bits);
  const bool isFloat = isFloatKind(in.kind);
  using K = vector::CombiningKind;
  K kind = K(in.mode);
  forLanes(wave, [&](int, uint64_t *f) {
    if (isFloat) {
      bool f32 = in.kind == ScalarKind::F32;
      auto get = [&](uint64_t w) {
        return f32 ? double(asFloat(w)) : asDouble(w);
      };
      auto round = [&](double v) { return f32 ? double(float(v)) : v; };
      double acc = in.imm >= 0 ? get(f[in.imm]) : get(f[in.a]);
      for (uint32_t e = in.imm >= 0 ? 0 : 1; e < in.count; ++e) {
        double x = get(f[in.a + e]);
        switch (kind) {
        case K::ADD:
          acc = round(acc + x);
          break;
        case K::MUL:
          acc = round(acc * x);
          break;
        case K::MAXNUMF:
          acc = std::fmax(acc, x);
          break;
        case K::MINNUMF:
          acc = std::fmin(acc, x);
          break;
        case K::MAXIMUMF:
          acc = maximumOf(acc, x);
          break;
        case K::MINIMUMF:
          acc = minimumOf(acc, x);
          break;
        default:
          break;
        }
      }
      f[in.dst] = f32 ? wordOf(float(acc)) : wordOf(acc);
      return;
    }
    uint64_t acc = in.imm >= 0 ? f[in.imm] : f[in.a];
    for (uint32_t e = in.imm >= 0 ? 0 : 1; e < in.count; ++e) {
      uint64_t x = f[in.a + e];
      switch (kind) {
      case K::ADD:
        acc = acc + x;
        break;
      case K::MUL:
        acc = acc * x;
        break;
      case K::AND:
        acc &= x;
        break;
      case K::OR:
        acc |= x;
        break;
      case K::XOR:
        acc ^= x;
        break;
      case K::MAXUI:
        acc = std::max(acc & mask, x & mask);
        break;
      case K::MINUI:
        acc = std::min(acc & mask, x & mask);
        break;
      case K::MAXSI:
        acc = uint64_t(std::max(signExtend(acc, bits), signExtend(x, bits)));
        break;
      case K::MINSI:
        acc = uint64_t(std::min(signExtend(acc, bits), signExtend(x, bits)));
        break;
      default:
        break;
      }
      acc &= mask;
    }
    f[in.dst] = acc & mask;
  });
  return Step::Next;
}

LogicalResult compileReduction(OpCompiler &c, Operation *operation) {
  auto op = cast<vector::ReductionOp>(operation);
  FailureOr<ScalarKind> kind = c.kindOf(op, op.getVector().getType());
  if (failed(kind))
    return failure();
  bool floating = isFloatKind(*kind);
  if (floating && *kind != ScalarKind::F32 && *kind != ScalarKind::F64)
    return c.fail(op, "float reductions are supported on f32 and f64 only");
  FailureOr<size_t> instr = c.emitResult(op, executeReduction, op.getVector());
  if (failed(instr))
    return failure();
  Instr &in = c.at(*instr);
  in.kind = *kind;
  in.count = elementCount(op.getVector().getType());
  in.mode = uint8_t(op.getKind());
  in.imm = op.getAcc() ? int64_t(c.use(op.getAcc())) : -1;
  return success();
}

//===----------------------------------------------------------------------===//
// Strided slices
//===----------------------------------------------------------------------===//

struct StridedSliceInfo : Payload {
  SmallVector<int64_t, 4> sourceShape, resultShape, offsets;
};

/// Visits the elements of the small vector of a strided slice with their
/// offset in the big one.
template <typename F>
void forSliceElements(const StridedSliceInfo &info, F &&f) {
  const auto &big = info.sourceShape, &small = info.resultShape;
  int64_t total = 1;
  for (int64_t s : small)
    total *= s;
  SmallVector<int64_t, 4> bigStrides = rowMajorStrides(big);
  // `small` may have fewer dims (insert): align them to the trailing ones.
  size_t lead = big.size() - small.size();
  for (int64_t index = 0; index < total; ++index) {
    int64_t rest = index, offset = 0;
    for (size_t d = small.size(); d-- > 0;) {
      int64_t coordinate = rest % small[d];
      rest /= small[d];
      size_t bd = d + lead;
      int64_t start = bd < info.offsets.size() ? info.offsets[bd] : 0;
      offset += (coordinate + start) * bigStrides[bd];
    }
    for (size_t bd = 0; bd < lead; ++bd)
      offset += info.offsets[bd] * bigStrides[bd];
    f(index, offset);
  }
}

Step executeExtractStrided(Executor &, Wave &wave, const Instr &in) {
  const StridedSliceInfo &info = in.get<StridedSliceInfo>();
  forLanes(wave, [&](int, uint64_t *f) {
    forSliceElements(info, [&](int64_t index, int64_t offset) {
      f[in.dst + index] = f[in.a + offset];
    });
  });
  return Step::Next;
}

/// a inserted into a copy of b.
Step executeInsertStrided(Executor &, Wave &wave, const Instr &in) {
  const StridedSliceInfo &info = in.get<StridedSliceInfo>();
  forLanes(wave, [&](int, uint64_t *f) {
    std::memmove(f + in.dst, f + in.b, size_t(in.count) * 8);
    forSliceElements(info, [&](int64_t index, int64_t offset) {
      f[in.dst + offset] = f[in.a + index];
    });
  });
  return Step::Next;
}

LogicalResult compileStridedSlice(OpCompiler &c, Operation *op,
                                  ExecuteFn execute, VectorType source,
                                  VectorType result, ArrayAttr offsets,
                                  ArrayAttr strides, Value input, Value dest) {
  for (Attribute stride : strides)
    if (cast<IntegerAttr>(stride).getInt() != 1)
      return c.fail(op, "only unit strides are supported");
  StridedSliceInfo info;
  info.sourceShape.assign(source.getShape().begin(), source.getShape().end());
  info.resultShape.assign(result.getShape().begin(), result.getShape().end());
  for (Attribute offset : offsets)
    info.offsets.push_back(cast<IntegerAttr>(offset).getInt());
  FailureOr<size_t> instr = c.emitResult(op, execute, input);
  if (failed(instr))
    return failure();
  if (dest)
    c.at(*instr).b = c.use(dest);
  c.attach(*instr, std::move(info));
  return success();
}

} // namespace

void mlir::pa::emulator::detail::registerVectorHandlers(OpRegistry &r) {
  using namespace vector;
  r.add<LoadOp>([](OpCompiler &c, Operation *op) {
    auto load = cast<LoadOp>(op);
    return compileMemoryAccess(c, op, load.getBase(), load.getIndices(),
                               load.getResult(), load.getVectorType(), false);
  });
  r.add<StoreOp>([](OpCompiler &c, Operation *op) {
    auto store = cast<StoreOp>(op);
    return compileMemoryAccess(c, op, store.getBase(), store.getIndices(),
                               store.getValueToStore(), store.getVectorType(),
                               true);
  });
  r.add<TransferReadOp>([](OpCompiler &c, Operation *op) {
    auto t = cast<TransferReadOp>(op);
    return compileTransfer(c, op, t.getBase(), t.getIndices(), t.getResult(),
                           t.getVectorType(), t.getPermutationMap(),
                           t.getInBounds(), t.getMask(), t.getPadding(), false);
  });
  r.add<TransferWriteOp>([](OpCompiler &c, Operation *op) {
    auto t = cast<TransferWriteOp>(op);
    if (t->getNumResults())
      return c.fail(op, "transfers on tensors are not supported");
    return compileTransfer(c, op, t.getBase(), t.getIndices(), t.getVector(),
                           t.getVectorType(), t.getPermutationMap(),
                           t.getInBounds(), t.getMask(), Value(), true);
  });
  r.add<ExtractOp>([](OpCompiler &c, Operation *op) {
    auto e = cast<ExtractOp>(op);
    return compilePositioned<false>(c, op, e.getSource(), e.getMixedPosition(),
                                    Value());
  });
  r.add<InsertOp>([](OpCompiler &c, Operation *op) {
    auto i = cast<InsertOp>(op);
    return compilePositioned<true>(c, op, i.getDest(), i.getMixedPosition(),
                                   i.getValueToStore());
  });
  r.add<BroadcastOp>(compileBroadcast);
  r.add<ShapeCastOp>([](OpCompiler &c, Operation *op) {
    return c.emitMove(op, cast<ShapeCastOp>(op).getSource());
  });
  r.add<BitCastOp>(compileBitcast);
  r.add<ShuffleOp>(compileVectorShuffle);
  r.add<FromElementsOp>(compileFromElements);
  r.add<ReductionOp>(compileReduction);
  r.add<ExtractStridedSliceOp>([](OpCompiler &c, Operation *op) {
    auto e = cast<ExtractStridedSliceOp>(op);
    return compileStridedSlice(
        c, op, executeExtractStrided, e.getSourceVectorType(), e.getType(),
        e.getOffsets(), e.getStrides(), e.getSource(), Value());
  });
  r.add<InsertStridedSliceOp>([](OpCompiler &c, Operation *op) {
    auto i = cast<InsertStridedSliceOp>(op);
    return compileStridedSlice(c, op, executeInsertStrided,
                               i.getDestVectorType(), i.getSourceVectorType(),
                               i.getOffsets(), i.getStrides(),
                               i.getValueToStore(), i.getDest());
  });
  r.add<FMAOp>(compileFma);
}
