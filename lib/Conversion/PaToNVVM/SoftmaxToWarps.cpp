//===- SoftmaxToWarps.cpp - init_softmax and softmax on warps -------------===//
//
// The patterns of pa.tile.init_softmax (row max -inf, row sum 0, the
// accumulator 0) and pa.tile.softmax with the tile's pa.tile.alibi:
// 128 / M threads per row, warp shuffles for the row's max and sum, P
// in place of the scores, the accumulator rows times alpha (here, or in
// pv for 32 rows: DecodeShape::rescaleInPV).
//
//===----------------------------------------------------------------------===//
#include "DecodeLowering.h"

#include "pa/Transforms/KernelBuilder.h"
#include "pa/Transforms/ScoreMath.h"
#include "pa/Transforms/TileLowering.h"

using namespace mlir;
using namespace mlir::pa;
using namespace mlir::pa::nvvm;
using arith::CmpIPredicate;

namespace {

/// pa.tile.init_softmax: the row statistics and the accumulator cleared.
struct InitSoftmaxToWarps final : TileOpToWarps<TileInitSoftmaxOp> {
  using TileOpToWarps::TileOpToWarps;

  void lower(TileInitSoftmaxOp op, WarpEmitter &e,
             PatternRewriter &rewriter) const override {
    e.ifThen(e.cmpI(CmpIPredicate::ult, ids.tid, e.idx(s.rows)), [&] {
      e.store(e.negInf(), buffers.rowMax, {ids.tid});
      e.store(e.f32(0.0), buffers.rowSum, {ids.tid});
    });
    Value zero = e.f32(0.0);
    e.forLoop(ids.tid, e.idx(s.rows * s.accStride()), e.idx(kWorkgroupThreads),
              [&](Value i) { e.store(zero, buffers.acc, {i}); });
  }
};

/// pa.tile.softmax (with the tile's pa.tile.alibi, which it applies and
/// erases): the online softmax of the scores into P, in place.
struct SoftmaxToWarps final : TileOpToWarps<TileSoftmaxOp> {
  using TileOpToWarps::TileOpToWarps;

  void lower(TileSoftmaxOp op, WarpEmitter &e,
             PatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder &b = e.b;
    e.barrier();
    const int64_t perRow = kWorkgroupThreads / s.rows; // threads per row
    const int64_t count = kTileTokens / perRow;
    Value m = e.div(ids.tid, perRow);
    Value part = e.rem(ids.tid, perRow);

    // Row r = rowBase + m (MTP position q = r / G) sees tokens
    // [max(0, end - W), end), end = C - Q + 1 + q; padding rows nothing.
    RowTokens rowSeen = rowTokens(e, m);
    Value rowOffset = e.mulI(m, kScoreStride);
    // ALiBi: the row's slope (query head h * G + r % G) and own token
    // C - Q + q = end - 1; the bias goes on as the scores are read, before
    // the mask (the tiled IR's pa.tile.alibi, after the qk's soft-cap).
    Value alibiSlope, ownToken;
    if (TileAlibiOp alibi = state.ops.alibi) {
      Value head = e.addI(e.mulI(alibi.getKvHead(), s.groupSize),
                         e.rem(e.addI(op.getRowBase(), m), s.groupSize));
      alibiSlope =
          emitAlibiSlopeExp2(b, e.load(alibi.getAlibiSlopes(), {head}));
      ownToken = e.subI(rowSeen.end, e.i64(1));
    }

    // P straight into pv's operand terms (32-row kernels, f16 / bf16
    // products, a V scale per tensor or none): in tiles that every row of
    // the group sees whole (uniform; no partly seen token, inside pv's
    // product range), each thread stores its P times the V scale as the
    // terms, and pv skips its prologue, a second pass over P through shared
    // memory (fp8 Q 4 up to 5% faster on an H100). The thread's columns are
    // then pairs of tokens.
    Value tileStart = op.getTileStart();
    TilePVOp pv = state.ops.pv;
    const bool termsHere =
        s.rows == 32 && s.products != Products::E4M3 &&
        s.vScale != ScaleMode::per_token &&
        definedBefore(pv.getValidBegin(), op) &&
        definedBefore(pv.getValidEnd(), op) &&
        (!pv.getVScale() || definedBefore(pv.getVScale(), op));
    SmallVector<Value> columns;
    for (int64_t i = 0; i < count; ++i)
      columns.push_back(
          termsHere ? e.addI(e.mulI(part, 2), (i / 2) * 2 * perRow + i % 2)
                    : e.addI(part, i * perRow));
    // The thread's scores, minus infinity where its row does not see the
    // token.
    auto readScores = [&](bool masked) {
      SmallVector<Value> scores;
      for (Value column : columns) {
        Value token = e.addI(tileStart, e.toI64(column));
        Value score = e.load(buffers.scores, {e.addI(rowOffset, column)});
        if (alibiSlope)
          score = emitAlibiBias(b, score, alibiSlope, e.subI(token, ownToken));
        if (masked)
          score = e.select(rowSees(e, rowSeen, token), score, e.negInf());
        scores.push_back(score);
      }
      return scores;
    };
    // Interior tiles (every token visible to the row: all but a sequence's
    // first and last tiles and a window's edges) skip the mask, a 64-bit
    // range check and a select per score, in 32-row kernels (64 scores a
    // thread; fp8 Q 4 5-6% faster on an H100). In 16-row kernels (Q 1,
    // 32 scores) it gained under 1% on packed caches and cost the nhd ones
    // 4-5% (docs/performance.md, 2026-12-06).
    SmallVector<Value> values;
    if (s.rows < 32) {
      values = readScores(/*masked=*/true);
    } else {
      Value interior = e.andI(
          rowSeen.isRow,
          e.andI(e.cmpI(CmpIPredicate::sle, rowSeen.begin, tileStart),
                 e.cmpI(CmpIPredicate::sle,
                        e.addI(tileStart, e.i64(kTileTokens)), rowSeen.end)));
      values = e.ifValues(
          interior, SmallVector<Type>(count, b.getF32Type()),
          [&] { return readScores(/*masked=*/false); },
          [&] { return readScores(/*masked=*/true); });
    }
    // Maxima that drop NaN (one max.f32 each, against four for the
    // NaN-propagating maximum): a NaN score still makes its row NaN through
    // exp2 and the sum, and store_partials makes such a row's max_logits NaN
    // (docs/reliability.md, "Non-finite inputs are NaN on every target").
    Value tileMax = e.negInf();
    for (Value score : values)
      tileMax = e.maxNumF(tileMax, score);
    for (int64_t offset = perRow / 2; offset >= 1; offset /= 2)
      tileMax = e.maxNumF(tileMax, e.shuffleXor(tileMax, offset));

    Value oldMax = e.load(buffers.rowMax, {m});
    Value newMax = e.maxNumF(oldMax, tileMax);
    // A row that has seen nothing keeps alpha = 1 and p = 0.
    Value nothing = e.eqF(newMax, e.negInf());
    Value zero = e.f32(0.0);
    Value alpha = e.exp2FlushingSubnormals(
        e.select(nothing, zero, e.subF(oldMax, newMax)));
    Value shift = e.select(nothing, zero, newMax);
    Value sum = zero;
    SmallVector<Value> probs;
    for (Value score : values) {
      probs.push_back(e.exp2FlushingSubnormals(e.subF(score, shift)));
      sum = e.addF(sum, probs.back());
    }
    auto storeProbs = [&] {
      for (auto [p, column] : llvm::zip(probs, columns))
        e.store(p, buffers.scores, {e.addI(rowOffset, column)});
    };
    if (termsHere) {
      Value tileEnd = e.addI(tileStart, e.i64(kTileTokens));
      Value termsNow = e.andI(
          groupSeesTile(e, tileStart, tileEnd),
          e.andI(e.cmpI(CmpIPredicate::sle, pv.getValidBegin(), tileStart),
                 e.cmpI(CmpIPredicate::sle, tileEnd, pv.getValidEnd())));
      state.probTermsFromSoftmax = termsNow;
      e.ifThenElse(
          termsNow,
          [&] {
            // The pv prologue's arithmetic: P times the V scale (NaN where
            // the scale is not finite), rounded once to the terms.
            Value scale =
                s.vScale == ScaleMode::per_tensor
                    ? buildNaNIfNotFinite(b, b.getLoc(),
                                          tensorScale(e, pv.getVScale()))
                    : buildNaNIfNotFinite(b, b.getLoc(), e.f32(1.0));
            // The terms overwrite other threads' scores.
            if (state.probsAliasScores)
              e.barrier();
            for (int64_t i = 0; i < count; i += 2)
              storeProbTerms(e, m, columns[i], e.mulF(probs[i], scale),
                             e.mulF(probs[i + 1], scale));
          },
          storeProbs);
    } else {
      storeProbs();
    }
    for (int64_t offset = perRow / 2; offset >= 1; offset /= 2)
      sum = e.addF(sum, e.shuffleXor(sum, offset));
    // Every thread of the row has read rowMax[m] before the shuffles above.
    e.ifThen(e.cmpI(CmpIPredicate::eq, part, e.idx(0)), [&] {
      e.store(e.addF(e.mulF(e.load(buffers.rowSum, {m}), alpha), sum),
              buffers.rowSum, {m});
      e.store(newMax, buffers.rowMax, {m});
      if (s.rescaleInPV())
        e.store(alpha, buffers.alpha, {m});
    });
    // The accumulator rows times alpha: here (a read-modify-write of the
    // whole accumulator between two barriers), or in pv as it loads them.
    if (!s.rescaleInPV()) {
      Value accRow = e.mulI(m, s.accStride());
      e.forLoop(part, e.idx(s.headDim), e.idx(perRow), [&](Value d) {
        Value at = e.addI(accRow, d);
        e.store(e.mulF(e.load(buffers.acc, {at}), alpha), buffers.acc, {at});
      });
    }
    if (state.ops.alibi) // applied above
      rewriter.eraseOp(state.ops.alibi);
  }

private:
  /// Whether `value` is usable at `op`: a block argument or result of an op
  /// before it, in a block that encloses it.
  static bool definedBefore(Value value, Operation *op) {
    if (!value.getParentRegion()->isAncestor(op->getParentRegion()))
      return false;
    Operation *def = value.getDefiningOp();
    if (!def)
      return true;
    Operation *ancestor = def->getBlock()->findAncestorOpInBlock(*op);
    return ancestor && def->isBeforeInBlock(ancestor);
  }

  /// Whether every row of the group (groupPositions: MTP positions q_lo ..
  /// q_hi) sees every token of [tileStart, tileEnd): the first position's
  /// end is the smallest, the last one's begin the largest (i1).
  Value groupSeesTile(WarpEmitter &e, Value tileStart, Value tileEnd) const {
    ImplicitLocOpBuilder &b = e.b;
    auto [qLo, qHi] = groupPositions(e);
    Value firstEnd =
        buildVisibleEnd(b, b.getLoc(), state.contextLength, s.queryLength, qLo);
    Value lastBegin = buildVisibleBegin(
        b, b.getLoc(),
        buildVisibleEnd(b, b.getLoc(), state.contextLength, s.queryLength, qHi),
        s.window, /*clamp=*/true);
    return e.andI(e.cmpI(CmpIPredicate::sle, lastBegin, tileStart),
                  e.cmpI(CmpIPredicate::sle, tileEnd, firstEnd));
  }
};

} // namespace

void mlir::pa::nvvm::populateSoftmaxToWarpsPatterns(RewritePatternSet &patterns,
                                                    DecodeState &state) {
  patterns.add<InitSoftmaxToWarps, SoftmaxToWarps>(patterns.getContext(),
                                                   state);
}
