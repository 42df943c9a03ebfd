//===- PVToWarps.cpp - pa.tile.pv on NVIDIA warps -------------------------===//
//
// The pattern of pa.tile.pv: P times the tokens' V scales (0 outside
// the valid range) packed into the products' terms in shared memory,
// then warp w adds P V to head-dim columns [w D/4, (w+1) D/4) of the
// accumulator rows in shared memory, n-blocks of 8 columns at a time;
// a tile with tokens outside the valid range zeroes their values.
//
// Partly seen tokens (MTP): row q of the group sees [vB + q, vE + q), so
// of the group's positions [q_lo, q_hi] the tokens of the tail run
// [vE + q_lo, vE + q_hi) and, with a window, of the head run
// [vB + q_lo, vB + q_hi) are seen by some rows only. In the shared
// product their V would meet the other rows' zero P, and a NaN or
// infinite V (or V scale) would give 0 * NaN = NaN in rows that do not
// see it. So the product's valid range leaves them out (the edge tiles
// that hold them zero their values and weights like invalid tokens), and
// those edge tiles add them per row afterwards, only to the rows that
// see them (addPartlySeen): at most 2 (Q - 1) tokens, none of it in full
// tiles.
//
//===----------------------------------------------------------------------===//
#include "DecodeLowering.h"

#include "pa/Transforms/ScoreMath.h"

using namespace mlir;
using namespace mlir::pa;
using namespace mlir::pa::nvvm;
using arith::CmpIPredicate;

namespace {

/// The runs of partly seen tokens of the row group (see the file
/// comment), i64 values.
struct PartlySeenRuns {
  Value length;    // q_hi - q_lo
  Value tailStart; // vE + q_lo
  Value headStart; // vB + q_lo (unclamped); null without a window
};

/// pa.tile.pv: P times the V scales packed into the products' terms, then
/// the accumulator rows plus P V, four warps of D / 4 columns each.
struct PVToWarps final : TileOpToWarps<TilePVOp> {
  using TileOpToWarps::TileOpToWarps;

  void lower(TilePVOp op, WarpEmitter &e,
             PatternRewriter &rewriter) const override {
    e.barrier();
    // The next tile's K pages on their way to L2 through this P V (qk
    // stored its ids; softmax's barrier published them).
    if (s.keyPrefetchBytes > 0)
      e.ifThen(state.nextTileExists, [&] {
        prefetchPages(e, tilePages(e, state.nextTileStart), state.keyCache,
                      state.kvHead, s.keyPrefetchBytes);
      });
    // The next tile's first K blocks, in flight while this tile's P V runs
    // (qk stored its ids; softmax's barrier published them).
    if (s.keyAheadInRegisters) {
      setKeysAhead(loadKeysAhead(e, state.nextTileExists, state.nextTileStart),
                   /*initial=*/false);
    } else if (s.keyAheadBulk) {
      e.ifThen(state.nextTileExists,
               [&] { copyKeyStage(e, state.nextTileStart); });
    } else if (s.keyAheadBlocks > 0) {
      e.ifThen(state.nextTileExists,
               [&] { copyKeysAhead(e, state.nextTileStart); });
      e.commitAsyncCopies();
    }
    Value tileStart = op.getTileStart();
    TilePages tile = tilePages(e, tileStart);
    // The tokens the shared product multiplies: the valid range less the
    // partly seen tokens, which addPartlySeen adds per row.
    Value productBegin = op.getValidBegin(), productEnd = op.getValidEnd();
    std::optional<PartlySeenRuns> runs;
    if (s.partlyRunSlots() > 0) {
      runs = partlySeenRuns(e);
      productEnd = e.minSI(productEnd, runs->tailStart);
      if (runs->headStart)
        productBegin =
            e.maxSI(productBegin, e.addI(runs->headStart, runs->length));
    }
    // Tiles with tokens outside the product's range zero their values.
    auto insideProduct = [&] {
      return e.andI(
          e.cmpI(CmpIPredicate::sge, tileStart, productBegin),
          e.cmpI(CmpIPredicate::sle, e.addI(tileStart, e.i64(kTileTokens)),
                productEnd));
    };
    // The prologue below, unless softmax stored the terms (interior tiles
    // of some kernels: state.probTermsFromSoftmax).
    Value up, down;
    auto packTerms = [&] {
      // P's terms are about to overwrite the scores: keep the partly seen
      // tokens' P (edge tiles only).
      if (runs && state.probsAliasScores)
        e.ifThen(e.negate(insideProduct()),
                 [&] { savePartlySeenProbs(e, op, *runs); });

      // Prologue: thread i packs tokens 2i, 2i + 1 of every row: P times the
      // token's V scale, 0 outside the product's range.
      Value token = e.mulI(ids.tid, 2);
      SmallVector<Value> weights;
      for (int64_t k = 0; k < 2; ++k) {
        Value column = e.addI(token, k);
        Value valid = e.inRange(e.addI(tileStart, e.toI64(column)),
                                productBegin, productEnd);
        weights.push_back(
            e.select(valid, valueScale(e, op, tile, column), e.f32(0.0)));
      }
      // e4m3: the weights times 2^k with every weight * 2^k below 256, so
      // that P's terms stay normal e4m3 values; the products are scaled back
      // by 2^-k.
      if (s.e4m3())
        std::tie(up, down) = tileWeightScale(e, weights);
      for (Value &weight : weights)
        if (up)
          weight = e.mulF(weight, up);
      // With state.probsAliasScores every thread reads its scores of all rows
      // before a barrier and writes the terms after it.
      SmallVector<std::pair<Value, Value>> pending;
      for (int64_t m = 0; m < s.rows; ++m) {
        Value p = e.loadVector(buffers.scores,
                               {e.addI(e.idx(m * kScoreStride), token)}, 2);
        Value x0 = e.mulF(e.extract(p, 0), weights[0]);
        Value x1 = e.mulF(e.extract(p, 1), weights[1]);
        if (state.probsAliasScores)
          pending.push_back({x0, x1});
        else
          storeProbTerms(e, e.idx(m), token, x0, x1);
      }
      if (state.probsAliasScores) {
        e.barrier();
        for (auto [m, x] : llvm::enumerate(pending))
          storeProbTerms(e, e.idx(int64_t(m)), token, x.first, x.second);
      }
      e.barrier();
    };
    if (state.probTermsFromSoftmax)
      e.ifThen(e.negate(state.probTermsFromSoftmax), packTerms);
    else
      packTerms();

    e.ifThenElse(
        insideProduct(),
        [&] {
          emitPVProducts(e, op, tile, down, /*maskBegin=*/Value(),
                         /*maskEnd=*/Value());
        },
        [&] {
          emitPVProducts(e, op, tile, down, productBegin, productEnd);
          if (runs)
            addPartlySeen(e, op, tile, *runs);
        });
  }

private:
  /// V scale of tile-relative token `column` (index). An infinite scale is
  /// NaN here: e4m3 packing would saturate it.
  Value valueScale(WarpEmitter &e, TilePVOp op, const TilePages &tile,
                   Value column) const {
    return buildNaNIfNotFinite(e.b, e.b.getLoc(),
                               tokenScale(e, s.vScale, op.getVScale(), tile,
                                          op.getKvHead(), column));
  }

  PartlySeenRuns partlySeenRuns(WarpEmitter &e) const {
    ImplicitLocOpBuilder &b = e.b;
    auto [qLo, qHi] = groupPositions(e);
    PartlySeenRuns runs;
    runs.length = e.subI(qHi, qLo);
    runs.tailStart = buildVisibleEnd(b, b.getLoc(), state.contextLength,
                                     s.queryLength, qLo);
    runs.headStart = buildVisibleBegin(b, b.getLoc(), runs.tailStart,
                                       s.window, /*clamp=*/false);
    return runs;
  }

  /// Calls body(token (i64), column (index, tile-relative), runSlot
  /// (index, the tail run's slots, then the head run's)) in a uniform
  /// branch for each partly seen token of this tile's valid range.
  void forEachPartlySeen(
      WarpEmitter &e, TilePVOp op, const PartlySeenRuns &runs,
      function_ref<void(Value, Value, Value)> body) const {
    Value tileStart = op.getTileStart();
    Value tileEnd = e.addI(tileStart, e.i64(kTileTokens));
    auto run = [&](Value start, int64_t firstSlot, Value skipFrom) {
      e.forLoop(e.idx(0), e.toIndex(runs.length), e.idx(1), [&](Value k) {
        Value token = e.addI(start, e.toI64(k));
        Value here =
            e.andI(e.inRange(token, tileStart, tileEnd),
                   e.inRange(token, op.getValidBegin(), op.getValidEnd()));
        if (skipFrom) // a token of both runs (a short window) is the tail's
          here = e.andI(here, e.cmpI(CmpIPredicate::slt, token, skipFrom));
        e.ifThen(here, [&] {
          body(token, e.toIndex(e.subI(token, tileStart)), e.addI(k, firstSlot));
        });
      });
    };
    run(runs.tailStart, 0, Value());
    if (runs.headStart)
      run(runs.headStart, s.partlyRunSlots(), runs.tailStart);
  }

  /// With probsAliasScores: the partly seen tokens' P of every row, from
  /// the scores to partlyProbs, before P's terms overwrite them.
  void savePartlySeenProbs(WarpEmitter &e, TilePVOp op,
                           const PartlySeenRuns &runs) const {
    forEachPartlySeen(e, op, runs, [&](Value, Value column, Value runSlot) {
      e.ifThen(e.cmpI(CmpIPredicate::ult, ids.tid, e.idx(s.rows)), [&] {
        Value p = e.load(buffers.scores,
                         {e.addI(e.mulI(ids.tid, kScoreStride), column)});
        e.store(p, buffers.partlyProbs,
                {e.addI(e.mulI(runSlot, s.rows), ids.tid)});
      });
    });
  }

  /// After the edge tile's products: acc[m][d] += P[m][t] * v_scale(t) *
  /// V_t[d] for each partly seen token t and only the rows m that see it,
  /// in f32, so that a NaN / Inf V value or scale reaches exactly those
  /// rows. Thread i takes the elements i, i + 128, ... of the rows x D.
  void addPartlySeen(WarpEmitter &e, TilePVOp op, const TilePages &tile,
                     const PartlySeenRuns &runs) const {
    e.barrier(); // the products' accumulators
    forEachPartlySeen(e, op, runs, [&](Value token, Value column,
                                       Value runSlot) {
      Value scale = valueScale(e, op, tile, column);
      std::pair<Value, Value> place = locate(e, tile, column);
      e.forLoop(ids.tid, e.idx(s.rows * s.headDim), e.idx(kWorkgroupThreads),
                [&](Value i) {
                  Value m = e.div(i, s.headDim);
                  Value d = e.rem(i, s.headDim);
                  e.ifThen(rowSees(e, rowTokens(e, m), token), [&] {
                    Value p = state.probsAliasScores
                                  ? e.load(buffers.partlyProbs,
                                           {e.addI(e.mulI(runSlot, s.rows), m)})
                                  : e.load(buffers.scores,
                                           {e.addI(e.mulI(m, kScoreStride),
                                                  column)});
                    Value v = valueToF32(
                        e, e.load(op.getValueCache(),
                                  cacheIndices(e, CacheOperand::value,
                                               place.first, op.getKvHead(),
                                               place.second, d)));
                    Value at = e.addI(e.mulI(m, s.accStride()), d);
                    e.store(e.addF(e.load(buffers.acc, {at}),
                                   e.mulF(e.mulF(p, scale), v)),
                            buffers.acc, {at});
                  });
                });
    });
  }

  /// A V cache element in f32 (exact): e4m3 through its f16 conversion.
  Value valueToF32(WarpEmitter &e, Value v) const {
    if (!isa<Float8E4M3FNType>(v.getType()))
      return toF32(e, v);
    ImplicitLocOpBuilder &b = e.b;
    Value byte = arith::BitcastOp::create(b, b.getI8Type(), v);
    Value pair = arith::ExtUIOp::create(b, b.getI16Type(), byte);
    return e.unpackE4M3x2(pair).first;
  }

  /// 2^k and 2^-k for the tile's P weights: k = 7 - floor(log2(max w)), so
  /// that max w * 2^k < 256. Per-token weights are maximized over the
  /// workgroup (warp shuffles, then the four warps through shared memory).
  std::pair<Value, Value> tileWeightScale(WarpEmitter &e,
                                          ArrayRef<Value> weights) const {
    ImplicitLocOpBuilder &b = e.b;
    Value largest = e.maxF(weights[0], weights[1]);
    if (s.vScale == ScaleMode::per_token) {
      for (int64_t offset = 16; offset >= 1; offset /= 2)
        largest = e.maxF(largest, e.shuffleXor(largest, offset));
      e.ifThen(e.cmpI(CmpIPredicate::eq, ids.lane, e.idx(0)),
               [&] { e.store(largest, buffers.warpMax, {ids.warp}); });
      e.barrier();
      for (int64_t w = 0; w < kWarps; ++w)
        largest = e.maxF(largest, e.load(buffers.warpMax, {e.idx(w)}));
    } else if (s.vScale == ScaleMode::per_tensor) {
      largest = e.load(state.ops.pv.getVScale(), {e.idx(0)});
      largest = toF32(e, largest);
    } else {
      largest = e.f32(1.0);
    }
    // A zero (or subnormal) maximum gets k = 0, which is harmless.
    Value exponent = e.subI(
        e.andI(e.shr(e.bitcast(b.getI32Type(), e.absF(largest)), 23), 0xFF),
        e.i32(127));
    Value shift =
        e.minSI(e.maxSI(e.subI(e.i32(llvm::Log2_64(kE4M3Headroom) - 1), exponent),
                      e.i32(-100)),
               e.i32(100));
    Value isZero = e.eqF(largest, e.f32(0.0));
    shift = e.select(isZero, e.i32(0), shift);
    Type f32 = b.getF32Type();
    return {e.bitcast(f32, e.shl(e.addI(shift, 127), 23)),
            e.bitcast(f32, e.shl(e.subI(e.i32(127), shift), 23))};
  }

  /// O[rows][warp's columns] += P V over the tile's tokens, the
  /// accumulators loaded from and stored back to shared memory (times
  /// 2^k / 2^-k around e4m3 products, whose P carries 2^k). With maskBegin
  /// (an edge tile), the values of tokens outside [maskBegin, maskEnd) are
  /// zeroed: 0 * NaN must not reach the sum.
  void emitPVProducts(WarpEmitter &e, TilePVOp op, const TilePages &tile,
                      Value down, Value maskBegin, Value maskEnd) const {
    const int64_t columnsPerWarp = s.pvDim() / kWarps;
    const int64_t nBlocksTotal = columnsPerWarp / 8;
    const int64_t tokenBlocks = kTileTokens / (4 * s.chunk);
    Value warpColumns = e.mulI(ids.warp, columnsPerWarp);
    Value up;
    if (down)
      up = e.divF(e.f32(1.0), down);

    for (int64_t first = 0; first < nBlocksTotal; first += kMaxBlocksPerPass) {
      int64_t nBlocks = std::min(kMaxBlocksPerPass, nBlocksTotal - first);
      // Accumulators: rows g, g + 8; columns 2t, 2t + 1 of each n-block
      // (pvColumn: adjacent, one pair access, unless interleaved).
      auto accAt = [&](int64_t mt, int64_t half, int64_t nb, int64_t k) {
        Value row = e.addI(ids.g, mt * 16 + half * 8);
        Value column = e.addI(warpColumns, pvColumn(e, first, nBlocks, nb,
                                                   e.addI(e.mulI(ids.t, 2), k)));
        return e.addI(e.mulI(row, s.accStride()), column);
      };
      const bool pairs = !interleavedColumns(nBlocks);
      auto loadAcc = [&](int64_t mt, int64_t half, int64_t nb) {
        if (pairs)
          return e.loadVector(buffers.acc, {accAt(mt, half, nb, 0)}, 2);
        return e.pair(e.load(buffers.acc, {accAt(mt, half, nb, 0)}),
                      e.load(buffers.acc, {accAt(mt, half, nb, 1)}));
      };
      auto storeAcc = [&](Value x0, Value x1, int64_t mt, int64_t half,
                          int64_t nb) {
        if (pairs)
          return e.storeVector(e.pair(x0, x1), buffers.acc,
                               {accAt(mt, half, nb, 0)});
        e.store(x0, buffers.acc, {accAt(mt, half, nb, 0)});
        e.store(x1, buffers.acc, {accAt(mt, half, nb, 1)});
      };
      SmallVector<SmallVector<Accumulator>> acc(
          nBlocks, SmallVector<Accumulator>(s.mTiles()));
      // softmax's rescale of rows g + 8 half + 16 mt, with rescaleInPV.
      SmallVector<Value> alphas;
      if (s.rescaleInPV())
        for (int64_t mt = 0; mt < s.mTiles(); ++mt)
          for (int64_t half = 0; half < 2; ++half)
            alphas.push_back(
                e.load(buffers.alpha, {e.addI(ids.g, mt * 16 + half * 8)}));
      for (int64_t nb = 0; nb < nBlocks; ++nb)
        for (int64_t mt = 0; mt < s.mTiles(); ++mt)
          for (int64_t half = 0; half < 2; ++half) {
            Value pair = loadAcc(mt, half, nb);
            for (int64_t k = 0; k < 2; ++k) {
              Value x = e.extract(pair, k);
              if (s.rescaleInPV())
                x = e.mulF(x, alphas[mt * 2 + half]);
              acc[nb][mt][2 * half + k] = up ? e.mulF(x, up) : x;
            }
          }

      // The V chunks of each token block, as loaded (pending[b], empty
      // until requested). Those of block b + A (A = valueAheadBlocks) are
      // requested before the products of block b (A + 1 blocks in
      // flight); qk requested those of the first pass's block 0. With a
      // value stage, the first A blocks past it are requested before the
      // wait for the stage's copies, the staged blocks are read from
      // shared memory.
      const int64_t ahead = s.valueAheadBlocks;
      SmallVector<SmallVector<Value>> pending(tokenBlocks);
      auto request = [&](int64_t block) {
        if (block < tokenBlocks && pending[block].empty())
          pending[block] = loadValueChunks(e, op, tile, first, nBlocks, block);
      };
      const int64_t staged = s.valueStageBlocks;
      if (staged > 0) {
        for (int64_t block = staged; block < staged + ahead; ++block)
          request(block);
        e.waitBarrierPhase(buffers.valueBarrier, tilePhase(e));
      } else if (first == 0 && !state.firstValues.empty()) {
        pending[0] = state.firstValues;
      }
      for (int64_t block = 0; block < ahead; ++block)
        request(block);
      for (int64_t block = 0; block < tokenBlocks; ++block) {
        request(block + ahead);
        SmallVector<Value> chunks = std::move(pending[block]);
        Value chunkToken = chunkTokenOf(e, block);
        SmallVector<SmallVector<std::array<Value, 4>>> probs;
        for (int64_t term = 0; term < s.probTerms(); ++term)
          for (int64_t mt = 0; mt < s.mTiles(); ++mt) {
            probs.emplace_back();
            for (int64_t step = 0; step < s.stepsPerChunk(); ++step)
              probs.back().push_back(loadFragment(e, buffers.probs, kTileTokens,
                                                  term, mt, block, step));
          }
        SmallVector<Value> keep;
        if (maskBegin)
          keep = chunkMasks(e, op, chunkToken, maskBegin, maskEnd);
        SmallVector<SmallVector<Value>> values;
        for (Value chunk : chunks) {
          SmallVector<Value> words = kvWords(e, chunk);
          for (size_t w = 0; w < keep.size(); ++w)
            words[w] = e.andI(words[w], keep[w]);
          values.push_back(words);
        }
        for (int64_t nb = 0; nb < nBlocks; ++nb)
          for (int64_t step = 0; step < s.stepsPerChunk(); ++step)
            for (int64_t term = 0; term < s.probTerms(); ++term)
              for (int64_t mt = 0; mt < s.mTiles(); ++mt) {
                size_t p = term * s.mTiles() + mt;
                acc[nb][mt] = mma(e, probs[p][step],
                                  bFragment(values[nb], step), acc[nb][mt]);
              }
      }

      for (int64_t nb = 0; nb < nBlocks; ++nb)
        for (int64_t mt = 0; mt < s.mTiles(); ++mt)
          for (int64_t half = 0; half < 2; ++half) {
            Value x0 = acc[nb][mt][2 * half], x1 = acc[nb][mt][2 * half + 1];
            if (down) {
              x0 = e.mulF(x0, down);
              x1 = e.mulF(x1, down);
            }
            storeAcc(x0, x1, mt, half, nb);
          }
    }
  }

  /// Per operand word of a chunk of tokens chunkToken + [0, E) (tile-
  /// relative): all ones over the elements whose token lies in [begin,
  /// end), else 0.
  SmallVector<Value> chunkMasks(WarpEmitter &e, TilePVOp op, Value chunkToken,
                                Value begin, Value end) const {
    Value first = e.addI(op.getTileStart(), e.toI64(chunkToken));
    const int64_t perWord = 4 / s.operandBytes();
    const int64_t bits = 8 * s.operandBytes();
    SmallVector<Value> masks;
    for (int64_t w = 0; w < s.chunk / perWord; ++w) {
      Value mask = e.i32(0);
      for (int64_t k = 0; k < perWord; ++k) {
        Value valid =
            e.inRange(e.addI(first, e.i64(perWord * w + k)), begin, end);
        int64_t ones = ((int64_t(1) << bits) - 1) << (bits * k);
        mask = e.orI(mask, e.select(valid, e.i32(ones), e.i32(0)));
      }
      masks.push_back(mask);
    }
    return masks;
  }
};

} // namespace

void mlir::pa::nvvm::populatePVToWarpsPatterns(RewritePatternSet &patterns,
                                               DecodeState &state) {
  patterns.add<PVToWarps>(patterns.getContext(), state);
}
