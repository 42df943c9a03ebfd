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

    // The thread's scores, minus infinity where its row does not see the
    // token. Interior tiles (every token visible to the row: all but a
    // sequence's first and last tiles and a window's edges) skip the mask,
    // a 64-bit range check and a select per score, where a thread reads 32
    // scores or more (16 rows or more; 5-6% of an fp8 32-row step on an
    // H100). With 8 rows (16 scores) the branch gained under 1% and cost
    // the nhd kernels up to 4% (docs/performance.md, 2026-12-06).
    Value tileStart = op.getTileStart();
    Value interior = e.andI(
        rowSeen.isRow,
        e.andI(e.cmpI(CmpIPredicate::sle, rowSeen.begin, tileStart),
               e.cmpI(CmpIPredicate::sle,
                      e.addI(tileStart, e.i64(kTileTokens)), rowSeen.end)));
    SmallVector<Value> columns;
    for (int64_t i = 0; i < count; ++i)
      columns.push_back(e.addI(part, i * perRow));
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
    SmallVector<Value> values =
        count < 32 ? readScores(/*masked=*/true)
                   : e.ifValues(interior, SmallVector<Type>(count, b.getF32Type()),
                                [&] { return readScores(/*masked=*/false); },
                                [&] { return readScores(/*masked=*/true); });
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
    for (auto [score, column] : llvm::zip(values, columns)) {
      Value p = e.exp2FlushingSubnormals(e.subF(score, shift));
      e.store(p, buffers.scores, {e.addI(rowOffset, column)});
      sum = e.addF(sum, p);
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
};

} // namespace

void mlir::pa::nvvm::populateSoftmaxToWarpsPatterns(RewritePatternSet &patterns,
                                                    DecodeState &state) {
  patterns.add<InitSoftmaxToWarps, SoftmaxToWarps>(patterns.getContext(),
                                                   state);
}
