//===- StorePartialsToWarps.cpp - store_partials on NVIDIA warps ----------===//
//
// The pattern of pa.tile.store_partials: the rows' max logits and sums,
// and the accumulator rows divided by their sums, to the split-K
// partials.
//
//===----------------------------------------------------------------------===//
#include "DecodeLowering.h"

#include "pa/Transforms/ScoreMath.h"

using namespace mlir;
using namespace mlir::pa;
using namespace mlir::pa::nvvm;
using arith::CmpIPredicate;

namespace {

/// pa.tile.store_partials: the rows' max logits, sums and normalized
/// outputs to the split-K partials.
struct StorePartialsToWarps final : TileOpToWarps<TileStorePartialsOp> {
  using TileOpToWarps::TileOpToWarps;

  void lower(TileStorePartialsOp op, WarpEmitter &e,
             PatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder &b = e.b;
    e.barrier();
    Value kvHead = op.getKvHead(), slot = op.getSlot();
    Value rows = e.idx(op.getRows());
    Value zero = e.f32(0.0);
    e.ifThen(e.cmpI(CmpIPredicate::ult, ids.tid, e.idx(s.rows)), [&] {
      Value row = e.addI(op.getRowBase(), ids.tid);
      e.ifThen(e.cmpI(CmpIPredicate::ult, row, rows), [&] {
        Value sum = e.load(buffers.rowSum, {ids.tid});
        Value empty = e.eqF(sum, zero);
        Value maxLogit = e.select(empty, e.negInf(),
                                  e.mulF(e.load(buffers.rowMax, {ids.tid}),
                                         e.f32(llvm::numbers::ln2)));
        // A NaN sum (a non-finite input reached the row): max_logits NaN
        // too, so the reducer keeps the partition (pa.tile.store_partials).
        Value reachedByNaN =
            arith::CmpFOp::create(b, arith::CmpFPredicate::UNO, sum, sum);
        maxLogit = e.select(reachedByNaN, sum, maxLogit);
        e.store(maxLogit, op.getMaxLogits(), {kvHead, slot, row});
        e.store(e.select(empty, zero, sum), op.getExpSums(),
                {kvHead, slot, row});
      });
    });
    e.forLoop(ids.tid, e.idx(s.rows * s.headDim), e.idx(kWorkgroupThreads),
              [&](Value i) {
                Value m = e.div(i, s.headDim);
                Value d = e.rem(i, s.headDim);
                Value row = e.addI(op.getRowBase(), m);
                e.ifThen(e.cmpI(CmpIPredicate::ult, row, rows), [&] {
                  Value sum = e.load(buffers.rowSum, {m});
                  Value value =
                      e.load(buffers.acc, {e.addI(e.mulI(m, s.accStride()), d)});
                  // Not finite (an infinite value or v_scale): NaN.
                  Value normalized = e.select(
                      e.eqF(sum, zero), zero,
                      buildNaNIfNotFinite(b, b.getLoc(), e.divF(value, sum)));
                  e.store(normalized, op.getTmpOut(), {kvHead, slot, row, d});
                });
              });
  }
};

} // namespace

void mlir::pa::nvvm::populateStorePartialsToWarpsPatterns(
    RewritePatternSet &patterns, DecodeState &state) {
  patterns.add<StorePartialsToWarps>(patterns.getContext(), state);
}
