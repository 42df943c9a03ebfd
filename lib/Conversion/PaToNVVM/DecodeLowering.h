//===- DecodeLowering.h - the decode kernel's tile-op patterns -*- C++ -*-===//
//
// What the patterns that lower the decode kernel's tile ops to NVIDIA warps
// share (DecodeToWarps.cpp describes the kernel they make):
//   - DecodeShape: what the tile ops fix at compile time (analyze);
//   - DecodeState: the state passed between the patterns: the workgroup
//     buffers set up before them (the tiled IR's loop-carried softmax state
//     and accumulator live there between tiles), the thread ids, and what
//     one pattern hands a later one (qk: pv's first V chunks);
//   - TileOpLowering: the base of every pattern, with the operand helpers
//     more than one tile op needs (TileOperandsToWarps.cpp).
// One file and one pattern per tile op (LoadQueryToWarps.cpp,
// SoftmaxToWarps.cpp for init_softmax and softmax, QKToWarps.cpp,
// PVToWarps.cpp, StorePartialsToWarps.cpp), each adding itself through its
// populate...Patterns; PageIdsToWarps.cpp distributes pa-stage-page-ids'
// staging before them.
//
//===----------------------------------------------------------------------===//
#ifndef PA_LIB_CONVERSION_PATONVVM_DECODELOWERING_H
#define PA_LIB_CONVERSION_PATONVVM_DECODELOWERING_H

#include "DecodeToWarps.h"
#include "WarpEmitter.h"

#include "pa/IR/PaOps.h"
#include "pa/Transforms/TileLowering.h"
#include "pa/Transforms/TiledDecode.h"

#include "mlir/IR/PatternMatch.h"

#include "llvm/Support/MathExtras.h"

namespace mlir::pa::nvvm {

inline constexpr int64_t kWarps = kWorkgroupThreads / 32;
inline constexpr int64_t kTokensPerWarp = kTileTokens / kWarps;
/// Row stride of the scores in floats: 8 extra floats put rows g and g + 1
/// of a fragment access in different banks.
inline constexpr int64_t kScoreStride = kTileTokens + 8;
/// At most this many n-blocks of accumulators per pass over the tokens
/// (32 accumulator registers per thread and M-tile).
inline constexpr int64_t kMaxBlocksPerPass = 8;
/// Largest operand magnitude of the split e4m3 terms (below 448).
inline constexpr int64_t kE4M3Headroom = 256;

/// The element type of the mma operands.
enum class Products { E4M3, F16, BF16 };

/// What the kernel's tile ops fix at compile time.
struct DecodeShape {
  int64_t rows = 0;     // M: 16 or 32
  int64_t headDim = 0;  // D
  int64_t pageSize = 0; // P
  /// packed (K packed, V plain / transposed), nhd or hnd (K and V alike).
  CacheLayout layout = CacheLayout::packed;
  int64_t chunk = 0; // E: KV elements per 16 bytes (16 fp8, 8 bf16)
  Products products = Products::BF16;
  bool f16Query = false;
  bool transposedV = false;
  ScaleMode kScale = ScaleMode::none, vScale = ScaleMode::none;
  float scoreScale = 0;
  std::optional<float> softCap; // exp2 domain, as pa.tile.qk's soft_cap
  int64_t queryLength = 0, groupSize = 0, window = 0;
  /// K blocks (4 chunks of D) of the next tile copied into shared memory
  /// (keyAhead) while this tile's pv runs; 0: none.
  int64_t keyAheadBlocks = 0;
  /// The keyAheadBlocks' chunks are held in registers (loop-carried values
  /// of the tile loop, DecodeState::keysAhead) instead of keyAhead.
  bool keyAheadInRegisters = false;
  /// The keyAheadBlocks are copied by the bulk-copy engine into keyStage
  /// (completing on keyBarrier) instead of by each thread's cp.async into
  /// keyAhead.
  bool keyAheadBulk = false;
  /// V token blocks (4 chunks of tokens) at the start of each tile staged
  /// in shared memory (valueStage) by bulk copies qk issues; 0: none.
  int64_t valueStageBlocks = 0;
  /// V token blocks pv requests ahead of the block whose products it
  /// issues (>= 1: A + 1 blocks of loads in flight).
  int64_t valueAheadBlocks = 1;
  /// Bytes of the (page, KV head) blocks qk prefetches into L2 for the
  /// tile's V pages and pv for the next tile's K pages
  /// (WarpOptions::l2Prefetch; pageBlockBytes); 0: none.
  int64_t valuePrefetchBytes = 0, keyPrefetchBytes = 0;
  /// With prefetches: the tiles a partition's loop must run for them
  /// (WarpOptions::l2PrefetchMinTiles; <= 1: every partition).
  int64_t prefetchMinTiles = 0;

  /// Whether qk stores the next tile's page ids (at its end) for pv.
  bool nextTileIdsAhead() const {
    return keyAheadBlocks > 0 || keyPrefetchBytes > 0;
  }

  int64_t mTiles() const { return rows / 16; }
  /// The value stage's geometry. It holds whole copy units of the cache: D
  /// head-dim columns of `valueUnitTokens` tokens each, contiguous in the
  /// cache (a transposed V's slot group of E tokens, a plain V's page), in
  /// the cache's order (column c, token k of a unit at c * tokens + k), the
  /// units `valueUnitStride` elements apart: 2 columns' bytes of padding (at
  /// most 128) put the chunks of a phase of 8 lanes (columns g, g + 1,
  /// tokens of chunks t = 0..3) in different banks.
  int64_t valueUnitTokens() const { return transposedV ? chunk : pageSize; }
  int64_t valueStageTokens() const { return valueStageBlocks * 4 * chunk; }
  int64_t valueUnits() const { return valueStageTokens() / valueUnitTokens(); }
  int64_t kvElementBytes() const { return 16 / chunk; }
  int64_t valueUnitBytes() const {
    return headDim * valueUnitTokens() * kvElementBytes();
  }
  int64_t valueUnitStride() const {
    int64_t pad =
        std::min<int64_t>(2 * valueUnitTokens() * kvElementBytes(), 128);
    return (valueUnitBytes() + pad) / kvElementBytes();
  }
  /// The key stage's geometry (keyAheadBulk). A packed K page holds each
  /// 16-byte chunk of D for its P tokens contiguously (P x 16 bytes, one
  /// bulk copy): the stage has one row per (block, page of the tile, chunk
  /// t of the block), row-major in that order, each P x 16 bytes plus 32 of
  /// padding, so that the chunks t = 0..3 of a phase of 8 lanes (tokens g,
  /// g + 1) start 32 bytes apart in the banks.
  int64_t keyStageRows() const {
    return keyAheadBlocks * pagesPerTile(pageSize) * 4;
  }
  int64_t keyStageRowBytes() const { return pageSize * 16; }
  int64_t keyStageRowStride() const {
    return (keyStageRowBytes() + 32) / kvElementBytes();
  }
  bool e4m3() const { return products == Products::E4M3; }
  /// Bytes of one mma operand element.
  int64_t operandBytes() const { return e4m3() ? 1 : 2; }
  Type operandType(MLIRContext *ctx) const {
    return IntegerType::get(ctx, 8 * operandBytes());
  }
  /// Terms the query and P are split into (see the file comment).
  int64_t queryTerms() const {
    if (e4m3())
      return 2;
    return products == Products::BF16 && f16Query ? 2 : 1;
  }
  int64_t probTerms() const {
    switch (products) {
    case Products::E4M3:
      return 3;
    case Products::F16:
      return 1;
    case Products::BF16:
      return 2;
    }
    llvm_unreachable("unknown products");
  }
  /// mma steps per 16-byte KV chunk: 8 operand bytes per thread and step.
  int64_t stepsPerChunk() const { return chunk * operandBytes() / 8; }
  /// Operand elements per 32-bit word.
  int64_t elementsPerWord() const { return 4 / operandBytes(); }
  /// Head dims the QK contraction runs over: D rounded up to whole blocks
  /// of 4 chunks (64 fp8 / 32 bf16); the pad's query and K are zeros.
  int64_t qkDim() const { return llvm::alignTo(headDim, 4 * chunk); }
  /// Head-dim columns of the PV product: D rounded up to whole n-blocks of
  /// 8 columns per warp (32); pad columns read a clamped V column and are
  /// never stored.
  int64_t pvDim() const { return llvm::alignTo(headDim, 32); }
  int64_t accStride() const { return pvDim() + 8; }
  /// Where softmax's rescale of the accumulator rows (alpha) happens: in
  /// pv, as it loads the accumulators, for two M-tiles (32 rows: on the
  /// H200 6.5% faster for fp8 and 3% for bf16 at Q = 4, 2026-11-30), else
  /// in softmax (one M-tile: there moving it measured 1.5% (fp8) and 10%
  /// (bf16) slower at Q = 1; ptxas allocated and scheduled differently).
  bool rescaleInPV() const { return mTiles() == 2; }
  /// Tokens per run of partly seen tokens, at most: the group's rows
  /// r have MTP positions q = r / G in [q_lo, q_hi] with q_hi - q_lo <=
  /// ceil((rows - 1) / G) (and < Q); 0 without MTP.
  int64_t partlyRunSlots() const {
    if (queryLength <= 1)
      return 0;
    return std::min<int64_t>(queryLength - 1,
                             llvm::divideCeil(rows - 1, groupSize));
  }
  /// Slots of both runs: the tail run's, then (with a window) the head
  /// run's.
  int64_t partlySlots() const {
    return partlyRunSlots() * (window > 0 ? 2 : 1);
  }
};

/// Workgroup buffers of the lowering (flat, in the shapes DecodeShape
/// describes), plus the tiled IR's row statistics.
struct Buffers {
  Value query;    // A fragments of [terms][M][D] (fragmentIndex), operand bits
  Value rowScale; // [M] f32: 2^-shift of the query rows (f16, e4m3)
  Value scores;   // [M][kScoreStride] f32
  Value probs;    // A fragments of [terms][M][256] (fragmentIndex); in the
                  // scores' bytes when probsAliasScores
  Value acc;      // [M][accStride] f32
  Value pageIds;  // [2][256 / P] i32, by tile parity
  Value warpMax;  // [4] f32: per-warp largest P weight (e4m3, per-token)
  Value alpha;    // [M] f32: the tile's rescale of the acc rows (rescaleInPV)
  Value partlyProbs; // [partlySlots][M] f32: P of the partly seen tokens,
                     // saved before P's terms overwrite the scores (only
                     // with probsAliasScores)
  Value rowMax, rowSum;
  Value keyAhead; // [keyAheadBlocks][8][128 threads][E] of the K element:
                  // each thread's 16-byte K chunks of the next tile
  Value keyStage;   // [keyStageRows * keyStageRowStride] of the K element:
                    // the first keyAheadBlocks of the next tile (bulk)
  Value keyBarrier; // [1] i64: the mbarrier the key stage's copies
                    // complete on, one phase per tile
  Value partitionCount; // [1] i32: the sequence's partitions (the plan's;
                        // pa-nvvm-single-partition-output)
  Value valueStage;     // [valueUnits * valueUnitStride] of the V element: the
                        // tile's first valueStageTokens tokens of V
  Value valueBarrier;   // [1] i64: the mbarrier the stage's copies complete
                        // on, one phase per tile
};

/// Per-thread ids, computed once at kernel entry.
struct ThreadIds {
  Value tid, warp, lane, g, t; // index
};

/// Where the page ids of the tile at token `tileStart` (i64, the qk and
/// pv ops' shared operand) are: the first slot of its ids in pageIds,
/// (tile % 2) * pagesPerTile(P), and for a page larger than a tile the
/// slot of the tile's first token in it (tileStart % P; else null).
struct TilePages {
  Value idBase, firstSlot;
};

/// The state the tile-op patterns share, set up before the first of them
/// runs (DecodeToWarps.cpp) except where a field says otherwise.
struct DecodeState {
  /// The kernel's tile ops as matched (a pattern reads another op's
  /// operands: qk pv's, softmax alibi's).
  TiledDecode ops;
  DecodeShape shape;
  Buffers buffers;
  ThreadIds ids;
  /// The row group's first row and the sequence's context length
  /// (softmax's operands: pv reads them too, after softmax is erased).
  Value rowBase, contextLength;
  /// P's terms live in the scores' bytes (scoresAndProbsShareBytes).
  bool probsAliasScores = false;
  /// Set by softmax for pv (null where softmax never does it): whether
  /// softmax stored this tile's P times the V scale as the products' terms
  /// (i1, uniform), so that pv has no prologue to run.
  Value probTermsFromSoftmax;
  /// Set by qk for pv: the V chunks of pv's first token block (first
  /// pass), requested at the end of qk; empty before.
  SmallVector<Value> firstValues;
  /// With keyAheadBlocks: the tile loop body's ops that qk's page ids and
  /// tile start depend on (tileKeyPlaceOps), the K cache and KV head; set
  /// by qk for pv: whether the loop has a next tile (i1) and its start
  /// (i64, its ids stored in pageIds by then).
  SmallVector<Operation *> keyPlaceOps;
  Value keyCache, kvHead;
  Value nextTileExists, nextTileStart;
  /// With keyAheadInRegisters: the tile loop's iteration arguments that
  /// carry this tile's first K blocks' chunks (block-major, 8 per block),
  /// loaded by the previous tile's pv or before the loop.
  SmallVector<Value> keysAhead;
  /// pa-nvvm-single-partition-output's arguments (null without; sinks and
  /// lse where the reduce has them) and the sequence (load_query's): where
  /// the plan gives the sequence one partition (buffers.partitionCount,
  /// read before the query), store_partials writes the output after the
  /// partials.
  struct {
    Value reduceInfo, output, sinks, lse, sequence;
  } direct;
};

/// The base of the tile-op patterns: the shared state and the operand
/// helpers of more than one tile op (TileOperandsToWarps.cpp).
class TileOpLowering {
protected:
  explicit TileOpLowering(DecodeState &state)
      : state(state), s(state.shape), ids(state.ids), buffers(state.buffers) {}

  /// Where element k (a head-dim column of the query, a token of P) of
  /// row m of term `term` lies, in operand elements, in a buffer of A
  /// fragments of rows of `extent` elements: the words thread (g, t) passes
  /// to the mma of step s for M-tile mt and k-block `block` (rows g and
  /// g + 8, words 2s and 2s + 1 of its chunk t: a0 a1 a2 a3) lie together,
  /// and the 32 lanes' fragments of one (block, step) follow each other in
  /// lane order: each fragment is one bank-conflict-free 16-byte load,
  /// straight into the mma's registers.
  Value fragmentIndex(WarpEmitter &e, int64_t extent, int64_t term, Value m,
                      Value k) const;

  /// This thread's A fragment (a0 a1 a2 a3) of M-tile mt, term `term`,
  /// k-block `block` and step `step` in a buffer laid out by fragmentIndex.
  std::array<Value, 4> loadFragment(WarpEmitter &e, Value buffer,
                                    int64_t extent, int64_t term, int64_t mt,
                                    int64_t block, int64_t step) const;

  TilePages tilePages(WarpEmitter &e, Value tileStart) const;

  /// Page (index) and slot of tile-relative token `token` (index).
  std::pair<Value, Value> locate(WarpEmitter &e, const TilePages &pages,
                                 Value token) const;

  /// Indices of element `d` (index) of token (page, slot)'s K or V row in
  /// the cache, any layout: the layouts' one address mapping, shared with
  /// the host lowering and pa-to-mfma.
  SmallVector<Value, 5> cacheIndices(WarpEmitter &e, CacheOperand operand,
                                     Value page, Value kvHead, Value slot,
                                     Value d) const;

  /// The tokens row m (index) of the group sees: [begin, end) if isRow
  /// (r = rowBase + m < Q * G, MTP position q = r / G): end = C - Q + 1 +
  /// q, begin = max(0, end - W) with a window, else 0.
  struct RowTokens {
    Value isRow, begin, end; // i1, i64, i64
  };
  RowTokens rowTokens(WarpEmitter &e, Value m) const;
  /// The MTP positions [q_lo, q_hi] (i64) of the group's rows of the query,
  /// rows [rowBase, min(rowBase + M, Q * G)).
  std::pair<Value, Value> groupPositions(WarpEmitter &e) const;
  /// Whether row m sees `token` (i64).
  Value rowSees(WarpEmitter &e, const RowTokens &row, Value token) const;

  /// A per-tensor scale (f32), loaded before the tile loop; in place when
  /// the builder is in the body of a branch still being built (its region
  /// has no parent op yet, so no loop is found).
  Value tensorScale(WarpEmitter &e, Value scales) const;
  /// The dequantization scale of tile-relative token `token`.
  Value tokenScale(WarpEmitter &e, ScaleMode mode, Value scales,
                   const TilePages &pages, Value kvHead, Value token) const;

  static Value toF32(WarpEmitter &e, Value x);

  /// Stores P of row m (index), tokens `token`, `token` + 1 (x0, x1) as the
  /// terms of the products' operand type (buffers.probs, fragmentIndex).
  void storeProbTerms(WarpEmitter &e, Value m, Value token, Value x0,
                      Value x1) const;

  /// A 16-byte KV chunk as operand words: converted to f16 for f16
  /// products (word 2i holds elements 4i, 4i + 1; word 2i + 1 elements
  /// 4i + 2, 4i + 3), else as loaded.
  SmallVector<Value> kvWords(WarpEmitter &e, Value chunk) const;

  static std::array<Value, 2> bFragment(ArrayRef<Value> chunk, int64_t step);

  Accumulator mma(WarpEmitter &e, std::array<Value, 4> a,
                  std::array<Value, 2> b, const Accumulator &c) const;

  Accumulator zeros(WarpEmitter &e) const;

  /// Where this thread's chunk of K block `block` and n-block j lies in
  /// keyAhead (elements).
  Value keyAheadIndex(WarpEmitter &e, int64_t block, int64_t j) const;
  /// Copies (cp.async) this thread's chunks of the first keyAheadBlocks K
  /// blocks of the tile at `tileStart` (its ids in pageIds) into keyAhead.
  void copyKeysAhead(WarpEmitter &e, Value tileStart) const;
  /// Calls `chunk(block, j, indices)` for this thread's K chunk of each of
  /// the first keyAheadBlocks blocks and n-block j of the tile at
  /// `tileStart` (its ids in pageIds), `indices` its place in the packed K
  /// cache: copyKeysAhead's and loadKeysAhead's chunks.
  void forEachKeyAheadChunk(
      WarpEmitter &e, Value tileStart,
      function_ref<void(int64_t, int64_t, ValueRange)> chunk) const;
  /// The same chunks loaded into registers (block-major), or zeros where
  /// `exists` (i1) is false; for keyAheadInRegisters.
  SmallVector<Value> loadKeysAhead(WarpEmitter &e, Value exists,
                                   Value tileStart) const;
  /// Warp 0: the key stage's bulk copies of the tile at `tileStart` (its
  /// ids in pageIds), expected on keyBarrier by lane 0.
  void copyKeyStage(WarpEmitter &e, Value tileStart) const;
  /// Where tile-relative token `token`'s chunk t (ids.t) of K block `block`
  /// lies in keyStage (elements).
  Value keyStageIndex(WarpEmitter &e, int64_t block, Value token) const;
  /// Sets the tile loop's keysAhead operands: `initial` before the loop or
  /// `next` at the end of its body.
  void setKeysAhead(ValueRange chunks, bool initial) const;

  /// Thread 0: the value stage's bulk copies of the tile whose page ids
  /// `tile` locates (published), expected on valueBarrier.
  void copyValueStage(WarpEmitter &e, const TilePages &tile, Value valueCache,
                      Value kvHead) const;
  /// Lanes of the last warp: an L2 prefetch of `bytes` (the (page, KV
  /// head) block, DecodeShape::valuePrefetchBytes / keyPrefetchBytes) of
  /// `cache` for each page of the tile whose ids `tile` locates
  /// (published), one page per lane.
  void prefetchPages(WarpEmitter &e, const TilePages &tile, Value cache,
                     Value kvHead, int64_t bytes) const;
  /// The parity (i32) of the phase of a barrier with one phase per tile
  /// (valueBarrier, keyBarrier) for the tile loop's current tile: its
  /// iteration count modulo 2.
  Value tilePhase(WarpEmitter &e) const;

  /// This thread's V chunk of token block `block`: tokens block * 4E + E t
  /// + [0, E) of the tile.
  Value chunkTokenOf(WarpEmitter &e, int64_t block) const;

  /// Whether pv's n-blocks interleave their columns: in an nhd / hnd cache a
  /// token's head dims are contiguous, so lane g of a pass of nBlocks
  /// n-blocks (a power of two) takes the nBlocks adjacent columns
  /// g * nBlocks + [0, nBlocks) (column n of n-block nb is n * nBlocks + nb)
  /// and reads each token's share of all of them with one load (8 bytes
  /// for fp8, 16 for bf16 at nBlocks = 8) instead of one load per element.
  /// Not with pad columns (D not a multiple of 32): a load would pass D.
  bool interleavedColumns(int64_t nBlocks) const;

  /// The warp-relative head-dim column of column n (index) of n-block nb
  /// in the pass over n-blocks first .. first + nBlocks - 1.
  Value pvColumn(WarpEmitter &e, int64_t first, int64_t nBlocks, int64_t nb,
                 Value n) const;

  /// This thread's V chunks (E tokens of one head-dim column each) of token
  /// block `block` for n-blocks first .. first + nBlocks - 1 of its warp's
  /// head-dim columns (column n = g of each, pvColumn); from the value
  /// stage for its blocks (after valueBarrier's wait).
  SmallVector<Value> loadValueChunks(WarpEmitter &e, TilePVOp op,
                                     const TilePages &tile, int64_t first,
                                     int64_t nBlocks, int64_t block) const;

  DecodeState &state;
  const DecodeShape &s;
  const ThreadIds &ids;
  const Buffers &buffers;
};

/// The pattern of one tile op: `lower` emits its code before it (at `e`'s
/// insertion point), then the op is erased.
template <typename OpTy>
struct TileOpToWarps : OpRewritePattern<OpTy>, TileOpLowering {
  TileOpToWarps(MLIRContext *context, DecodeState &state)
      : OpRewritePattern<OpTy>(context), TileOpLowering(state) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const final {
    rewriter.setInsertionPoint(op);
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    WarpEmitter e(b);
    lower(op, e, rewriter);
    rewriter.eraseOp(op);
    return success();
  }

  virtual void lower(OpTy op, WarpEmitter &e,
                     PatternRewriter &rewriter) const = 0;
};

/// Rewrites pa-stage-page-ids' staging loops and fallback reads of the
/// kernel into their distribution over the workgroup (PageIdsToWarps.cpp).
void distributePageIdStaging(gpu::GPUFuncOp kernel, const ThreadIds &ids);

/// The tile-op patterns, one per op, each in its file.
void populateLoadQueryToWarpsPatterns(RewritePatternSet &patterns,
                                      DecodeState &state);
void populateSoftmaxToWarpsPatterns(RewritePatternSet &patterns,
                                    DecodeState &state);
void populateQKToWarpsPatterns(RewritePatternSet &patterns, DecodeState &state);
void populatePVToWarpsPatterns(RewritePatternSet &patterns, DecodeState &state);
void populateStorePartialsToWarpsPatterns(RewritePatternSet &patterns,
                                          DecodeState &state);
/// All of the above.
void populateTileOpsToWarpsPatterns(RewritePatternSet &patterns,
                                    DecodeState &state);

} // namespace mlir::pa::nvvm

#endif // PA_LIB_CONVERSION_PATONVVM_DECODELOWERING_H
