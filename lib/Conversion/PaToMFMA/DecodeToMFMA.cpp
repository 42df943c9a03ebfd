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
//===----------------------------------------------------------------------===//
#include "DecodeLanes.h"

#include "pa/Transforms/KernelBuilder.h"
#include "pa/Transforms/ScoreMath.h"
#include "pa/Transforms/TileLowering.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/Support/MathExtras.h"

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

/// Where the lane code reads K, V and the per-token scales from: fat raw
/// buffers (32-bit offsets, buffer_load) or the plain global memrefs.
struct CacheViews {
  Value keys, values, kScale, vScale;
};

/// One M-tile's loop-invariant lane values. The M-tile is a constant for
/// the loops over all M-tiles, a run-time value for the 64-bit loop that
/// runs them one after the other (DecodeLowering::emitTileLoops).
struct MTileLanes {
  OpFoldResult firstRow; // index: 16 t
  Value rowScale;        // f32: the row's score scale
  // Row r = q * G + g sees [max(0, C - Q + 1 + q - W), C - Q + 1 + q): the
  // bounds are a scalar base (i64) plus the lane's MTP position q.
  Value rowPosition; // i32 q
  Value isQueryRow;  // i1 (r < Q * G)
  // ALiBi (null without): the row's slope in the exp2 domain (f32), and
  // the distance (i32) of the lane's first score token of a tile starting
  // at token 0 from the row's own token C - Q + q.
  Value alibiSlope, alibiDistance;
};

/// Per-lane state carried through one tile loop, for the M-tiles `mTiles`
/// that loop computes.
struct LaneState {
  SmallVector<MTileLanes> mTiles; // not carried
  /// Word offset of the query in LDS: always 0, but carried through the
  /// loop from an LDS word LLVM cannot see is 0, so that the query reads
  /// stay in the loop instead of being hoisted into registers for all of
  /// it (32 VGPRs at D = 256, 32 rows: the difference between 1 and 2 waves
  /// per SIMD).
  Value queryOffset;
  SmallVector<Value> rowMax, rowSum; // per M-tile; rowSum is lane-partial
  /// fp8 compute: per M-tile, the lane-partial sum of the weights the PV
  /// product actually used (the quantized P, scales divided out again);
  /// the output is normalized by it, so that P's rounding shifts
  /// numerator and denominator alike. rowSum stays the exact sum (the
  /// partial's exp_sums).
  SmallVector<Value> rowWeight;
  Value valueUnit;                   // per-token V scales: the wave's unit
  SmallVector<SmallVector<Value>> out; // [M-tile][d block] vector<4xf32>

  SmallVector<Value> flatten() const {
    SmallVector<Value> values = {queryOffset};
    values.append(rowMax);
    values.append(rowSum);
    values.append(rowWeight);
    if (valueUnit)
      values.push_back(valueUnit);
    for (const SmallVector<Value> &blocks : out)
      values.append(blocks);
    return values;
  }
  /// The inverse of flatten for a state shaped like `like`.
  static LaneState unflatten(ValueRange values, const LaneState &like) {
    LaneState state;
    state.mTiles = like.mTiles;
    auto take = [&](size_t n) {
      SmallVector<Value> part(values.take_front(n));
      values = values.drop_front(n);
      return part;
    };
    state.queryOffset = take(1).front();
    state.rowMax = take(like.rowMax.size());
    state.rowSum = take(like.rowSum.size());
    state.rowWeight = take(like.rowWeight.size());
    if (like.valueUnit)
      state.valueUnit = take(1).front();
    for (const SmallVector<Value> &blocks : like.out)
      state.out.push_back(take(blocks.size()));
    return state;
  }
};

/// What the epilogue merges: every M-tile's final lane state.
struct WaveResult {
  SmallVector<Value> rowMax, rowSum, rowWeight;
  SmallVector<Value> valueUnit; // per M-tile; empty without per-token scales
  SmallVector<SmallVector<Value>> out;

  void append(const LaneState &state) {
    rowMax.append(state.rowMax);
    rowSum.append(state.rowSum);
    rowWeight.append(state.rowWeight);
    for (size_t k = 0; k < state.mTiles.size(); ++k) {
      if (state.valueUnit)
        valueUnit.push_back(state.valueUnit);
      out.push_back(state.out[k]);
    }
  }
  SmallVector<Value> flatten() const {
    SmallVector<Value> values(rowMax);
    values.append(rowSum);
    values.append(rowWeight);
    values.append(valueUnit);
    for (const SmallVector<Value> &blocks : out)
      values.append(blocks);
    return values;
  }
  static WaveResult unflatten(ValueRange values, const WaveResult &like) {
    WaveResult result;
    auto take = [&](size_t n) {
      SmallVector<Value> part(values.take_front(n));
      values = values.drop_front(n);
      return part;
    };
    result.rowMax = take(like.rowMax.size());
    result.rowSum = take(like.rowSum.size());
    result.rowWeight = take(like.rowWeight.size());
    result.valueUnit = take(like.valueUnit.size());
    for (const SmallVector<Value> &blocks : like.out)
      result.out.push_back(take(blocks.size()));
    return result;
  }
};

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

bool isWorkgroupMemRef(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  return type && gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(type);
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

/// Whether the QK product also multiplies the query's residual in the
/// compute type: fp8 compute with fp8-residual=query-and-p, and bf16
/// compute of an f16 query (bf16 keeps 8 of its 11 significant bits; with
/// normal-distributed inputs that moved peaked softmaxes by twice the
/// bf16-KV tolerance).
bool queryNeedsResidual(DecodeKernel &d, Fp8Residual fp8Residual) {
  if (d.shape.fp8Compute())
    return fp8Residual == Fp8Residual::queryAndProbabilities;
  Type query =
      cast<MemRefType>(d.loadQuery.getQuery().getType()).getElementType();
  return query.getIntOrFloatBitWidth() == 16 && query != d.shape.computeType;
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

class DecodeLowering : DecodeLanes {
public:
  DecodeLowering(DecodeKernel &d, const ChipInfo &chip,
                 const MFMAOptions &options)
      : DecodeLanes(d, chip, queryNeedsResidual(d, options.fp8Residual)),
        // The lane mapping (#pa.mfma_layout, verified against the kernel).
        instr(d.layout.getPvK() == kFp8Instr.k ? kFp8Instr : kBf16Instr),
        probResidual(probabilitiesNeedResidual(s, options.fp8Residual)),
        only64BitOffsets(options.cacheOffsets == CacheOffsets::only64Bit),
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
        partlyScoresInLoop(edgeTileBranch) {
    vec4 = VectorType::get({kResultElements}, f32);
    // The QK contraction in load chunks of 4 lane groups x 16 bytes (64
    // fp8 / 32 bf16 head dims); a head dim that is no multiple of that
    // (80, 96, 112, ...) ends in a partial chunk whose lane groups past D
    // contribute zeros (emitTileStep).
    qkChunkDims = kLaneGroups * s.kvPack;
    qkChunks = d.layout.getQkChunks();
    // With its residual the query's residual rows follow its rows.
    int64_t queryWords = (queryResidual ? 2 : 1) * s.rows * queryRowWords;
    // The merge reuses the query's LDS: 4 wave slots of rows x chunk f32,
    // chunk a multiple of 16 dividing D, at most the query's size or 8 KiB
    // (16-row groups, which the registers would allow 3-4 waves per SIMD)
    // / 16 KiB (32-row groups, register-bound to 2): fewer chunks, fewer
    // barriers, without LDS becoming what limits the occupancy on gfx942.
    int64_t budgetWords =
        std::max<int64_t>(queryWords, s.mTiles == 1 ? 2048 : 4096);
    chunkDims = s.headDim;
    while (kWaves * s.rows * chunkDims > budgetWords && chunkDims % 32 == 0)
      chunkDims /= 2;
    // Halving stops at an odd number of 16-wide blocks (D = 80: 5, 112: 7)
    // far over the budget (20-56 KiB at D = 80-112): then the largest
    // divisor of 16-wide blocks that fits. Within 1.5 times the budget the
    // halved chunk stays (D = 192: 48, as measured before).
    if (2 * kWaves * s.rows * chunkDims > 3 * budgetWords) {
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

  LogicalResult run();

private:
  // -- prologue --
  void createLaneIds();
  void distributePageIdFills();
  bool distributeFill(TilePageIdsOp ids);
  void computeLaneConstants(ImplicitLocOpBuilder &b);
  CacheViews fatRawBufferViews(ImplicitLocOpBuilder &b);
  CacheViews globalViews();
  Value viewsFit32BitOffsets(ImplicitLocOpBuilder &b, bool &staticFits);
  // -- tile loop --
  LaneState initialState(ImplicitLocOpBuilder &b,
                         ArrayRef<MTileLanes> mTiles);
  LaneState emitTileLoop(ImplicitLocOpBuilder &b, const CacheViews &views,
                         const LaneState &init);
  /// The tile loops over `views`: one loop for all M-tiles (each K/V load
  /// serves both), or one M-tile at a time (half the accumulators live at
  /// once).
  WaveResult emitTileLoops(ImplicitLocOpBuilder &b, const CacheViews &views,
                           bool loopPerMTile);
  /// One tile loop that runs once per M-tile in a run-time loop over the
  /// M-tiles: a copy of the tile loop per M-tile would double its code and
  /// the kernel's compile time.
  WaveResult emitMTileAtATimeLoop(ImplicitLocOpBuilder &b,
                                  const CacheViews &views);
  LaneState emitTileStep(ImplicitLocOpBuilder &b, IRMapping &map,
                         const CacheViews &views, const LaneState &state);
  /// Whether every row sees every token of the tile and every token is in
  /// the op's valid range (uniform): then the step masks nothing.
  Value tileIsFull(LaneBuilder &l, IRMapping &map, Value tileStart);
  /// `whole` where the tile is full (`full`, uniform), else what `mask`
  /// builds: one uniform branch, the masking on its edge-tile side only.
  SmallVector<Value> unlessFull(ImplicitLocOpBuilder &b, Value full,
                                ArrayRef<Value> whole,
                                function_ref<SmallVector<Value>()> mask);
  /// The output accumulators `out` (blocks per M-tile) times each M-tile's
  /// per-lane `outScales`. Those are exactly 1 on every lane of the wave in
  /// a tile where no row's maximum rose and the V unit stayed (most tiles
  /// of a long row), so one uniform branch (a ballot of the lanes whose
  /// factor is not 1) skips the multiplies then, where registers allow
  /// (`branch`, the edge branch's kernels: at D = 256 with two M-tiles the
  /// branch took gfx950's per-token kernel from 256 to 259 VGPRs).
  SmallVector<SmallVector<Value>>
  rescaleOutputs(LaneBuilder &l, ArrayRef<SmallVector<Value>> out,
                 ArrayRef<Value> outScales, bool branch);
  /// An edge tile's masking: the scores (flattened by M-tile) with tokens
  /// a row does not see at -inf, and `vScales` (null without per-token
  /// scales: the lane's token's, or its group's 16; see laneScales) 0
  /// outside the valid range.
  SmallVector<Value> maskEdgeTile(LaneBuilder &l, IRMapping &map,
                                  const LaneState &state,
                                  ArrayRef<SmallVector<Value>> scores,
                                  Value vScales, Value tileStart);
  /// Per-token values held one per lane (laneScales): lane (i, j) holds
  /// token i of lane group j's 16 (lane group j is DPP row j).
  /// `spreadToken` gives each lane of group j the value of its group's
  /// token `token`, a DPP row_newbcast (gfx90a and later); `mulTokens`
  /// multiplies element k of `vec` by token tokens[k]'s value, element by
  /// element so that the backend folds each broadcast into its
  /// v_mul_f32_dpp (a packed v_pk_mul_f32 takes no DPP operand).
  Value spreadToken(LaneBuilder &l, Value perLane, int64_t token);
  Value mulTokens(LaneBuilder &l, Value vec, Value perLane,
                  ArrayRef<int64_t> tokens);
  /// The maximum of `value` over the wave's 64 lanes: DPP within each row
  /// of 16 lanes (v_max_f32_dpp), then xor shuffles across the rows.
  Value waveMaxNum(LaneBuilder &l, Value value);
  /// `value` combined over each aligned group of `lanes` (2, 4, 8 or 16)
  /// lanes by DPP moves, which need no lane addresses (a ds_bpermute's
  /// shuffle does; LLVM kept those of the query staging's shuffles live
  /// across the tile loop for scorePartlySeen's, 255 to 260 VGPRs).
  Value combineInLanes(LaneBuilder &l, Value value, int64_t lanes,
                       function_ref<Value(Value, Value)> combine);
  /// Per 16-byte V load of a lane group, the i32 words that keep the bytes
  /// of the tokens the shared product multiplies (productBounds) and zero
  /// the others: 0 * NaN must not reach the output.
  SmallVector<Value> validValueWords(LaneBuilder &l, IRMapping &map,
                                     Value tileStart);
  /// The lane group's bounds (groupBound) of the tokens whose V the shared
  /// PV product multiplies: the op's valid range less the partly seen
  /// tokens, which the epilogue adds (partlySeenShare).
  std::pair<Value, Value> productBounds(LaneBuilder &l, IRMapping &map,
                                        Value tileStart);
  // -- tokens some rows of the group see and others do not (MTP) --
  // Row q sees [vB + q, vE + q): of the group's positions [q_lo, q_hi],
  // the tokens of the tail run [vE + q_lo, vE + q_hi) and, with a window,
  // of the head run [vB + q_lo, vB + q_hi) are seen by some rows only. In
  // the shared PV product their V would meet the other rows' zero P, and
  // a NaN or infinite V (or V scale) gives 0 * NaN = NaN in rows that do
  // not see it. So they are kept out of the product (productBounds), the
  // edge tile holding them writes their masked scores and cache places to
  // LDS (storePartlySeen; kernels at the register limit score them after
  // the loop instead: scorePartlySeen), and the epilogue adds
  // exp2(s - M) V / L per output element (partlySeenShare): at most
  // 2 (Q - 1) tokens, none of it in full tiles.
  /// Slots of both runs: the tail run's, then the head run's.
  int64_t partlySlots() const {
    return partlyRunSlots * (s.window > 0 ? 2 : 1);
  }
  void initPartlySeen(ImplicitLocOpBuilder &b);
  /// Writes, in a tile that meets a run, each run token's masked scores
  /// (-inf for rows that do not see it) and its V page and slot (`place`
  /// of the lane group's token e).
  void storePartlySeen(LaneBuilder &l, IRMapping &map, const LaneState &state,
                       ArrayRef<Value> scores, Value tileStart);
  /// Writes the same masked scores after the tile loop (accumulators live,
  /// loop registers free): per row, its lanes split the head dims of the
  /// dot product of the query row (f32, from global memory) and the
  /// token's K, then the loop's score steps (scale, K scale, non-finite
  /// check, soft cap, ALiBi) and the row's mask. Only tokens of this
  /// partition's tiles are scored.
  void scorePartlySeen(ImplicitLocOpBuilder &b);
  /// The token (i64) of slot `slot` (index): the tail run's slots, then
  /// the head run's.
  Value partlySeenToken(LaneBuilder &l, Value slot);
  /// The page (by the tile ops' block-table rule and pool guard) and slot
  /// in the page (index values) of the partly seen token `token` (i64).
  std::pair<Value, Value> partlySeenPlace(ImplicitLocOpBuilder &b, Value token);
  /// The partly seen tokens' share of the output row `row` (index in the
  /// group), head dims [firstDim, firstDim + 4): sum over the tokens the
  /// row sees of exp2(s - M) * v_scale * V / normalizer.
  Value partlySeenShare(ImplicitLocOpBuilder &b, Value row, Value firstDim);
  // -- epilogue --
  void mergeAndStore(ImplicitLocOpBuilder &b, const WaveResult &state);

  /// Elements `positions` (index, per lane) of the tile's page-id vector
  /// `vec`, computed for those elements alone: the staged ids are one LDS
  /// word per lane and position instead of 16 ids held and extracted by a
  /// dynamic position (a compare/select chain over all 16 per id), and a
  /// branch of `vec` (staged or not) is one branch for all positions.
  /// `known` holds the elements made so far (a value reached twice, as
  /// the page-id guard's operand and its result, is made once).
  SmallVector<Value> laneElements(ImplicitLocOpBuilder &b, Value vec,
                                  ArrayRef<Value> positions,
                                  DenseMap<Value, SmallVector<Value>> &known);
  SmallVector<Value> elementsOf(ImplicitLocOpBuilder &b, Value vec,
                                ArrayRef<Value> positions,
                                DenseMap<Value, SmallVector<Value>> &known);

  /// clamp(bound + shift - (tileStart + 64 w + 16 j), 0, 16) as i32: how
  /// many of the lane group's 16 tokens lie below the token `bound` (i64,
  /// the same for every lane) moved by `shift` (i32 in [0, Q), per lane;
  /// null for 0).
  Value groupBound(LaneBuilder &l, Value bound, Value tileStart,
                   Value shift = {});
  /// `groupTokens`-element i1 vector: positions [first, first + n) in
  /// [lo, hi).
  Value positionsIn(LaneBuilder &l, int64_t first, int64_t n, Value lo,
                    Value hi);
  Value mfmaOp(ImplicitLocOpBuilder &b, Value a, Value bOperand, Value acc) {
    return amdgpu::MFMAOp::create(b, vec4, kBlock, kBlock, instr.k,
                                  /*blocks=*/1, a, bOperand, acc);
  }
  /// The M-tile's first row (a constant where the M-tile is one).
  static IndexExpr firstRowOf(LaneBuilder &l, const MTileLanes &m) {
    if (auto attr = dyn_cast<Attribute>(m.firstRow))
      return l.idx(cast<IntegerAttr>(attr).getInt());
    return l.idx(cast<Value>(m.firstRow));
  }
  /// `first` followed by `second` (vectors of one type).
  Value concat(LaneBuilder &l, Value first, Value second) {
    int64_t n = cast<VectorType>(first.getType()).getNumElements();
    return l.shuffle(first, second,
                     llvm::to_vector(llvm::seq<int64_t>(0, 2 * n)));
  }
  /// Elements [first, first + count) of `v`.
  Value slice(LaneBuilder &l, Value v, int64_t first, int64_t count) {
    SmallVector<int64_t> positions;
    for (int64_t e = 0; e < count; ++e)
      positions.push_back(first + e);
    return l.shuffle(v, v, positions);
  }
  /// An f32 vector as two bf16 terms by truncation: `hi`, the high half of
  /// each word, and `lo`, the high half of what it leaves (x - hi, exact in
  /// f32). Together 15-16 significant bits (relative error below 2^-14),
  /// for an and, a subtract and the packing of high halves per value; one
  /// round-to-nearest conversion alone costs more on gfx942 (no bf16
  /// conversion instruction). NaN stays NaN in `lo`.
  std::pair<Value, Value> splitToBf16Terms(LaneBuilder &l, Value wide) {
    auto wideType = cast<VectorType>(wide.getType());
    int64_t n = wideType.getNumElements();
    auto halves = VectorType::get({2 * n}, s.computeType);
    SmallVector<int64_t> highHalves;
    for (int64_t e = 0; e < n; ++e)
      highHalves.push_back(2 * e + 1); // little-endian: the high half
    auto highHalfOf = [&](Value words) {
      Value split = l.bitcast(halves, words);
      return l.shuffle(split, split, highHalves);
    };
    auto wordsType = wideType.clone(l.b.getI32Type());
    Value truncated = l.bitcast(
        wideType,
        l.andI(l.bitcast(wordsType, wide),
               l.splatConstant(wordsType, -65536.0 /* 0xFFFF0000 */)));
    return {highHalfOf(wide), highHalfOf(l.subF(wide, truncated))};
  }
  /// The sum of an f32 vector's elements (a power of two of them), halving
  /// it pairwise (packed adds) instead of a chain of scalar adds.
  Value sumElements(LaneBuilder &l, Value vec) {
    for (int64_t n = cast<VectorType>(vec.getType()).getNumElements(); n > 1;
         n /= 2)
      vec = l.addF(slice(l, vec, 0, n / 2), slice(l, vec, n / 2, n / 2));
    return l.extract(vec, 0);
  }
  /// `vec` converted to the compute type when it is another float type.
  Value toComputeType(LaneBuilder &l, Value vec) {
    auto type = cast<VectorType>(vec.getType());
    if (type.getElementType() == s.computeType)
      return vec;
    Value wide = l.extF(VectorType::get(type.getShape(), f32), vec);
    return l.truncF(VectorType::get(type.getShape(), s.computeType), wide);
  }

  Instr instr;
  /// The PV product also multiplies the residual of the quantized P in the
  /// compute type (fp8: value + residual carry ~8 significant bits instead
  /// of 4; bf16: 16 instead of 8); DecodeLanes::queryResidual the same for
  /// the query in QK.
  bool probResidual;
  /// cache-offsets=64: only the 64-bit tile loop.
  bool only64BitOffsets;
  /// Edge-tile masking in a uniform branch that full tiles skip: not for
  /// two M-tiles at D > 128, whose registers are at the 256 of 2 waves
  /// per SIMD (the branch's results raised gfx950's 16x16x128 kernel at
  /// D = 256, 32 rows from 256 to 280 VGPRs: 1 wave); those mask every tile.
  bool edgeTileBranch;
  /// Slots of one run of partly seen tokens: a bound of q_hi - q_lo (0
  /// without MTP).
  int64_t partlyRunSlots;
  /// The edge tiles store the partly seen tokens' scores (storePartlySeen);
  /// else scorePartlySeen after the loop.
  bool partlyScoresInLoop;
  VectorType vec4;
  int64_t chunkDims;
  /// Head dims per QK load chunk and the chunks covering D (the last one
  /// partial where the chunk does not divide D).
  int64_t qkChunkDims, qkChunks;
  double pScale;

  /// The block-table read of the tile ops (operands and page size) and the
  /// pool size the tile's page ids are guarded with (partlySeenShare).
  TilePageIdsOp pageIdsRule;
  Value poolSize;
  int64_t statsRowMax() const { return s.rows; }
  int64_t statsRowSum() const { return s.rows + kWaves * s.rows; }
  int64_t statsRowWeight() const { return s.rows + 2 * kWaves * s.rows; }
  /// Partly seen tokens: masked scores [slot][row], then per row the merged
  /// maximum and the inverse normalizer.
  int64_t statsPartlyScore() const { return s.rows + 3 * kWaves * s.rows; }
  int64_t statsMergedMax() const {
    return statsPartlyScore() + partlySlots() * s.rows;
  }
  int64_t statsInverseNormalizer() const { return statsMergedMax() + s.rows; }
  int64_t statsWords() const {
    return partlySlots() ? statsInverseNormalizer() + s.rows
                         : statsPartlyScore();
  }

  // Loop-invariant lane constants (computeLaneConstants).
  SmallVector<MTileLanes> mTileLanes; // per M-tile, constant t
  Value visibleEndBase, visibleBeginBase; // i64; begin only with a window
  Value kPageIndex, kSlot0, vPageIndex, vSlot0; // index
  /// The tile-relative tokens of the lane's first K row and of its lane
  /// group's first V token (index): pages smaller than 16 tokens or larger
  /// than a tile place each token from these.
  Value kColumn, vColumn;
  Value laneTokenOffset;                // i32: 64 w + 16 j
  Value laneInGroup;                    // i32: i
  Value vScaleTensor;                   // per_tensor V scale
  /// f32: the scores' scale without the query's quantization scale
  /// (softmax scale times log2(e) and a per-tensor K scale; NaN if not
  /// finite).
  Value scoreScale;
  /// i64: q_hi - q_lo, and where the tail and head runs start (head: null
  /// without a window); null without MTP.
  Value partlyRunLength, partlyTailStart, partlyHeadStart;
};

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

/// The staging fill loop of pa-stage-page-ids, `for j: ids(begin + j) ->
/// lds[j * n]`, becomes one lane-strided loop over its ids: lane t writes
/// ids t, t + 256, ... with the per-element read rule of the op.
bool DecodeLowering::distributeFill(TilePageIdsOp ids) {
  auto fill = dyn_cast<scf::ForOp>(ids->getParentOp());
  if (!fill || !fill.getInitArgs().empty() ||
      !matchPattern(fill.getStep(), m_One()) || !ids->hasOneUse())
    return false;
  auto store = dyn_cast<vector::StoreOp>(*ids->getUsers().begin());
  if (!store || store->getParentOp() != fill ||
      !isWorkgroupMemRef(store.getBase()) || store.getIndices().size() != 1)
    return false;
  for (Operation &op : fill.getBody()->without_terminator())
    if (&op != ids && &op != store && !isPure(&op))
      return false;
  for (Value operand : {Value(ids.getBlockTables()), Value(ids.getSequence()),
                        Value(ids.getVisibleBegin()),
                        Value(ids.getVisibleEnd())})
    if (!fill.isDefinedOutsideOfLoop(operand))
      return false;

  ImplicitLocOpBuilder b(fill.getLoc(), fill);
  LaneBuilder l(b);
  int64_t idsPerTile = ids.getPageIds().getType().getNumElements();
  IndexExpr lb = l.idx(fill.getLowerBound());
  IndexExpr trips = l.idx(fill.getUpperBound()) - lb;
  Value total = trips * idsPerTile;
  Value step = l.index(chip.workgroupSize);
  scf::ForOp::create(
      b, tid, total, step, ValueRange{},
      [&](OpBuilder &nested, Location loc, Value element, ValueRange) {
        ImplicitLocOpBuilder nb(loc, nested);
        LaneBuilder nl(nb);
        IndexExpr e = nl.idx(element);
        IRMapping map;
        map.map(fill.getInductionVar(), (lb + e / idsPerTile).get());
        for (Operation &op : fill.getBody()->without_terminator())
          if (&op != ids && &op != store)
            nb.clone(op, map);
        auto constant = [&](TypedAttr value) -> Value {
          return arith::ConstantOp::create(nb, value);
        };
        TilePageRange range = buildTilePageRange(
            nb, loc, ids, map.lookup(ids.getTile()), constant);
        Value id = buildVisiblePageId(nb, loc, ids, range,
                                      (e % idsPerTile).get(), constant);
        IndexExpr offset = nl.idx(map.lookup(store.getIndices().front()));
        memref::StoreOp::create(nb, id, store.getBase(),
                                ValueRange{(offset + e % idsPerTile).get()});
        scf::YieldOp::create(nb);
      });
  fill.erase();
  return true;
}

void DecodeLowering::distributePageIdFills() {
  SmallVector<TilePageIdsOp> fills;
  d.kernel.walk([&](TilePageIdsOp ids) {
    if (!d.tileLoop->isAncestor(ids))
      fills.push_back(ids);
  });
  // A fill of another shape stays as it is: every lane then writes the same
  // ids (lowered with the direct reads below), which is correct, only slow.
  for (TilePageIdsOp ids : fills)
    (void)distributeFill(ids);
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
  // from the tile's own first slot on (emitTileStep adds it).
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

//===----------------------------------------------------------------------===//
// Tile loop
//===----------------------------------------------------------------------===//

LaneState DecodeLowering::initialState(ImplicitLocOpBuilder &b,
                                       ArrayRef<MTileLanes> mTiles) {
  LaneBuilder l(b);
  LaneState state;
  state.mTiles.assign(mTiles.begin(), mTiles.end());
  state.queryOffset = l.index(0);
  Value zeros = l.splatConstant(vec4, 0.0);
  for (size_t k = 0; k < mTiles.size(); ++k) {
    state.rowMax.push_back(l.negInf());
    state.rowSum.push_back(l.f32(0.0));
    if (s.fp8Compute())
      state.rowWeight.push_back(l.f32(0.0));
    state.out.emplace_back(s.headDim / kBlock, zeros);
  }
  if (s.scale == ScaleMode::per_token)
    state.valueUnit = l.f32(1.0);
  return state;
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

LaneState DecodeLowering::emitTileLoop(ImplicitLocOpBuilder &b,
                                       const CacheViews &views,
                                       const LaneState &init) {
  scf::ForOp old = d.tileLoop;
  auto loop = scf::ForOp::create(b, old.getLowerBound(), old.getUpperBound(),
                                 old.getStep(), init.flatten());
  ImplicitLocOpBuilder body(old.getLoc(), ctx);
  body.setInsertionPointToStart(loop.getBody());
  IRMapping map;
  map.map(old.getInductionVar(), loop.getInductionVar());
  // The tiled IR's per-tile values (tile start, page ids and their guards)
  // as they are; the tile ops themselves have no results.
  for (Operation &op : old.getBody()->without_terminator())
    if (!isa<TileQKOp, TileAlibiOp, TileSoftmaxOp, TilePVOp>(op))
      body.clone(op, map);
  LaneState state = LaneState::unflatten(loop.getRegionIterArgs(), init);
  LaneState next = emitTileStep(body, map, views, state);
  scf::YieldOp::create(body, next.flatten());
  // The tiled IR's values the lane code does not use (the page-id vector
  // that laneElement reads per lane instead), users before their operands.
  for (Operation &op :
       llvm::make_early_inc_range(llvm::reverse(*loop.getBody())))
    if (isOpTriviallyDead(&op))
      op.erase();
  return LaneState::unflatten(loop.getResults(), init);
}

WaveResult DecodeLowering::emitTileLoops(ImplicitLocOpBuilder &b,
                                         const CacheViews &views,
                                         bool loopPerMTile) {
  if (loopPerMTile && s.mTiles > 1)
    return emitMTileAtATimeLoop(b, views);
  WaveResult result;
  result.append(emitTileLoop(b, views, initialState(b, mTileLanes)));
  return result;
}

WaveResult DecodeLowering::emitMTileAtATimeLoop(ImplicitLocOpBuilder &b,
                                                const CacheViews &views) {
  LaneBuilder l(b);
  // Carried: the finished states of M-tiles 0 .. n-2 and the newest one
  // (the last M-tile's after the loop). The newest is not used in the
  // body, so it is not live across the tile loop.
  LaneState like = initialState(b, {mTileLanes[0]});
  SmallVector<Value> init;
  for (int64_t t = 0; t < s.mTiles; ++t)
    init.append(like.flatten());
  auto loop = scf::ForOp::create(b, l.index(0), l.index(s.mTiles),
                                 l.index(1), init);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value t = loop.getInductionVar();
  SmallVector<Value> isTile;
  for (int64_t k = 0; k < s.mTiles; ++k)
    isTile.push_back(l.cmpI(arith::CmpIPredicate::eq, t, l.index(k)));
  auto pick = [&](auto field) {
    Value value = field(mTileLanes[0]);
    for (int64_t k = 1; k < s.mTiles; ++k)
      value = l.select(isTile[k], field(mTileLanes[k]), value);
    return value;
  };
  MTileLanes lanes;
  lanes.firstRow = (l.idx(t) * kBlock).get();
  lanes.rowScale = pick([](const MTileLanes &m) { return m.rowScale; });
  lanes.rowPosition = pick([](const MTileLanes &m) { return m.rowPosition; });
  lanes.isQueryRow = pick([](const MTileLanes &m) { return m.isQueryRow; });
  if (d.alibi) {
    lanes.alibiSlope = pick([](const MTileLanes &m) { return m.alibiSlope; });
    lanes.alibiDistance =
        pick([](const MTileLanes &m) { return m.alibiDistance; });
  }
  SmallVector<Value> newest =
      emitTileLoop(b, views, initialState(b, {lanes})).flatten();
  const size_t width = newest.size();
  ValueRange carried = loop.getRegionIterArgs();
  SmallVector<Value> next;
  for (int64_t k = 0; k + 1 < s.mTiles; ++k)
    for (size_t v = 0; v < width; ++v)
      next.push_back(l.select(isTile[k], newest[v], carried[k * width + v]));
  next.append(newest);
  scf::YieldOp::create(b, next);

  WaveResult result;
  for (int64_t k = 0; k < s.mTiles; ++k) {
    LaneState done = LaneState::unflatten(
        loop.getResults().slice(k * width, width), like);
    done.mTiles = {mTileLanes[k]};
    result.append(done);
  }
  return result;
}

Value DecodeLowering::tileIsFull(LaneBuilder &l, IRMapping &map,
                                 Value tileStart) {
  Value tileEnd = l.addI(tileStart, l.i64(kTileTokens));
  auto atMost = [&](Value x, Value y) {
    return l.cmpI(arith::CmpIPredicate::sle, x, y);
  };
  // The op's valid tokens, and the rows' visible ranges: row q of the
  // query sees [begin + q, end + q) (end = visibleEndBase), so the tile is
  // whole for every row inside [begin + Q - 1, end).
  Value full =
      l.andI(atMost(map.lookupOrDefault(d.pv.getValidBegin()), tileStart),
             atMost(tileEnd, map.lookupOrDefault(d.pv.getValidEnd())));
  full = l.andI(full, atMost(tileEnd, visibleEndBase));
  if (visibleBeginBase)
    full = l.andI(full,
                  atMost(l.addI(visibleBeginBase, l.i64(s.queryLength - 1)),
                         tileStart));
  return full;
}

SmallVector<Value>
DecodeLowering::unlessFull(ImplicitLocOpBuilder &b, Value full,
                           ArrayRef<Value> whole,
                           function_ref<SmallVector<Value>()> mask) {
  SmallVector<Type> types = llvm::to_vector(
      llvm::map_range(whole, [](Value v) { return v.getType(); }));
  auto edge = scf::IfOp::create(b, types, full, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&edge.getThenRegion().front());
  scf::YieldOp::create(b, whole);
  b.setInsertionPointToStart(&edge.getElseRegion().front());
  scf::YieldOp::create(b, mask());
  return SmallVector<Value>(edge.getResults().begin(), edge.getResults().end());
}

SmallVector<SmallVector<Value>>
DecodeLowering::rescaleOutputs(LaneBuilder &l,
                               ArrayRef<SmallVector<Value>> out,
                               ArrayRef<Value> outScales, bool branch) {
  auto rescale = [&] {
    SmallVector<Value> scaled;
    for (auto [blocks, scale] : llvm::zip_equal(out, outScales)) {
      Value factor = l.broadcast(vec4, scale);
      for (Value block : blocks)
        scaled.push_back(l.mulF(block, factor));
    }
    return scaled;
  };
  SmallVector<Value> rescaled;
  if (branch) {
    SmallVector<Value> whole;
    Value changed; // on this lane, in some M-tile (NaN counts as changed)
    for (auto [blocks, scale] : llvm::zip_equal(out, outScales)) {
      whole.append(blocks);
      Value notOne = l.cmpF(arith::CmpFPredicate::UNE, scale, l.f32(1.0));
      changed = changed ? arith::OrIOp::create(l.b, changed, notOne) : notOne;
    }
    Value changedLanes =
        ROCDL::BallotOp::create(l.b, l.b.getI64Type(), changed);
    Value unchanged = l.cmpI(arith::CmpIPredicate::eq, changedLanes, l.i64(0));
    rescaled = unlessFull(l.b, unchanged, whole, rescale);
  } else {
    rescaled = rescale();
  }
  SmallVector<SmallVector<Value>> result;
  ArrayRef<Value> rest = rescaled;
  for (const SmallVector<Value> &blocks : out) {
    result.push_back(llvm::to_vector(rest.take_front(blocks.size())));
    rest = rest.drop_front(blocks.size());
  }
  return result;
}

SmallVector<Value> DecodeLowering::maskEdgeTile(LaneBuilder &l, IRMapping &map,
                                                const LaneState &state,
                                                ArrayRef<SmallVector<Value>> scores,
                                                Value vScales,
                                                Value tileStart) {
  SmallVector<Value> masked;
  for (size_t k = 0; k < scores.size(); ++k) {
    const MTileLanes &m = state.mTiles[k];
    // Without a window a row sees from token 0 (max(0, .) of the window's
    // begin only ever clamps what groupBound clamps anyway); padding rows
    // see nothing (hi = 0).
    Value lo = visibleBeginBase
                   ? groupBound(l, visibleBeginBase, tileStart, m.rowPosition)
                   : l.i32(0);
    Value hi = l.select(m.isQueryRow,
                        groupBound(l, visibleEndBase, tileStart, m.rowPosition),
                        l.i32(0));
    for (size_t blk = 0; blk < scores[k].size(); ++blk) {
      Value visible = positionsIn(l, blk * kResultElements, kResultElements,
                                  lo, hi);
      masked.push_back(
          l.select(visible, scores[k][blk], l.broadcast(vec4, l.negInf())));
    }
  }
  auto [validLo, validHi] = productBounds(l, map, tileStart);
  if (vScales && isa<VectorType>(vScales.getType())) {
    masked.push_back(l.select(
        positionsIn(l, 0, kGroupTokens, validLo, validHi), vScales,
        l.splatConstant(VectorType::get({kGroupTokens}, f32), 0.0)));
  } else if (vScales) {
    Value valid =
        l.andI(l.cmpI(arith::CmpIPredicate::sge, laneInGroup, validLo),
               l.cmpI(arith::CmpIPredicate::slt, laneInGroup, validHi));
    masked.push_back(l.select(valid, vScales, l.f32(0.0)));
  }
  return masked;
}

std::pair<Value, Value> DecodeLowering::productBounds(LaneBuilder &l,
                                                      IRMapping &map,
                                                      Value tileStart) {
  Value lo = map.lookupOrDefault(d.pv.getValidBegin());
  Value hi = map.lookupOrDefault(d.pv.getValidEnd());
  if (partlyRunSlots) {
    hi = l.minSI(hi, partlyTailStart);
    if (partlyHeadStart)
      lo = l.maxSI(lo, l.addI(partlyHeadStart, partlyRunLength));
  }
  return {groupBound(l, lo, tileStart), groupBound(l, hi, tileStart)};
}

void DecodeLowering::initPartlySeen(ImplicitLocOpBuilder &b) {
  LaneBuilder l(b);
  // No score yet: a slot no tile writes adds nothing.
  scf::ForOp::create(
      b, tid, l.index(partlySlots() * s.rows), l.index(chip.workgroupSize),
      ValueRange{},
      [&](OpBuilder &nested, Location loc, Value element, ValueRange) {
        ImplicitLocOpBuilder nb(loc, nested);
        LaneBuilder nl(nb);
        memref::StoreOp::create(
            nb, nl.negInf(), stats,
            ValueRange{(nl.idx(element) + statsPartlyScore()).get()});
        scf::YieldOp::create(nb);
      });
}

void DecodeLowering::storePartlySeen(
    LaneBuilder &l, IRMapping &map, const LaneState &state,
    ArrayRef<Value> scores, Value tileStart) {
  ImplicitLocOpBuilder &b = l.b;
  OpBuilder::InsertionGuard guard(b);
  Value tileEnd = l.addI(tileStart, l.i64(kTileTokens));
  Value validBegin = map.lookupOrDefault(d.pv.getValidBegin());
  Value validEnd = map.lookupOrDefault(d.pv.getValidEnd());
  auto inRange = [&](Value token, Value lo, Value hi) {
    return l.andI(l.cmpI(arith::CmpIPredicate::sle, lo, token),
                  l.cmpI(arith::CmpIPredicate::slt, token, hi));
  };
  // M-tile k's score of the lane's token `element` (uniform index). One
  // M-tile: a dynamic extract from the 16 scores; two: a select per token
  // (the extract copies each M-tile's scores into 16 consecutive registers:
  // 13 more VGPRs at D = 128 bf16, 32 rows on gfx950, 3 waves per SIMD to
  // 2; the selects cost the one-M-tile kernels 8, 4 waves to 3).
  const int64_t blocks = kQuarterTokens / kBlock;
  auto scoreOf = [&](size_t k, Value element) {
    if (state.mTiles.size() == 1) {
      Value first = concat(l, scores[k * blocks], scores[k * blocks + 1]);
      Value second =
          concat(l, scores[k * blocks + 2], scores[k * blocks + 3]);
      return vector::ExtractOp::create(b, concat(l, first, second),
                                       OpFoldResult(element))
          .getResult();
    }
    Value score;
    for (int64_t e = 0; e < kGroupTokens; ++e) {
      Value candidate = l.extract(scores[k * blocks + e / kResultElements],
                                  e % kResultElements);
      score = score ? l.select(l.cmpI(arith::CmpIPredicate::eq, element,
                                      l.index(e)),
                               candidate, score)
                    : candidate;
    }
    return score;
  };
  // One run token at a time, in uniform values: per-lane values per token
  // (16 per lane) would be loop-invariant, and LLVM hoisted them out of the
  // tile loop (48 more VGPRs at D = 128 bf16, 16 rows).
  auto storeRun = [&](Value runStart, int64_t firstSlot, Value skipFrom) {
    auto loop = scf::ForOp::create(b, l.index(0), l.toIndex(partlyRunLength),
                                   l.index(1));
    OpBuilder::InsertionGuard inLoop(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    Value k = loop.getInductionVar();
    Value token = l.addI(runStart, l.toI64(k));
    Value here = l.andI(inRange(token, tileStart, tileEnd),
                        inRange(token, validBegin, validEnd));
    if (skipFrom) // a token of both runs (a short window) is the tail's
      here = l.andI(here,
                    l.cmpI(arith::CmpIPredicate::slt, token, skipFrom));
    auto inTile = scf::IfOp::create(b, TypeRange{}, here,
                                    /*withElseRegion=*/false);
    b.setInsertionPoint(inTile.thenBlock()->getTerminator());
    IndexExpr offset = l.idx(l.toIndex(l.subI(token, tileStart)));
    // Its lane group: wave offset / 64, group offset % 64 / 16.
    Value owner = l.andI(
        l.cmpI(arith::CmpIPredicate::eq, wave, (offset / kQuarterTokens).get()),
        l.cmpI(arith::CmpIPredicate::eq, group,
               (offset % kQuarterTokens / kGroupTokens).get()));
    auto write = scf::IfOp::create(b, TypeRange{}, owner,
                                   /*withElseRegion=*/false);
    b.setInsertionPoint(write.thenBlock()->getTerminator());
    IndexExpr slot = l.idx(k) + firstSlot;
    Value element = (offset % kGroupTokens).get();
    for (size_t t = 0; t < state.mTiles.size(); ++t) {
      Value score = scoreOf(t, element);
      IndexExpr word = slot * s.rows + firstRowOf(l, state.mTiles[t]) +
                       l.idx(rowLane) + statsPartlyScore();
      memref::StoreOp::create(b, score, stats, ValueRange{word.get()});
    }
  };
  storeRun(partlyTailStart, 0, Value());
  if (partlyHeadStart)
    storeRun(partlyHeadStart, partlyRunSlots, partlyTailStart);
}

Value DecodeLowering::partlySeenShare(ImplicitLocOpBuilder &b, Value row,
                                      Value firstDim) {
  LaneBuilder l(b);
  IndexExpr r = l.idx(row);
  Value rowMax = memref::LoadOp::create(
      b, stats, ValueRange{(r + statsMergedMax()).get()});
  Value inverse = memref::LoadOp::create(
      b, stats, ValueRange{(r + statsInverseNormalizer()).get()});
  Value zeros = l.splatConstant(vec4, 0.0);
  Value kvHead = d.storePartials.getKvHead();
  auto constant = [&](TypedAttr value) -> Value {
    return arith::ConstantOp::create(b, value);
  };
  auto loop = scf::ForOp::create(b, l.index(0), l.index(partlySlots()),
                                 l.index(1), ValueRange{zeros});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  IndexExpr slot = l.idx(loop.getInductionVar());
  Value score = memref::LoadOp::create(
      b, stats, ValueRange{(slot * s.rows + r + statsPartlyScore()).get()});
  // -inf: the row does not see the token (or no tile wrote the slot); a
  // NaN score is seen.
  Value seen = l.cmpF(arith::CmpFPredicate::UNE, score, l.negInf());
  auto share = scf::IfOp::create(b, TypeRange{vec4}, seen,
                                 /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(share.thenBlock());
    auto [page, tokenSlot] = partlySeenPlace(b, partlySeenToken(l, slot.get()));
    SmallVector<Value> values;
    for (int64_t e = 0; e < kResultElements; ++e) {
      Value dim = (l.idx(firstDim) + e).get();
      Value v = memref::LoadOp::create(
          b, d.pv.getValueCache(),
          buildCacheElementIndices(b, b.getLoc(), s.layout,
                                   CacheOperand::value, s.vLayout, s.kvPack,
                                   page, kvHead, tokenSlot, dim, constant));
      values.push_back(l.extF(f32, v));
    }
    Value weight = l.mulF(l.exp2(l.subF(score, rowMax)), inverse);
    if (s.scale == ScaleMode::per_token)
      weight = l.mulF(weight, memref::LoadOp::create(
                                  b, d.pv.getVScale(),
                                  ValueRange{page, kvHead, tokenSlot}));
    else if (vScaleTensor)
      weight = l.mulF(weight, vScaleTensor);
    Value vec = vector::FromElementsOp::create(b, vec4, values);
    scf::YieldOp::create(b, ValueRange{l.mulF(vec, l.broadcast(vec4, weight))});
    b.setInsertionPointToStart(share.elseBlock());
    scf::YieldOp::create(b, ValueRange{zeros});
  }
  scf::YieldOp::create(
      b, ValueRange{l.addF(loop.getRegionIterArgs()[0], share.getResult(0))});
  return loop.getResult(0);
}

Value DecodeLowering::partlySeenToken(LaneBuilder &l, Value slot) {
  Value tail = l.addI(partlyTailStart, l.toI64(slot));
  if (!partlyHeadStart)
    return tail;
  Value inTail =
      l.cmpI(arith::CmpIPredicate::ult, slot, l.index(partlyRunSlots));
  return l.select(
      inTail, tail,
      l.addI(partlyHeadStart, l.toI64((l.idx(slot) - partlyRunSlots).get())));
}

std::pair<Value, Value> DecodeLowering::partlySeenPlace(ImplicitLocOpBuilder &b,
                                                        Value token) {
  LaneBuilder l(b);
  auto constant = [&](TypedAttr value) -> Value {
    return arith::ConstantOp::create(b, value);
  };
  Value pageIndex =
      arith::DivUIOp::create(b, token, l.i64(s.pageSize)).getResult();
  TilePageRange range{
      l.toIndex(pageIndex),
      arith::MulIOp::create(b, pageIndex, l.i64(s.pageSize)).getResult()};
  Value id = buildVisiblePageId(b, b.getLoc(), pageIdsRule, range, l.index(0),
                                constant);
  id = l.select(l.cmpI(arith::CmpIPredicate::ult, id, poolSize), id, l.i32(0));
  Value tokenSlot = l.toIndex(
      arith::RemUIOp::create(b, token, l.i64(s.pageSize)).getResult());
  return {l.toIndex(id), tokenSlot};
}

void DecodeLowering::scorePartlySeen(ImplicitLocOpBuilder &b) {
  LaneBuilder l(b);
  auto constant = [&](TypedAttr value) -> Value {
    return arith::ConstantOp::create(b, value);
  };
  // Each row's lanes (a power of two within a wave) split its head dims.
  const int64_t lanesPerRow = chip.workgroupSize / s.rows;
  assert(lanesPerRow * s.rows == chip.workgroupSize &&
         llvm::isPowerOf2_64(lanesPerRow) && lanesPerRow <= kBlock &&
         s.headDim % lanesPerRow == 0 && "rows x lanes per row: a workgroup");
  IndexExpr t = l.idx(tid);
  IndexExpr rowIndex = t / lanesPerRow;
  IndexExpr part = t % lanesPerRow;
  const auto &load = queryOperands;
  IndexExpr row = l.idx(load.rowBase) + rowIndex;
  Value isQueryRow =
      l.cmpI(arith::CmpIPredicate::ult, row, l.index(s.totalRows));
  // Padding rows read the last query row (and see nothing).
  IndexExpr queryIndex = l.idx(l.minSI(row.get(), l.index(s.totalRows - 1)));
  IndexExpr position = queryIndex / s.groupSize;
  Value queryRow = (l.idx(load.sequence) * s.queryLength + position).get();
  Value queryHead =
      (l.idx(load.kvHead) * s.groupSize + queryIndex % s.groupSize).get();
  Value kvHead = d.qk.getKvHead();
  Value q64 = l.toI64(position.get());
  Value seenEnd = l.addI(visibleEndBase, q64);
  Value seenBegin = visibleBeginBase ? l.addI(visibleBeginBase, q64) : Value();
  // This partition's tokens: the op's valid range within the loop's tiles.
  Value tileTokens = l.i64(kTileTokens);
  auto tokenOf = [&](Value tile) -> Value {
    return arith::MulIOp::create(b, l.toI64(tile), tileTokens);
  };
  Value partitionBegin =
      l.maxSI(d.pv.getValidBegin(), tokenOf(d.tileLoop.getLowerBound()));
  Value partitionEnd =
      l.minSI(d.pv.getValidEnd(), tokenOf(d.tileLoop.getUpperBound()));
  Value slopeExp2;
  if (TileAlibiOp alibi = d.alibi)
    slopeExp2 =
        emitAlibiSlopeExp2(b, memref::LoadOp::create(b, alibi.getAlibiSlopes(),
                                                     ValueRange{queryHead}));
  Value writes = l.cmpI(arith::CmpIPredicate::eq, part.get(), l.index(0));
  for (int64_t slot = 0; slot < partlySlots(); ++slot) {
    const bool head = slot >= partlyRunSlots;
    const int64_t inRun = head ? slot - partlyRunSlots : slot;
    Value token = partlySeenToken(l, l.index(slot));
    // A slot past the run holds no token (a head slot's would be seen by
    // every row); a token of both runs (a short window) is the tail's.
    // Uniform.
    Value scored =
        l.andI(l.cmpI(arith::CmpIPredicate::slt, l.i64(inRun), partlyRunLength),
               l.andI(l.cmpI(arith::CmpIPredicate::sle, partitionBegin, token),
                      l.cmpI(arith::CmpIPredicate::slt, token, partitionEnd)));
    if (head)
      scored = l.andI(
          scored, l.cmpI(arith::CmpIPredicate::slt, token, partlyTailStart));
    auto score = scf::IfOp::create(b, TypeRange{f32}, scored,
                                   /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(score.thenBlock());
      auto [page, tokenSlot] = partlySeenPlace(b, token);
      auto dims =
          scf::ForOp::create(b, l.index(0), l.index(s.headDim / lanesPerRow),
                             l.index(1), ValueRange{l.f32(0.0)});
      {
        OpBuilder::InsertionGuard inLoop(b);
        b.setInsertionPointToStart(dims.getBody());
        Value dim = (l.idx(dims.getInductionVar()) * lanesPerRow + part).get();
        Value q = memref::LoadOp::create(b, load.query,
                                         ValueRange{queryRow, queryHead, dim});
        if (q.getType() != f32)
          q = l.extF(f32, q);
        Value k = memref::LoadOp::create(
            b, d.qk.getKeyCache(),
            buildCacheElementIndices(b, b.getLoc(), s.layout, CacheOperand::key,
                                     s.vLayout, s.kvPack, page, kvHead,
                                     tokenSlot, dim, constant));
        Value sum =
            l.addF(dims.getRegionIterArgs()[0], l.mulF(q, l.extF(f32, k)));
        scf::YieldOp::create(b, ValueRange{sum});
      }
      Value dot =
          combineInLanes(l, dims.getResult(0), lanesPerRow,
                         [&](Value x, Value y) { return l.addF(x, y); });
      // The loop's score steps, in its order.
      Value value = l.mulF(dot, scoreScale);
      if (s.scale == ScaleMode::per_token)
        value = l.mulF(value, buildNaNIfNotFinite(
                                  b, b.getLoc(),
                                  memref::LoadOp::create(
                                      b, d.qk.getKScale(),
                                      ValueRange{page, kvHead, tokenSlot})));
      value = buildNaNIfNotFinite(b, b.getLoc(), value);
      if (s.softCap)
        value = emitSoftCap(b, value, *s.softCap, /*fastReciprocal=*/true);
      if (slopeExp2) {
        // The distance from the row's own token C - Q + q = vE - 1 + q.
        Value distance = l.subI(token, l.subI(seenEnd, l.i64(1)));
        value =
            emitAlibiBias(b, value, slopeExp2,
                          arith::TruncIOp::create(b, b.getI32Type(), distance));
      }
      scf::YieldOp::create(b, ValueRange{value});
      b.setInsertionPointToStart(score.elseBlock());
      scf::YieldOp::create(b, ValueRange{l.negInf()});
    }
    Value seen =
        l.andI(isQueryRow, l.cmpI(arith::CmpIPredicate::slt, token, seenEnd));
    if (seenBegin)
      seen = l.andI(seen, l.cmpI(arith::CmpIPredicate::sle, seenBegin, token));
    Value masked = l.select(seen, score.getResult(0), l.negInf());
    IndexExpr word = rowIndex + slot * s.rows + statsPartlyScore();
    scf::IfOp::create(b, writes, [&](OpBuilder &nested, Location loc) {
      memref::StoreOp::create(nested, loc, masked, stats,
                              ValueRange{word.get()});
      scf::YieldOp::create(nested, loc);
    });
  }
}

SmallVector<Value> DecodeLowering::validValueWords(LaneBuilder &l,
                                                   IRMapping &map,
                                                   Value tileStart) {
  auto [validLo, validHi] = productBounds(l, map, tileStart);
  SmallVector<Value> words;
  const int64_t loadsPerGroup = s.kvBytes();
  const int64_t tokensPerLoad = kGroupTokens / loadsPerGroup;
  auto wordsType = VectorType::get({4}, l.b.getI32Type());
  auto bitsType =
      VectorType::get({tokensPerLoad}, l.b.getIntegerType(8 * s.kvBytes()));
  for (int64_t u = 0; u < loadsPerGroup; ++u) {
    Value valid =
        positionsIn(l, u * tokensPerLoad, tokensPerLoad, validLo, validHi);
    words.push_back(l.bitcast(
        wordsType, l.select(valid, l.splatConstant(bitsType, -1),
                            l.splatConstant(bitsType, 0))));
  }
  return words;
}

LaneState DecodeLowering::emitTileStep(ImplicitLocOpBuilder &b, IRMapping &map,
                                       const CacheViews &views,
                                       const LaneState &state) {
  LaneBuilder l(b);
  const int64_t x = s.kvPack;
  const int64_t chunks = qkChunks;
  const int64_t stepsPerChunk = x / instr.perLane;
  const int64_t dBlocks = s.headDim / kBlock;
  IndexExpr j = l.idx(group), i = l.idx(rowLane);
  Value kvHead = d.qk.getKvHead();
  Value ids = map.lookupOrDefault(d.qk.getPageIds());
  Value tileStart = map.lookupOrDefault(d.softmax.getTileStart());
  auto kvVector = [&](int64_t n) {
    return VectorType::get({n}, s.kvType);
  };
  // Where the lane's tokens lie (docs/mfma-lowering.md, "Cache layouts"):
  // pages of 16 to 256 tokens hold the 16 tokens of a lane's K rows and of
  // its lane group's V columns each in one page (kPage, vPage); smaller
  // pages split them (a page id per K block, per run of P V tokens); a
  // page larger than a tile holds the whole tile from slot tileStart % P.
  const bool pageHoldsTile = s.pageSize > kTileTokens;
  const bool pagesSplitGroups = s.pageSize < kGroupTokens;
  // The lane's page ids, all read at once (one branch where they are
  // staged or not): K's and V's, then with split groups one per K block
  // and one per run of V tokens.
  SmallVector<Value> pagePositions = {kPageIndex, vPageIndex};
  const int64_t blocks = kQuarterTokens / kBlock;
  if (pagesSplitGroups) {
    for (int64_t blk = 0; blk < blocks; ++blk)
      pagePositions.push_back(
          ((l.idx(kColumn) + qkToken<int64_t>(blk, 0)) / s.pageSize).get());
    for (int64_t first = 0; first < kGroupTokens; first += s.pageSize)
      pagePositions.push_back(((l.idx(vColumn) + first) / s.pageSize).get());
  }
  SmallVector<Value> pages;
  {
    DenseMap<Value, SmallVector<Value>> known;
    for (Value page : laneElements(b, ids, pagePositions, known))
      pages.push_back(l.toIndex(page));
  }
  Value kPage = pages[0];
  Value vPage = pages[1];
  Value tileSlot;
  if (pageHoldsTile)
    tileSlot = l.toIndex(arith::RemUIOp::create(
        b, tileStart, l.i64(s.pageSize)));
  // The page and slot of K block blk's token of the lane.
  ArrayRef<Value> kBlockPages =
      pagesSplitGroups ? ArrayRef<Value>(pages).slice(2, blocks)
                       : ArrayRef<Value>();
  auto keyPlace = [&](int64_t blk) -> std::pair<Value, Value> {
    int64_t offset = qkToken<int64_t>(blk, 0) - qkToken<int64_t>(0, 0);
    if (pagesSplitGroups)
      return {kBlockPages[blk],
              (l.idx(kColumn) + qkToken<int64_t>(blk, 0)) % s.pageSize};
    IndexExpr slot = l.idx(kSlot0) + offset;
    return {kPage, pageHoldsTile ? (slot + l.idx(tileSlot)).get() : slot.get()};
  };
  // The lane group's 16 V tokens as runs of consecutive slots of one page:
  // runs[r] holds tokens [first, first + count) of the group.
  struct TokenRun {
    Value page, firstSlot;
    int64_t first, count;
  };
  SmallVector<TokenRun> valueRuns;
  if (pagesSplitGroups) {
    ArrayRef<Value> runPages = ArrayRef<Value>(pages).drop_front(2 + blocks);
    for (int64_t first = 0; first < kGroupTokens; first += s.pageSize)
      valueRuns.push_back(
          {runPages[first / s.pageSize], l.index(0), first, s.pageSize});
  } else {
    valueRuns.push_back(
        {vPage, pageHoldsTile ? (l.idx(vSlot0) + l.idx(tileSlot)).get() : vSlot0,
         0, kGroupTokens});
  }
  // The page and slot of token e of the lane group.
  auto valuePlace = [&](int64_t e) -> std::pair<Value, Value> {
    for (const TokenRun &run : valueRuns)
      if (e < run.first + run.count)
        return {run.page, (l.idx(run.firstSlot) + (e - run.first)).get()};
    llvm_unreachable("token outside the lane group");
  };
  auto constant = [&](TypedAttr value) -> Value {
    return arith::ConstantOp::create(b, value);
  };
  // A partial last chunk (D = 80: head dims [64, 128) with D = 80 fp8):
  // lane groups j >= inRowGroups hold no head dim of the row. Their K and
  // query are read at the row's last 16 bytes (never past the row, never
  // LDS the query staging did not write) and both are replaced by zeros,
  // so that they add exact zeros (a query NaN of another row cannot reach
  // this one).
  const int64_t lastChunk = chunks - 1;
  const int64_t inRowGroups =
      (s.headDim - lastChunk * qkChunkDims) / x;
  Value inRow;
  if (inRowGroups < kLaneGroups)
    inRow = l.cmpI(arith::CmpIPredicate::ult, group, l.index(inRowGroups));
  // `words` (an i32 vector) with zeros in the pad lane groups of chunk c.
  auto zeroPastRow = [&](Value words, int64_t c) -> Value {
    if (!inRow || c != lastChunk)
      return words;
    return l.select(inRow, words,
                    l.splatConstant(cast<VectorType>(words.getType()), 0));
  };
  // The first head dim of lane group j in chunk c, kept inside the row.
  auto chunkFirst = [&](int64_t c) -> Value {
    Value first = qkHeadDim(x, instr, l.idx(c), 0, j, l.idx(0)).get();
    if (!inRow || c != lastChunk)
      return first;
    return l.select(inRow, first, l.index(s.headDim - x));
  };

  // Q^T: the lane's row, head-dim chunks 4c + j (qkHeadDim), from LDS.
  // With its residual, queries[k][c] holds the value and residual chunks.
  // gfx950's 16x16x128: queries[k][p] holds chunks 2p and 2p + 1, stored
  // side by side (wideQueryWord).
  const size_t tiles = state.mTiles.size();
  const int64_t chunksPerRead = wideQK ? 2 : 1;
  const int64_t chunkWords = chunksPerRead * x * computeBytes / 4;
  // The query chunk(s) from `c` of M-tile k: the value and, with its
  // residual, the residual.
  auto loadQuery = [&](size_t k, int64_t c) {
    const MTileLanes &m = state.mTiles[k];
    IndexExpr element = l.idx(chunkFirst(c));
    IndexExpr rowWord = element * computeBytes / 4;
    if (wideQK)
      rowWord = wideQueryWord(rowWord);
    IndexExpr word = (i + firstRowOf(l, m)) * queryRowWords + rowWord +
                     l.idx(state.queryOffset);
    SmallVector<Value> terms;
    for (int64_t base : queryResidual
                            ? SmallVector<int64_t>{0, queryResidualWord()}
                            : SmallVector<int64_t>{0}) {
      Value words = vector::LoadOp::create(
          b, VectorType::get({chunkWords}, b.getI32Type()), scratch,
          ValueRange{(word + base).get()}, /*nontemporal=*/false,
          llvm::Align(16));
      words = zeroPastRow(words, c);
      terms.push_back(l.bitcast(
          VectorType::get({chunksPerRead * x}, s.computeType), words));
    }
    return terms;
  };
  // K of block `blk` (tokens qkToken(blk, i)), head-dim chunk c (16 bytes
  // per lane: chunk 4c + j).
  // nhd / hnd: the lane's x consecutive head-dim values of the token, one
  // 16-byte load as in the packed layout, at the layout's address.
  auto loadKey = [&](int64_t blk, int64_t c) {
    Value key;
    if (s.layout != CacheLayout::packed) {
      auto [page, slot] = keyPlace(blk);
      Value first = chunkFirst(c);
      key = vector::LoadOp::create(
          b, kvVector(x), views.keys,
          buildCacheElementIndices(b, b.getLoc(), s.layout, CacheOperand::key,
                                   s.vLayout, x, page, kvHead, slot, first,
                                   constant));
    } else {
      int64_t slotOffset = qkToken<int64_t>(blk, 0) - qkToken<int64_t>(0, 0);
      Value slot = l.idx(kSlot0) + slotOffset;
      Value packIndex = l.idx(chunkFirst(c)) / x;
      key = vector::LoadOp::create(
          b, kvVector(x), views.keys,
          ValueRange{kPage, kvHead, packIndex, slot, l.index(0)});
    }
    if (inRow && c == lastChunk) {
      auto wordsType = VectorType::get({4}, b.getI32Type());
      key = l.bitcast(kvVector(x), zeroPastRow(l.bitcast(wordsType, key), c));
    }
    return toComputeType(l, key);
  };
  // S^T block b of M-tile t (element r = token 16 j + 4 b + r), chunk-major:
  // only one chunk of the query (per M-tile, with its residual) and of a
  // block's keys is live at a time next to the accumulators, instead of
  // the whole query. Each block still sums its chunks in order.
  Value zeros = l.splatConstant(vec4, 0.0);
  SmallVector<SmallVector<Value>> scores(
      tiles, SmallVector<Value>(blocks, zeros));
  for (int64_t c = 0; c < chunks; c += chunksPerRead) {
    SmallVector<SmallVector<Value>> query;
    for (size_t k = 0; k < tiles; ++k)
      query.push_back(loadQuery(k, c));
    for (int64_t blk = 0; blk < blocks; ++blk) {
      if (wideQK) {
        // Two load chunks per 16x16x128: lane group j's 16 bytes of chunk
        // c and of chunk c + 1 are its two 16-byte K runs, for K and the
        // query alike, so every head-dim element meets its own query value
        // (docs/mfma-lowering.md).
        Value key = concat(l, loadKey(blk, c), loadKey(blk, c + 1));
        for (size_t k = 0; k < tiles; ++k)
          for (Value term : query[k])
            scores[k][blk] =
                amdgpu::MFMAOp::create(b, vec4, kBlock, kBlock, kWideFp8K,
                                       /*blocks=*/1, key, term, scores[k][blk]);
        continue;
      }
      Value keyChunk = loadKey(blk, c);
      for (size_t k = 0; k < tiles; ++k)
        for (int64_t step = 0; step < stepsPerChunk; ++step) {
          Value key = slice(l, keyChunk, step * instr.perLane, instr.perLane);
          for (Value term : query[k])
            scores[k][blk] = mfmaOp(
                b, key, slice(l, term, step * instr.perLane, instr.perLane),
                scores[k][blk]);
        }
    }
  }

  // Per-token scales ([N, Hkv, P]). With one M-tile and the edge branch's
  // registers, each lane loads its own token's (token i of its group) and
  // the group's are spread where used (mulTokens): one 4-byte load per
  // lane and scale instead of four 16-byte ones, one reciprocal, zero test
  // and NaN check per token instead of 16 per lane, no 16-element vectors
  // of them. With two M-tiles every use of a spread value would be an
  // instruction per M-tile (v_mul_f32_dpp for each element, against
  // v_pk_mul_f32 for two: 60-75 more per tile at D = 128, 32 rows), so
  // each lane loads its group's 16 (one load per run of them in one page);
  // kernels at the register limit keep that form too (the lane form took
  // the D = 256 32-row per-token kernels from 251-257 to 277-281 VGPRs).
  const bool registersToSpare = edgeTileBranch;
  // Pages shorter than the 16 tokens of a group keep the group's form too
  // (not measured with the lane form).
  const bool laneScales = tiles == 1 && registersToSpare && !pagesSplitGroups;
  auto tokenScales = [&](Value scales) -> Value {
    if (laneScales) {
      return memref::LoadOp::create(
          b, scales,
          ValueRange{valueRuns[0].page, kvHead,
                     (l.idx(valueRuns[0].firstSlot) + i).get()});
    }
    auto groupType = VectorType::get({kGroupTokens}, f32);
    if (valueRuns.size() == 1)
      return vector::LoadOp::create(
                 b, groupType, scales,
                 ValueRange{valueRuns[0].page, kvHead, valueRuns[0].firstSlot})
          .getResult();
    Value group = l.splatConstant(groupType, 0.0);
    for (const TokenRun &run : valueRuns) {
      Value part = vector::LoadOp::create(
          b, VectorType::get({run.count}, f32), scales,
          ValueRange{run.page, kvHead, run.firstSlot});
      group = vector::InsertStridedSliceOp::create(
          b, part, group, ArrayRef<int64_t>{run.first},
          ArrayRef<int64_t>{1});
    }
    return group;
  };
  // `vec` times the per-token values `values` of its tokens `tokens`.
  auto mulByTokens = [&](Value vec, Value values, ArrayRef<int64_t> tokens) {
    if (laneScales)
      return mulTokens(l, vec, values, tokens);
    return l.mulF(vec, l.shuffle(values, values, tokens));
  };
  const SmallVector<int64_t> groupTokens =
      llvm::to_vector(llvm::seq<int64_t>(0, kGroupTokens));
  // Scores in the exp2 domain (scale before mask): the row's scale, and
  // per-token key scales, applied right away so that they die here. A
  // score that is not finite must become NaN before the mask (an infinite
  // K element or scale would otherwise give a -inf that weighs 0, like a
  // masked score): bf16 K elements can be infinite, so bf16 caches check
  // every score; fp8 ones cannot, so only infinite per-token K scales need
  // checking (the row's scale is checked once, outside the loop).
  const bool keysMayBeInfinite = !isa<FloatType>(s.kvType) ||
                                 s.kvType.getIntOrFloatBitWidth() != 8;
  Value kScales;
  if (s.scale == ScaleMode::per_token) {
    kScales = tokenScales(views.kScale);
    if (!keysMayBeInfinite)
      kScales = buildNaNIfNotFinite(b, b.getLoc(), kScales);
  }
  // Tile starts are below 2^31 (context lengths are i32).
  Value tileStart32 =
      d.alibi ? arith::TruncIOp::create(b, b.getI32Type(), tileStart).getResult()
              : Value();
  for (size_t k = 0; k < tiles; ++k)
    for (int64_t blk = 0; blk < blocks; ++blk) {
      Value &score = scores[k][blk];
      // The token's scale first: its spread multiplies (v_mul_f32_dpp)
      // read the product's result directly, and the row's scale is then
      // a vector multiply (v_pk_mul_f32 where the chip has it).
      if (kScales)
        score = mulByTokens(
            score, kScales,
            ArrayRef<int64_t>(groupTokens).slice(blk * kResultElements,
                                                 kResultElements));
      score = l.mulF(score, l.broadcast(vec4, state.mTiles[k].rowScale));
      // Checked before the soft cap, which would map +-inf to +-cap.
      if (keysMayBeInfinite)
        score = buildNaNIfNotFinite(b, b.getLoc(), score);
      // Before the mask, so that masked columns stay exactly -inf.
      if (s.softCap)
        score = emitSoftCap(b, score, *s.softCap, /*fastReciprocal=*/true);
      // ALiBi after the cap, before the mask: element r of block blk is
      // token 16 j + 4 blk + r of the wave's quarter (qkToken).
      if (const MTileLanes &m = state.mTiles[k]; m.alibiSlope) {
        auto i32s = VectorType::get({kResultElements}, b.getI32Type());
        SmallVector<int64_t> offsets;
        for (int64_t r = 0; r < kResultElements; ++r)
          offsets.push_back(blk * kResultElements + r);
        Value first = l.addI(tileStart32, m.alibiDistance);
        Value distance = l.addI(l.broadcast(i32s, first),
                                l.vectorOf(i32s, offsets));
        score = emitAlibiBias(b, score, l.broadcast(vec4, m.alibiSlope),
                              distance);
      }
    }
  // Edge tiles: scores outside each row's visible range become -inf, and
  // per-token V scales and V bytes of tokens outside the op's valid range
  // 0. A tile that every row sees whole (all but a long row's edge tiles)
  // needs none of it, so the masking is a uniform branch taken for edge
  // tiles only (one for the scores and scales here, one for the V bytes
  // after their loads), where registers allow (edgeTileBranch).
  const int64_t loadsPerGroup = s.kvBytes();
  const int64_t tokensPerLoad = kGroupTokens / loadsPerGroup;
  auto wordsType = VectorType::get({4}, b.getI32Type());
  // An infinite per-token V scale needs no check: it makes the wave's V
  // unit infinite, so the tile's P factors are 0 * inf = NaN for its token
  // (and 0 for the others), and its rows are NaN from then on.
  Value vScales =
      s.scale == ScaleMode::per_token ? tokenScales(views.vScale) : Value();
  Value allOnes = l.splatConstant(wordsType, -1);
  Value full = edgeTileBranch ? tileIsFull(l, map, tileStart) : Value();
  // V's masking in a branch of its own (below) or as words from this one.
  Value valueBranch = tiles > 1 && loadsPerGroup == 1 ? full : Value();
  SmallVector<Value> validWords;
  {
    auto mask = [&] {
      SmallVector<Value> masked =
          maskEdgeTile(l, map, state, scores, vScales, tileStart);
      // In the edge branch: full tiles hold no partly seen token.
      if (partlyRunSlots && partlyScoresInLoop)
        storePartlySeen(l, map, state,
                        ArrayRef<Value>(masked).take_front(tiles * blocks),
                        tileStart);
      if (!valueBranch)
        masked.append(validValueWords(l, map, tileStart));
      return masked;
    };
    SmallVector<Value> whole;
    for (const SmallVector<Value> &blocks : scores)
      whole.append(blocks);
    if (vScales)
      whole.push_back(vScales);
    if (!valueBranch)
      for (int64_t u = 0; u < loadsPerGroup; ++u)
        whole.push_back(allOnes);
    SmallVector<Value> masked = full ? unlessFull(b, full, whole, mask) : mask();
    ArrayRef<Value> results = masked;
    for (SmallVector<Value> &blocks : scores)
      for (Value &block : blocks) {
        block = results.front();
        results = results.drop_front();
      }
    if (vScales) {
      vScales = results.front();
      results = results.drop_front();
    }
    validWords.assign(results.begin(), results.end());
  }

  LaneState next;
  next.mTiles = state.mTiles;
  next.queryOffset = l.toIndex(memref::LoadOp::create(
      b, scratch, ValueRange{l.index(zeroWord())}));
  // The wave's V unit: per-token scales of the valid tokens are folded into
  // P relative to their wave maximum, so that P * v_scale / unit stays in
  // [-1, 1] for the fp8 quantization; the accumulator is kept in units of
  // `unit` (rescaled when it changes) and multiplied back at the end.
  Value unitRatio;
  Value pFactors; // per token (as vScales), null for a constant factor
  auto tokenVector = VectorType::get({kGroupTokens}, f32);
  if (s.scale == ScaleMode::per_token) {
    Value waveMax;
    if (laneScales) {
      waveMax = waveMaxNum(l, l.absF(vScales));
    } else {
      Value laneMax = l.absF(l.extract(vScales, 0));
      for (int64_t e = 1; e < kGroupTokens; ++e)
        laneMax = l.maxNumF(laneMax, l.absF(l.extract(vScales, e)));
      waveMax = l.butterfly(laneMax, {kBlock, 2 * kBlock},
                            [&](Value p, Value q) { return l.maxNumF(p, q); });
    }
    Value positive = l.cmpF(arith::CmpFPredicate::OGT, waveMax, l.f32(0.0));
    next.valueUnit = l.select(positive, waveMax, state.valueUnit);
    // One reciprocal (v_rcp_f32, 1 ulp) instead of two IEEE divides; the
    // ratio is exactly 1 while the unit stays, so that it does not drift.
    Value inverseUnit = arith::DivFOp::create(
        b, l.f32(1.0), next.valueUnit,
        arith::FastMathFlagsAttr::get(
            ctx, arith::FastMathFlags::arcp | arith::FastMathFlags::afn));
    unitRatio = l.select(
        l.cmpF(arith::CmpFPredicate::OEQ, next.valueUnit, state.valueUnit),
        l.f32(1.0), l.mulF(state.valueUnit, inverseUnit));
    Value factor = l.mulF(l.f32(pScale), inverseUnit);
    pFactors = l.mulF(vScales, laneScales ? factor
                                          : l.broadcast(tokenVector, factor));
  }

  // fp8 with per-token scales: the weights the product used are the
  // quantized P divided by each token's folding factor (a reciprocal is
  // precise enough); tokens whose P is not folded into the product (factor
  // 0: V scale 0, or out of the valid range, where P is 0 anyway) count
  // with their exact P instead. Kernels with registers to spare (the edge
  // branch's) make the zero tests and reciprocals once per tile for all
  // M-tiles and sum the weights pairwise: per step, with scales per group,
  // the exact P where unfolded (1 / 0 is inf there, never selected), else
  // used / factor; with scales per lane, the sum of used * (1 / factor, 0
  // where unfolded) plus, only in tiles with an unfolded token (a uniform
  // branch), the sum of exact P * (1 where unfolded, else 0) (a spread
  // value has no select). Kernels at the 2-wave register limit
  // (two M-tiles at D > 128: the shared forms took gfx950's D = 256
  // 32-row kernel with per-token scales from 256 to 281 VGPRs, and the
  // pairwise sum a per-tensor one from 253 to 264) test and invert per
  // step, sum the unfolded tokens' P before the fold and the weights in
  // a chain.
  auto inverseOf = [&](Value factors) -> Value {
    return arith::DivFOp::create(
        b, l.splatLike(factors, 1.0), factors,
        arith::FastMathFlagsAttr::get(
            ctx, arith::FastMathFlags::arcp | arith::FastMathFlags::afn));
  };
  Value unfoldedTokens, inverseFactors, unfoldedOne;
  if (pFactors && s.fp8Compute() && registersToSpare) {
    unfoldedTokens = l.cmpF(arith::CmpFPredicate::OEQ, pFactors,
                            l.splatLike(pFactors, 0.0));
    inverseFactors = inverseOf(pFactors);
    if (laneScales) {
      inverseFactors = l.select(unfoldedTokens, l.f32(0.0), inverseFactors);
      unfoldedOne = l.select(unfoldedTokens, l.f32(1.0), l.f32(0.0));
    }
  }

  // Softmax per M-tile, then P for the PV operands.
  const int64_t pvStepCount = pvSteps(instr);
  // Per M-tile, the factor of the output accumulators: the row's max shift
  // times the V unit's ratio (exactly 1 where neither changed).
  SmallVector<Value> outScales;
  // probOperands[k][step]: P, and with its residual P's fp8 residual.
  SmallVector<SmallVector<SmallVector<Value>>> probOperands(tiles);
  for (size_t k = 0; k < tiles; ++k) {
    ArrayRef<Value> masked = scores[k];
    // NaN-ignoring maxima (one v_max_f32 each): a NaN score still makes
    // its row's sum NaN through exp2, and a NaN sum makes the row's
    // partials NaN (mergeAndStore).
    Value blockMax = masked[0];
    for (size_t blk = 1; blk < masked.size(); ++blk)
      blockMax = l.maxNumF(blockMax, masked[blk]);
    Value laneMax = l.extract(blockMax, 0);
    for (int64_t e = 1; e < kResultElements; ++e)
      laneMax = l.maxNumF(laneMax, l.extract(blockMax, e));
    // The row's 64 tokens are in the 4 lane groups of the wave.
    Value tileMax = l.butterfly(
        laneMax, {kBlock, 2 * kBlock},
        [&](Value p, Value q) { return l.maxNumF(p, q); });
    Value newMax = l.maxNumF(state.rowMax[k], tileMax);
    // exp2 never sees -inf - -inf: a row that has seen nothing shifts by 0.
    Value nothingSeen = l.cmpF(arith::CmpFPredicate::OEQ, newMax, l.negInf());
    Value zero = l.f32(0.0);
    Value alpha = l.exp2(
        l.select(nothingSeen, zero, l.subF(state.rowMax[k], newMax)));
    Value shift = l.broadcast(vec4, l.select(nothingSeen, zero, newMax));
    SmallVector<Value> probs;
    Value blockSum;
    for (Value block : masked) {
      Value p = l.exp2(l.subF(block, shift));
      probs.push_back(p);
      blockSum = blockSum ? l.addF(blockSum, p) : p;
    }
    Value laneSum = l.extract(blockSum, 0);
    for (int64_t e = 1; e < kResultElements; ++e)
      laneSum = l.addF(laneSum, l.extract(blockSum, e));
    next.rowMax.push_back(newMax);
    next.rowSum.push_back(l.addF(l.mulF(state.rowSum[k], alpha), laneSum));

    outScales.push_back(unitRatio ? l.mulF(alpha, unitRatio) : alpha);
    // Without the branch, here (after the softmax, before P's operands: at
    // the end of the M-tiles it took gfx950's D = 256 32-row per-token
    // kernel from 256 to 258 VGPRs).
    if (!registersToSpare)
      next.out.append(rescaleOutputs(l, ArrayRef(state.out).slice(k, 1),
                                     outScales.back(), /*branch=*/false));

    // P of the lane's 16 tokens in token order (block-major = token order).
    Value p8 = l.shuffle(probs[0], probs[1], {0, 1, 2, 3, 4, 5, 6, 7});
    Value p8b = l.shuffle(probs[2], probs[3], {0, 1, 2, 3, 4, 5, 6, 7});
    Value p16 = l.shuffle(p8, p8b, llvm::to_vector(llvm::seq<int64_t>(0, 16)));
    Value exactP = p16;
    // With scales per lane: per PV step, the exact P and its token
    // positions, whose unfolded tokens' weights are added apart.
    SmallVector<std::pair<Value, SmallVector<int64_t>>> unfoldedWeights;
    // fp8: the used weights, as per-step vectors summed element-wise
    // (registersToSpare) or as a chain of scalars.
    Value usedWeights, usedSum;
    if (pFactors && s.fp8Compute() && !registersToSpare) {
      Value zeros = l.splatConstant(tokenVector, 0.0);
      Value unfolded = l.select(
          l.cmpF(arith::CmpFPredicate::OEQ, pFactors, zeros), p16, zeros);
      for (int64_t e = 0; e < kGroupTokens; ++e) {
        Value element = l.extract(unfolded, e);
        usedSum = usedSum ? l.addF(usedSum, element) : element;
      }
    }
    if (pFactors)
      p16 = mulByTokens(p16, pFactors, groupTokens);
    else if (pScale != 1.0)
      p16 = l.mulF(p16, l.splatConstant(tokenVector, pScale));
    auto stepVector = VectorType::get({instr.perLane}, f32);
    for (int64_t step = 0; step < pvStepCount; ++step) {
      SmallVector<int64_t> positions;
      for (int64_t e = 0; e < instr.perLane; ++e) {
        int64_t token = pvToken<int64_t>(instr, step, 0, e);
        positions.push_back(qkResultBlock(token) * kResultElements +
                            qkResultElement(token));
      }
      Value operand = l.shuffle(p16, p16, positions);
      if (!s.fp8Compute()) {
        if (probResidual) {
          auto [hi, lo] = splitToBf16Terms(l, operand);
          probOperands[k].push_back({hi, lo});
        } else {
          probOperands[k].push_back({l.truncF(
              VectorType::get({instr.perLane}, s.computeType), operand)});
        }
        continue;
      }
      Value quantized = quantizeInRange(l, operand);
      // The weights as the product sees them, back in units of P: divided
      // by the folding factor (a reciprocal is precise enough here).
      Value used = l.extF(stepVector, quantized);
      probOperands[k].push_back({quantized});
      if (probResidual) {
        // |residual| <= pScale / 16: in range.
        Value rest = quantizeInRange(l, l.subF(operand, used));
        probOperands[k].back().push_back(rest);
        used = l.addF(used, l.extF(stepVector, rest));
      }
      Value exactStep = l.shuffle(exactP, exactP, positions);
      if (unfoldedOne) {
        used = mulTokens(l, used, inverseFactors, positions);
        unfoldedWeights.push_back({exactStep, positions});
      } else if (pFactors && registersToSpare) {
        used = l.select(l.shuffle(unfoldedTokens, unfoldedTokens, positions),
                        exactStep, mulByTokens(used, inverseFactors, positions));
      } else if (pFactors) {
        Value folded = l.shuffle(pFactors, pFactors, positions);
        Value zeros = l.splatConstant(stepVector, 0.0);
        Value unfolded = l.cmpF(arith::CmpFPredicate::OEQ, folded, zeros);
        Value inverse = inverseOf(
            l.select(unfolded, l.splatConstant(stepVector, 1.0), folded));
        used = l.select(unfolded, zeros, l.mulF(used, inverse));
      } else {
        used = l.mulF(used, l.splatConstant(stepVector, 1.0 / pScale));
      }
      if (registersToSpare) {
        usedWeights = usedWeights ? l.addF(usedWeights, used) : used;
        continue;
      }
      for (int64_t e = 0; e < instr.perLane; ++e) {
        Value element = l.extract(used, e);
        usedSum = usedSum ? l.addF(usedSum, element) : element;
      }
    }
    if (usedWeights)
      usedSum = sumElements(l, usedWeights);
    if (unfoldedOne) {
      // The unfolded tokens' exact P, in a uniform branch that tiles
      // without such a token (a V scale of 0, or an edge tile's token out
      // of range) skip.
      Value unfoldedLanes =
          ROCDL::BallotOp::create(b, b.getI64Type(), unfoldedTokens);
      Value noneUnfolded =
          l.cmpI(arith::CmpIPredicate::eq, unfoldedLanes, l.i64(0));
      usedSum = unlessFull(b, noneUnfolded, {usedSum}, [&] {
        Value exact;
        for (auto &[step, positions] : unfoldedWeights) {
          Value weights = mulTokens(l, step, unfoldedOne, positions);
          exact = exact ? l.addF(exact, weights) : weights;
        }
        return SmallVector<Value>{l.addF(usedSum, sumElements(l, exact))};
      }).front();
    }
    if (usedSum)
      next.rowWeight.push_back(
          l.addF(l.mulF(state.rowWeight[k], alpha), usedSum));
  }

  if (registersToSpare)
    next.out = rescaleOutputs(l, state.out, outScales, /*branch=*/true);

  // V^T: for head-dim block blk, lane (d = 16 blk + i, group j) loads the
  // group's 16 tokens of d (one or two 16-byte loads) as i32 words; values
  // of tokens outside [valid_begin, valid_end) are zeroed (0 * NaN would
  // poison O). With the edge branch, two M-tiles and one load per lane
  // group (fp8): in edge tiles only (the loads before a second uniform
  // branch, their masking on its edge side; 51-60 fewer instructions per
  // tile at D = 128, 32 rows, still 2 waves per SIMD). Else every load is
  // ANDed with validWords right after it (all ones in full tiles): with
  // one M-tile the second branch raised D = 128's 163-167 VGPRs to
  // 196-201 (3 waves per SIMD to 2) for 17-30 instructions, and bf16's
  // two loads per group at D = 128, 32 rows took gfx950 from 161 to 225
  // (3 to 2); one branch per 1, 2 or 4 blocks saved less and still cost
  // registers.
  auto loadValueWords = [&](int64_t blk, int64_t u) -> Value {
    IndexExpr dIndex = i + blk * kBlock;
    if (s.layout != CacheLayout::packed) {
      // nhd / hnd keep a token's head dims together, not a head dim's
      // tokens: one element load per token (docs/performance.md).
      SmallVector<Value> elements;
      for (int64_t e = u * tokensPerLoad; e < (u + 1) * tokensPerLoad; ++e) {
        auto [page, slot] = valuePlace(e);
        elements.push_back(memref::LoadOp::create(
            b, views.values,
            buildCacheElementIndices(b, b.getLoc(), s.layout,
                                     CacheOperand::value, s.vLayout, x, page,
                                     kvHead, slot, dIndex, constant)));
      }
      return l.bitcast(wordsType, vector::FromElementsOp::create(
                                      b, kvVector(tokensPerLoad), elements));
    }
    SmallVector<Value> indices =
        s.vLayout == VLayout::plain
            ? SmallVector<Value>{vPage, kvHead, dIndex,
                                 (l.idx(vSlot0) + u * tokensPerLoad).get()}
            : SmallVector<Value>{vPage, kvHead, (l.idx(vSlot0) / x + u).get(),
                                 dIndex, l.index(0)};
    return l.bitcast(wordsType,
                     vector::LoadOp::create(b, kvVector(tokensPerLoad),
                                            views.values, indices));
  };
  auto maskWords = [&](ArrayRef<Value> words, ArrayRef<Value> valid) {
    SmallVector<Value> masked;
    for (auto [n, word] : llvm::enumerate(words))
      masked.push_back(l.andI(word, valid[n % loadsPerGroup]));
    return masked;
  };
  SmallVector<Value> valueWords; // [blk * loadsPerGroup + u], when loaded
  if (valueBranch) {
    for (int64_t blk = 0; blk < dBlocks; ++blk)
      for (int64_t u = 0; u < loadsPerGroup; ++u)
        valueWords.push_back(loadValueWords(blk, u));
    valueWords = unlessFull(b, valueBranch, valueWords, [&] {
      return maskWords(valueWords, validValueWords(l, map, tileStart));
    });
  }
  for (int64_t blk = 0; blk < dBlocks; ++blk) {
    SmallVector<Value> words;
    if (valueBranch) {
      words.assign(valueWords.begin() + blk * loadsPerGroup,
                   valueWords.begin() + (blk + 1) * loadsPerGroup);
    } else {
      for (int64_t u = 0; u < loadsPerGroup; ++u)
        words.push_back(loadValueWords(blk, u));
      words = maskWords(words, validWords);
    }
    SmallVector<Value> loads;
    for (Value word : words)
      loads.push_back(l.bitcast(kvVector(tokensPerLoad), word));
    Value group16 =
        loads.size() == 1
            ? loads[0]
            : l.shuffle(loads[0], loads[1],
                        llvm::to_vector(llvm::seq<int64_t>(0, kGroupTokens)));
    group16 = toComputeType(l, group16);
    for (int64_t step = 0; step < pvStepCount; ++step) {
      SmallVector<int64_t> positions;
      for (int64_t e = 0; e < instr.perLane; ++e)
        positions.push_back(pvToken<int64_t>(instr, step, 0, e));
      Value operand = l.shuffle(group16, group16, positions);
      for (size_t k = 0; k < tiles; ++k)
        for (Value prob : probOperands[k][step])
          next.out[k][blk] = mfmaOp(b, operand, prob, next.out[k][blk]);
    }
  }
  return next;
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
    return each([&](size_t, Value position) {
      return buildVisiblePageId(b, b.getLoc(), direct, range, position,
                                constant);
    });
  }
  return each([&](size_t, Value position) -> Value {
    return vector::ExtractOp::create(b, vec, OpFoldResult(position));
  });
}

//===----------------------------------------------------------------------===//
// Epilogue
//===----------------------------------------------------------------------===//

void DecodeLowering::mergeAndStore(ImplicitLocOpBuilder &b,
                                   const WaveResult &state) {
  LaneBuilder l(b);
  TileStorePartialsOp store = d.storePartials;
  IndexExpr i = l.idx(rowLane), j = l.idx(group), w = l.idx(wave);
  Value zero = l.f32(0.0);
  Value negInf = l.negInf();

  // Row sums over the 4 lane groups; the accumulator's unit.
  auto groupSum = [&](Value sum) {
    return l.butterfly(sum, {kBlock, 2 * kBlock},
                       [&](Value p, Value q) { return l.addF(p, q); });
  };
  SmallVector<Value> rowSums, rowWeights;
  for (Value sum : state.rowSum)
    rowSums.push_back(groupSum(sum));
  for (Value sum : state.rowWeight)
    rowWeights.push_back(groupSum(sum));
  // The accumulators are in units of unit / pScale (per M-tile).
  SmallVector<Value> outUnits;
  for (int64_t t = 0; t < s.mTiles; ++t) {
    Value unit = !state.valueUnit.empty() ? state.valueUnit[t]
                 : vScaleTensor           ? vScaleTensor
                                          : l.f32(1.0);
    outUnits.push_back(l.divF(unit, l.f32(pScale)));
  }

  // Wave statistics through LDS (lane group 0 holds them for its rows).
  Value firstGroup = l.cmpI(arith::CmpIPredicate::eq, j, l.index(0));
  scf::IfOp::create(b, firstGroup, [&](OpBuilder &nested, Location loc) {
    ImplicitLocOpBuilder nb(loc, nested);
    LaneBuilder nl(nb);
    for (int64_t t = 0; t < s.mTiles; ++t) {
      IndexExpr slot = nl.idx(wave) * s.rows + nl.idx(rowLane) + t * kBlock;
      memref::StoreOp::create(nb, state.rowMax[t], stats,
                              ValueRange{(slot + statsRowMax()).get()});
      memref::StoreOp::create(nb, rowSums[t], stats,
                              ValueRange{(slot + statsRowSum()).get()});
      if (!rowWeights.empty())
        memref::StoreOp::create(nb, rowWeights[t], stats,
                                ValueRange{(slot + statsRowWeight()).get()});
    }
    scf::YieldOp::create(nb);
  });
  // Also orders every wave's last query read before the scratch is reused.
  gpu::BarrierOp::create(b);

  // Row max M over the waves, the merged sum L, this wave's weight.
  SmallVector<Value> weights, empties;
  Value isWave0 = l.cmpI(arith::CmpIPredicate::eq, w, l.index(0));
  Value writesStats = l.andI(isWave0, firstGroup);
  for (int64_t t = 0; t < s.mTiles; ++t) {
    IndexExpr rowIndex = i + t * kBlock;
    SmallVector<Value> maxima, sums, used;
    for (int64_t other = 0; other < kWaves; ++other) {
      IndexExpr slot = rowIndex + other * s.rows;
      maxima.push_back(memref::LoadOp::create(
          b, stats, ValueRange{(slot + statsRowMax()).get()}));
      sums.push_back(memref::LoadOp::create(
          b, stats, ValueRange{(slot + statsRowSum()).get()}));
      if (!rowWeights.empty())
        used.push_back(memref::LoadOp::create(
            b, stats, ValueRange{(slot + statsRowWeight()).get()}));
    }
    Value rowMax = maxima[0];
    for (int64_t other = 1; other < kWaves; ++other)
      rowMax = l.maxF(rowMax, maxima[other]);
    // exp2(m_w - M), 0 for a wave that saw nothing (never -inf - -inf).
    auto waveFactor = [&](Value waveMax) {
      Value emptyWave = l.cmpF(arith::CmpFPredicate::OEQ, waveMax, negInf);
      return l.exp2(l.select(emptyWave, negInf, l.subF(waveMax, rowMax)));
    };
    auto merged = [&](ArrayRef<Value> waveSums) {
      Value sum = zero;
      for (int64_t other = 0; other < kWaves; ++other)
        sum = l.addF(sum, l.mulF(waveFactor(maxima[other]), waveSums[other]));
      return sum;
    };
    // exp_sums is the exact sum; the output is normalized by the weights
    // its product used (fp8: the quantized P), 0 if none survived.
    Value total = merged(sums);
    // A NaN sum (a non-finite input reached the row, whatever the NaN-
    // dropping maxima kept) makes the row's partials NaN: normalizer and
    // max_logits take it, so the reducer cannot drop the partition.
    Value reachedByNaN = l.cmpF(arith::CmpFPredicate::UNO, total, total);
    Value normalizer =
        used.empty() ? total
                     : l.select(reachedByNaN, total, merged(used));
    Value empty = l.cmpF(arith::CmpFPredicate::OEQ, total, zero);
    Value noWeight = l.cmpF(arith::CmpFPredicate::OEQ, normalizer, zero);
    empties.push_back(noWeight);
    weights.push_back(l.select(
        noWeight, zero,
        l.divF(l.mulF(waveFactor(state.rowMax[t]), outUnits[t]), normalizer)));

    IndexExpr row = l.idx(store.getRowBase()) + rowIndex;
    Value inRange = l.cmpI(arith::CmpIPredicate::ult, row, l.index(s.totalRows));
    scf::IfOp::create(
        b, l.andI(writesStats, inRange), [&](OpBuilder &nested, Location loc) {
          ImplicitLocOpBuilder nb(loc, nested);
          LaneBuilder nl(nb);
          Value maxLogit = nl.select(
              reachedByNaN, total,
              nl.select(empty, negInf,
                        nl.mulF(rowMax, nl.f32(llvm::numbers::ln2))));
          SmallVector<Value> indices = {store.getKvHead(), store.getSlot(),
                                        row.get()};
          memref::StoreOp::create(nb, maxLogit, store.getMaxLogits(), indices);
          memref::StoreOp::create(nb, total, store.getExpSums(), indices);
          if (partlySlots()) {
            // What partlySeenShare weighs the partly seen tokens with.
            memref::StoreOp::create(
                nb, rowMax, stats,
                ValueRange{(nl.idx(rowIndex.get()) + statsMergedMax()).get()});
            memref::StoreOp::create(
                nb,
                nl.select(noWeight, zero, nl.divF(nl.f32(1.0), normalizer)),
                stats,
                ValueRange{
                    (nl.idx(rowIndex.get()) + statsInverseNormalizer()).get()});
          }
          scf::YieldOp::create(nb);
        });
  }

  // The output in head-dim chunks: every wave writes its weighted share of
  // the chunk to its LDS slot; after a barrier each lane sums 4 values of
  // the 4 slots and writes them to tmp_out.
  auto wordsType = VectorType::get({kResultElements}, b.getI32Type());
  const int64_t blocksPerChunk = chunkDims / kBlock;
  const int64_t units = s.rows * chunkDims / kResultElements;
  const int64_t chunkCount = s.headDim / chunkDims;
  Value zeros = l.splatConstant(vec4, 0.0);
  for (int64_t chunk = 0; chunk < chunkCount; ++chunk) {
    for (int64_t t = 0; t < s.mTiles; ++t)
      for (int64_t blk = 0; blk < blocksPerChunk; ++blk) {
        Value weighted =
            l.select(empties[t], zeros,
                     l.mulF(state.out[t][chunk * blocksPerChunk + blk],
                            l.broadcast(vec4, weights[t])));
        // O element r of lane (row i, group j) is head dim 16 blk + 4 j + r.
        IndexExpr word = (w * s.rows + i + t * kBlock) * chunkDims +
                         blk * kBlock + j * kResultElements;
        vector::StoreOp::create(b, l.bitcast(wordsType, weighted), scratch,
                                ValueRange{word.get()}, false, llvm::Align(16));
      }
    gpu::BarrierOp::create(b);
    for (int64_t first = 0; first < units; first += chip.workgroupSize) {
      IndexExpr unitIndex = l.idx(tid) + first;
      IndexExpr element = unitIndex * kResultElements;
      IndexExpr rowIndex = element / chunkDims;
      IndexExpr dim = element % chunkDims;
      IndexExpr row = l.idx(store.getRowBase()) + rowIndex;
      Value inRange = l.cmpI(arith::CmpIPredicate::ult, row, l.index(s.totalRows));
      if (units - first < chip.workgroupSize)
        inRange = l.andI(inRange, l.cmpI(arith::CmpIPredicate::ult, unitIndex,
                                         l.index(units)));
      scf::IfOp::create(b, inRange, [&](OpBuilder &nested, Location loc) {
        ImplicitLocOpBuilder nb(loc, nested);
        LaneBuilder nl(nb);
        Value sum;
        for (int64_t other = 0; other < kWaves; ++other) {
          IndexExpr word = (nl.idx(rowIndex.get()) + other * s.rows) * chunkDims +
                           nl.idx(dim.get());
          Value part = nl.bitcast(
              vec4, vector::LoadOp::create(nb, wordsType, scratch,
                                           ValueRange{word.get()}, false,
                                           llvm::Align(16)));
          sum = sum ? nl.addF(sum, part) : part;
        }
        Value headDim = (nl.idx(dim.get()) + chunk * chunkDims).get();
        if (partlySlots())
          sum = nl.addF(sum, partlySeenShare(nb, rowIndex.get(), headDim));
        // An element that is not finite (an infinite V element reached
        // it) is NaN, as in the reference.
        sum = buildNaNIfNotFinite(nb, loc, sum);
        vector::StoreOp::create(
            nb, sum, store.getTmpOut(),
            ValueRange{store.getKvHead(), store.getSlot(), row.get(), headDim});
        scf::YieldOp::create(nb);
      });
    }
    if (chunk + 1 < chunkCount)
      gpu::BarrierOp::create(b);
  }
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
  // IEEE mode off: maxnum is then one v_max_f32 (no NaN quieting of its
  // inputs), which drops NaN; NaN scores still reach the sums through
  // exp2, and a NaN sum decides the partials (mergeAndStore).
  Builder attrs(ctx);
  SmallVector<Attribute> passthrough = {
      attrs.getStrArrayAttr({"amdgpu-ieee", "false"})};
  // At least 2 waves per SIMD (at most 256 VGPRs + AGPRs): the register
  // allocator otherwise settles a few registers above that for some 32-row
  // groups with the 64-bit fallback loop (1 wave per SIMD, no latency
  // hiding). A kernel that would spill for it is generated again without
  // the request (emitCodeObject); the code-object tests check that no
  // configuration spills.
  passthrough.push_back(attrs.getStrArrayAttr({"amdgpu-waves-per-eu", "2"}));
  kernel->setAttr("passthrough", attrs.getArrayAttr(passthrough));
  createLaneIds();

  distributePageIdFills();
  // The ops lowered by patterns of their own (DecodeLanes.h).
  RewritePatternSet patterns(ctx);
  populateDecodeToMFMAPatterns(patterns, *this);
  walkAndApplyPatterns(kernel, std::move(patterns));

  ImplicitLocOpBuilder b(d.tileLoop.getLoc(), d.tileLoop);
  if (partlySlots() && partlyScoresInLoop)
    initPartlySeen(b);
  // Page ids and query rows are in LDS for every wave.
  gpu::BarrierOp::create(b);
  computeLaneConstants(b);
  // cache-offsets=64 takes the 64-bit loop whatever the pool size.
  bool staticFits = false;
  Value fits =
      only64BitOffsets ? Value() : viewsFit32BitOffsets(b, staticFits);
  WaveResult final;
  if (!fits) {
    final = staticFits ? emitTileLoops(b, fatRawBufferViews(b), false)
                       : emitTileLoops(b, globalViews(), true);
  } else {
    // Pool sizes are dynamic: 32-bit buffer offsets when every paged buffer
    // is below 2 GiB (the usual case), 64-bit global addresses otherwise.
    // The 64-bit loop runs the M-tiles one after the other, so that its
    // wider addresses do not raise the kernel's register count above the
    // 32-bit loop's (which decides the occupancy).
    CacheViews fat = fatRawBufferViews(b);
    auto choice = scf::IfOp::create(b, TypeRange{}, fits,
                                    /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&choice.getThenRegion().front());
    WaveResult fast = emitTileLoops(b, fat, false);
    b.setInsertionPointToStart(&choice.getElseRegion().front());
    WaveResult wide = emitTileLoops(b, globalViews(), true);
    // Now that the result types are known: rebuild the if with results.
    b.setInsertionPoint(choice);
    SmallVector<Type> types = llvm::to_vector(
        llvm::map_range(fast.flatten(), [](Value v) { return v.getType(); }));
    auto withResults = scf::IfOp::create(b, types, fits, true);
    withResults.getThenRegion().takeBody(choice.getThenRegion());
    withResults.getElseRegion().takeBody(choice.getElseRegion());
    auto yieldIn = [&](Region &region, ValueRange values) {
      Block &block = region.front();
      block.getTerminator()->erase();
      b.setInsertionPointToEnd(&block);
      scf::YieldOp::create(b, values);
    };
    yieldIn(withResults.getThenRegion(), fast.flatten());
    yieldIn(withResults.getElseRegion(), wide.flatten());
    choice.erase();
    final = WaveResult::unflatten(withResults.getResults(), fast);
  }

  b.setInsertionPoint(d.storePartials);
  // Before the merge's first barrier, which orders these stores before
  // partlySeenShare reads them.
  if (partlySlots() && !partlyScoresInLoop)
    scorePartlySeen(b);
  mergeAndStore(b, final);

  d.storePartials.erase();
  d.tileLoop.erase();
  d.initSoftmax.erase();
  // The page-id reads left (the staged loads' fallback, fills of another
  // shape) read the block table by the op's rule, uniformly on every lane.
  SmallVector<TilePageIdsOp> direct;
  kernel.walk([&](TilePageIdsOp op) { direct.push_back(op); });
  for (TilePageIdsOp op : direct)
    if (failed(lowerTilePageIdsToLoop(op)))
      return failure();
  eraseWorkgroupAttributions(kernel, tileBuffers);
  return success();
}

} // namespace

LogicalResult mfma::lowerDecodeKernel(DecodeKernel &decode,
                                      const ChipInfo &chip,
                                      const MFMAOptions &options) {
  return DecodeLowering(decode, chip, options).run();
}
