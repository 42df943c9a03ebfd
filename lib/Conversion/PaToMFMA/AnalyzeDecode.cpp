//===- AnalyzeDecode.cpp - what the MFMA decode lowering relies on --------===//
//
// Every check pa-to-mfma makes before it changes anything: the structure
// pa-tile / pa-stage-page-ids produce (the tiled IR contract both backends
// share, matchTiledDecode), then the chip's fp8 flavour, the shapes the lane
// mappings support and the register budget; and the lane mapping
// (#pa.mfma_layout) a kernel without one is lowered with.
//
//===----------------------------------------------------------------------===//
#include "PaToMFMA.h"

#include "Layouts.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::pa;
using namespace mlir::pa::mfma;

namespace {

/// `dims` as "d0, d1, ..." with "?" for kAnySize (-1).
void appendDims(InFlightDiagnostic &diag, ArrayRef<int64_t> dims) {
  llvm::interleaveComma(dims, diag, [&](int64_t d) {
    if (d < 0)
      diag << "?";
    else
      diag << d;
  });
}

/// `memref` has an identity layout, rank `rank`, the static `dims` (kAnySize
/// = -1 for dim 0 only) and element type `element`.
LogicalResult checkGlobalOperand(Operation *op, StringRef name, Value memref,
                                 ArrayRef<int64_t> dims, Type element) {
  auto type = cast<MemRefType>(memref.getType());
  bool ok = type.getLayout().isIdentity() &&
            type.getRank() == static_cast<int64_t>(dims.size()) &&
            type.getElementType() == element;
  for (auto [i, dim] : llvm::enumerate(dims))
    if (ok && dim >= 0 && type.getDimSize(i) != dim)
      ok = false;
  for (int64_t i = 1; ok && i < type.getRank(); ++i)
    ok = !type.isDynamicDim(i);
  if (ok)
    return success();
  InFlightDiagnostic diag = op->emitOpError()
                            << "pa-to-mfma needs '" << name
                            << "' as an identity-layout memref of " << element
                            << " with static dims [";
  appendDims(diag, dims);
  return diag << "], got " << type;
}

/// An nhd / hnd cache: rank and static `dims` as checkGlobalOperand, any
/// strides (a view of a combined cache) but a contiguous head-dim axis, so
/// that a lane's consecutive head-dim values are one load.
LogicalResult checkCacheView(Operation *op, StringRef name, Value memref,
                             ArrayRef<int64_t> dims, Type element) {
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  bool ok = type.getRank() == static_cast<int64_t>(dims.size()) &&
            type.getElementType() == element &&
            succeeded(type.getStridesAndOffset(strides, offset)) &&
            strides.back() == 1;
  for (auto [i, dim] : llvm::enumerate(dims))
    if (ok && i > 0 && type.getDimSize(i) != dim)
      ok = false;
  if (ok)
    return success();
  InFlightDiagnostic diag = op->emitOpError()
                            << "pa-to-mfma needs '" << name
                            << "' as a memref of " << element
                            << " with static dims [";
  appendDims(diag, dims);
  return diag << "] and a unit head-dim stride, got " << type;
}

/// The per-token [N, Hkv, P] or per-tensor [1] f32 scale operand.
LogicalResult checkScale(Operation *op, StringRef name, ScaleMode mode,
                         Value scale, int64_t kvHeads, int64_t pageSize) {
  Type f32 = Float32Type::get(op->getContext());
  switch (mode) {
  case ScaleMode::none:
    return success();
  case ScaleMode::per_tensor:
    return checkGlobalOperand(op, name, scale, {1}, f32);
  case ScaleMode::per_token:
    return checkGlobalOperand(op, name, scale, {-1, kvHeads, pageSize}, f32);
  }
  llvm_unreachable("unknown scale mode");
}

/// The register budget of one lane: the PV accumulators of every M-tile
/// (mTiles * D / 4 f32) plus what one tile step needs at the same time.
/// At D = 512 with two M-tiles the accumulators alone are 256 VGPRs, the
/// whole architectural file; such a kernel would spill, so it is rejected.
constexpr int64_t kMaxAccumulatorVGPRs = 128;

} // namespace

bool mfma::isDecodeKernel(gpu::GPUFuncOp kernel) {
  return kernel
      .walk([](Operation *op) {
        return isa<TileLoadQueryOp, TileInitSoftmaxOp, TileQKOp, TileSoftmaxOp,
                   TilePVOp, TileStorePartialsOp>(op)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

FailureOr<DecodeKernel> mfma::analyzeDecodeKernel(gpu::GPUFuncOp kernel,
                                                  const ChipInfo &chip) {
  // The structure pa-tile and pa-stage-page-ids produce (TiledDecode.h).
  FailureOr<TiledDecode> tiled = matchTiledDecode(
      kernel, "pa-to-mfma",
      [](Operation *at, const Twine &message) { at->emitOpError(message); });
  if (failed(tiled))
    return failure();
  DecodeKernel d;
  static_cast<TiledDecode &>(d) = *tiled;
  d.kernel = kernel;

  // The chip's matrix units take one fp8 flavour.
  Type kvType = cast<MemRefType>(d.qk.getKeyCache().getType()).getElementType();
  DecodeShape &s = d.shape;
  s.kvType = kvType;
  // fp8 or bf16 (PaTileOps.td).
  bool fp8Cache = !kvType.isBF16();
  Type chipFp8 = getFp8Type(kernel.getContext(), chip);
  if (fp8Cache && kvType != chipFp8)
    return d.qk.emitOpError() << "chip " << chip.name << " takes "
                              << fp8TypeName(chip.fp8Format)
                              << " fp8 KV caches, got " << kvType;
  s.compute = d.qk.getCompute();
  if (d.pv.getCompute() != s.compute || d.pv.getScale() != d.qk.getScale())
    return d.pv.emitOpError()
           << "pa-to-mfma needs the same compute type and scale mode in "
              "pa.tile.qk and pa.tile.pv";
  if (s.fp8Compute() && !fp8Cache)
    return d.qk.emitOpError() << "fp8 compute needs an fp8 KV cache, got "
                              << kvType;
  s.computeType = s.fp8Compute() ? kvType : BFloat16Type::get(kernel.getContext());

  if (d.alibi && failed(checkGlobalOperand(d.alibi, "alibi_slopes",
                                           d.alibi.getAlibiSlopes(), {-1},
                                           Float32Type::get(kernel.getContext()))))
    return failure();

  Value queryTile = d.loadQuery.getQueryTile();
  auto tileType = cast<MemRefType>(queryTile.getType());
  s.rows = tileType.getDimSize(0);
  s.headDim = tileType.getDimSize(1);
  s.mTiles = s.rows / kBlock;
  if (s.rows != 16 && s.rows != 32)
    return d.loadQuery.emitOpError()
           << "pa-to-mfma supports row groups of 16 or 32 rows (one or two "
              "16-row M-tiles), got "
           << s.rows;
  // PV output columns come in 16-wide blocks; the QK contraction is padded
  // to whole load chunks internally.
  if (s.headDim % kBlock != 0 || s.headDim < 64 || s.headDim > 512)
    return d.loadQuery.emitOpError()
           << "pa-to-mfma supports head dims that are multiples of 16 from 64 "
              "to 512, got "
           << s.headDim;
  // pa-tile makes 16-row groups on AMD where this would fail (D > 256).
  if (s.mTiles * s.headDim / 4 > kMaxAccumulatorVGPRs)
    return d.loadQuery.emitOpError()
           << "head dim " << s.headDim << " with a " << s.rows
           << "-row group needs " << s.mTiles * s.headDim / 4
           << " accumulator VGPRs per lane for the output alone (at most "
           << kMaxAccumulatorVGPRs
           << " fit beside a tile step without spilling); use row groups of "
              "16 rows";

  s.layout = d.qk.getCacheLayout();
  if (d.pv.getCacheLayout() != s.layout)
    return d.pv.emitOpError()
           << "pa-to-mfma needs the same cache layout in pa.tile.qk and "
              "pa.tile.pv";
  s.pageSize = d.qk.getPageSize();
  if (s.layout == CacheLayout::packed
          ? s.pageSize % kGroupTokens != 0 || kTileTokens % s.pageSize != 0
          : !llvm::isPowerOf2_64(s.pageSize) || s.pageSize > kMaxPageSize)
    return d.qk.emitOpError()
           << "pa-to-mfma supports page sizes that are "
           << (s.layout == CacheLayout::packed
                   ? "multiples of 16 dividing 256"
                   : "powers of two up to 1024")
           << " for the " << stringifyCacheLayout(s.layout)
           << " layout, got " << s.pageSize;
  s.queryLength = d.loadQuery.getQueryLength();
  s.groupSize = d.loadQuery.getGroupSize();
  s.window = d.softmax.getSlidingWindow();
  s.alibi = static_cast<bool>(d.alibi);
  s.totalRows = d.storePartials.getRows();
  s.scale = d.qk.getScale();
  s.vLayout = d.pv.getVLayout();
  s.scoreScale = d.qk.getScoreScale().convertToFloat();
  if (std::optional<APFloat> cap = d.qk.getSoftCap())
    s.softCap = cap->convertToFloat();
  s.kvPack = kLoadBytes / s.kvBytes();

  // Operands the lane code indexes directly.
  Operation *qkOp = d.qk, *pvOp = d.pv;
  auto cacheType = cast<MemRefType>(d.qk.getKeyCache().getType());
  int64_t kvHeads =
      cacheType.getRank() > 2
          ? cacheType.getDimSize(s.layout == CacheLayout::nhd ? 2 : 1)
          : 0;
  if (s.layout != CacheLayout::packed) {
    // nhd [N, P, Hkv, D] / hnd [N, Hkv, P, D], K and V alike, possibly
    // strided views of one combined cache.
    SmallVector<int64_t> dims =
        s.layout == CacheLayout::nhd
            ? SmallVector<int64_t>{-1, s.pageSize, kvHeads, s.headDim}
            : SmallVector<int64_t>{-1, kvHeads, s.pageSize, s.headDim};
    if (failed(checkCacheView(qkOp, "key_cache", d.qk.getKeyCache(), dims,
                              kvType)) ||
        failed(checkCacheView(pvOp, "value_cache", d.pv.getValueCache(), dims,
                              kvType)))
      return failure();
  } else if (failed(checkGlobalOperand(
                 qkOp, "key_cache", d.qk.getKeyCache(),
                 {-1, kvHeads, s.headDim / s.kvPack, s.pageSize, s.kvPack},
                 kvType))) {
    return failure();
  } else if (s.vLayout == VLayout::plain
                 ? failed(checkGlobalOperand(
                       pvOp, "value_cache", d.pv.getValueCache(),
                       {-1, kvHeads, s.headDim, s.pageSize}, kvType))
                 : failed(checkGlobalOperand(
                       pvOp, "value_cache", d.pv.getValueCache(),
                       {-1, kvHeads, s.pageSize / s.kvPack, s.headDim,
                        s.kvPack},
                       kvType))) {
    return failure();
  }
  if (failed(checkScale(qkOp, "k_scale", s.scale, d.qk.getKScale(), kvHeads,
                        s.pageSize)) ||
      failed(checkScale(pvOp, "v_scale", s.scale, d.pv.getVScale(), kvHeads,
                        s.pageSize)))
    return failure();

  // The query's rank and element types (bf16, f16, f32): PaTileOps.td.
  auto queryType = cast<MemRefType>(d.loadQuery.getQuery().getType());
  if (queryType.getDimSize(2) != s.headDim)
    return d.loadQuery.emitOpError()
           << "pa-to-mfma needs a [B*Q, Hq, " << s.headDim
           << "] query, got " << queryType;
  // The partial buffers' ranks, f32 and identity layout: PaTileOps.td.
  if (cast<MemRefType>(d.storePartials.getTmpOut().getType()).getDimSize(3) !=
      s.headDim)
    return d.storePartials.emitOpError()
           << "pa-to-mfma needs identity-layout f32 partial buffers "
              "[Hkv, slots, R] and [Hkv, slots, R, "
           << s.headDim << "]";
  // A kernel's own layout was verified against its chip and tile ops with
  // the IR (verifyMFMALayoutOn).
  d.layout = kernel->getAttrOfType<MFMALayoutAttr>(kMFMALayoutAttrName);
  if (!d.layout)
    d.layout = chooseMFMALayout(kernel.getContext(), s, chip);
  return d;
}

MFMALayoutAttr mfma::chooseMFMALayout(MLIRContext *context,
                                      const DecodeShape &s,
                                      const ChipInfo &chip) {
  Instr instr = s.fp8Compute() ? kFp8Instr : kBf16Instr;
  // QK with 16x16x128 where the chip has it and the head dim is a whole
  // number of its K (two 64-element load chunks), unless it costs
  // occupancy: two M-tiles at D = 256 with per-token scales need more than
  // the 256 VGPRs of 2 waves per SIMD (measured on gfx950 with the query's
  // residual: 264-268, 1 wave; without per-token scales 245-256, 2 waves),
  // and so do a window or ALiBi without them (260-268, 1 wave; with
  // 16x16x32 QK 243-251, 2 waves), and at D = 512 more still. One M-tile
  // at D = 256 with per-token scales on the packed cache straddles the 168
  // VGPRs of 3 waves with 16x16x128 QK (161-180: 12 of 25 configurations
  // at 2 waves, a window or 2 query tokens enough to tip it) and stays
  // within them with 16x16x32 (161-168: 25 of 25 at 3), for +192 MFMAs per
  // workgroup and 256-token tile (issue estimate 0.17 -> 0.20 of the memory
  // time). With ALiBi it is 2 waves either way (192 / 218 VGPRs), so it
  // keeps 16x16x128 (docs/performance.md, seventeenth session).
  const bool perTokenD256Row =
      s.mTiles == 1 && s.headDim == 256 && s.scale == ScaleMode::per_token &&
      s.layout == CacheLayout::packed && !s.alibi;
  bool wideQK = chip.hasF8F6F4Mfma && s.fp8Compute() &&
                s.headDim % kWideFp8K == 0 && !perTokenD256Row &&
                (s.mTiles == 1 || s.headDim <= 128 ||
                 (s.headDim <= 256 && s.scale != ScaleMode::per_token &&
                  s.window == 0 && !s.alibi));
  return MFMALayoutAttr::get(context, wideQK ? kWideFp8K : instr.k, instr.k,
                             s.mTiles, kQuarterTokens,
                             llvm::divideCeil(s.headDim,
                                              kLaneGroups * s.kvPack));
}
