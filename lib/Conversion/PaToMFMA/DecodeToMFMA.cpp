//===- DecodeToMFMA.cpp - the decode kernel on 4 waves with MFMA ----------===//
//
// docs/mfma-lowering.md is the design; Layouts.h holds every lane mapping.
// The workgroup program of pa-tile becomes per-lane code for 256 lanes:
//
// - prologue: page ids staged by all lanes (lane-strided), the query row
//   group quantized per row (fp8) or converted (bf16) into LDS, a barrier;
// - tile loop: wave w takes tokens [64w, 64w + 64) of every 256-token tile
//   with its own online-softmax state in registers (loop-carried): K via
//   16-byte buffer loads, S^T = K Q^T with MFMA, scale before mask, row max
//   across the 4 lane groups by xor shuffles, exp2, P quantized in
//   registers, V (masked to 0 outside the valid range) via 16-byte loads,
//   O^T += V^T P^T with MFMA; no barrier;
// - epilogue: the four wave states merged through LDS (stats, then the
//   output in head-dim chunks), partial results written as
//   pa.tile.store_partials defines.
//
// K, V and per-token scales go through fat raw buffers (32-bit offsets)
// when they are below 2 GiB (known statically or checked at run time),
// else through 64-bit global addresses in a second loop (docs/performance.md).
//
// Everything the lane code needs from the tiled IR is read off the tile ops
// (values through an IRMapping into the rebuilt loop), so the prologue and
// loop-bound math of pa-tile is kept as it is.
//
// This file holds the driver (run: buffers, lane ids, then one pattern per
// tile op in program order), the lane constants and cache views, and the
// lane helpers the ops' lowerings share; DecodeLowering.h lists the file of
// each op.
//
//===----------------------------------------------------------------------===//
#include "DecodeLowering.h"

#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Rewrite/PatternApplicator.h"

#include <cmath>

using namespace mlir;
using namespace mlir::pa;
using namespace mlir::pa::mfma;

double mfma::largestFinite(Type type) {
  return APFloat::getLargest(cast<FloatType>(type).getFloatSemantics())
      .convertToDouble();
}

namespace {

/// P in [0, 1] is quantized times this power of two, so that its small values
/// stay normal fp8 numbers (2^8 under 448, 2^7 under 240); 1 for bf16.
double probabilityScale(const DecodeShape &s) {
  if (!s.fp8Compute())
    return 1.0;
  return std::ldexp(1.0, llvm::Log2_64(static_cast<uint64_t>(
                             largestFinite(s.computeType))));
}

/// Bytes a buffer over `type` spans per page (dim 0 index): the product of
/// the other dims for an identity layout; the dim-0 stride for a strided
/// view whose dim-0 stride spans its other dims (a view of a combined
/// cache: the buffer then ends at pages * stride); none for other views.
std::optional<int64_t> bytesPerPage(MemRefType type) {
  int64_t elementBytes = type.getElementTypeBitWidth() / 8;
  if (type.getLayout().isIdentity()) {
    int64_t elements = 1;
    for (int64_t dim : type.getShape().drop_front())
      elements *= dim;
    return elements * elementBytes;
  }
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  for (int64_t d = 1; d < type.getRank(); ++d)
    if (type.getDimSize(d) * strides[d] > strides[0])
      return std::nullopt;
  return strides[0] * elementBytes;
}

/// Elements the dims after dim 0 of a view over `type` span, for a view
/// whose dim-0 stride is a run-time value and whose other strides and dims
/// are static (an nhd / hnd cache read at its caller's page stride); none
/// for other types.
std::optional<int64_t> innerSpanOfRunTimePageStride(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      !ShapedType::isDynamic(strides[0]))
    return std::nullopt;
  int64_t span = 1;
  for (int64_t d = 1; d < type.getRank(); ++d) {
    if (ShapedType::isDynamic(strides[d]) || type.isDynamicDim(d))
      return std::nullopt;
    span += (type.getDimSize(d) - 1) * strides[d];
  }
  return span;
}

/// Removes workgroup attributions (unused by now) from `kernel`.
void eraseWorkgroupAttributions(gpu::GPUFuncOp kernel,
                                ArrayRef<Value> buffers) {
  SmallVector<unsigned> positions;
  for (Value buffer : buffers)
    positions.push_back(cast<BlockArgument>(buffer).getArgNumber());
  llvm::sort(positions, std::greater<unsigned>());
  unsigned first = kernel.getFirstWorkgroupAttributionIndex();
  unsigned remaining = kernel.getNumWorkgroupAttributions() - positions.size();
  auto attribAttrs = kernel->getAttrOfType<ArrayAttr>(
      kernel.getWorkgroupAttribAttrsAttrName());
  SmallVector<Attribute> keptAttrs;
  if (attribAttrs)
    keptAttrs.assign(attribAttrs.begin(), attribAttrs.end());
  for (unsigned position : positions) {
    kernel.getBody().front().eraseArgument(position);
    if (attribAttrs && position - first < keptAttrs.size())
      keptAttrs.erase(keptAttrs.begin() + (position - first));
  }
  Builder b(kernel.getContext());
  kernel->setAttr(gpu::GPUFuncOp::getNumWorkgroupAttributionsAttrName(),
                  b.getI64IntegerAttr(remaining));
  if (attribAttrs)
    kernel->setAttr(kernel.getWorkgroupAttribAttrsAttrName(),
                    b.getArrayAttr(keptAttrs));
}

/// How many terms of the query the QK product multiplies (DecodeLanes::
/// queryTerms): with fp8-residual=query-and-p, fp8 compute takes the
/// value and its residual (~2^-8 relative per element), and a third term
/// where the softmax scale is large; bf16 compute of an f16 query takes its
/// residual too (bf16 keeps 8 of its 11 significant bits; with
/// normal-distributed inputs that moved peaked softmaxes by twice the
/// bf16-KV tolerance).
int64_t queryTermsOf(DecodeKernel &d, Fp8Residual fp8Residual) {
  const DecodeShape &s = d.shape;
  if (s.fp8Compute()) {
    if (fp8Residual != Fp8Residual::queryAndProbabilities)
      return 1;
    // A score's error from the query's two terms is about
    // softmax_scale * sqrt(D) * 2^-9 * |q| |k| (random signs add up as
    // sqrt(D)): at the usual scale D^-1/2 about 2^-9 |q| |k|, far inside
    // the 5e-3 tolerance; at scale 1 and D = 128 (soft-capped programs)
    // the logits of normal-distributed queries moved by 1.5-1.8 times
    // the tolerance (the LSE and the partials' maxima show it). Past twice
    // the usual scale the residual's own residual joins (2^-12 relative),
    // one more QK MFMA per step for those programs only.
    double softmaxScale = s.scoreScale / llvm::numbers::log2e;
    return softmaxScale * std::sqrt(double(s.headDim)) > 2.0 ? 3 : 2;
  }
  Type query =
      cast<MemRefType>(d.loadQuery.getQuery().getType()).getElementType();
  return query.getIntOrFloatBitWidth() == 16 && query != s.computeType ? 2 : 1;
}

/// Whether the PV product also multiplies P's residual in the compute
/// type: fp8 compute unless fp8-residual=none, and a bf16 cache (bf16
/// compute): P rounded once to bf16 (relative error up to 2^-8 per token)
/// took normal-distributed inputs with per-token scales to 1.57 times the
/// bf16-KV tolerance (values of opposite sign cancel, the errors do not);
/// with the residual the host executor's and the kernels' outputs agree.
/// bf16 compute of an fp8 cache keeps one term: the fp8-KV tolerance is
/// 2.5 times wider and its P may be quantized to fp8.
bool probabilitiesNeedResidual(const DecodeShape &s, Fp8Residual fp8Residual) {
  if (s.fp8Compute())
    return fp8Residual != Fp8Residual::none;
  return s.kvType.isBF16();
}

} // namespace

DecodeLowering::DecodeLowering(DecodeKernel &d, const ChipInfo &chip,
                               const MFMAOptions &options)
    : DecodeLanes(d, chip, queryTermsOf(d, options.fp8Residual)),
      // The lane mapping (#pa.mfma_layout, verified against the kernel).
      instr(d.layout.getPvK() == kFp8Instr.k ? kFp8Instr : kBf16Instr),
      probResidual(probabilitiesNeedResidual(s, options.fp8Residual)),
      only64BitOffsets(options.cacheOffsets == CacheOffsets::only64Bit),
      keyPrefetch(options.keyPrefetch),
      edgeTileBranch(s.mTiles == 1 || s.headDim <= 128),
      // Rows r of the group have MTP positions q = r / G in [q_lo, q_hi]
      // with q_hi - q_lo <= ceil((rows - 1) / G) (and < Q).
      partlyRunSlots(
          s.queryLength > 1
              ? std::min<int64_t>(s.queryLength - 1,
                                  llvm::divideCeil(s.rows - 1, s.groupSize))
              : 0),
      // Kernels without the edge branch (two M-tiles at D > 128, at the
      // 2-wave register limit) cannot afford the edge tile's score stores
      // (24 VGPRs: 253 to 277 at D = 256, 32 rows on gfx950, 2 waves per
      // SIMD to 1, also without a branch); they score the partly seen
      // tokens after the loop instead (scorePartlySeen).
      partlyScoresInLoop(edgeTileBranch),
      weightsByMFMA(s.fp8Compute() && s.scale != ScaleMode::per_token &&
                    (edgeTileBranch || !wideQK)) {
  vec4 = VectorType::get({kResultElements}, f32);
  // The QK contraction in load chunks of 4 lane groups x 16 bytes (64
  // fp8 / 32 bf16 head dims); a head dim that is no multiple of that
  // (80, 96, 112, ...) ends in a partial chunk whose lane groups past D
  // contribute zeros (lowerQK).
  qkChunkDims = kLaneGroups * s.kvPack;
  qkChunks = d.layout.getQkChunks();
  // The query's terms, one set of rows after the other.
  int64_t queryWords = queryTermWord(queryTerms);
  // The merge reuses the query's LDS: 4 wave slots of rows x chunk f32,
  // chunk a multiple of 16 dividing D, at most the query's size or 8 KiB
  // (16-row groups, which the registers allow 3 waves per SIMD at D > 64)
  // / 16 KiB (32-row groups, register-bound to 2): fewer chunks, fewer
  // barriers, without LDS becoming what limits the occupancy on gfx942.
  // 16-row groups at D <= 64 on packed caches that never keep the next
  // tile's K in flight (bf16 caches, MTP rows: keyPrefetchFits) fit 4
  // waves' registers (113-128 VGPRs); with gfx942's 8 KiB of staged page
  // ids and the statistics, an 8 KiB merge left them 17.2 KiB of LDS, 3
  // workgroups per CU. A 4 KiB one leaves 13.1 KiB: 4 waves, with the same
  // loads in flight per wave (docs/performance.md, eighteenth session).
  // Not the fp8 query-length-1 ones, whose 3-wave kernels prefetch K (8
  // loads in flight per wave against 4 at 4 waves), nor nhd / hnd caches
  // (49-64 in flight at 3 waves, 9-32 at 4).
  const bool fourWaveLds = s.mTiles == 1 && s.headDim <= 64 &&
                           s.layout == CacheLayout::packed &&
                           (s.kvBytes() == 2 || s.queryLength > 1);
  int64_t budgetWords = std::max<int64_t>(
      queryWords, s.mTiles > 1 ? 4096 : (fourWaveLds ? 1024 : 2048));
  chunkDims = s.headDim;
  while (kWaves * s.rows * chunkDims > budgetWords && chunkDims % 32 == 0)
    chunkDims /= 2;
  // Halving stops at an odd number of 16-wide blocks (D = 80: 5, 112: 7)
  // far over the budget (20-56 KiB at D = 80-112): then the largest
  // divisor of 16-wide blocks that fits. A 16-row group keeps the halved
  // chunk within 1.5 times the budget (D = 96: 48, 12 KiB, 21 KiB in all:
  // 3 workgroups per gfx942 CU, as its registers allow); a 32-row group,
  // which the registers allow 2 waves, must fit: D = 96 and 192 merged
  // chunks of 48 (24 KiB), 35 KiB in all, one workgroup per gfx942 CU.
  const int64_t mergeWords = kWaves * s.rows * chunkDims;
  if (s.mTiles == 1 ? 2 * mergeWords > 3 * budgetWords
                    : mergeWords > budgetWords) {
    const int64_t blocks = chunkDims / kBlock;
    for (int64_t parts = 1; parts <= blocks; ++parts)
      if (blocks % parts == 0 &&
          kWaves * s.rows * (chunkDims / parts) <= budgetWords) {
        chunkDims /= parts;
        break;
      }
  }
  scratchWords = std::max(queryWords, kWaves * s.rows * chunkDims);
  pScale = probabilityScale(s);
}

//===----------------------------------------------------------------------===//
// Prologue
//===----------------------------------------------------------------------===//

void DecodeLowering::createLaneIds() {
  ImplicitLocOpBuilder b(d.kernel.getLoc(), ctx);
  b.setInsertionPointToStart(&d.kernel.getBody().front());
  LaneBuilder l(b);
  IndexExpr t = l.idx(gpu::ThreadIdOp::create(b, gpu::Dimension::x));
  tid = t;
  wave = t / kWaveLanes;
  IndexExpr laneExpr = t % kWaveLanes;
  lane = laneExpr;
  rowLane = laneExpr % kBlock;
  group = laneExpr / kBlock;
}

/// The lane's row lane and group again (after the tile loops), from a
/// ballot of every lane (a convergent op, which LLVM neither merges with
/// the prologue's lane ids nor hoists): the epilogue's lane-derived LDS
/// addresses and rows are then computed where they are used instead of
/// being the prologue's values kept live across the loops (three VGPRs
/// that cost the gfx950 32-row D 256 kernels with per-token scales their
/// second wave per SIMD). Also at the start of the 64-bit tile loop's
/// branch, for the same reason. Every lane is active at both places.
void DecodeLowering::renewLaneIds(ImplicitLocOpBuilder &b) {
  LaneBuilder l(b);
  Type i32 = b.getI32Type();
  Value everyLane = ROCDL::BallotOp::create(
      b, b.getI64Type(), arith::ConstantIntOp::create(b, 1, 1));
  Value low = arith::TruncIOp::create(b, i32, everyLane);
  Value high = arith::TruncIOp::create(
      b, i32, arith::ShRUIOp::create(b, everyLane, l.i64(32)));
  Value below =
      ROCDL::MbcntLoOp::create(b, i32, low,
                               arith::ConstantIntOp::create(b, 0, 32),
                               /*arg_attrs=*/nullptr, /*res_attrs=*/nullptr);
  below = ROCDL::MbcntHiOp::create(b, i32, high, below, nullptr, nullptr);
  IndexExpr laneExpr = l.idx(arith::IndexCastUIOp::create(
      b, b.getIndexType(), below));
  lane = laneExpr;
  rowLane = laneExpr % kBlock;
  group = laneExpr / kBlock;
}

void DecodeLowering::computeLaneConstants(ImplicitLocOpBuilder &b) {
  LaneBuilder l(b);
  IndexExpr i = l.idx(rowLane), j = l.idx(group), w = l.idx(wave);
  scoreScale = l.f32(s.scoreScale);
  auto scalarScale = [&](Value scale) {
    return memref::LoadOp::create(b, scale, ValueRange{l.index(0)}).getResult();
  };
  if (s.scale == ScaleMode::per_tensor) {
    scoreScale = l.mulF(scoreScale, scalarScale(d.qk.getKScale()));
    vScaleTensor = buildNaNIfNotFinite(b, b.getLoc(),
                                       scalarScale(d.pv.getVScale()));
  }
  // A non-finite softmax or per-tensor K scale makes every score NaN (an
  // infinite one would give -inf scores, which weigh 0): once, here.
  scoreScale = buildNaNIfNotFinite(b, b.getLoc(), scoreScale);
  TileSoftmaxOp softmax = d.softmax;
  Value context = softmax.getContextLength();
  for (int64_t t = 0; t < s.mTiles; ++t) {
    IndexExpr rowIndex = i + t * kBlock;
    Value scale = scoreScale;
    if (s.fp8Compute())
      scale = l.mulF(scale, memref::LoadOp::create(
                                b, stats,
                                ValueRange{(rowIndex + statsQueryScale()).get()}));
    IndexExpr row = l.idx(softmax.getRowBase()) + rowIndex;
    mTileLanes.push_back(
        {b.getIndexAttr(t * kBlock), scale,
         arith::IndexCastOp::create(b, b.getI32Type(),
                                    (row / s.groupSize).get()),
         l.cmpI(arith::CmpIPredicate::ult, row, l.index(s.totalRows)),
         /*alibiSlope=*/Value(), /*alibiDistance=*/Value()});
  }
  visibleEndBase = buildVisibleEnd(b, b.getLoc(), context, s.queryLength);
  visibleBeginBase = buildVisibleBegin(b, b.getLoc(), visibleEndBase, s.window,
                                       /*clamp=*/false);
  if (partlyRunSlots) {
    Value rowBase = softmax.getRowBase();
    Value lastRow =
        l.subI(l.minSI(l.addI(rowBase, l.index(s.rows)), l.index(s.totalRows)),
               l.index(1));
    Value qLo = l.toI64((l.idx(rowBase) / s.groupSize).get());
    Value qHi = l.toI64((l.idx(lastRow) / s.groupSize).get());
    partlyRunLength = l.subI(qHi, qLo);
    partlyTailStart = l.addI(visibleEndBase, qLo);
    if (visibleBeginBase)
      partlyHeadStart = l.addI(visibleBeginBase, qLo);
  }
  // Keys: lane i loads token qkToken(b, i) of its wave's quarter (one page,
  // since the 16 tokens of a lane's 4 blocks lie in one 16-token group).
  // Pages larger than a tile: the tile's one page (position 0), slots
  // from the tile's own first slot on (placeTileTokens adds it).
  const bool pageHoldsTile = s.pageSize > kTileTokens;
  IndexExpr kFirst = w * kQuarterTokens + qkToken(l.idx(0), i);
  kColumn = kFirst;
  kPageIndex = pageHoldsTile ? l.index(0) : (kFirst / s.pageSize).get();
  kSlot0 = pageHoldsTile ? kFirst : kFirst % s.pageSize;
  // Values, scales and the QK result: lane group j's 16 tokens.
  IndexExpr vFirst = w * kQuarterTokens + pvToken(instr, 0, j, l.idx(0));
  vColumn = vFirst;
  vPageIndex = pageHoldsTile ? l.index(0) : (vFirst / s.pageSize).get();
  vSlot0 = pageHoldsTile ? vFirst : vFirst % s.pageSize;
  laneTokenOffset =
      arith::IndexCastOp::create(b, b.getI32Type(), vFirst.get());
  laneInGroup = arith::IndexCastOp::create(b, b.getI32Type(), i.get());
  if (TileAlibiOp alibi = d.alibi) {
    // The row's own token C - Q + q is the last it sees: visibleEndBase - 1
    // + q (i32: context lengths are below 2^31).
    Value ownBase = arith::TruncIOp::create(
        b, b.getI32Type(), l.subI(visibleEndBase, l.i64(1)));
    Value laneBase = l.subI(laneTokenOffset, ownBase);
    for (auto [t, lanes] : llvm::enumerate(mTileLanes)) {
      // Row r + 16 t has r's head and MTP position q + 16 t / G where G
      // divides 16: M-tile 0's registers, and a constant.
      if (t > 0 && kBlock % s.groupSize == 0) {
        lanes.alibiSlope = mTileLanes[0].alibiSlope;
        lanes.alibiDistance = mTileLanes[0].alibiDistance;
        lanes.alibiShift = int64_t(t) * kBlock / s.groupSize;
        continue;
      }
      IndexExpr row = l.idx(softmax.getRowBase()) + (i + t * kBlock);
      IndexExpr head =
          l.idx(alibi.getKvHead()) * s.groupSize + row % s.groupSize;
      lanes.alibiSlope = emitAlibiSlopeExp2(
          b, memref::LoadOp::create(b, alibi.getAlibiSlopes(),
                                    ValueRange{head.get()}));
      lanes.alibiDistance = l.subI(laneBase, lanes.rowPosition);
    }
  }
}

Value DecodeLowering::spreadToken(LaneBuilder &l, Value perLane,
                                  int64_t token) {
  // DPP_ROW_NEWBCAST0 + n: lane n of the row to all its lanes. Every
  // source lane is in the row, so bound_ctrl never applies; set, it lets
  // the backend fold the move into its user.
  constexpr uint32_t kRowNewBroadcast = 0x150;
  Type i32 = l.b.getI32Type();
  Value bits = arith::BitcastOp::create(l.b, i32, perLane);
  return arith::BitcastOp::create(
      l.b, f32,
      ROCDL::DPPUpdateOp::create(l.b, i32, bits, bits,
                                 kRowNewBroadcast + uint32_t(token),
                                 /*rowMask=*/0xF, /*bankMask=*/0xF,
                                 /*boundCtrl=*/true));
}

Value DecodeLowering::mulTokens(LaneBuilder &l, Value vec, Value perLane,
                                ArrayRef<int64_t> tokens) {
  SmallVector<Value> elements;
  for (auto [k, token] : llvm::enumerate(tokens))
    elements.push_back(
        l.mulF(spreadToken(l, perLane, token), l.extract(vec, k)));
  return vector::FromElementsOp::create(
      l.b, cast<VectorType>(vec.getType()), elements);
}

Value DecodeLowering::combineInLanes(
    LaneBuilder &l, Value value, int64_t lanes,
    function_ref<Value(Value, Value)> combine) {
  // Every source lane is in the row: bound_ctrl never applies, and lets
  // the backend fold the move into its user.
  auto dpp = [&](amdgpu::DPPPerm kind, Attribute argument) {
    return amdgpu::DPPOp::create(l.b, value, value, kind, argument, 0xF, 0xF,
                                 /*bound_ctrl=*/true);
  };
  auto quad = [&](ArrayRef<int32_t> lanes) {
    return l.b.getI32ArrayAttr(lanes);
  };
  // Lanes xor 1 and xor 2 (quad_perm), then the quad's mirror in the
  // half-row and the half-row's mirror in the row: each pairs two groups
  // that already hold their own results.
  const std::pair<amdgpu::DPPPerm, Attribute> steps[] = {
      {amdgpu::DPPPerm::quad_perm, quad({1, 0, 3, 2})},
      {amdgpu::DPPPerm::quad_perm, quad({2, 3, 0, 1})},
      {amdgpu::DPPPerm::row_half_mirror, Attribute()},
      {amdgpu::DPPPerm::row_mirror, Attribute()}};
  for (int64_t step = 0; int64_t{2} << step <= lanes; ++step)
    value = combine(value, dpp(steps[step].first, steps[step].second));
  return value;
}

Value DecodeLowering::waveMaxNum(LaneBuilder &l, Value value) {
  auto max = [&](Value p, Value q) { return l.maxNumF(p, q); };
  return l.butterfly(combineInLanes(l, value, kBlock, max),
                     {kBlock, 2 * kBlock}, max);
}

CacheViews DecodeLowering::globalViews() {
  return {d.qk.getKeyCache(), d.pv.getValueCache(), d.qk.getKScale(),
          d.pv.getVScale()};
}

CacheViews DecodeLowering::fatRawBufferViews(ImplicitLocOpBuilder &b) {
  // A strided view (nhd / hnd K or V of a combined cache) starts its
  // buffer at its own offset, so that the buffer's range (the largest
  // size * stride) covers it.
  auto fat = [&](Value memref) -> Value {
    if (!memref)
      return {};
    bool view = !cast<MemRefType>(memref.getType()).getLayout().isIdentity();
    return amdgpu::FatRawBufferCastOp::create(b, memref, /*validBytes=*/Value(),
                                              /*cacheSwizzleStride=*/Value(),
                                              /*boundsCheck=*/true,
                                              /*resetOffset=*/view);
  };
  CacheViews global = globalViews();
  bool perToken = s.scale == ScaleMode::per_token;
  return {fat(global.keys), fat(global.values),
          perToken ? fat(global.kScale) : global.kScale,
          perToken ? fat(global.vScale) : global.vScale};
}

/// Whether every buffer the loop indexes by page id (caches, per-token
/// scales) has fewer than 2^31 bytes, so that 32-bit buffer offsets reach
/// all of it: `staticFits` for the buffers with a static pool size N and
/// page stride, and an i1 run-time check of the others (null when all are
/// static).
Value DecodeLowering::viewsFit32BitOffsets(ImplicitLocOpBuilder &b,
                                           bool &staticFits) {
  LaneBuilder l(b);
  CacheViews global = globalViews();
  SmallVector<Value> paged = {global.keys, global.values};
  if (s.scale == ScaleMode::per_token)
    paged.append({global.kScale, global.vScale});
  constexpr int64_t kLimit = (int64_t{1} << 31) - 1;
  staticFits = true;
  Value fits;
  for (Value memref : paged) {
    auto type = cast<MemRefType>(memref.getType());
    std::optional<int64_t> pageBytes = bytesPerPage(type);
    if (!pageBytes) {
      std::optional<int64_t> inner = innerSpanOfRunTimePageStride(type);
      if (!inner) {
        staticFits = false; // other dynamic strides: the 64-bit loop only
        continue;
      }
      // A run-time page stride: page i starts i * stride elements in, so
      // the buffer ends below pages * max(stride, inner span). Both
      // factors are bounded first, so that their product cannot overflow.
      int64_t limit = kLimit / (type.getElementTypeBitWidth() / 8);
      Value stride = l.toI64(
          memref::ExtractStridedMetadataOp::create(b, memref).getStrides()[0]);
      Value step = l.maxSI(stride, l.i64(*inner));
      Value pages = l.toI64(memref::DimOp::create(b, memref, 0));
      Value bound = l.i64(limit);
      Value end = arith::MulIOp::create(b, pages, step);
      Value fitsOne = l.andI(
          l.andI(l.cmpI(arith::CmpIPredicate::sle, step, bound),
                 l.cmpI(arith::CmpIPredicate::sle, pages, bound)),
          l.cmpI(arith::CmpIPredicate::sle, end, bound));
      fits = fits ? l.andI(fits, fitsOne) : fitsOne;
      continue;
    }
    if (!type.isDynamicDim(0)) {
      staticFits = staticFits && type.getDimSize(0) <= kLimit / *pageBytes;
      continue;
    }
    Value pages = l.toI64(memref::DimOp::create(b, memref, 0));
    Value fitsOne = l.cmpI(arith::CmpIPredicate::sle, pages,
                           l.i64(kLimit / *pageBytes));
    fits = fits ? l.andI(fits, fitsOne) : fitsOne;
  }
  return staticFits ? fits : Value();
}

Value DecodeLowering::groupBound(LaneBuilder &l, Value bound, Value tileStart,
                                 Value shift) {
  // The tile-relative bound is the same for every lane (scalar i64 math);
  // clamped to [-256 - Q, 256] it fits i32 and keeps its clamped meaning
  // after the lane's shift (< Q) and offset (<= 240) are applied in i32.
  Value relative = l.subI(bound, tileStart);
  Value inTile = l.minSI(l.maxSI(relative, l.i64(-kTileTokens - s.queryLength)),
                         l.i64(kTileTokens));
  Value lane = arith::TruncIOp::create(l.b, l.b.getI32Type(), inTile);
  if (shift)
    lane = l.addI(lane, shift);
  lane = l.subI(lane, laneTokenOffset);
  return l.minSI(l.maxSI(lane, l.i32(0)), l.i32(kGroupTokens));
}

DecodeLowering::LanePageWindow
DecodeLowering::lanePageWindow(LaneBuilder &l, TilePageIdsOp op,
                               TilePageRange range) {
  // Page k of the tile holds tokens firstToken + [kP, kP + P), kP + P <=
  // span. Relative to firstToken and clamped to [-1, span], the visible
  // bounds [lo, hi) fit i32 and meet [kP, kP + P) as the unclamped ones
  // do: kP < hi, lo - P < kP and lo < hi. The lane keeps only kP.
  int64_t pageSize = op.getPageSize();
  int64_t span = std::max(kTileTokens, pageSize);
  auto relative = [&](Value bound) {
    Value inTile = l.minSI(
        l.maxSI(l.subI(bound, range.firstToken), l.i64(-1)), l.i64(span));
    return arith::TruncIOp::create(l.b, l.b.getI32Type(), inTile).getResult();
  };
  LanePageWindow window;
  window.firstPage = arith::IndexCastUIOp::create(l.b, l.b.getI32Type(),
                                                  range.firstPage);
  window.end = relative(op.getVisibleEnd());
  // Without a window the visible range starts at token 0, before every
  // page's end.
  if (!matchPattern(op.getVisibleBegin(), m_Zero())) {
    Value begin = relative(op.getVisibleBegin());
    window.beforeFirstPage = l.subI(begin, l.i32(pageSize));
    window.nonEmpty = l.cmpI(arith::CmpIPredicate::slt, begin, window.end);
  }
  return window;
}

Value DecodeLowering::lanePageId(LaneBuilder &l, TilePageIdsOp op,
                                 const LanePageWindow &window,
                                 Value position) {
  ImplicitLocOpBuilder &b = l.b;
  Value k = arith::IndexCastUIOp::create(b, b.getI32Type(), position);
  Value pageBegin = l.mulI(k, l.i32(op.getPageSize()));
  Value visible = l.cmpI(arith::CmpIPredicate::slt, pageBegin, window.end);
  if (window.beforeFirstPage)
    visible = l.andI(
        l.andI(visible, l.cmpI(arith::CmpIPredicate::sgt, pageBegin,
                               window.beforeFirstPage)),
        window.nonEmpty);
  // The column as one i32 sum, widened unsigned: the address is then the
  // uniform row plus a 32-bit lane offset, with no lane's 64-bit pointer
  // kept across the tile loop.
  Value column = arith::IndexCastUIOp::create(
      b, b.getIndexType(), l.addI(window.firstPage, k));
  return buildBlockTableReadIf(b, b.getLoc(), op, visible, l.i32(0),
                               [&](OpBuilder &, Location) { return column; });
}

Value DecodeLowering::positionsIn(LaneBuilder &l, int64_t first, int64_t n,
                                  Value lo, Value hi) {
  auto type = VectorType::get({n}, l.b.getI32Type());
  SmallVector<int64_t> positions;
  for (int64_t e = 0; e < n; ++e)
    positions.push_back(first + e);
  Value iota = l.vectorOf(type, positions);
  Value aboveLo = l.cmpI(arith::CmpIPredicate::sge, iota, l.broadcast(type, lo));
  Value belowHi = l.cmpI(arith::CmpIPredicate::slt, iota, l.broadcast(type, hi));
  return l.andI(aboveLo, belowHi);
}

SmallVector<Value>
DecodeLowering::laneElements(ImplicitLocOpBuilder &b, Value vec,
                             ArrayRef<Value> positions,
                             DenseMap<Value, SmallVector<Value>> &known) {
  auto done = known.find(vec);
  if (done != known.end())
    return done->second;
  SmallVector<Value> elements = elementsOf(b, vec, positions, known);
  known[vec] = elements;
  return elements;
}

SmallVector<Value>
DecodeLowering::elementsOf(ImplicitLocOpBuilder &b, Value vec,
                           ArrayRef<Value> positions,
                           DenseMap<Value, SmallVector<Value>> &known) {
  LaneBuilder l(b);
  auto each = [&](auto element) {
    SmallVector<Value> elements;
    for (auto [n, position] : llvm::enumerate(positions))
      elements.push_back(element(n, position));
    return elements;
  };
  Operation *def = vec.getDefiningOp();
  if (auto select = dyn_cast_or_null<arith::SelectOp>(def)) {
    Value cond = select.getCondition();
    SmallVector<Value> conds(positions.size(), cond);
    if (isa<VectorType>(cond.getType()))
      conds = laneElements(b, cond, positions, known);
    SmallVector<Value> whenTrue =
        laneElements(b, select.getTrueValue(), positions, known);
    SmallVector<Value> whenFalse =
        laneElements(b, select.getFalseValue(), positions, known);
    return each([&](size_t n, Value) {
      return l.select(conds[n], whenTrue[n], whenFalse[n]);
    });
  }
  if (auto cmp = dyn_cast_or_null<arith::CmpIOp>(def)) {
    SmallVector<Value> lhs = laneElements(b, cmp.getLhs(), positions, known);
    SmallVector<Value> rhs = laneElements(b, cmp.getRhs(), positions, known);
    return each([&](size_t n, Value) {
      return l.cmpI(cmp.getPredicate(), lhs[n], rhs[n]);
    });
  }
  if (auto splat = dyn_cast_or_null<vector::BroadcastOp>(def))
    if (!isa<VectorType>(splat.getSource().getType()))
      return SmallVector<Value>(positions.size(), splat.getSource());
  if (auto constant = dyn_cast_or_null<arith::ConstantOp>(def))
    if (auto dense = dyn_cast<SplatElementsAttr>(constant.getValue()))
      return SmallVector<Value>(
          positions.size(),
          arith::ConstantOp::create(b, dense.getSplatValue<TypedAttr>()));
  if (auto load = dyn_cast_or_null<vector::LoadOp>(def))
    if (load.getIndices().size() == 1)
      return each([&](size_t, Value position) -> Value {
        return memref::LoadOp::create(
            b, load.getBase(),
            ValueRange{l.addI(load.getIndices().front(), position)});
      });
  if (auto branch = dyn_cast_or_null<scf::IfOp>(def)) {
    // The same branch, yielding the elements: each side's ops are cloned
    // and the yielded vector is reduced to the elements there.
    unsigned result = cast<OpResult>(vec).getResultNumber();
    Type element = cast<VectorType>(vec.getType()).getElementType();
    auto scalar = scf::IfOp::create(
        b, SmallVector<Type>(positions.size(), element), branch.getCondition(),
        true);
    for (auto [from, to] :
         llvm::zip(branch->getRegions(), scalar->getRegions())) {
      OpBuilder::InsertionGuard guard(b);
      Block &block = to.front();
      if (!block.empty())
        block.getTerminator()->erase();
      b.setInsertionPointToEnd(&block);
      IRMapping inner;
      for (Operation &op : from.front().without_terminator())
        b.clone(op, inner);
      Value yielded = inner.lookupOrDefault(
          from.front().getTerminator()->getOperand(result));
      scf::YieldOp::create(b, laneElements(b, yielded, positions, known));
      for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
        if (isOpTriviallyDead(&op))
          op.erase();
    }
    return SmallVector<Value>(scalar.getResults().begin(),
                              scalar.getResults().end());
  }
  if (auto direct = dyn_cast_or_null<TilePageIdsOp>(def)) {
    // Past the staged tiles: the one block-table entry, by the op's rule.
    auto constant = [&](TypedAttr value) -> Value {
      return arith::ConstantOp::create(b, value);
    };
    TilePageRange range =
        buildTilePageRange(b, b.getLoc(), direct, direct.getTile(), constant);
    LanePageWindow window = lanePageWindow(l, direct, range);
    return each([&](size_t, Value position) {
      return lanePageId(l, direct, window, position);
    });
  }
  return each([&](size_t, Value position) -> Value {
    return vector::ExtractOp::create(b, vec, OpFoldResult(position));
  });
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

LogicalResult DecodeLowering::run() {
  gpu::GPUFuncOp kernel = d.kernel;
  Location loc = kernel.getLoc();
  SmallVector<Value> tileBuffers = {
      d.loadQuery.getQueryTile(), d.qk.getScores(), d.initSoftmax.getRowMax(),
      d.initSoftmax.getRowSum(), d.initSoftmax.getAcc()};
  scratch = kernel.addWorkgroupAttribution(
      workgroupMemRef({scratchWords + 1}, IntegerType::get(ctx, 32)), loc);
  stats = kernel.addWorkgroupAttribution(
      workgroupMemRef({statsWords()}, f32), loc);
  // What the kernel keeps once the tile buffers go (eraseWorkgroupAttributions
  // below): workgroupMemoryBytes counts static shapes, as the buffers are.
  ldsBytes = workgroupMemoryBytes(kernel);
  for (Value buffer : tileBuffers)
    if (auto type = cast<MemRefType>(buffer.getType()); type.hasStaticShape())
      ldsBytes -= type.getNumElements() *
                  llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  prefetchKeys = keyPrefetch == KeyPrefetch::nextTile ||
                 (keyPrefetch == KeyPrefetch::automatic && keyPrefetchFits());
  if (partlySlots()) {
    // pa-tile's page ids: select(ids <u broadcast(N), ids, 0) of a
    // pa.tile.page_ids (staged or direct).
    d.tileLoop.walk([&](TilePageIdsOp op) { pageIdsRule = op; });
    auto guard = d.pv.getPageIds().getDefiningOp<arith::SelectOp>();
    auto inPool = guard ? guard.getCondition().getDefiningOp<arith::CmpIOp>()
                        : arith::CmpIOp();
    auto bound = inPool ? inPool.getRhs().getDefiningOp<vector::BroadcastOp>()
                        : vector::BroadcastOp();
    if (!pageIdsRule || !bound || !d.tileLoop.isDefinedOutsideOfLoop(
                                      bound.getSource()))
      return kernel.emitError(
          "pa-to-mfma: expected the tile's page ids guarded by the pool size");
    poolSize = bound.getSource();
  }
  // f32 denormals flush to zero in this kernel: exp2 is then one
  // v_exp_f32 (no range reduction for denormal results). Weights and sums
  // below 2^-126 are far under the contract's tolerance.
  kernel->setAttr("denormal_fp_math_f32",
                  StringAttr::get(ctx, "preserve-sign"));
  createLaneIds();

  distributePageIdFills();
  // The tile ops in program order: a pattern hands state to a later one
  // (the tile loop's results to store_partials').
  RewritePatternSet patterns(ctx);
  populateTileOpToMFMAPatterns(patterns, *this);
  FrozenRewritePatternSet frozen(std::move(patterns));
  PatternApplicator patternsByOp(frozen);
  patternsByOp.applyDefaultCostModel();
  applicator = &patternsByOp;
  for (Operation *op :
       {d.loadQuery.getOperation(), d.initSoftmax.getOperation(),
        d.tileLoop.getOperation(), d.storePartials.getOperation()})
    lowerByPattern(op);
  applicator = nullptr;
  // The tiled loop last: the epilogue still reads its tile ops' operands
  // (scorePartlySeen, partlySeenPlace's page-id rule).
  d.tileLoop.erase();

  // The page-id reads left (the staged loads' fallback, fills of another
  // shape) read the block table by the op's rule, uniformly on every lane.
  SmallVector<TilePageIdsOp> direct;
  kernel.walk([&](TilePageIdsOp op) { direct.push_back(op); });
  for (TilePageIdsOp op : direct)
    if (failed(lowerTilePageIdsToLoop(op)))
      return failure();
  eraseWorkgroupAttributions(kernel, tileBuffers);
  // IEEE mode off: maxnum is then one v_max_f32 (no NaN quieting of its
  // inputs), which drops NaN; NaN scores still reach the sums through
  // exp2, and a NaN sum decides the partials (mergeAndStore). The
  // occupancy request follows the LDS the lowered kernel has (ldsBytes).
  Builder attrs(ctx);
  kernel->setAttr(
      "passthrough",
      attrs.getArrayAttr(
          {attrs.getStrArrayAttr({"amdgpu-ieee", "false"}),
           attrs.getStrArrayAttr(
               {"amdgpu-waves-per-eu", occupancyRequest()})}));
  return success();
}

bool DecodeLowering::keyPrefetchFits() const {
  // One tile's K is 4 words per lane, M-tile-independent, per 16-byte load:
  // 32 VGPRs at D = 128 fp8. Measured (docs/mfma-lowering.md): 32-row fp8
  // kernels at D = 128 take it within 256 (203-208 -> 226-244 VGPRs,
  // windows, ALiBi and soft caps included), per-token scales too where each
  // lane holds its own token's (scalesPerLane: 204-232 -> 228-244), not
  // the group's 16 (pages under 16 tokens: 238-251 -> 259-269 + 3-13
  // AGPRs, 1 wave); at D = 64 they keep their waves, except per-token
  // kernels, which hold 3 on gfx950 since their scales are per lane
  // (155-170 -> 175-186 VGPRs: 3 -> 2); D = 80, whose partial last chunk
  // costs K's full 32 words beside a smaller kernel (163-169 VGPRs, 3
  // waves), loses its third wave; bf16 caches (twice the words) a wave at
  // D = 64. nhd / hnd caches: at D = 128 with pages of 2 tokens or more
  // 207-248 VGPRs with it, 2 waves (208-248 without); not page size 1
  // (already 1 wave, 36-38 AGPRs more), nor D = 64 (gfx950 142 -> 169: its
  // third wave). 16-row kernels: packed caches at query length 1 where the
  // LDS or D allows at most 3 waves (wavesAllowed; gfx942 at D <= 64 and
  // 128): 73 configurations measured (pages 16 / 64, windows, ALiBi, soft
  // caps, every scale mode) 122-145 -> 126-167 VGPRs, 3 waves kept; and at
  // D = 128 where 4 are allowed (gfx950), which then asks 3
  // (requestedWaves): its 4-wave kernels (122-135 VGPRs) had 2-4 K loads
  // in flight per wave, 9-12 with the prefetch at 3 waves (150-165
  // VGPRs). Not D 64 or 80 where 4 are allowed (gfx950 D 64, gfx942 D 80:
  // their 4-wave kernels keep a tile's K in flight, 4-10 loads), nor MTP
  // rows (Q > 1) or nhd / hnd caches, 12 of 74 of which lost their third
  // wave on gfx942 (146-159 -> 170-203).
  if (s.kvBytes() != 1)
    return false;
  if (s.mTiles == 1 &&
      ((wavesAllowed() > 3 && s.headDim != 128) ||
       s.layout != CacheLayout::packed || s.queryLength != 1))
    return false;
  const int64_t words = 4 * tileKeyLoads();
  if (s.scale == ScaleMode::per_token && (!scalesPerLane() || words <= 16))
    return false;
  if (s.layout != CacheLayout::packed && (s.headDim != 128 || s.pageSize < 2))
    return false;
  const bool wholeChunks = s.headDim == qkChunks * qkChunkDims;
  return words <= 32 && (words <= 16 || wholeChunks);
}

int64_t DecodeLowering::wavesAllowed() const {
  if (d.shape.mTiles > 1)
    return 2;
  int64_t byLds = chip.workgroupMemoryBytes / std::max<int64_t>(ldsBytes, 1);
  // Asking for waves the registers cannot give costs a futile code
  // generation before the step down. 4 waves is 128 VGPRs, which 16-row
  // kernels reach up to D = 128 (121-129 measured) and not beyond (D = 256:
  // 163-180); 3 is 168, which they never reach beyond D = 256 (D = 512:
  // 223-255 VGPRs; 168 of 168 gfx950 kernels, whose LDS allows 3, spilled
  // at 3 and were generated again: 0.58-0.60 s CPU against 0.37-0.38 on
  // gfx942, which asks 2; docs/performance.md, seventeenth session).
  const int64_t byHeadDim =
      d.shape.headDim <= 128 ? 4 : (d.shape.headDim <= 256 ? 3 : 2);
  return std::clamp<int64_t>(byLds, 2, byHeadDim);
}

std::string DecodeLowering::occupancyRequest() const {
  const std::string waves = std::to_string(requestedWaves());
  // 32-row groups of bf16 caches at D >= 96 never reach 3 waves (175-256
  // VGPRs), but asked for "at least 2" the scheduler aimed at the waves
  // the LDS allows and serialized their K / V loads to get there: of 40
  // packed-cache kernels (D 96-256, both chips) whose code the exact
  // request changes, 22 went from 5 loads in flight on the loop's full-tile
  // path to 12-16, two from 16 to 12, the rest within 2; waves unchanged
  // (docs/performance.md, seventeenth session). Below D = 96 the open
  // request is what gives them a third wave; fp8 and nhd / hnd kernels
  // gain nothing from the exact one.
  if (d.shape.mTiles > 1 && s.kvBytes() == 2 &&
      s.layout == CacheLayout::packed && s.headDim >= 96)
    return waves + "," + waves;
  return waves;
}

int64_t DecodeLowering::requestedWaves() const {
  // A 16-row kernel that keeps the next tile's K in flight (32 VGPRs at
  // D = 128) asks 3: at 4 (gfx950's LDS allows them at D = 128) the
  // scheduler fits 128 VGPRs by serializing K's loads, 2-4 in flight per
  // wave instead of 9-12 (docs/performance.md, fifteenth session).
  if (prefetchKeys && d.shape.mTiles == 1)
    return std::min<int64_t>(wavesAllowed(), 3);
  // 16-row kernels with per-token scales on nhd / hnd caches (the scale of
  // each lane's token beside its K and V rows) need 148-170 VGPRs at
  // D = 80-128, never the 128 of 4 waves (84 of 84 configurations and
  // chips spilled at 4), and 230-239 at D = 256, never the 168 of 3 (72 of
  // 72: pages 16 / 32 / 64, windows, ALiBi, soft caps, page strides,
  // combined caches); D = 64 and 192 do fit (docs/performance.md,
  // seventeenth session).
  if (d.shape.mTiles == 1 && s.scale == ScaleMode::per_token &&
      s.layout != CacheLayout::packed) {
    if (s.headDim > 192)
      return std::min<int64_t>(wavesAllowed(), 2);
    if (s.headDim >= 80)
      return std::min<int64_t>(wavesAllowed(), 3);
  }
  return wavesAllowed();
}

void DecodeLowering::lowerByPattern(Operation *op) {
  PatternRewriter rewriter(ctx);
  bool rewritten = succeeded(applicator->matchAndRewrite(op, rewriter));
  assert(rewritten && "every tile op has its pattern");
  (void)rewritten;
}

void mfma::populateTileOpToMFMAPatterns(RewritePatternSet &patterns,
                                        DecodeLowering &lowering) {
  populateLoadQueryToMFMAPatterns(patterns, lowering);
  populateTileLoopToMFMAPatterns(patterns, lowering);
  populateQKToMFMAPatterns(patterns, lowering);
  populateSoftmaxToMFMAPatterns(patterns, lowering);
  populatePVToMFMAPatterns(patterns, lowering);
  populateStorePartialsToMFMAPatterns(patterns, lowering);
}

LogicalResult mfma::lowerDecodeKernel(DecodeKernel &decode,
                                      const ChipInfo &chip,
                                      const MFMAOptions &options) {
  return DecodeLowering(decode, chip, options).run();
}
