//===- StorePartialsToMFMA.cpp - the merge on lanes -------------------------===//
//
// pa.tile.store_partials: the four waves' states (the tile loop's
// loopResults) merged through LDS, first the row statistics, then the
// output in head-dim chunks, and the partials stored as the op defines.
//
//===----------------------------------------------------------------------===//
#include "DecodeLowering.h"

using namespace mlir;
using namespace mlir::pa;
using namespace mlir::pa::mfma;

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
  // With weightsByMFMA the sums are the wave's (in every lane group), in
  // units of 1 / pScale.
  for (Value sum : state.rowWeight)
    rowWeights.push_back(weightsByMFMA ? l.mulF(sum, l.f32(1.0 / pScale))
                                       : groupSum(sum));
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
  // The 4 head dims of one row a lane stores in a pass over a chunk, unit
  // `unitIndex` of the chunk's: one mapping for the store below and the
  // partly seen shares' read-back after the chunks (a lane reads back only
  // what it stored). `lastPass`: the pass may run past the chunk's units.
  struct OutputUnit {
    IndexExpr rowIndex, dim, row;
    Value inRange;
  };
  auto outputUnit = [&](LaneBuilder &at, IndexExpr unitIndex, bool lastPass) {
    IndexExpr element = unitIndex * kResultElements;
    IndexExpr rowIndex = element / chunkDims;
    IndexExpr dim = element % chunkDims;
    IndexExpr row = at.idx(store.getRowBase()) + rowIndex;
    Value inRange =
        at.cmpI(arith::CmpIPredicate::ult, row, at.index(s.totalRows));
    if (lastPass)
      inRange = at.andI(inRange, at.cmpI(arith::CmpIPredicate::ult, unitIndex,
                                         at.index(units)));
    return OutputUnit{rowIndex, dim, row, inRange};
  };
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
      auto [rowIndex, dim, row, inRange] =
          outputUnit(l, l.idx(tid) + first, units - first < chip.workgroupSize);
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
  if (!partlySlots())
    return;
  // The partly seen tokens' shares, added to the elements each lane stored
  // above, in one run-time loop over them: one copy of partlySeenShare (a
  // loop over the slots with their page lookups and V loads) instead of one
  // per chunk and pass (8 at D 256 with 32 rows, another tenth of that
  // kernel's code, which its compile time follows). The same lane reads
  // back what it wrote; sum + share is the same f32 arithmetic as before
  // the store.
  const int64_t passes = llvm::divideCeil(units, chip.workgroupSize);
  scf::ForOp::create(
      b, l.index(0), l.index(chunkCount * passes), l.index(1), ValueRange{},
      [&](OpBuilder &nested, Location loc, Value item, ValueRange) {
        ImplicitLocOpBuilder nb(loc, nested);
        LaneBuilder nl(nb);
        IndexExpr chunk = nl.idx(item) / passes;
        auto [rowIndex, dim, row, inRange] = outputUnit(
            nl, nl.idx(tid) + nl.idx(item) % passes * chip.workgroupSize,
            /*lastPass=*/true);
        IndexExpr headDim = dim + chunk * chunkDims;
        scf::IfOp::create(nb, inRange, [&](OpBuilder &inner, Location at) {
          ImplicitLocOpBuilder ib(at, inner);
          LaneBuilder il(ib);
          SmallVector<Value> indices = {store.getKvHead(), store.getSlot(),
                                        row.get(), headDim.get()};
          Value stored =
              vector::LoadOp::create(ib, vec4, store.getTmpOut(), indices);
          Value sum = buildNaNIfNotFinite(
              ib, at,
              il.addF(stored,
                      partlySeenShare(ib, rowIndex.get(), headDim.get())));
          vector::StoreOp::create(ib, sum, store.getTmpOut(), indices);
          scf::YieldOp::create(ib);
        });
        scf::YieldOp::create(nb);
      });
}

void DecodeLowering::lowerStorePartials(TileStorePartialsOp,
                                        ImplicitLocOpBuilder &b) {
  renewLaneIds(b);
  // Before the merge's first barrier, which orders these stores before
  // partlySeenShare reads them.
  if (partlySlots() && !partlyScoresInLoop)
    scorePartlySeen(b);
  mergeAndStore(b, loopResults);
}

namespace {

/// pa.tile.store_partials: the four waves' loop results merged and stored.
using StorePartialsToMFMA =
    TileOpToMFMA<TileStorePartialsOp, &DecodeLowering::lowerStorePartials>;

} // namespace

void mfma::populateStorePartialsToMFMAPatterns(RewritePatternSet &patterns,
                                               DecodeLowering &lowering) {
  patterns.add<StorePartialsToMFMA>(patterns.getContext(), lowering);
}
