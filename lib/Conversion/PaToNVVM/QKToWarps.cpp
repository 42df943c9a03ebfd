//===- QKToWarps.cpp - pa.tile.qk on NVIDIA warps -------------------------===//
//
// The pattern of pa.tile.qk: the tile's page ids to shared memory, then
// warp w takes tokens 64w + [0, 64) in 8 n-blocks of 8 tokens (B = K),
// all rows, over D; scaled scores (soft-capped, NaN where not finite) to
// shared memory. Ends by requesting pv's first V chunks
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
    // The tile's V pages on their way to L2 through qk and the softmax.
    if (s.valuePrefetchBytes > 0)
      prefetchPages(e, tile, state.ops.pv.getValueCache(), kvHead,
                    s.valuePrefetchBytes);
    Value key = op.getKeyCache();
    const int64_t blocks = s.qkDim() / (4 * s.chunk);
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
    SmallVector<SmallVector<Accumulator>> acc(
        nBlocks, SmallVector<Accumulator>(s.mTiles(), zeros(e)));
    // Requesting block b + 1's K chunks before block b's products (as pv
    // does with V) measured no faster here and costs registers. At 32 rows,
    // 3 blocks in flight through shared memory (cp.async stages in the
    // scores' bytes) measured 2-16% slower on the H200 (performance.md,
    // 2026-12-02, fourth session). The next tile's first blocks copied
    // during pv (key-ahead) measured 3-15% slower at Q 1 on an H100
    // (2026-12-05): off by default.
    // Block `block`'s K chunks of the warp's n-blocks (and, for a partial
    // last block, which of them lie in the row).
    auto loadKeyChunks = [&](int64_t block) {
      Value chunkIndex = e.addI(ids.t, 4 * block);
      Value inRow;
      if (4 * (block + 1) > rowChunks) {
        inRow = e.cmpI(CmpIPredicate::ult, chunkIndex, e.idx(rowChunks));
        chunkIndex = e.select(inRow, chunkIndex, e.idx(rowChunks - 1));
      }
      SmallVector<Value> chunks;
      // K blocks copied ahead: from shared memory, once this thread's
      // copies (the stage's, with bulk copies) have landed.
      if (block == 0 && s.keyAheadBlocks > 0 && !s.keyAheadInRegisters) {
        if (s.keyAheadBulk)
          e.waitBarrierPhase(buffers.keyBarrier, tilePhase(e));
        else
          e.waitAsyncCopies(0);
      }
      // nhd / hnd: the token's E head dims from chunkIndex * E on, one
      // 16-byte load as in the packed layout; the block's first load brings
      // the row's next 256 bytes into L2 (the later blocks' chunks).
      auto aheadChunk = [&](int64_t j) {
        if (s.keyAheadInRegisters)
          return state.keysAhead[block * 8 + j];
        if (s.keyAheadBulk)
          return e.loadVector(
              buffers.keyStage,
              {keyStageIndex(e, block,
                             e.addI(warpTokens, e.addI(ids.g, 8 * j)))},
              s.chunk);
        return e.loadVector(buffers.keyAhead, {keyAheadIndex(e, block, j)},
                            s.chunk);
      };
      for (int64_t j = 0; j < nBlocks; ++j)
        chunks.push_back(
            block < s.keyAheadBlocks
                ? aheadChunk(j)
            : s.layout == CacheLayout::packed
                ? e.loadVectorOnce(
                      key, {pages[j], kvHead, chunkIndex, slots[j], e.idx(0)},
                      s.chunk)
                : e.loadVectorL2Block(key,
                                      cacheIndices(e, CacheOperand::key,
                                                   pages[j], kvHead, slots[j],
                                                   e.mulI(chunkIndex, s.chunk)),
                                      s.chunk));
      return std::make_pair(chunks, inRow);
    };
    // With the first blocks carried in registers (key-ahead-in-registers),
    // block b + 1's chunks are requested before block b's products, as that
    // variant was measured (alone, within the noise on an H100: 2026-12-06);
    // otherwise each block's at its start.
    const bool requestAhead = s.keyAheadInRegisters;
    std::pair<SmallVector<Value>, Value> nextChunks;
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

    // Scores of rows g, g + 8 and tokens 8j + 2t, +1 of the warp, scaled.
    Value scale = e.f32(s.scoreScale);
    SmallVector<Value> rowScales; // per M-tile: rows g and g + 8
    for (int64_t mt = 0; mt < s.mTiles(); ++mt)
      for (int64_t half = 0; half < 2; ++half) {
        Value row = e.addI(ids.g, mt * 16 + half * 8);
        rowScales.push_back(buffers.rowScale
                                ? e.mulF(scale, e.load(buffers.rowScale, {row}))
                                : scale);
      }
    for (int64_t j = 0; j < nBlocks; ++j) {
      Value token = e.addI(warpTokens, e.addI(e.mulI(ids.t, 2), 8 * j));
      Value k0 = tokenScale(e, s.kScale, op.getKScale(), tile, kvHead, token);
      Value k1 = tokenScale(e, s.kScale, op.getKScale(), tile, kvHead,
                            e.addI(token, 1));
      for (int64_t mt = 0; mt < s.mTiles(); ++mt)
        for (int64_t half = 0; half < 2; ++half) {
          Value rowScale = rowScales[mt * 2 + half];
          Value row = e.addI(ids.g, mt * 16 + half * 8);
          // A score that is not finite (a non-finite K element or scale)
          // is NaN: a real -inf must not weigh 0 like a masked one, and
          // the soft cap would map +-inf to +-cap.
          Value first = buildNaNIfNotFinite(
              b, b.getLoc(),
              e.mulF(acc[j][mt][2 * half], e.mulF(rowScale, k0)));
          Value second = buildNaNIfNotFinite(
              b, b.getLoc(),
              e.mulF(acc[j][mt][2 * half + 1], e.mulF(rowScale, k1)));
          // Before the softmax's mask, so masked columns stay -inf.
          if (s.softCap) {
            first = emitSoftCap(b, first, *s.softCap, /*fastReciprocal=*/true);
            second =
                emitSoftCap(b, second, *s.softCap, /*fastReciprocal=*/true);
          }
          e.storeVector(e.pair(first, second), buffers.scores,
                        {e.addI(e.mulI(row, kScoreStride), token)});
        }
    }
    if (s.nextTileIdsAhead())
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
    if (s.keyAheadBulk) {
      e.ifThen(runs, [&] { copyKeyStage(e, start); });
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
