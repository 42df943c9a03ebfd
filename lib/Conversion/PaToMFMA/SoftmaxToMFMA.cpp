//===- SoftmaxToMFMA.cpp - init_softmax and softmax on lanes ----------------===//
//
// pa.tile.init_softmax (the loop's initial state in registers) and
// pa.tile.softmax of one tile, in the lane loop's body (TileStep): the edge
// tiles' masking of qk's scores (and of the per-token V scales and V
// bytes, whose words go to pv), the wave's V unit, the online softmax per
// M-tile (row max over the lane groups, exp2, the row sums), P as the PV
// product's operands (the V unit folded in, quantized in registers, with
// the weights the product uses) and the rescale of the accumulators.
//
//===----------------------------------------------------------------------===//
#include "DecodeLowering.h"

using namespace mlir;
using namespace mlir::pa;
using namespace mlir::pa::mfma;

Value DecodeLowering::tileIsFull(LaneBuilder &l, const TileStep &tile) {
  Value tileStart = tile.tileStart;
  Value tileEnd = l.addI(tileStart, l.i64(kTileTokens));
  auto atMost = [&](Value x, Value y) {
    return l.cmpI(arith::CmpIPredicate::sle, x, y);
  };
  // The op's valid tokens, and the rows' visible ranges: row q of the
  // query sees [begin + q, end + q) (end = visibleEndBase), so the tile is
  // whole for every row inside [begin + Q - 1, end).
  Value full =
      l.andI(atMost(tile.validBegin, tileStart),
             atMost(tileEnd, tile.validEnd));
  full = l.andI(full, atMost(tileEnd, visibleEndBase));
  if (visibleBeginBase)
    full = l.andI(full,
                  atMost(l.addI(visibleBeginBase, l.i64(s.queryLength - 1)),
                         tileStart));
  return full;
}

SmallVector<Value>
DecodeLowering::unlessFull(ImplicitLocOpBuilder &b, Value full,
                           ArrayRef<Value> whole,
                           function_ref<SmallVector<Value>()> mask) {
  SmallVector<Type> types = llvm::to_vector(
      llvm::map_range(whole, [](Value v) { return v.getType(); }));
  auto edge = scf::IfOp::create(b, types, full, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&edge.getThenRegion().front());
  scf::YieldOp::create(b, whole);
  b.setInsertionPointToStart(&edge.getElseRegion().front());
  scf::YieldOp::create(b, mask());
  return SmallVector<Value>(edge.getResults().begin(), edge.getResults().end());
}

SmallVector<SmallVector<Value>>
DecodeLowering::rescaleOutputs(LaneBuilder &l,
                               ArrayRef<SmallVector<Value>> out,
                               ArrayRef<Value> outScales, bool branch) {
  auto rescale = [&] {
    SmallVector<Value> scaled;
    for (auto [blocks, scale] : llvm::zip_equal(out, outScales)) {
      Value factor = l.broadcast(vec4, scale);
      for (Value block : blocks)
        scaled.push_back(l.mulF(block, factor));
    }
    return scaled;
  };
  SmallVector<Value> rescaled;
  if (branch) {
    SmallVector<Value> whole;
    Value changed; // on this lane, in some M-tile (NaN counts as changed)
    for (auto [blocks, scale] : llvm::zip_equal(out, outScales)) {
      whole.append(blocks);
      Value notOne = l.cmpF(arith::CmpFPredicate::UNE, scale, l.f32(1.0));
      changed = changed ? arith::OrIOp::create(l.b, changed, notOne) : notOne;
    }
    Value changedLanes =
        ROCDL::BallotOp::create(l.b, l.b.getI64Type(), changed);
    Value unchanged = l.cmpI(arith::CmpIPredicate::eq, changedLanes, l.i64(0));
    rescaled = unlessFull(l.b, unchanged, whole, rescale);
  } else {
    rescaled = rescale();
  }
  SmallVector<SmallVector<Value>> result;
  ArrayRef<Value> rest = rescaled;
  for (const SmallVector<Value> &blocks : out) {
    result.push_back(llvm::to_vector(rest.take_front(blocks.size())));
    rest = rest.drop_front(blocks.size());
  }
  return result;
}

SmallVector<Value>
DecodeLowering::maskEdgeTile(LaneBuilder &l, const TileStep &tile,
                             ArrayRef<SmallVector<Value>> scores,
                             Value vScales) {
  const LaneState &state = tile.state;
  Value tileStart = tile.tileStart;
  SmallVector<Value> masked;
  for (size_t k = 0; k < scores.size(); ++k) {
    const MTileLanes &m = state.mTiles[k];
    // Without a window a row sees from token 0 (max(0, .) of the window's
    // begin only ever clamps what groupBound clamps anyway); padding rows
    // see nothing (hi = 0).
    Value lo = visibleBeginBase
                   ? groupBound(l, visibleBeginBase, tileStart, m.rowPosition)
                   : l.i32(0);
    Value hi = l.select(m.isQueryRow,
                        groupBound(l, visibleEndBase, tileStart, m.rowPosition),
                        l.i32(0));
    for (size_t blk = 0; blk < scores[k].size(); ++blk) {
      Value visible = positionsIn(l, blk * kResultElements, kResultElements,
                                  lo, hi);
      masked.push_back(
          l.select(visible, scores[k][blk], l.broadcast(vec4, l.negInf())));
    }
  }
  auto [validLo, validHi] = productBounds(l, tile);
  if (vScales && isa<VectorType>(vScales.getType())) {
    masked.push_back(l.select(
        positionsIn(l, 0, kGroupTokens, validLo, validHi), vScales,
        l.splatConstant(VectorType::get({kGroupTokens}, f32), 0.0)));
  } else if (vScales) {
    Value valid =
        l.andI(l.cmpI(arith::CmpIPredicate::sge, laneInGroup, validLo),
               l.cmpI(arith::CmpIPredicate::slt, laneInGroup, validHi));
    masked.push_back(l.select(valid, vScales, l.f32(0.0)));
  }
  return masked;
}

std::pair<Value, Value> DecodeLowering::productBounds(LaneBuilder &l,
                                                      const TileStep &tile) {
  Value lo = tile.validBegin;
  Value hi = tile.validEnd;
  if (partlyRunSlots) {
    hi = l.minSI(hi, partlyTailStart);
    if (partlyHeadStart)
      lo = l.maxSI(lo, l.addI(partlyHeadStart, partlyRunLength));
  }
  return {groupBound(l, lo, tile.tileStart), groupBound(l, hi, tile.tileStart)};
}

SmallVector<Value> DecodeLowering::validValueWords(LaneBuilder &l,
                                                   const TileStep &tile) {
  auto [validLo, validHi] = productBounds(l, tile);
  SmallVector<Value> words;
  const int64_t loadsPerGroup = s.kvBytes();
  const int64_t tokensPerLoad = kGroupTokens / loadsPerGroup;
  auto wordsType = VectorType::get({4}, l.b.getI32Type());
  auto bitsType =
      VectorType::get({tokensPerLoad}, l.b.getIntegerType(8 * s.kvBytes()));
  for (int64_t u = 0; u < loadsPerGroup; ++u) {
    Value valid =
        positionsIn(l, u * tokensPerLoad, tokensPerLoad, validLo, validHi);
    words.push_back(l.bitcast(
        wordsType, l.select(valid, l.splatConstant(bitsType, -1),
                            l.splatConstant(bitsType, 0))));
  }
  return words;
}

void DecodeLowering::lowerSoftmax(TileSoftmaxOp, ImplicitLocOpBuilder &b) {
  TileStep &tile = *currentStep;
  const LaneState &state = tile.state;
  LaneBuilder l(b);
  const size_t tiles = state.mTiles.size();
  const int64_t blocks = kQuarterTokens / kBlock;
  // qk's scores, masked in place.
  SmallVector<SmallVector<Value>> scores = tile.scores;
  const bool registersToSpare = edgeTileBranch;
  const bool laneScales = scalesPerLane();
  const SmallVector<int64_t> groupTokens =
      llvm::to_vector(llvm::seq<int64_t>(0, kGroupTokens));
  // Edge tiles: scores outside each row's visible range become -inf, and
  // per-token V scales and V bytes of tokens outside the op's valid range
  // 0. A tile that every row sees whole (all but a long row's edge tiles)
  // needs none of it, so the masking is a uniform branch taken for edge
  // tiles only (one for the scores and scales here, one for the V bytes
  // after their loads), where registers allow (edgeTileBranch).
  const int64_t loadsPerGroup = s.kvBytes();
  auto wordsType = VectorType::get({4}, b.getI32Type());
  // An infinite per-token V scale needs no check: it makes the wave's V
  // unit infinite, so the tile's P factors are 0 * inf = NaN for its token
  // (and 0 for the others), and its rows are NaN from then on.
  Value vScales =
      s.scale == ScaleMode::per_token ? tokenScales(l, tile, tile.views.vScale) : Value();
  Value allOnes = l.splatConstant(wordsType, -1);
  Value full = edgeTileBranch ? tileIsFull(l, tile) : Value();
  // V's masking in a branch of its own (below) or as words from this one.
  // Only for 16-byte V loads: nhd / hnd V is 16 element loads per group,
  // which the branch would all hold before it (128 byte loads at D = 128:
  // 270-274 VGPRs at 32 rows, 1 wave per SIMD).
  Value valueBranch =
      tiles > 1 && loadsPerGroup == 1 && s.layout == CacheLayout::packed
          ? full
          : Value();
  SmallVector<Value> validWords;
  {
    auto mask = [&] {
      SmallVector<Value> masked =
          maskEdgeTile(l, tile, scores, vScales);
      // In the edge branch: full tiles hold no partly seen token.
      if (partlyRunSlots && partlyScoresInLoop)
        storePartlySeen(l, tile,
                        ArrayRef<Value>(masked).take_front(tiles * blocks));
      if (!valueBranch)
        masked.append(validValueWords(l, tile));
      return masked;
    };
    SmallVector<Value> whole;
    for (const SmallVector<Value> &blocks : scores)
      whole.append(blocks);
    if (vScales)
      whole.push_back(vScales);
    if (!valueBranch)
      for (int64_t u = 0; u < loadsPerGroup; ++u)
        whole.push_back(allOnes);
    SmallVector<Value> masked = full ? unlessFull(b, full, whole, mask) : mask();
    ArrayRef<Value> results = masked;
    for (SmallVector<Value> &blocks : scores)
      for (Value &block : blocks) {
        block = results.front();
        results = results.drop_front();
      }
    if (vScales) {
      vScales = results.front();
      results = results.drop_front();
    }
    validWords.assign(results.begin(), results.end());
  }

  LaneState next;
  next.mTiles = state.mTiles;
  next.queryOffset = l.toIndex(memref::LoadOp::create(
      b, scratch, ValueRange{l.index(zeroWord())}));
  // The wave's V unit: per-token scales of the valid tokens are folded into
  // P relative to their wave maximum, so that P * v_scale / unit stays in
  // [-1, 1] for the fp8 quantization; the accumulator is kept in units of
  // `unit` (rescaled when it changes) and multiplied back at the end.
  Value unitRatio;
  Value pFactors; // per token (as vScales), null for a constant factor
  auto tokenVector = VectorType::get({kGroupTokens}, f32);
  if (s.scale == ScaleMode::per_token) {
    Value waveMax;
    if (laneScales) {
      waveMax = waveMaxNum(l, l.absF(vScales));
    } else {
      Value laneMax = l.absF(l.extract(vScales, 0));
      for (int64_t e = 1; e < kGroupTokens; ++e)
        laneMax = l.maxNumF(laneMax, l.absF(l.extract(vScales, e)));
      waveMax = l.butterfly(laneMax, {kBlock, 2 * kBlock},
                            [&](Value p, Value q) { return l.maxNumF(p, q); });
    }
    Value positive = l.cmpF(arith::CmpFPredicate::OGT, waveMax, l.f32(0.0));
    next.valueUnit = l.select(positive, waveMax, state.valueUnit);
    // One reciprocal (v_rcp_f32, 1 ulp) instead of two IEEE divides; the
    // ratio is exactly 1 while the unit stays, so that it does not drift.
    Value inverseUnit = arith::DivFOp::create(
        b, l.f32(1.0), next.valueUnit,
        arith::FastMathFlagsAttr::get(
            ctx, arith::FastMathFlags::arcp | arith::FastMathFlags::afn));
    unitRatio = l.select(
        l.cmpF(arith::CmpFPredicate::OEQ, next.valueUnit, state.valueUnit),
        l.f32(1.0), l.mulF(state.valueUnit, inverseUnit));
    Value factor = l.mulF(l.f32(pScale), inverseUnit);
    pFactors = l.mulF(vScales, laneScales ? factor
                                          : l.broadcast(tokenVector, factor));
  }

  // fp8 with per-token scales: the weights the product used are the
  // quantized P divided by each token's folding factor (a reciprocal is
  // precise enough); tokens whose P is not folded into the product (factor
  // 0: V scale 0, or out of the valid range, where P is 0 anyway) count
  // with their exact P instead. Kernels with registers to spare (the edge
  // branch's) make the zero tests and reciprocals once per tile for all
  // M-tiles and sum the weights pairwise: per step, with scales per group,
  // the exact P where unfolded (1 / 0 is inf there, never selected), else
  // used / factor; with scales per lane, the sum of used * (1 / factor, 0
  // where unfolded) plus, only in tiles with an unfolded token (a uniform
  // branch), the sum of exact P * (1 where unfolded, else 0) (a spread
  // value has no select). Kernels at the 2-wave register limit
  // (two M-tiles at D > 128: the shared forms took gfx950's D = 256
  // 32-row kernel with per-token scales from 256 to 281 VGPRs, and the
  // pairwise sum a per-tensor one from 253 to 264) test and invert per
  // step, sum the unfolded tokens' P before the fold and the weights in
  // a chain.
  auto inverseOf = [&](Value factors) -> Value {
    return arith::DivFOp::create(
        b, l.splatLike(factors, 1.0), factors,
        arith::FastMathFlagsAttr::get(
            ctx, arith::FastMathFlags::arcp | arith::FastMathFlags::afn));
  };
  Value unfoldedTokens, inverseFactors, unfoldedOne;
  if (pFactors && s.fp8Compute() && registersToSpare) {
    unfoldedTokens = l.cmpF(arith::CmpFPredicate::OEQ, pFactors,
                            l.splatLike(pFactors, 0.0));
    inverseFactors = inverseOf(pFactors);
    if (laneScales) {
      inverseFactors = l.select(unfoldedTokens, l.f32(0.0), inverseFactors);
      unfoldedOne = l.select(unfoldedTokens, l.f32(1.0), l.f32(0.0));
    }
  }

  // P's factor is the constant pScale (a power of two, not 1: fp8 compute)
  // rather than per-token factors.
  const bool constantPFactor = !pFactors && pScale != 1.0;
  // Softmax per M-tile, then P for the PV operands.
  const int64_t pvStepCount = pvSteps(instr);
  // Per M-tile, the factor of the output accumulators: the row's max shift
  // times the V unit's ratio (exactly 1 where neither changed).
  SmallVector<Value> outScales;
  // probOperands[k][step]: P, and with its residual P's fp8 residual.
  SmallVector<SmallVector<SmallVector<Value>>> probOperands(tiles);
  for (size_t k = 0; k < tiles; ++k) {
    ArrayRef<Value> masked = scores[k];
    // NaN-ignoring maxima (one v_max_f32 each): a NaN score still makes
    // its row's sum NaN through exp2, and a NaN sum makes the row's
    // partials NaN (mergeAndStore).
    Value blockMax = masked[0];
    for (size_t blk = 1; blk < masked.size(); ++blk)
      blockMax = l.maxNumF(blockMax, masked[blk]);
    Value laneMax = l.extract(blockMax, 0);
    for (int64_t e = 1; e < kResultElements; ++e)
      laneMax = l.maxNumF(laneMax, l.extract(blockMax, e));
    // The row's 64 tokens are in the 4 lane groups of the wave.
    Value tileMax = l.butterfly(
        laneMax, {kBlock, 2 * kBlock},
        [&](Value p, Value q) { return l.maxNumF(p, q); });
    Value newMax = l.maxNumF(state.rowMax[k], tileMax);
    // exp2 never sees -inf - -inf: a row that has seen nothing shifts by 0.
    Value nothingSeen = l.cmpF(arith::CmpFPredicate::OEQ, newMax, l.negInf());
    Value zero = l.f32(0.0);
    Value alpha = l.exp2(
        l.select(nothingSeen, zero, l.subF(state.rowMax[k], newMax)));
    // s - M. Where registers allow, as s + (-M) (the same value, NaN and
    // inf included): LLVM selects a vector fsub as one v_sub_f32 per score,
    // a vector fadd of a negated splat as one v_pk_add_f32 per two scores
    // (neg modifiers), whose register pairs took gfx950's D = 256 32-row
    // ALiBi kernel from 256 to 259 VGPRs (1 wave).
    Value shift = l.select(nothingSeen, zero, newMax);
    // A constant P factor (pScale, a power of two) rides in the shift:
    // exp2(s - (M - log2 pScale)) is P * pScale, one multiply fewer per
    // score; the row sum takes 1 / pScale once.
    if (constantPFactor)
      shift = l.subF(shift, l.f32(std::log2(pScale)));
    Value shifts = l.broadcast(vec4, registersToSpare ? l.negF(shift) : shift);
    auto shifted = [&](Value block) {
      return registersToSpare ? l.addF(block, shifts) : l.subF(block, shifts);
    };
    SmallVector<Value> probs;
    Value blockSum;
    for (Value block : masked) {
      Value p = l.exp2(shifted(block));
      probs.push_back(p);
      blockSum = blockSum ? l.addF(blockSum, p) : p;
    }
    Value laneSum = l.extract(blockSum, 0);
    for (int64_t e = 1; e < kResultElements; ++e)
      laneSum = l.addF(laneSum, l.extract(blockSum, e));
    next.rowMax.push_back(newMax);
    // laneSum / pScale is exact (a power of two): one fma, the same value.
    Value kept = l.mulF(state.rowSum[k], alpha);
    next.rowSum.push_back(constantPFactor
                              ? l.fma(laneSum, l.f32(1.0 / pScale), kept)
                              : l.addF(kept, laneSum));

    outScales.push_back(unitRatio ? l.mulF(alpha, unitRatio) : alpha);
    // Without the branch, here (after the softmax, before P's operands: at
    // the end of the M-tiles it took gfx950's D = 256 32-row per-token
    // kernel from 256 to 258 VGPRs).
    if (!registersToSpare)
      next.out.append(rescaleOutputs(l, ArrayRef(state.out).slice(k, 1),
                                     outScales.back(), /*branch=*/false));

    // P of the lane's 16 tokens in token order (block-major = token order).
    Value p8 = l.shuffle(probs[0], probs[1], {0, 1, 2, 3, 4, 5, 6, 7});
    Value p8b = l.shuffle(probs[2], probs[3], {0, 1, 2, 3, 4, 5, 6, 7});
    Value p16 = l.shuffle(p8, p8b, llvm::to_vector(llvm::seq<int64_t>(0, 16)));
    Value exactP = p16;
    // With scales per lane: per PV step, the exact P and its token
    // positions, whose unfolded tokens' weights are added apart.
    SmallVector<std::pair<Value, SmallVector<int64_t>>> unfoldedWeights;
    // fp8: the used weights, as per-step vectors summed element-wise
    // (registersToSpare) or as a chain of scalars.
    Value usedWeights, usedSum;
    if (pFactors && s.fp8Compute() && !registersToSpare) {
      Value zeros = l.splatConstant(tokenVector, 0.0);
      Value unfolded = l.select(
          l.cmpF(arith::CmpFPredicate::OEQ, pFactors, zeros), p16, zeros);
      for (int64_t e = 0; e < kGroupTokens; ++e) {
        Value element = l.extract(unfolded, e);
        usedSum = usedSum ? l.addF(usedSum, element) : element;
      }
    }
    if (pFactors)
      p16 = mulByTokens(l, tile, p16, pFactors, groupTokens);
    auto stepVector = VectorType::get({instr.perLane}, f32);
    for (int64_t step = 0; step < pvStepCount; ++step) {
      SmallVector<int64_t> positions;
      for (int64_t e = 0; e < instr.perLane; ++e) {
        int64_t token = pvToken<int64_t>(instr, step, 0, e);
        positions.push_back(qkResultBlock(token) * kResultElements +
                            qkResultElement(token));
      }
      Value operand = l.shuffle(p16, p16, positions);
      if (!s.fp8Compute()) {
        if (probResidual) {
          auto [hi, lo] = splitToBf16Terms(l, operand);
          probOperands[k].push_back({hi, lo});
        } else {
          probOperands[k].push_back({l.truncF(
              VectorType::get({instr.perLane}, s.computeType), operand)});
        }
        continue;
      }
      Value quantized = quantizeInRange(l, operand);
      probOperands[k].push_back({quantized});
      if (weightsByMFMA) {
        // The weights' sums come from the PV product (lowerPV): P's terms
        // only. OCP fp8 has a negative zero, so flipping the quantized
        // bytes' sign bits (one xor per 4 weights) gives -fp8(x), and the
        // residual x - fp8(x) is a packed add instead of a subtraction per
        // weight (LLVM has no packed f32 subtraction). fnuz's 0x80 is NaN.
        if (!probResidual)
          continue;
        Value rest;
        if (isa<Float8E4M3FNType>(s.computeType)) {
          auto wordType = VectorType::get({instr.perLane / 4}, b.getI32Type());
          Value signs = l.splatConstant(wordType, double(int32_t(0x80808080)));
          Value minusUsed = l.extF(
              stepVector,
              l.bitcast(cast<VectorType>(quantized.getType()),
                        l.xorI(l.bitcast(wordType, quantized), signs)));
          rest = l.addF(operand, minusUsed);
        } else {
          rest = l.subF(operand, l.extF(stepVector, quantized));
        }
        // |residual| <= pScale / 16: in range.
        probOperands[k].back().push_back(quantizeInRange(l, rest));
        continue;
      }
      // The weights as the product sees them, back in units of P: divided
      // by the folding factor (a reciprocal is precise enough here).
      Value used = l.extF(stepVector, quantized);
      if (probResidual) {
        // |residual| <= pScale / 16: in range.
        Value rest = quantizeInRange(l, l.subF(operand, used));
        probOperands[k].back().push_back(rest);
        used = l.addF(used, l.extF(stepVector, rest));
      }
      Value exactStep = l.shuffle(exactP, exactP, positions);
      if (unfoldedOne) {
        used = mulTokens(l, used, inverseFactors, positions);
        unfoldedWeights.push_back({exactStep, positions});
      } else if (pFactors && registersToSpare) {
        used = l.select(l.shuffle(unfoldedTokens, unfoldedTokens, positions),
                        exactStep, mulByTokens(l, tile, used, inverseFactors, positions));
      } else if (pFactors) {
        Value folded = l.shuffle(pFactors, pFactors, positions);
        Value zeros = l.splatConstant(stepVector, 0.0);
        Value unfolded = l.cmpF(arith::CmpFPredicate::OEQ, folded, zeros);
        Value inverse = inverseOf(
            l.select(unfolded, l.splatConstant(stepVector, 1.0), folded));
        used = l.select(unfolded, zeros, l.mulF(used, inverse));
      }
      // Else the weights are in units of 1 / pScale, a power of two:
      // scaling their sum (below) is exact and the same as scaling each.
      if (registersToSpare) {
        usedWeights = usedWeights ? l.addF(usedWeights, used) : used;
        continue;
      }
      for (int64_t e = 0; e < instr.perLane; ++e) {
        Value element = l.extract(used, e);
        usedSum = usedSum ? l.addF(usedSum, element) : element;
      }
    }
    if (usedWeights)
      usedSum = sumElements(l, usedWeights);
    if (usedSum && constantPFactor)
      usedSum = l.mulF(usedSum, l.f32(1.0 / pScale));
    if (unfoldedOne) {
      // The unfolded tokens' exact P, in a uniform branch that tiles
      // without such a token (a V scale of 0, or an edge tile's token out
      // of range) skip.
      Value unfoldedLanes =
          ROCDL::BallotOp::create(b, b.getI64Type(), unfoldedTokens);
      Value noneUnfolded =
          l.cmpI(arith::CmpIPredicate::eq, unfoldedLanes, l.i64(0));
      usedSum = unlessFull(b, noneUnfolded, {usedSum}, [&] {
        Value exact;
        for (auto &[step, positions] : unfoldedWeights) {
          Value weights = mulTokens(l, step, unfoldedOne, positions);
          exact = exact ? l.addF(exact, weights) : weights;
        }
        return SmallVector<Value>{l.addF(usedSum, sumElements(l, exact))};
      }).front();
    }
    if (usedSum)
      next.rowWeight.push_back(
          l.addF(l.mulF(state.rowWeight[k], alpha), usedSum));
    else if (weightsByMFMA)
      next.rowWeight.push_back(l.mulF(state.rowWeight[k], alpha));
  }

  if (registersToSpare)
    next.out = rescaleOutputs(l, state.out, outScales, /*branch=*/true);

  tile.next = std::move(next);
  tile.probOperands = std::move(probOperands);
  tile.valueBranch = valueBranch;
  tile.validWords = std::move(validWords);
}

namespace {

/// The initial softmax state is the tile loop's initialState, in registers:
/// pa.tile.init_softmax leaves no code.
void keepInitialState(DecodeLowering &, TileInitSoftmaxOp,
                      ImplicitLocOpBuilder &) {}
using InitSoftmaxToMFMA = TileOpToMFMA<TileInitSoftmaxOp, keepInitialState>;

/// pa.tile.softmax: P of the tile's scores, and the loop's next softmax
/// state, in registers for pv's pattern.
using SoftmaxToMFMA =
    TileOpToMFMA<TileSoftmaxOp, &DecodeLowering::lowerSoftmax>;

} // namespace

void mfma::populateSoftmaxToMFMAPatterns(RewritePatternSet &patterns,
                                         DecodeLowering &lowering) {
  patterns.add<InitSoftmaxToMFMA, SoftmaxToMFMA>(patterns.getContext(),
                                                 lowering);
}
