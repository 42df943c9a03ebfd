//===- QKToWarps.cpp - pa.tile.qk on NVIDIA warps -------------------------===//
//
// The pattern of pa.tile.qk: the tile's page ids to shared memory, then
// warp w loads the K chunks of tokens 64w + [0, 64) and multiplies them by
// every row of the query: with warp MMA in 8 n-blocks of 8 tokens (B = K),
// or with wgmma-qk on warpgroup MMA, 64 tokens (16 of each warp, A = K) per
// instruction; scaled scores (soft-capped, NaN where not finite) to shared
// memory. Ends by requesting pv's first V chunks
// (DecodeState::firstValues).
//
//===----------------------------------------------------------------------===//
#include "DecodeLowering.h"

#include "pa/Transforms/ScoreMath.h"

#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::pa;
using namespace mlir::pa::nvvm;
using arith::CmpIPredicate;

namespace {

/// pa.tile.qk: the tile's page ids to shared memory, then the scores of
/// the tile's 256 tokens, four warps of 64 tokens each.
struct QKToWarps final : TileOpToWarps<TileQKOp> {
  using TileOpToWarps::TileOpToWarps;

  void lower(TileQKOp op, WarpEmitter &e,
             PatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder &b = e.b;
    // With K ahead, this tile's ids were stored (and its first K blocks
    // requested) before the loop or by the previous tile.
    if (s.keyAheadBlocks > 0)
      emitKeysAheadPrologue(e, op);
    else
      storePageIds(e, op);
    e.barrier();
    TilePages tile = tilePages(e, op.getTileStart());
    Value kvHead = op.getKvHead();
    // The V stage's copies, in flight through this qk and the softmax (the
    // barrier above: every thread has read the previous tile's stage).
    if (s.valueStageBlocks > 0)
      copyValueStage(e, tile, state.ops.pv.getValueCache(), kvHead);
    Value key = op.getKeyCache();
    // Chunks past D (a partial last block: D = 80 fp8, 64 + 16) read the
    // row's last chunk (never past the row) and become zero words.
    const int64_t rowChunks = s.headDim / s.chunk;
    constexpr int64_t nBlocks = kTokensPerWarp / 8;
    Value warpTokens = e.mulI(ids.warp, kTokensPerWarp);

    // Thread (g, t) loads the K chunks of token 8j + g of its warp.
    SmallVector<Value> pages, slots;
    for (int64_t j = 0; j < nBlocks; ++j) {
      auto [page, slot] =
          locate(e, tile, e.addI(warpTokens, e.addI(ids.g, 8 * j)));
      pages.push_back(page);
      slots.push_back(slot);
    }
    // Block `block`'s K chunks of the warp's n-blocks (and, for a partial
    // last block, which of them lie in the row).
    auto loadKeyChunks = [&](int64_t block) -> KeyChunks {
      Value chunkIndex = e.addI(ids.t, 4 * block);
      Value inRow;
      if (4 * (block + 1) > rowChunks) {
        inRow = e.cmpI(CmpIPredicate::ult, chunkIndex, e.idx(rowChunks));
        chunkIndex = e.select(inRow, chunkIndex, e.idx(rowChunks - 1));
      }
      SmallVector<Value> chunks;
      // K blocks copied ahead: from shared memory, once this thread's
      // copies have landed.
      if (block == 0 && s.keyAheadBlocks > 0 && !s.keyAheadInRegisters)
        e.waitAsyncCopies(0);
      // nhd / hnd: the token's E head dims from chunkIndex * E on, one
      // 16-byte load as in the packed layout; the block's first load brings
      // the row's next 256 bytes into L2 (the later blocks' chunks).
      for (int64_t j = 0; j < nBlocks; ++j)
        chunks.push_back(
            block < s.keyAheadBlocks
                ? (s.keyAheadInRegisters
                       ? state.keysAhead[block * 8 + j]
                       : e.loadVector(buffers.keyAhead,
                                      {keyAheadIndex(e, block, j)}, s.chunk))
            : s.layout == CacheLayout::packed
                ? e.loadVectorOnce(
                      key, {pages[j], kvHead, chunkIndex, slots[j], e.idx(0)},
                      s.chunk)
                : e.loadVectorL2Block(key,
                                      cacheIndices(e, CacheOperand::key,
                                                   pages[j], kvHead, slots[j],
                                                   e.mulI(chunkIndex, s.chunk)),
                                      s.chunk));
      return {chunks, inRow};
    };
    // A score that is not finite (a non-finite K element or scale) is NaN:
    // a real -inf must not weigh 0 like a masked one, and the soft cap would
    // map +-inf to +-cap. The cap comes before the softmax's mask, so masked
    // columns stay -inf.
    Value scale = e.f32(s.scoreScale);
    auto rowScaleOf = [&](Value row) {
      return buffers.rowScale ? e.mulF(scale, e.load(buffers.rowScale, {row}))
                              : scale;
    };
    auto finishScore = [&](Value product, Value rowScale, Value keyScale) {
      Value score = buildNaNIfNotFinite(
          b, b.getLoc(), e.mulF(product, e.mulF(rowScale, keyScale)));
      return s.softCap
                 ? emitSoftCap(b, score, *s.softCap, /*fastReciprocal=*/true)
                 : score;
    };
    if (s.wgmmaQK)
      storeWarpgroupScores(e, op, tile, loadKeyChunks, rowScaleOf, finishScore);
    else
      storeWarpScores(e, op, tile, loadKeyChunks, rowScaleOf, finishScore);
    if (s.keyAheadBlocks > 0)
      storeNextTileIds(e, op);
    // pv's first V chunks, requested here so that their latency overlaps
    // the softmax and pv's prologue (nothing in between writes V); staged
    // ones are on their way already.
    if (s.valueStageBlocks == 0)
      state.firstValues = loadValueChunks(
          e, state.ops.pv, tile, /*first=*/0,
          std::min(kMaxBlocksPerPass, s.pvDim() / kWarps / 8), /*block=*/0);
  }

private:
  using KeyChunks = std::pair<SmallVector<Value>, Value>;
  /// Block b's K chunks of this thread (n-block j: token 8j + g of its
  /// warp, chunk 4b + t of D) and, for a partial last block, which of them
  /// lie in the row (i1; else null).
  using KeyChunkLoader = function_ref<KeyChunks(int64_t)>;
  /// The score scale of row m (index).
  using RowScaleOf = function_ref<Value(Value)>;
  /// A score from its product, row scale and K scale.
  using FinishScore = function_ref<Value(Value, Value, Value)>;

  /// Warp MMA (mma.sync): warp w multiplies tokens 64w + [0, 64), 8
  /// n-blocks of 8 tokens (B = K), by every row (A = the query's fragments).
  void storeWarpScores(WarpEmitter &e, TileQKOp op, const TilePages &tile,
                       KeyChunkLoader loadKeyChunks, RowScaleOf rowScaleOf,
                       FinishScore finishScore) const {
    Value kvHead = op.getKvHead();
    const int64_t blocks = s.qkDim() / (4 * s.chunk);
    constexpr int64_t nBlocks = kTokensPerWarp / 8;
    Value warpTokens = e.mulI(ids.warp, kTokensPerWarp);
    SmallVector<SmallVector<Accumulator>> acc(
        nBlocks, SmallVector<Accumulator>(s.mTiles(), zeros(e)));
    // Requesting block b + 1's K chunks before block b's products (as pv
    // does with V) measured no faster here and costs registers. At 32 rows,
    // 3 blocks in flight through shared memory (cp.async stages in the
    // scores' bytes) measured 2-16% slower on the H200 (performance.md,
    // 2026-12-02, fourth session). The next tile's first blocks copied
    // during pv (key-ahead) measured 3-15% slower at Q 1 on an H100
    // (2026-12-05): off by default.
    // With the first blocks carried in registers (key-ahead-in-registers),
    // block b + 1's chunks are requested before block b's products, as that
    // variant was measured (alone, within the noise on an H100: 2026-12-06);
    // otherwise each block's at its start.
    const bool requestAhead = s.keyAheadInRegisters;
    KeyChunks nextChunks;
    if (requestAhead)
      nextChunks = loadKeyChunks(0);
    for (int64_t block = 0; block < blocks; ++block) {
      auto [chunks, inRow] = requestAhead ? nextChunks : loadKeyChunks(block);
      if (requestAhead && block + 1 < blocks)
        nextChunks = loadKeyChunks(block + 1);
      // The query's A fragments of each M-tile (and term) and step.
      SmallVector<SmallVector<std::array<Value, 4>>> query;
      for (int64_t term = 0; term < s.queryTerms(); ++term)
        for (int64_t mt = 0; mt < s.mTiles(); ++mt) {
          query.emplace_back();
          for (int64_t step = 0; step < s.stepsPerChunk(); ++step)
            query.back().push_back(loadFragment(e, buffers.query, s.qkDim(),
                                                term, mt, block, step));
        }
      SmallVector<SmallVector<Value>> keys;
      for (Value chunk : chunks) {
        keys.push_back(kvWords(e, chunk));
        if (inRow)
          for (Value &word : keys.back())
            word = e.select(inRow, word, e.constant(word.getType(), 0));
      }
      for (int64_t j = 0; j < nBlocks; ++j)
        for (int64_t step = 0; step < s.stepsPerChunk(); ++step)
          for (int64_t term = 0; term < s.queryTerms(); ++term)
            for (int64_t mt = 0; mt < s.mTiles(); ++mt) {
              size_t q = term * s.mTiles() + mt;
              acc[j][mt] =
                  mma(e, query[q][step], bFragment(keys[j], step), acc[j][mt]);
            }
    }

    // Scores of rows g, g + 8 and tokens 8j + 2t, +1 of the warp.
    SmallVector<Value> rowScales; // per M-tile: rows g and g + 8
    for (int64_t mt = 0; mt < s.mTiles(); ++mt)
      for (int64_t half = 0; half < 2; ++half)
        rowScales.push_back(rowScaleOf(e.addI(ids.g, mt * 16 + half * 8)));
    for (int64_t j = 0; j < nBlocks; ++j) {
      Value token = e.addI(warpTokens, e.addI(e.mulI(ids.t, 2), 8 * j));
      Value k0 = tokenScale(e, s.kScale, op.getKScale(), tile, kvHead, token);
      Value k1 = tokenScale(e, s.kScale, op.getKScale(), tile, kvHead,
                            e.addI(token, 1));
      for (int64_t mt = 0; mt < s.mTiles(); ++mt)
        for (int64_t half = 0; half < 2; ++half) {
          Value rowScale = rowScales[mt * 2 + half];
          Value row = e.addI(ids.g, mt * 16 + half * 8);
          Value first = finishScore(acc[j][mt][2 * half], rowScale, k0);
          Value second = finishScore(acc[j][mt][2 * half + 1], rowScale, k1);
          e.storeVector(e.pair(first, second), buffers.scores,
                        {e.addI(e.mulI(row, kScoreStride), token)});
        }
    }
  }

  /// Warpgroup MMA (wgmma): per K block and step, the 4 warps multiply 64
  /// tokens (M: 16 per warp, its n-blocks 2i and 2i + 1 in M-group i, the
  /// chunks' words as loaded: A) by the query's term (N = the rows, B in
  /// shared memory: wgmmaQueryOffset), asynchronously. Block b + 1's chunks
  /// are requested before block b's products; a block's group is waited
  /// for after the next one is issued (its A registers free then).
  void storeWarpgroupScores(WarpEmitter &e, TileQKOp op, const TilePages &tile,
                            KeyChunkLoader loadKeyChunks, RowScaleOf rowScaleOf,
                            FinishScore finishScore) const {
    ImplicitLocOpBuilder &b = e.b;
    Value kvHead = op.getKvHead();
    const int64_t blocks = s.qkDim() / (4 * s.chunk);
    constexpr int64_t groups = kTokensPerWarp / 16;
    Value warpTokens = e.mulI(ids.warp, kTokensPerWarp);
    StringRef type = s.qkProducts() == Products::E4M3 ? "e4m3" : "bf16";
    // The descriptor of B at byte `offset` of the query: start address / 16
    // (bits 0-13), leading offset 128 / 16 (bits 16-29), stride offset
    // 256 / 16 (bits 32-45), no swizzle (bits 62-63 zero).
    Value start = arith::ExtUIOp::create(
        b, b.getI64Type(),
        e.shr(e.sharedAddress(buffers.query, {e.idx(0)}), 4));
    auto descriptor = [&](int64_t offset) {
      return e.addI(start, (offset >> 4) | (int64_t(128 >> 4) << 16) |
                               (int64_t(256 >> 4) << 32));
    };
    SmallVector<SmallVector<Value>> acc(groups); // empty: none yet
    KeyChunks nextChunks = loadKeyChunks(0);
    for (int64_t block = 0; block < blocks; ++block) {
      auto [chunks, inRow] = nextChunks;
      if (block + 1 < blocks)
        nextChunks = loadKeyChunks(block + 1);
      SmallVector<SmallVector<Value>> keys;
      for (Value chunk : chunks) {
        keys.push_back(e.words(chunk));
        if (inRow)
          for (Value &word : keys.back())
            word = e.select(inRow, word, e.constant(word.getType(), 0));
      }
      e.wgmmaFence();
      for (int64_t step = 0; step < 2; ++step)
        for (int64_t term = 0; term < s.queryTerms(); ++term)
          for (int64_t i = 0; i < groups; ++i)
            acc[i] = e.wgmma(type, s.rows, acc[i],
                             {keys[2 * i][2 * step], keys[2 * i + 1][2 * step],
                              keys[2 * i][2 * step + 1],
                              keys[2 * i + 1][2 * step + 1]},
                             descriptor(wgmmaQueryOffset(term, block, step)));
      e.wgmmaCommit();
      e.wgmmaWait(1);
    }
    e.wgmmaWait(0);
    for (SmallVector<Value> &group : acc)
      group = e.afterWgmmaWait(group);

    // Accumulator 4n + 2h + c of M-group i: token 16i + 8h + g of the
    // warp's, row 8n + 2t + c.
    SmallVector<Value> rowScales;
    for (int64_t n = 0; n < s.rows / 8; ++n)
      for (int64_t c = 0; c < 2; ++c)
        rowScales.push_back(rowScaleOf(e.addI(e.mulI(ids.t, 2), 8 * n + c)));
    for (int64_t i = 0; i < groups; ++i)
      for (int64_t h = 0; h < 2; ++h) {
        Value token = e.addI(warpTokens, e.addI(ids.g, 16 * i + 8 * h));
        Value keyScale =
            tokenScale(e, s.kScale, op.getKScale(), tile, kvHead, token);
        for (int64_t n = 0; n < s.rows / 8; ++n)
          for (int64_t c = 0; c < 2; ++c) {
            Value row = e.addI(e.mulI(ids.t, 2), 8 * n + c);
            e.store(finishScore(acc[i][4 * n + 2 * h + c], rowScales[2 * n + c],
                                keyScale),
                    buffers.scores, {e.addI(e.mulI(row, kScoreStride), token)});
          }
      }
  }

  /// The tile loop body's page ids and tile start of `op`, computed for
  /// tile `tile` at e's insertion point (keyPlaceOps copied).
  std::pair<Value, Value> tileValuesOf(WarpEmitter &e, TileQKOp op,
                                       Value tile) const {
    IRMapping map;
    map.map(state.ops.tileLoop.getInductionVar(), tile);
    for (Operation *placeOp : state.keyPlaceOps)
      e.b.clone(*placeOp, map);
    return {map.lookupOrDefault(op.getPageIds()),
            map.lookupOrDefault(op.getTileStart())};
  }

  /// Before the tile loop: the first tile's ids into pageIds (thread 0), a
  /// barrier, and its first K blocks requested.
  void emitKeysAheadPrologue(WarpEmitter &e, TileQKOp op) const {
    scf::ForOp loop = state.ops.tileLoop;
    OpBuilder::InsertionGuard guard(e.b);
    e.b.setInsertionPoint(loop);
    Value runs =
        e.cmpI(CmpIPredicate::slt, loop.getLowerBound(), loop.getUpperBound());
    Value start = ifThenValue(e, runs, [&] {
      auto [tileIds, tileStart] = tileValuesOf(e, op, loop.getLowerBound());
      storeIdsOnThread0(e, tileIds, tileStart);
      return tileStart;
    });
    e.barrier();
    if (s.keyAheadInRegisters) {
      setKeysAhead(loadKeysAhead(e, runs, start), /*initial=*/true);
      return;
    }
    e.ifThen(runs, [&] { copyKeysAhead(e, start); });
    e.commitAsyncCopies();
  }

  /// At the end of qk: the next tile's ids into its pageIds slot (thread
  /// 0; the slot's last readers, the previous tile's, passed this tile's
  /// barrier), published by softmax's barrier for pv, which requests the
  /// next tile's first K blocks (state.nextTileExists / nextTileStart).
  void storeNextTileIds(WarpEmitter &e, TileQKOp op) const {
    scf::ForOp loop = state.ops.tileLoop;
    Value next = e.addI(loop.getInductionVar(), loop.getStep());
    Value exists = e.cmpI(CmpIPredicate::slt, next, loop.getUpperBound());
    state.nextTileExists = exists;
    state.nextTileStart = ifThenValue(e, exists, [&] {
      auto [tileIds, tileStart] = tileValuesOf(e, op, next);
      storeIdsOnThread0(e, tileIds, tileStart);
      return tileStart;
    });
  }

  void storeIdsOnThread0(WarpEmitter &e, Value tileIds, Value tileStart) const {
    e.ifThen(e.cmpI(CmpIPredicate::eq, ids.tid, e.idx(0)), [&] {
      e.storeVector(tileIds, buffers.pageIds, {tilePages(e, tileStart).idBase});
    });
  }

  /// if (cond) yield then() else yield 0, for an i64 value.
  static Value ifThenValue(WarpEmitter &e, Value cond,
                           function_ref<Value()> then) {
    return e.ifValues(
        cond, e.b.getI64Type(), [&] { return SmallVector<Value>{then()}; },
        [&] { return SmallVector<Value>{e.i64(0)}; })[0];
  }

  /// Stores the tile's page ids (a uniform vector) into the slot of the
  /// tile's parity, so that each thread reads the ids of its own tokens by
  /// index; qk's barrier publishes them. Alternating slots keep the next
  /// tile's store clear of this tile's readers without another barrier.
  /// Ids read from workgroup memory (the staged ids of short pages,
  /// PageIdsToWarps.cpp, through pa-tile's pool guard) are copied one id
  /// per thread; others are stored by thread 0 (at P = 1, thread 0's copy of
  /// 256 ids held them in registers, spilled, and kept the other threads
  /// waiting at the barrier).
  void storePageIds(WarpEmitter &e, TileQKOp op) const {
    Value tileIds = op.getPageIds();
    if (elementOfStagedIds(e, tileIds, /*k=*/nullptr, /*elements=*/nullptr)) {
      Value idBase = tilePages(e, op.getTileStart()).idBase;
      e.forLoop(ids.tid,
                e.idx(cast<VectorType>(tileIds.getType()).getNumElements()),
                e.idx(kWorkgroupThreads), [&](Value k) {
                  DenseMap<Value, Value> elements;
                  e.store(elementOfStagedIds(e, tileIds, k, &elements),
                          buffers.pageIds, {e.addI(idBase, k)});
                });
      return;
    }
    storeIdsOnThread0(e, tileIds, op.getTileStart());
  }

  /// Element `k` (index) of `ids` computed on its own, where `ids` is a
  /// vector load of workgroup memory followed by elementwise ops whose other
  /// operands are splats; null if it is not. `elements` holds the elements
  /// built so far for this `k` (each vector's once). With a null `k` only
  /// says whether it is (builds nothing).
  static Value elementOfStagedIds(WarpEmitter &e, Value ids, Value k,
                                  DenseMap<Value, Value> *elements) {
    if (k)
      if (Value built = elements->lookup(ids))
        return built;
    Value element = buildElementOfStagedIds(e, ids, k, elements);
    if (k && element)
      (*elements)[ids] = element;
    return element;
  }
  /// elementOfStagedIds of a vector not built yet.
  static Value buildElementOfStagedIds(WarpEmitter &e, Value ids, Value k,
                                       DenseMap<Value, Value> *elements) {
    Operation *op = ids.getDefiningOp();
    if (!op)
      return nullptr;
    if (auto load = dyn_cast<vector::LoadOp>(op)) {
      if (!gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(
              load.getBase().getType()) ||
          load.getIndices().size() != 1)
        return nullptr;
      return k ? e.load(load.getBase(), {e.addI(load.getIndices()[0], k)}) : ids;
    }
    if (auto splat = dyn_cast<vector::BroadcastOp>(op))
      return isa<VectorType>(splat.getSourceType()) ? nullptr
                                                    : splat.getSource();
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      auto value = dyn_cast<SplatElementsAttr>(constant.getValue());
      if (!value)
        return nullptr;
      return k ? arith::ConstantOp::create(e.b,
                                           value.getSplatValue<TypedAttr>())
               : ids;
    }
    if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumResults() != 1 ||
        op->getNumRegions() != 0)
      return nullptr;
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      operands.push_back(elementOfStagedIds(e, operand, k, elements));
      if (!operands.back())
        return nullptr;
    }
    if (!k)
      return ids;
    OperationState state(op->getLoc(), op->getName(), operands,
                         getElementTypeOrSelf(ids.getType()), op->getAttrs());
    return e.b.create(state)->getResult(0);
  }
};

} // namespace

void mlir::pa::nvvm::populateQKToWarpsPatterns(RewritePatternSet &patterns,
                                               DecodeState &state) {
  patterns.add<QKToWarps>(patterns.getContext(), state);
}
