//===- StorePartialsToWarps.cpp - store_partials on NVIDIA warps ----------===//
//
// The pattern of pa.tile.store_partials: the rows' max logits and sums,
// and the accumulator rows divided by their sums, to the split-K
// partials. With pa-nvvm-single-partition-output's operands, a sequence
// the plan gives one partition gets its output (and lse) too, merged as
// the reduce would merge that one partition (PartitionMerge.h); the reduce
// skips it.
//
//===----------------------------------------------------------------------===//
#include "DecodeLowering.h"
#include "PartitionMerge.h"

#include "pa/Transforms/ScoreMath.h"

using namespace mlir;
using namespace mlir::pa;
using namespace mlir::pa::nvvm;
using arith::CmpIPredicate;

namespace {

/// pa.tile.store_partials: the rows' max logits, sums and normalized
/// outputs to the split-K partials (and the output itself where the
/// sequence has one partition).
struct StorePartialsToWarps final : TileOpToWarps<TileStorePartialsOp> {
  using TileOpToWarps::TileOpToWarps;

  void lower(TileStorePartialsOp op, WarpEmitter &e,
             PatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder &b = e.b;
    e.barrier();
    const auto &direct = state.direct;
    Value kvHead = op.getKvHead(), slot = op.getSlot();
    Value single;
    if (direct.output)
      single = e.cmpI(CmpIPredicate::eq,
                      e.load(buffers.partitionCount, {e.idx(0)}), e.i32(1));
    // Per row (thread m): the partial max logit and sum, and for a
    // sequence of one partition the output's row terms.
    forEachRow(op, e, [&](Value m, Value row) {
      auto [maxLogit, sum] = rowPartial(e, m);
      e.store(maxLogit, op.getMaxLogits(), {kvHead, slot, row});
      e.store(sum, op.getExpSums(), {kvHead, slot, row});
      if (single)
        e.ifThen(single, [&] { storeRowTerms(e, m, row, maxLogit, sum); });
    });
    if (single)
      e.ifThen(single, [&] { e.barrier(); });
    // Then kColumns head-dim columns of a row per item: the partial's
    // normalized values (acc / sum: 0 for a row that saw no token, NaN
    // where not finite: an infinite value or v_scale) and the output's.
    // Rows of the tile past the row group's (M = 16 at G = 8) have no
    // items.
    const int64_t itemsPerRow = s.headDim / kColumns;
    const int64_t items = std::min(s.rows, op.getRows()) * itemsPerRow;
    Value rows = e.idx(op.getRows());
    e.forLoop(ids.tid, e.idx(items), e.idx(kWorkgroupThreads), [&](Value i) {
      Value m = e.div(i, itemsPerRow);
      Value d = e.mulI(e.rem(i, itemsPerRow), kColumns);
      Value row = e.addI(op.getRowBase(), m);
      e.ifThen(e.cmpI(CmpIPredicate::ult, row, rows), [&] {
        Value sum = e.load(buffers.rowSum, {m});
        Value empty = e.eqF(sum, e.f32(0.0));
        Value acc = e.loadVector(
            buffers.acc, {e.addI(e.mulI(m, s.accStride()), d)}, kColumns);
        SmallVector<Value> normalized;
        for (int64_t k = 0; k < kColumns; ++k)
          normalized.push_back(
              e.select(empty, e.f32(0.0),
                       buildNaNIfNotFinite(b, b.getLoc(),
                                           e.divF(e.extract(acc, k), sum))));
        auto f32x4 = VectorType::get({kColumns}, b.getF32Type());
        e.storeVector(vector::FromElementsOp::create(b, f32x4, normalized),
                      op.getTmpOut(), {kvHead, slot, row, d});
        if (single)
          e.ifThen(single, [&] { storeOutput(e, m, d, row, normalized); });
      });
    });
  }

private:
  /// Head-dim columns per item: one 16-byte store of the partial.
  static constexpr int64_t kColumns = 4;

  /// Row m's partial max logit and sum, as the partials hold them: -inf
  /// and 0 for a row that saw no token, the max logit NaN where the sum
  /// is (a non-finite input reached the row: the reducer keeps it).
  std::pair<Value, Value> rowPartial(WarpEmitter &e, Value m) const {
    Value sum = e.load(buffers.rowSum, {m});
    Value empty = e.eqF(sum, e.f32(0.0));
    Value maxLogit = e.select(
        empty, e.negInf(),
        e.mulF(e.load(buffers.rowMax, {m}), e.f32(llvm::numbers::ln2)));
    Value reachedByNaN =
        arith::CmpFOp::create(e.b, arith::CmpFPredicate::UNO, sum, sum);
    return {e.select(reachedByNaN, sum, maxLogit),
            e.select(empty, e.f32(0.0), sum)};
  }

  /// Thread m < M of the tile's valid rows: `body(m, row)`.
  void forEachRow(TileStorePartialsOp op, WarpEmitter &e,
                  function_ref<void(Value m, Value row)> body) const {
    e.ifThen(e.cmpI(CmpIPredicate::ult, ids.tid, e.idx(s.rows)), [&] {
      Value row = e.addI(op.getRowBase(), ids.tid);
      e.ifThen(e.cmpI(CmpIPredicate::ult, row, e.idx(op.getRows())),
               [&] { body(ids.tid, row); });
    });
  }

  /// Row r of the (sequence, KV head) is output row b * Q + r / G.
  Value outputRow(WarpEmitter &e, Value row) const {
    return e.addI(e.mulI(state.direct.sequence, s.queryLength),
                  arith::DivUIOp::create(e.b, row, e.idx(s.groupSize)));
  }
  /// ... and query head h * G + r % G.
  Value queryHead(WarpEmitter &e, Value row) const {
    return e.addI(e.mulI(state.ops.storePartials.getKvHead(), s.groupSize),
                  arith::RemUIOp::create(e.b, row, e.idx(s.groupSize)));
  }

  /// The sequence's only partition merged as the reducer merges it, row
  /// m's terms: M = max(z, m), w = s exp(m - M), den = w + e_z; the lse,
  /// and w / den and whether w counts into the scores' bytes (free by
  /// now: [0, M) and [M, 2M)).
  void storeRowTerms(WarpEmitter &e, Value m, Value row, Value maxLogit,
                     Value sum) const {
    const auto &direct = state.direct;
    Value sink = direct.sinks ? loadSink(e, direct.sinks, queryHead(e, row))
                              : e.negInf();
    Value rowMax = e.maxF(sink, maxLogit);
    Value w = partitionWeight(e, maxLogit, sum, rowMax);
    Value den = w;
    if (direct.sinks)
      den = e.addF(den, sinkTerm(e, sink, rowMax));
    if (direct.lse)
      e.store(emitLogSumExp(e.b, rowMax, den), direct.lse,
              {outputRow(e, row), queryHead(e, row)});
    e.store(e.divF(w, den), buffers.scores, {m});
    e.store(e.select(contributes(e, w), e.f32(1.0), e.f32(0.0)), buffers.scores,
            {e.addI(m, s.rows)});
  }

  /// The output columns d, ..., d + kColumns - 1 of row m: (w / den) times
  /// the partition's normalized values, 0 where w does not count.
  void storeOutput(WarpEmitter &e, Value m, Value d, Value row,
                   ArrayRef<Value> normalized) const {
    ImplicitLocOpBuilder &b = e.b;
    Value output = state.direct.output;
    Type outType = cast<MemRefType>(output.getType()).getElementType();
    Value scale = e.load(buffers.scores, {m});
    Value used = e.eqF(e.load(buffers.scores, {e.addI(m, s.rows)}), e.f32(1.0));
    SmallVector<Value> values;
    for (Value x : normalized) {
      Value out = addWeighted(e, used, scale, x, e.f32(0.0));
      values.push_back(out.getType() == outType
                           ? out
                           : arith::TruncFOp::create(b, outType, out));
    }
    e.storeVector(vector::FromElementsOp::create(
                      b, VectorType::get({kColumns}, outType), values),
                  output, {outputRow(e, row), queryHead(e, row), d});
  }
};

} // namespace

void mlir::pa::nvvm::populateStorePartialsToWarpsPatterns(
    RewritePatternSet &patterns, DecodeState &state) {
  patterns.add<StorePartialsToWarps>(patterns.getContext(), state);
}
