//===- PVToMFMA.cpp - pa.tile.pv on lanes -----------------------------------===//
//
// pa.tile.pv of one tile, in the lane loop's body (TileStep): V loads
// (masked outside the valid range, in edge tiles only where a branch of
// their own pays) and O^T += V^T P^T with MFMA on softmax's P operands,
// into the accumulators of the loop's next state (TileStep::next).
//
//===----------------------------------------------------------------------===//
#include "DecodeLowering.h"

using namespace mlir;
using namespace mlir::pa;
using namespace mlir::pa::mfma;

void DecodeLowering::lowerPV(TilePVOp, ImplicitLocOpBuilder &b) {
  TileStep &tile = *currentStep;
  LaneBuilder l(b);
  const int64_t x = s.kvPack;
  const int64_t dBlocks = s.headDim / kBlock;
  const size_t tiles = tile.state.mTiles.size();
  const int64_t pvStepCount = pvSteps(instr);
  IndexExpr i = l.idx(rowLane);
  Value kvHead = tile.kvHead;
  SmallVector<SmallVector<Value>> &out = tile.next.out;
  auto kvVector = [&](int64_t n) {
    return VectorType::get({n}, s.kvType);
  };
  auto constant = [&](TypedAttr value) -> Value {
    return arith::ConstantOp::create(b, value);
  };
  const int64_t loadsPerGroup = s.kvBytes();
  const int64_t tokensPerLoad = kGroupTokens / loadsPerGroup;
  auto wordsType = VectorType::get({4}, b.getI32Type());

  // V^T: for head-dim block blk, lane (d = 16 blk + i, group j) loads the
  // group's 16 tokens of d (one or two 16-byte loads) as i32 words; values
  // of tokens outside [valid_begin, valid_end) are zeroed (0 * NaN would
  // poison O). With the edge branch, two M-tiles and one 16-byte load per
  // lane group (fp8, packed): in edge tiles only (the loads before a
  // second uniform branch, their masking on its edge side; 51-60 fewer
  // instructions per tile at D = 128, 32 rows, still 2 waves per SIMD; not
  // for nhd / hnd, whose 16 element loads per group the branch held all at
  // once: 1 wave). Else every load is
  // ANDed with validWords right after it (all ones in full tiles): with
  // one M-tile the second branch raised D = 128's 163-167 VGPRs to
  // 196-201 (3 waves per SIMD to 2) for 17-30 instructions, and bf16's
  // two loads per group at D = 128, 32 rows took gfx950 from 161 to 225
  // (3 to 2); one branch per 1, 2 or 4 blocks saved less and still cost
  // registers.
  auto loadValueWords = [&](int64_t blk, int64_t u) -> Value {
    IndexExpr dIndex = i + blk * kBlock;
    if (s.layout != CacheLayout::packed) {
      // nhd / hnd keep a token's head dims together, not a head dim's
      // tokens: one element load per token (docs/performance.md).
      SmallVector<Value> elements;
      for (int64_t e = u * tokensPerLoad; e < (u + 1) * tokensPerLoad; ++e) {
        auto [page, slot] = tile.places.valuePlace(l, e);
        elements.push_back(memref::LoadOp::create(
            b, tile.views.values,
            buildCacheElementIndices(b, b.getLoc(), s.layout,
                                     CacheOperand::value, s.vLayout, x, page,
                                     kvHead, slot, dIndex, constant)));
      }
      return l.bitcast(wordsType, vector::FromElementsOp::create(
                                      b, kvVector(tokensPerLoad), elements));
    }
    SmallVector<Value> indices =
        s.vLayout == VLayout::plain
            ? SmallVector<Value>{tile.places.vPage, kvHead, dIndex,
                                 (l.idx(vSlot0) + u * tokensPerLoad).get()}
            : SmallVector<Value>{tile.places.vPage, kvHead, (l.idx(vSlot0) / x + u).get(),
                                 dIndex, l.index(0)};
    return l.bitcast(wordsType,
                     vector::LoadOp::create(b, kvVector(tokensPerLoad),
                                            tile.views.values, indices));
  };
  auto maskWords = [&](ArrayRef<Value> words, ArrayRef<Value> valid) {
    SmallVector<Value> masked;
    for (auto [n, word] : llvm::enumerate(words))
      masked.push_back(l.andI(word, valid[n % loadsPerGroup]));
    return masked;
  };
  SmallVector<Value> valueWords; // [blk * loadsPerGroup + u], when loaded
  if (tile.valueBranch) {
    for (int64_t blk = 0; blk < dBlocks; ++blk)
      for (int64_t u = 0; u < loadsPerGroup; ++u)
        valueWords.push_back(loadValueWords(blk, u));
    valueWords = unlessFull(b, tile.valueBranch, valueWords, [&] {
      return maskWords(valueWords, validValueWords(l, tile));
    });
  }
  for (int64_t blk = 0; blk < dBlocks; ++blk) {
    SmallVector<Value> words;
    if (tile.valueBranch) {
      words.assign(valueWords.begin() + blk * loadsPerGroup,
                   valueWords.begin() + (blk + 1) * loadsPerGroup);
    } else {
      for (int64_t u = 0; u < loadsPerGroup; ++u)
        words.push_back(loadValueWords(blk, u));
      words = maskWords(words, tile.validWords);
    }
    SmallVector<Value> loads;
    for (Value word : words)
      loads.push_back(l.bitcast(kvVector(tokensPerLoad), word));
    Value group16 =
        loads.size() == 1
            ? loads[0]
            : l.shuffle(loads[0], loads[1],
                        llvm::to_vector(llvm::seq<int64_t>(0, kGroupTokens)));
    group16 = toComputeType(l, group16);
    for (int64_t step = 0; step < pvStepCount; ++step) {
      SmallVector<int64_t> positions;
      for (int64_t e = 0; e < instr.perLane; ++e)
        positions.push_back(pvToken<int64_t>(instr, step, 0, e));
      Value operand = l.shuffle(group16, group16, positions);
      for (size_t k = 0; k < tiles; ++k)
        for (Value prob : tile.probOperands[k][step])
          out[k][blk] = mfmaOp(b, operand, prob, out[k][blk]);
    }
  }
  if (!weightsByMFMA)
    return;
  // The weights' sums: 1^T P^T puts the sum over the step's 32 tokens of
  // the lane's row (its column) in each of its 4 result elements, in units
  // of 1 / pScale like P's terms (scaled back once, in mergeAndStore).
  Value ones = l.splatConstant(
      VectorType::get({instr.perLane}, s.computeType), 1.0);
  for (size_t k = 0; k < tiles; ++k) {
    Value sums = l.splatConstant(vec4, 0.0);
    for (int64_t step = 0; step < pvStepCount; ++step)
      for (Value prob : tile.probOperands[k][step])
        sums = mfmaOp(b, ones, prob, sums);
    Value &weight = tile.next.rowWeight[k];
    weight = l.addF(weight, l.extract(sums, 0));
  }
}

namespace {

/// pa.tile.pv: the tile's products added to the accumulators in registers.
using PVToMFMA = TileOpToMFMA<TilePVOp, &DecodeLowering::lowerPV>;

} // namespace

void mfma::populatePVToMFMAPatterns(RewritePatternSet &patterns,
                                    DecodeLowering &lowering) {
  patterns.add<PVToMFMA>(patterns.getContext(), lowering);
}
