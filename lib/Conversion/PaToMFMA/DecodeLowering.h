//===- DecodeLowering.h - the decode kernel's op lowerings -----*- C++ -*-===//
//
// How pa-to-mfma lowers a decode kernel (DecodeToMFMA.cpp describes the
// kernel it makes), a file per tile op:
//   PageIdsToMFMA.cpp       pa-stage-page-ids' staging loops, lane-strided
//   LoadQueryToMFMA.cpp     pa.tile.load_query: the query row group in LDS
//   TileLoopToMFMA.cpp      the tile loop: the loop-carried softmax state
//                           and accumulators in registers (LaneState, the
//                           loops' iter_args); the loop body's tile ops by
//                           their patterns, once per lane loop (TileStep)
//   QKToMFMA.cpp            pa.tile.qk (and the tile's pa.tile.alibi):
//                           S^T = K Q^T, the scores in the exp2 domain
//   SoftmaxToMFMA.cpp       pa.tile.init_softmax and pa.tile.softmax: the
//                           edge tiles' masking, the online softmax, P as
//                           the PV product's operands
//   PVToMFMA.cpp            pa.tile.pv: O^T += V^T P^T
//   PartlySeen.cpp          tokens some rows of the group see, others not
//   StorePartialsToMFMA.cpp pa.tile.store_partials: the waves' merge
// DecodeLanes (DecodeLanes.h) is the state all of them share; DecodeLowering
// adds the decisions and lane values of the loop and the epilogue. The
// driver (DecodeLowering::run) applies one pattern per op in program order
// through a PatternApplicator; the tile loop's applies qk's, softmax's and
// pv's to the tile ops it places in each lane loop, and hands the loops'
// results to store_partials' (loopResults).
//
//===----------------------------------------------------------------------===//
#ifndef PA_CONVERSION_PATOMFMA_DECODELOWERING_H
#define PA_CONVERSION_PATOMFMA_DECODELOWERING_H

#include "DecodeLanes.h"

#include "pa/Transforms/KernelBuilder.h"
#include "pa/Transforms/ScoreMath.h"
#include "pa/Transforms/TileLowering.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Rewrite/PatternApplicator.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/MathExtras.h"

#include <functional>

namespace mlir::pa::mfma {

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
  // at token 0 from the row's own token C - Q + q, less alibiShift: M-tile
  // t > 0 shares M-tile 0's values where G divides 16 (its rows' heads are
  // the same, their MTP positions 16 t / G further), and its shift is that
  // constant, which the score's distances subtract.
  Value alibiSlope, alibiDistance;
  int64_t alibiShift = 0;
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
  /// product actually used (the quantized P, scales divided out again;
  /// with weightsByMFMA the wave's sum, in units of 1 / pScale); the
  /// output is normalized by it, so that P's rounding shifts numerator and
  /// denominator alike. rowSum stays the exact sum (the partial's
  /// exp_sums).
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

/// Where the lane's K and V tokens of one tile lie (docs/mfma-lowering.md,
/// "Cache layouts"): pages of 16 to 256 tokens hold the 16 tokens of a
/// lane's K rows and of its lane group's V columns each in one page (kPage,
/// vPage); smaller pages split them (a page id per K block, per run of P V
/// tokens); a page larger than a tile holds the whole tile from slot
/// tileStart % P (tileSlot). qk reads K's and V's page ids at once (one
/// branch where they are staged or not); softmax (per-token V scales) and
/// pv use V's.
struct TilePlaces {
  Value kPage, vPage; // index
  Value tileSlot;     // index; null unless a page holds the tile
  /// Pages smaller than a lane group: the page of each K block's token.
  SmallVector<Value> kBlockPages;
  /// The lane group's 16 V tokens as runs of consecutive slots of one page:
  /// a run holds tokens [first, first + count) of the group.
  struct TokenRun {
    Value page, firstSlot;
    int64_t first, count;
  };
  SmallVector<TokenRun> valueRuns;

  /// The page and slot of token e of the lane group.
  std::pair<Value, Value> valuePlace(LaneBuilder &l, int64_t e) const {
    for (const TokenRun &run : valueRuns)
      if (e < run.first + run.count)
        return {run.page, (l.idx(run.firstSlot) + (e - run.first)).get()};
    llvm_unreachable("token outside the lane group");
  }
};

/// One lane loop's body: the values its tile ops' patterns hand each other
/// in registers, in program order (qk, softmax, pv). The tiled IR passes
/// them through workgroup buffers (the scores, P in their place, the
/// softmax state and the accumulator), which its tile ops read and write
/// and which the lane code does not have; the tile loop's pattern makes one
/// TileStep per lane loop, from the loop's iter_args, and yields `next`.
struct TileStep {
  CacheViews views;
  /// The loop-carried state at the tile's start (the iter_args).
  LaneState state;
  /// The tile's first token (i64), and pv's valid range (i64): the tokens
  /// whose V the product multiplies, outside which the edge tiles mask.
  Value tileStart, validBegin, validEnd;
  /// The KV head (qk's operand; softmax loads V scales with it).
  Value kvHead;
  /// With K prefetch (DecodeLowering::prefetchKeys): the tile's K loads,
  /// issued by the previous step (loadTileKeys' order), and what issues the
  /// next tile's (qk calls it once its own K is read; their results are
  /// nextKeys, which the loop carries).
  SmallVector<Value> keys;
  std::function<SmallVector<Value>(ImplicitLocOpBuilder &)> loadNextKeys;
  SmallVector<Value> nextKeys;
  // -- from qk --
  TilePlaces places;
  /// [M-tile][block] vector<4xf32>: the scores in the exp2 domain (scaled,
  /// soft-capped, with ALiBi's bias), not yet masked.
  SmallVector<SmallVector<Value>> scores;
  // -- from softmax --
  /// [M-tile][PV step]: P's operands for the PV product (P, and with
  /// probResidual its residual).
  SmallVector<SmallVector<SmallVector<Value>>> probOperands;
  /// The V masking: where it has a branch of its own in pv, its condition
  /// (the tile is full), else the words each 16-byte V load is ANDed with
  /// (validValueWords, all ones in full tiles).
  Value valueBranch;
  SmallVector<Value> validWords;
  /// The state at the tile's end: softmax's statistics and rescaled
  /// accumulators, to which pv adds the tile's products.
  LaneState next;
};

class DecodeLowering : public DecodeLanes {
public:
  DecodeLowering(DecodeKernel &d, const ChipInfo &chip,
                 const MFMAOptions &options);

  /// Lowers the kernel: the buffers and lane ids, then the tile ops by
  /// their patterns in program order (DecodeToMFMA.cpp).
  LogicalResult run();
  /// Waves per SIMD the kernel asks of the register allocator
  /// (amdgpu-waves-per-eu): 2 (at most 256 VGPRs + AGPRs; unasked, the
  /// allocator settled a few registers above that for some 32-row groups
  /// with the 64-bit fallback loop: 1 wave, no latency hiding), and 3 (at
  /// most 168) for 16-row groups where the LDS holds 3 workgroups per CU
  /// (gfx942 D 256 per-token with a window settled at 169 unasked, 168 asked
  /// with the same loop), or 4 (at most 128) where it holds 4 and D <= 128
  /// (gfx950 D 128 bf16 settled at 129 unasked since the softmax's shift is
  /// a packed add). The AMD backend's emit asks one wave fewer of a kernel
  /// that spills for it, then nothing; the code-object tests check that no
  /// configuration spills. 16-row kernels that prefetch K ask at most 3;
  /// kernels measured never to meet a request ask one wave fewer from the
  /// start (D = 512; per-token scales on nhd / hnd caches).
  int64_t requestedWaves() const;
  /// The amdgpu-waves-per-eu value: requestedWaves as a minimum ("n"), or
  /// exactly ("n,n") where aiming above it only cost loads in flight.
  std::string occupancyRequest() const;
  /// The waves per SIMD the kernel's LDS and head dim allow (requestedWaves
  /// without the K prefetch's limit).
  int64_t wavesAllowed() const;
  /// Whether KeyPrefetch::automatic prefetches: where one tile's K fits in
  /// the registers without losing a wave (measured).
  bool keyPrefetchFits() const;

  // The op lowerings the patterns call, at the builder's insertion point
  // (the op's place).
  /// The tile loop (pa.tile.qk, alibi, softmax, pv per tile) as the
  /// lanes' loops, with the softmax state and accumulators loop-carried in
  /// registers; their final values go to loopResults (TileLoopToMFMA.cpp).
  void lowerTileLoop(ImplicitLocOpBuilder &b);
  /// The tile ops of a lane loop's body, on `*currentStep`: pa.tile.qk
  /// with the tile's alibi (QKToMFMA.cpp), pa.tile.softmax
  /// (SoftmaxToMFMA.cpp), pa.tile.pv (PVToMFMA.cpp).
  void lowerQK(TileQKOp op, ImplicitLocOpBuilder &b);
  void lowerSoftmax(TileSoftmaxOp op, ImplicitLocOpBuilder &b);
  void lowerPV(TilePVOp op, ImplicitLocOpBuilder &b);
  /// pa.tile.store_partials: the four waves' loopResults merged and
  /// stored (StorePartialsToMFMA.cpp).
  void lowerStorePartials(TileStorePartialsOp op, ImplicitLocOpBuilder &b);

private:
  // -- prologue --
  void createLaneIds();
  void renewLaneIds(ImplicitLocOpBuilder &b);
  void distributePageIdFills();
  bool distributeFill(TilePageIdsOp ids);
  void computeLaneConstants(ImplicitLocOpBuilder &b);
  CacheViews fatRawBufferViews(ImplicitLocOpBuilder &b);
  CacheViews globalViews();
  Value viewsFit32BitOffsets(ImplicitLocOpBuilder &b, bool &staticFits);
  // -- tile loop --
  LaneState initialState(ImplicitLocOpBuilder &b,
                         ArrayRef<MTileLanes> mTiles);
  /// One lane loop over the tiles from `init`; with `prefetch`, each step
  /// issues the next tile's K loads (prefetchKeys).
  LaneState emitTileLoop(ImplicitLocOpBuilder &b, const CacheViews &views,
                         const LaneState &init, bool prefetch);
  /// The tile loops over `views`: one loop for all M-tiles (each K/V load
  /// serves both), or, for the 64-bit addresses (`wideAddresses`) of a
  /// kernel where wideLoopPerMTile says so, one M-tile at a time (half the
  /// accumulators live at once).
  WaveResult emitTileLoops(ImplicitLocOpBuilder &b, const CacheViews &views,
                           bool wideAddresses);
  /// Whether the 64-bit loop runs the M-tiles one after the other, reading
  /// K and V once per M-tile: where both M-tiles' accumulators with 64-bit
  /// addresses would not fit the 32-bit loop's waves.
  bool wideLoopPerMTile() const;
  /// The kernel has the 64-bit loop only (cache-offsets=64, or a static
  /// pool too large for 32-bit offsets): no 32-bit loop's waves to keep.
  bool wideLoopAlone = false;
  /// Whether the 64-bit loop keeps the next tile's K in flight too (where
  /// the 32-bit loop does: prefetchKeys) without costing a wave.
  bool wideLoopPrefetchesKeys() const;
  /// One tile loop that runs once per M-tile in a run-time loop over the
  /// M-tiles: a copy of the tile loop per M-tile would double its code and
  /// the kernel's compile time.
  WaveResult emitMTileAtATimeLoop(ImplicitLocOpBuilder &b,
                                  const CacheViews &views);
  /// Rewrites `op` by its pattern (the applicator of run()).
  void lowerByPattern(Operation *op);
  /// Where the lane's K and V tokens of the tile lie, from the tile's page
  /// ids `ids` (qk's operand).
  TilePlaces placeTileTokens(LaneBuilder &l, Value ids, Value tileStart);
  /// The lane's 16-byte K load of block `blk` (tokens qkToken(blk, i)) and
  /// head-dim chunk c (chunk 4c + j of the row), raw (the cache's type);
  /// `inRow` is lastChunkInRow's.
  Value loadTileKey(LaneBuilder &l, const TilePlaces &places, Value kvHead,
                    const CacheViews &views, Value inRow, int64_t blk,
                    int64_t c);
  /// All of the tile's K loads of the lane, chunk-major ([c * blocks +
  /// blk]), and their types.
  SmallVector<Value> loadTileKeys(LaneBuilder &l, const TilePlaces &places,
                                  Value kvHead, const CacheViews &views);
  /// The lane's 16-byte K loads per tile, and their types as loadTileKeys
  /// yields them (4 i32 words each).
  int64_t tileKeyLoads() const {
    return qkChunks * (kQuarterTokens / kBlock);
  }
  SmallVector<Type> tileKeyTypes() const;
  /// The K loads of tile `tile` (an index of the tiled loop) where it is
  /// one of the loop's (below its upper bound), else poison: the tiled loop
  /// body's page-id computation for that tile, its lane's places and the
  /// loads, in one uniform branch.
  /// `tile32` / `begin32`: the tile's number and the lane loop's lower
  /// bound in i32 (narrowStagedTest).
  SmallVector<Value> prefetchTileKeys(ImplicitLocOpBuilder &b, Value tile,
                                      Value tile32, Value begin32,
                                      const CacheViews &views);
  /// pa-stage-page-ids' test of whether a tile's ids are staged, `tile -
  /// begin < staged` on the tiled loop's index and lower bound, once
  /// `map` has cloned it for the tile numbered `tile32` of a lane loop
  /// from `begin32`: the same test in i32 (an index compare is a 64-bit
  /// VALU one), and the staged tile's index from the same difference.
  void narrowStagedTest(ImplicitLocOpBuilder &b, const IRMapping &map,
                        Value tile32, Value begin32);
  /// pa::tileKeyPlaceOps of the kernel (prefetchTileKeys copies them for
  /// another tile), found on the first prefetching loop; none: no prefetch.
  std::optional<SmallVector<Operation *>> keyPlaceOps;
  /// A partial last QK chunk (D = 80: head dims [64, 128) with D = 80
  /// fp8): whether the lane group holds head dims of the row in it (null
  /// where every group does). Groups that do not read the row's last 16
  /// bytes (never past the row, never LDS the query staging did not
  /// write) and replace K and the query by zeros (zeroPastRow), so that
  /// they add exact zeros (a query NaN of another row cannot reach this
  /// one).
  Value lastChunkInRow(LaneBuilder &l);
  Value zeroPastRow(LaneBuilder &l, Value inRow, Value words, int64_t c);
  /// The first head dim of the lane group in chunk c, kept inside the row.
  Value chunkFirst(LaneBuilder &l, Value inRow, int64_t c);
  // Per-token scales ([N, Hkv, P]). With the edge branch's registers, each
  // lane loads its own token's (token i of its group) and the group's are
  // spread where used (mulTokens): one 4-byte load per lane and scale
  // instead of four 16-byte ones, one reciprocal, zero test and NaN check
  // per token instead of 16 per lane, no 16-element vectors of them. With
  // two M-tiles a spread value costs an instruction per M-tile where the
  // group's vector costs one per two elements, but the group's 16 scales
  // per lane (and what is derived from them) cost more: at D = 128, 32 rows
  // the lane form is 64-67 instructions per tile fewer and 31-45 VGPRs
  // fewer (248-254 -> 209-217, room for the K prefetch); it was 60-75 more
  // when first measured (2026-12-01), before the weights' factor moved into
  // the shift and their sums to the matrix unit. Kernels without the edge
  // branch (two M-tiles at D > 128, at the register limit) keep the group's
  // form (the lane form took the D = 256 32-row per-token kernels from
  // 251-257 to 277-281 VGPRs), and so do pages shorter than the 16 tokens
  // of a group (not measured with the lane form).
  bool scalesPerLane() const {
    return edgeTileBranch && s.pageSize >= kGroupTokens;
  }
  /// The per-token scales `scales` of the lane's tokens: its own token's
  /// (scalesPerLane), else its lane group's 16.
  Value tokenScales(LaneBuilder &l, const TileStep &tile, Value scales);
  /// `vec` times the per-token values `values` of its tokens `tokens`.
  Value mulByTokens(LaneBuilder &l, const TileStep &tile, Value vec,
                    Value values, ArrayRef<int64_t> tokens);
  /// Whether every row sees every token of the tile and every token is in
  /// the op's valid range (uniform): then the step masks nothing.
  Value tileIsFull(LaneBuilder &l, const TileStep &tile);
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
  /// scales: the lane's token's, or its group's 16; see scalesPerLane) 0
  /// outside the valid range.
  SmallVector<Value> maskEdgeTile(LaneBuilder &l, const TileStep &tile,
                                  ArrayRef<SmallVector<Value>> scores,
                                  Value vScales);
  /// Per-token values held one per lane (scalesPerLane): lane (i, j) holds
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
  SmallVector<Value> validValueWords(LaneBuilder &l, const TileStep &tile);
  /// The lane group's bounds (groupBound) of the tokens whose V the shared
  /// PV product multiplies: the op's valid range less the partly seen
  /// tokens, which the epilogue adds (partlySeenShare).
  std::pair<Value, Value> productBounds(LaneBuilder &l, const TileStep &tile);
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
  // exp2(s - M) V / L per output element (partlySeenShare, in one run-time
  // loop over the elements each lane stored): at most 2 (Q - 1) tokens,
  // none of it in full tiles.
  /// Slots of both runs: the tail run's, then the head run's.
  int64_t partlySlots() const {
    return partlyRunSlots * (s.window > 0 ? 2 : 1);
  }
  void initPartlySeen(ImplicitLocOpBuilder &b);
  /// Writes, in a tile that meets a run, each run token's masked scores
  /// (-inf for rows that do not see it) and its V page and slot (`place`
  /// of the lane group's token e).
  void storePartlySeen(LaneBuilder &l, const TileStep &tile,
                       ArrayRef<Value> scores);
  /// Writes the same masked scores after the tile loop (accumulators live,
  /// loop registers free): per row, its lanes split the head dims of the
  /// dot product of the query row (f32, from global memory) and the
  /// token's K, then the loop's score steps (scale, K scale, non-finite
  /// check, soft cap, ALiBi) and the row's mask. Only tokens of this
  /// partition's tiles are scored; one run-time loop over the slots.
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

  /// The uniform part of a lane's page-id read past the staged tiles, i32:
  /// the tile's first page column, the op's visible end relative to the
  /// tile's first token and, with a window, the relative begin less a page
  /// and whether the visible range is non-empty (null without a window).
  struct LanePageWindow {
    Value firstPage, end, beforeFirstPage, nonEmpty;
  };
  LanePageWindow lanePageWindow(LaneBuilder &l, TilePageIdsOp op,
                                TilePageRange range);
  /// Page id `position` (index, per lane) of `op` by its rule (the block
  /// table's entry when the page holds a visible token, else 0; the entry
  /// is read only then), with 32-bit lane math.
  Value lanePageId(LaneBuilder &l, TilePageIdsOp op,
                   const LanePageWindow &window, Value position);
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
  /// of 4; bf16: 16 instead of 8); DecodeLanes::queryTerms the same for
  /// the query in QK.
  bool probResidual;
  /// cache-offsets=64: only the 64-bit tile loop.
  bool only64BitOffsets;
  /// The key-prefetch option (prefetchKeys follows from it in run()).
  KeyPrefetch keyPrefetch;
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
  /// fp8 compute with P's factor the constant pScale (no per-token V
  /// scales), where registers allow (edgeTileBranch, or QK on 16x16x32:
  /// gfx950's D = 256 32-row kernels with 16x16x128 QK went from 245-254
  /// to 264-272 VGPRs, 1 wave; gfx942's stayed at 241-251): the weights the PV
  /// product used are summed by the matrix unit, one more MFMA per PV
  /// step and P term with a block of fp8 ones as the other operand
  /// (lowerPV), instead of converting each weight back to f32 and adding
  /// it. Its result holds the wave's sum of the step's tokens for the
  /// lane's row in every lane (no cross-lane sum at the end).
  bool weightsByMFMA;
  /// The 32-bit tile loop issues the next tile's K loads after the
  /// current tile's QK and carries them (TileStep::keys). Decided in run(),
  /// once the lowered kernel's LDS is known (keyPrefetchFits asks the
  /// waves it allows).
  bool prefetchKeys = false;
  /// The lowered kernel's LDS bytes: the tiled IR's buffers that stay (the
  /// page-id staging), the query / merge scratch and the statistics.
  int64_t ldsBytes = 0;
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
  /// Set by the tile loop's pattern for store_partials': every M-tile's
  /// final lane state.
  WaveResult loopResults;
  /// The lane loop body being lowered (emitTileLoop), which the patterns
  /// of its tile ops read and fill; null outside it.
  TileStep *currentStep = nullptr;
  /// The patterns of every tile op (run()).
  PatternApplicator *applicator = nullptr;
};

/// The pattern of a tile op: `lower` builds the op's lane code in its place,
/// then the op is erased. `lower` is a function (State &, OpTy,
/// ImplicitLocOpBuilder &) or a member function of State taking (OpTy,
/// ImplicitLocOpBuilder &); `state` is what the lowerings share
/// (DecodeLowering, or DecodeLanes for the prologue's).
template <typename OpTy, auto lower, typename State = DecodeLowering>
struct TileOpToMFMA : OpRewritePattern<OpTy> {
  TileOpToMFMA(MLIRContext *context, State &state)
      : OpRewritePattern<OpTy>(context), state(state) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const final {
    rewriter.setInsertionPoint(op);
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    std::invoke(lower, state, op, b);
    rewriter.eraseOp(op);
    return success();
  }

  State &state;
};

/// The tile-op patterns, a file each, on the kernel `lanes` / `lowering`
/// describes (which must outlive them).
void populateLoadQueryToMFMAPatterns(RewritePatternSet &patterns,
                                     DecodeLanes &lanes);
void populateTileLoopToMFMAPatterns(RewritePatternSet &patterns,
                                    DecodeLowering &lowering);
void populateQKToMFMAPatterns(RewritePatternSet &patterns,
                              DecodeLowering &lowering);
void populateSoftmaxToMFMAPatterns(RewritePatternSet &patterns,
                                   DecodeLowering &lowering);
void populatePVToMFMAPatterns(RewritePatternSet &patterns,
                              DecodeLowering &lowering);
void populateStorePartialsToMFMAPatterns(RewritePatternSet &patterns,
                                         DecodeLowering &lowering);
/// All of the above.
void populateTileOpToMFMAPatterns(RewritePatternSet &patterns,
                                  DecodeLowering &lowering);

} // namespace mlir::pa::mfma

#endif // PA_CONVERSION_PATOMFMA_DECODELOWERING_H
