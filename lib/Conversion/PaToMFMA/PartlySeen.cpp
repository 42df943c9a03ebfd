//===- PartlySeen.cpp - partly seen tokens on lanes -------------------------===//
//
// Tokens some rows of the group see and others do not (MTP): kept out of
// the shared PV product, their masked scores written to LDS (in the edge
// tile, or after the loop), and their share added per output element by
// the epilogue (DecodeLowering.h has the whole story).
//
//===----------------------------------------------------------------------===//
#include "DecodeLowering.h"

using namespace mlir;
using namespace mlir::pa;
using namespace mlir::pa::mfma;

void DecodeLowering::initPartlySeen(ImplicitLocOpBuilder &b) {
  LaneBuilder l(b);
  // No score yet: a slot no tile writes adds nothing.
  scf::ForOp::create(
      b, tid, l.index(partlySlots() * s.rows), l.index(chip.workgroupSize),
      ValueRange{},
      [&](OpBuilder &nested, Location loc, Value element, ValueRange) {
        ImplicitLocOpBuilder nb(loc, nested);
        LaneBuilder nl(nb);
        memref::StoreOp::create(
            nb, nl.negInf(), stats,
            ValueRange{(nl.idx(element) + statsPartlyScore()).get()});
        scf::YieldOp::create(nb);
      });
}

void DecodeLowering::storePartlySeen(LaneBuilder &l, const TileStep &tile,
                                     ArrayRef<Value> scores) {
  ImplicitLocOpBuilder &b = l.b;
  OpBuilder::InsertionGuard guard(b);
  const LaneState &state = tile.state;
  Value tileStart = tile.tileStart;
  Value tileEnd = l.addI(tileStart, l.i64(kTileTokens));
  Value validBegin = tile.validBegin, validEnd = tile.validEnd;
  auto inRange = [&](Value token, Value lo, Value hi) {
    return l.andI(l.cmpI(arith::CmpIPredicate::sle, lo, token),
                  l.cmpI(arith::CmpIPredicate::slt, token, hi));
  };
  // M-tile k's score of the lane's token `element` (uniform index). One
  // M-tile: a dynamic extract from the 16 scores; two: a select per token
  // (the extract copies each M-tile's scores into 16 consecutive registers:
  // 13 more VGPRs at D = 128 bf16, 32 rows on gfx950, 3 waves per SIMD to
  // 2; the selects cost the one-M-tile kernels 8, 4 waves to 3).
  const int64_t blocks = kQuarterTokens / kBlock;
  auto scoreOf = [&](size_t k, Value element) {
    if (state.mTiles.size() == 1) {
      Value first = concat(l, scores[k * blocks], scores[k * blocks + 1]);
      Value second =
          concat(l, scores[k * blocks + 2], scores[k * blocks + 3]);
      return vector::ExtractOp::create(b, concat(l, first, second),
                                       OpFoldResult(element))
          .getResult();
    }
    Value score;
    for (int64_t e = 0; e < kGroupTokens; ++e) {
      Value candidate = l.extract(scores[k * blocks + e / kResultElements],
                                  e % kResultElements);
      score = score ? l.select(l.cmpI(arith::CmpIPredicate::eq, element,
                                      l.index(e)),
                               candidate, score)
                    : candidate;
    }
    return score;
  };
  // One run token at a time, in uniform values: per-lane values per token
  // (16 per lane) would be loop-invariant, and LLVM hoisted them out of the
  // tile loop (48 more VGPRs at D = 128 bf16, 16 rows).
  auto storeRun = [&](Value runStart, int64_t firstSlot, Value skipFrom) {
    auto loop = scf::ForOp::create(b, l.index(0), l.toIndex(partlyRunLength),
                                   l.index(1));
    OpBuilder::InsertionGuard inLoop(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    Value k = loop.getInductionVar();
    Value token = l.addI(runStart, l.toI64(k));
    Value here = l.andI(inRange(token, tileStart, tileEnd),
                        inRange(token, validBegin, validEnd));
    if (skipFrom) // a token of both runs (a short window) is the tail's
      here = l.andI(here,
                    l.cmpI(arith::CmpIPredicate::slt, token, skipFrom));
    auto inTile = scf::IfOp::create(b, TypeRange{}, here,
                                    /*withElseRegion=*/false);
    b.setInsertionPoint(inTile.thenBlock()->getTerminator());
    IndexExpr offset = l.idx(l.toIndex(l.subI(token, tileStart)));
    // Its lane group: wave offset / 64, group offset % 64 / 16.
    Value owner = l.andI(
        l.cmpI(arith::CmpIPredicate::eq, wave, (offset / kQuarterTokens).get()),
        l.cmpI(arith::CmpIPredicate::eq, group,
               (offset % kQuarterTokens / kGroupTokens).get()));
    auto write = scf::IfOp::create(b, TypeRange{}, owner,
                                   /*withElseRegion=*/false);
    b.setInsertionPoint(write.thenBlock()->getTerminator());
    IndexExpr slot = l.idx(k) + firstSlot;
    Value element = (offset % kGroupTokens).get();
    for (size_t t = 0; t < state.mTiles.size(); ++t) {
      Value score = scoreOf(t, element);
      IndexExpr word = slot * s.rows + firstRowOf(l, state.mTiles[t]) +
                       l.idx(rowLane) + statsPartlyScore();
      memref::StoreOp::create(b, score, stats, ValueRange{word.get()});
    }
  };
  storeRun(partlyTailStart, 0, Value());
  if (partlyHeadStart)
    storeRun(partlyHeadStart, partlyRunSlots, partlyTailStart);
}

Value DecodeLowering::partlySeenShare(ImplicitLocOpBuilder &b, Value row,
                                      Value firstDim) {
  LaneBuilder l(b);
  IndexExpr r = l.idx(row);
  Value rowMax = memref::LoadOp::create(
      b, stats, ValueRange{(r + statsMergedMax()).get()});
  Value inverse = memref::LoadOp::create(
      b, stats, ValueRange{(r + statsInverseNormalizer()).get()});
  Value zeros = l.splatConstant(vec4, 0.0);
  Value kvHead = d.storePartials.getKvHead();
  auto constant = [&](TypedAttr value) -> Value {
    return arith::ConstantOp::create(b, value);
  };
  auto loop = scf::ForOp::create(b, l.index(0), l.index(partlySlots()),
                                 l.index(1), ValueRange{zeros});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  IndexExpr slot = l.idx(loop.getInductionVar());
  Value score = memref::LoadOp::create(
      b, stats, ValueRange{(slot * s.rows + r + statsPartlyScore()).get()});
  // -inf: the row does not see the token (or no tile wrote the slot); a
  // NaN score is seen.
  Value seen = l.cmpF(arith::CmpFPredicate::UNE, score, l.negInf());
  auto share = scf::IfOp::create(b, TypeRange{vec4}, seen,
                                 /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(share.thenBlock());
    auto [page, tokenSlot] = partlySeenPlace(b, partlySeenToken(l, slot.get()));
    SmallVector<Value> values;
    for (int64_t e = 0; e < kResultElements; ++e) {
      Value dim = (l.idx(firstDim) + e).get();
      Value v = memref::LoadOp::create(
          b, d.pv.getValueCache(),
          buildCacheElementIndices(b, b.getLoc(), s.layout,
                                   CacheOperand::value, s.vLayout, s.kvPack,
                                   page, kvHead, tokenSlot, dim, constant));
      values.push_back(l.extF(f32, v));
    }
    Value weight = l.mulF(l.exp2(l.subF(score, rowMax)), inverse);
    if (s.scale == ScaleMode::per_token)
      weight = l.mulF(weight, memref::LoadOp::create(
                                  b, d.pv.getVScale(),
                                  ValueRange{page, kvHead, tokenSlot}));
    else if (vScaleTensor)
      weight = l.mulF(weight, vScaleTensor);
    Value vec = vector::FromElementsOp::create(b, vec4, values);
    scf::YieldOp::create(b, ValueRange{l.mulF(vec, l.broadcast(vec4, weight))});
    b.setInsertionPointToStart(share.elseBlock());
    scf::YieldOp::create(b, ValueRange{zeros});
  }
  scf::YieldOp::create(
      b, ValueRange{l.addF(loop.getRegionIterArgs()[0], share.getResult(0))});
  return loop.getResult(0);
}

Value DecodeLowering::partlySeenToken(LaneBuilder &l, Value slot) {
  Value tail = l.addI(partlyTailStart, l.toI64(slot));
  if (!partlyHeadStart)
    return tail;
  Value inTail =
      l.cmpI(arith::CmpIPredicate::ult, slot, l.index(partlyRunSlots));
  return l.select(
      inTail, tail,
      l.addI(partlyHeadStart, l.toI64((l.idx(slot) - partlyRunSlots).get())));
}

std::pair<Value, Value> DecodeLowering::partlySeenPlace(ImplicitLocOpBuilder &b,
                                                        Value token) {
  LaneBuilder l(b);
  auto constant = [&](TypedAttr value) -> Value {
    return arith::ConstantOp::create(b, value);
  };
  Value pageIndex =
      arith::DivUIOp::create(b, token, l.i64(s.pageSize)).getResult();
  TilePageRange range{
      l.toIndex(pageIndex),
      arith::MulIOp::create(b, pageIndex, l.i64(s.pageSize)).getResult()};
  Value id = buildVisiblePageId(b, b.getLoc(), pageIdsRule, range, l.index(0),
                                constant);
  id = l.select(l.cmpI(arith::CmpIPredicate::ult, id, poolSize), id, l.i32(0));
  Value tokenSlot = l.toIndex(
      arith::RemUIOp::create(b, token, l.i64(s.pageSize)).getResult());
  return {l.toIndex(id), tokenSlot};
}

void DecodeLowering::scorePartlySeen(ImplicitLocOpBuilder &b) {
  LaneBuilder l(b);
  auto constant = [&](TypedAttr value) -> Value {
    return arith::ConstantOp::create(b, value);
  };
  // Each row's lanes (a power of two within a wave) split its head dims.
  const int64_t lanesPerRow = chip.workgroupSize / s.rows;
  assert(lanesPerRow * s.rows == chip.workgroupSize &&
         llvm::isPowerOf2_64(lanesPerRow) && lanesPerRow <= kBlock &&
         s.headDim % lanesPerRow == 0 && "rows x lanes per row: a workgroup");
  IndexExpr t = l.idx(tid);
  IndexExpr rowIndex = t / lanesPerRow;
  IndexExpr part = t % lanesPerRow;
  const auto &load = queryOperands;
  IndexExpr row = l.idx(load.rowBase) + rowIndex;
  Value isQueryRow =
      l.cmpI(arith::CmpIPredicate::ult, row, l.index(s.totalRows));
  // Padding rows read the last query row (and see nothing).
  IndexExpr queryIndex = l.idx(l.minSI(row.get(), l.index(s.totalRows - 1)));
  IndexExpr position = queryIndex / s.groupSize;
  Value queryRow = (l.idx(load.sequence) * s.queryLength + position).get();
  Value queryHead =
      (l.idx(load.kvHead) * s.groupSize + queryIndex % s.groupSize).get();
  Value kvHead = d.qk.getKvHead();
  Value q64 = l.toI64(position.get());
  Value seenEnd = l.addI(visibleEndBase, q64);
  Value seenBegin = visibleBeginBase ? l.addI(visibleBeginBase, q64) : Value();
  // This partition's tokens: the op's valid range within the loop's tiles.
  Value tileTokens = l.i64(kTileTokens);
  auto tokenOf = [&](Value tile) -> Value {
    return arith::MulIOp::create(b, l.toI64(tile), tileTokens);
  };
  Value partitionBegin =
      l.maxSI(d.pv.getValidBegin(), tokenOf(d.tileLoop.getLowerBound()));
  Value partitionEnd =
      l.minSI(d.pv.getValidEnd(), tokenOf(d.tileLoop.getUpperBound()));
  Value slopeExp2;
  if (TileAlibiOp alibi = d.alibi)
    slopeExp2 =
        emitAlibiSlopeExp2(b, memref::LoadOp::create(b, alibi.getAlibiSlopes(),
                                                     ValueRange{queryHead}));
  Value writes = l.cmpI(arith::CmpIPredicate::eq, part.get(), l.index(0));
  // A run-time loop over the slots: this code runs once per workgroup, and
  // a copy per slot (6 with a window at Q 4) was a tenth of the slowest
  // kernel's code (734 of 6657 instructions), which its compile time
  // follows.
  auto slots = scf::ForOp::create(b, l.index(0), l.index(partlySlots()),
                                  l.index(1));
  OpBuilder::InsertionGuard inSlots(b);
  b.setInsertionPoint(slots.getBody()->getTerminator());
  {
    Value slot = slots.getInductionVar();
    Value head = partlyHeadStart
                     ? l.cmpI(arith::CmpIPredicate::sge, slot,
                              l.index(partlyRunSlots))
                     : Value();
    Value inRun = head ? l.select(head, (l.idx(slot) - partlyRunSlots).get(),
                                  slot)
                       : slot;
    Value token = partlySeenToken(l, slot);
    // A slot past the run holds no token (a head slot's would be seen by
    // every row); a token of both runs (a short window) is the tail's.
    // Uniform.
    Value scored = l.andI(
        l.cmpI(arith::CmpIPredicate::slt, l.toI64(inRun), partlyRunLength),
        l.andI(l.cmpI(arith::CmpIPredicate::sle, partitionBegin, token),
               l.cmpI(arith::CmpIPredicate::slt, token, partitionEnd)));
    if (head)
      scored = l.andI(
          scored,
          l.select(head,
                   l.cmpI(arith::CmpIPredicate::slt, token, partlyTailStart),
                   arith::ConstantIntOp::create(b, 1, 1)));
    auto score = scf::IfOp::create(b, TypeRange{f32}, scored,
                                   /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(score.thenBlock());
      auto [page, tokenSlot] = partlySeenPlace(b, token);
      auto dims =
          scf::ForOp::create(b, l.index(0), l.index(s.headDim / lanesPerRow),
                             l.index(1), ValueRange{l.f32(0.0)});
      {
        OpBuilder::InsertionGuard inLoop(b);
        b.setInsertionPointToStart(dims.getBody());
        Value dim = (l.idx(dims.getInductionVar()) * lanesPerRow + part).get();
        Value q = memref::LoadOp::create(b, load.query,
                                         ValueRange{queryRow, queryHead, dim});
        if (q.getType() != f32)
          q = l.extF(f32, q);
        Value k = memref::LoadOp::create(
            b, d.qk.getKeyCache(),
            buildCacheElementIndices(b, b.getLoc(), s.layout, CacheOperand::key,
                                     s.vLayout, s.kvPack, page, kvHead,
                                     tokenSlot, dim, constant));
        Value sum =
            l.addF(dims.getRegionIterArgs()[0], l.mulF(q, l.extF(f32, k)));
        scf::YieldOp::create(b, ValueRange{sum});
      }
      Value dot =
          combineInLanes(l, dims.getResult(0), lanesPerRow,
                         [&](Value x, Value y) { return l.addF(x, y); });
      // The loop's score steps, in its order.
      Value value = l.mulF(dot, scoreScale);
      if (s.scale == ScaleMode::per_token)
        value = l.mulF(value, buildNaNIfNotFinite(
                                  b, b.getLoc(),
                                  memref::LoadOp::create(
                                      b, d.qk.getKScale(),
                                      ValueRange{page, kvHead, tokenSlot})));
      value = buildNaNIfNotFinite(b, b.getLoc(), value);
      if (s.softCap)
        value = emitSoftCap(b, value, *s.softCap, /*fastReciprocal=*/true);
      if (slopeExp2) {
        // The distance from the row's own token C - Q + q = vE - 1 + q.
        Value distance = l.subI(token, l.subI(seenEnd, l.i64(1)));
        value =
            emitAlibiBias(b, value, slopeExp2,
                          arith::TruncIOp::create(b, b.getI32Type(), distance));
      }
      scf::YieldOp::create(b, ValueRange{value});
      b.setInsertionPointToStart(score.elseBlock());
      scf::YieldOp::create(b, ValueRange{l.negInf()});
    }
    Value seen =
        l.andI(isQueryRow, l.cmpI(arith::CmpIPredicate::slt, token, seenEnd));
    if (seenBegin)
      seen = l.andI(seen, l.cmpI(arith::CmpIPredicate::sle, seenBegin, token));
    Value masked = l.select(seen, score.getResult(0), l.negInf());
    IndexExpr word =
        rowIndex + l.idx(slot) * s.rows + statsPartlyScore();
    scf::IfOp::create(b, writes, [&](OpBuilder &nested, Location loc) {
      memref::StoreOp::create(nested, loc, masked, stats,
                              ValueRange{word.get()});
      scf::YieldOp::create(nested, loc);
    });
  }
}
