//===- TileStepToMFMA.cpp - one tile on lanes -------------------------------===//
//
// The tile loop's body, pa.tile.qk -> (alibi) -> softmax -> pv, as one
// step on a wave's registers (emitTileStep): K loads and S^T = K Q^T with
// MFMA, scale before mask, the online softmax (row max over the lane
// groups, exp2, P quantized in registers), V loads and O^T += V^T P^T with
// MFMA; the edge tiles' masking and the rescale of the accumulators.
//
//===----------------------------------------------------------------------===//
#include "DecodeLowering.h"

using namespace mlir;
using namespace mlir::pa;
using namespace mlir::pa::mfma;

Value DecodeLowering::tileIsFull(LaneBuilder &l, IRMapping &map,
                                 Value tileStart) {
  Value tileEnd = l.addI(tileStart, l.i64(kTileTokens));
  auto atMost = [&](Value x, Value y) {
    return l.cmpI(arith::CmpIPredicate::sle, x, y);
  };
  // The op's valid tokens, and the rows' visible ranges: row q of the
  // query sees [begin + q, end + q) (end = visibleEndBase), so the tile is
  // whole for every row inside [begin + Q - 1, end).
  Value full =
      l.andI(atMost(map.lookupOrDefault(d.pv.getValidBegin()), tileStart),
             atMost(tileEnd, map.lookupOrDefault(d.pv.getValidEnd())));
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

SmallVector<Value> DecodeLowering::maskEdgeTile(LaneBuilder &l, IRMapping &map,
                                                const LaneState &state,
                                                ArrayRef<SmallVector<Value>> scores,
                                                Value vScales,
                                                Value tileStart) {
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
  auto [validLo, validHi] = productBounds(l, map, tileStart);
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
                                                      IRMapping &map,
                                                      Value tileStart) {
  Value lo = map.lookupOrDefault(d.pv.getValidBegin());
  Value hi = map.lookupOrDefault(d.pv.getValidEnd());
  if (partlyRunSlots) {
    hi = l.minSI(hi, partlyTailStart);
    if (partlyHeadStart)
      lo = l.maxSI(lo, l.addI(partlyHeadStart, partlyRunLength));
  }
  return {groupBound(l, lo, tileStart), groupBound(l, hi, tileStart)};
}

SmallVector<Value> DecodeLowering::validValueWords(LaneBuilder &l,
                                                   IRMapping &map,
                                                   Value tileStart) {
  auto [validLo, validHi] = productBounds(l, map, tileStart);
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

LaneState DecodeLowering::emitTileStep(ImplicitLocOpBuilder &b, IRMapping &map,
                                       const CacheViews &views,
                                       const LaneState &state) {
  LaneBuilder l(b);
  const int64_t x = s.kvPack;
  const int64_t chunks = qkChunks;
  const int64_t stepsPerChunk = x / instr.perLane;
  const int64_t dBlocks = s.headDim / kBlock;
  IndexExpr j = l.idx(group), i = l.idx(rowLane);
  Value kvHead = d.qk.getKvHead();
  Value ids = map.lookupOrDefault(d.qk.getPageIds());
  Value tileStart = map.lookupOrDefault(d.softmax.getTileStart());
  auto kvVector = [&](int64_t n) {
    return VectorType::get({n}, s.kvType);
  };
  // Where the lane's tokens lie (docs/mfma-lowering.md, "Cache layouts"):
  // pages of 16 to 256 tokens hold the 16 tokens of a lane's K rows and of
  // its lane group's V columns each in one page (kPage, vPage); smaller
  // pages split them (a page id per K block, per run of P V tokens); a
  // page larger than a tile holds the whole tile from slot tileStart % P.
  const bool pageHoldsTile = s.pageSize > kTileTokens;
  const bool pagesSplitGroups = s.pageSize < kGroupTokens;
  // The lane's page ids, all read at once (one branch where they are
  // staged or not): K's and V's, then with split groups one per K block
  // and one per run of V tokens.
  SmallVector<Value> pagePositions = {kPageIndex, vPageIndex};
  const int64_t blocks = kQuarterTokens / kBlock;
  if (pagesSplitGroups) {
    for (int64_t blk = 0; blk < blocks; ++blk)
      pagePositions.push_back(
          ((l.idx(kColumn) + qkToken<int64_t>(blk, 0)) / s.pageSize).get());
    for (int64_t first = 0; first < kGroupTokens; first += s.pageSize)
      pagePositions.push_back(((l.idx(vColumn) + first) / s.pageSize).get());
  }
  SmallVector<Value> pages;
  {
    DenseMap<Value, SmallVector<Value>> known;
    for (Value page : laneElements(b, ids, pagePositions, known))
      pages.push_back(l.toIndex(page));
  }
  Value kPage = pages[0];
  Value vPage = pages[1];
  Value tileSlot;
  if (pageHoldsTile)
    tileSlot = l.toIndex(arith::RemUIOp::create(
        b, tileStart, l.i64(s.pageSize)));
  // The page and slot of K block blk's token of the lane.
  ArrayRef<Value> kBlockPages =
      pagesSplitGroups ? ArrayRef<Value>(pages).slice(2, blocks)
                       : ArrayRef<Value>();
  auto keyPlace = [&](int64_t blk) -> std::pair<Value, Value> {
    int64_t offset = qkToken<int64_t>(blk, 0) - qkToken<int64_t>(0, 0);
    if (pagesSplitGroups)
      return {kBlockPages[blk],
              (l.idx(kColumn) + qkToken<int64_t>(blk, 0)) % s.pageSize};
    IndexExpr slot = l.idx(kSlot0) + offset;
    return {kPage, pageHoldsTile ? (slot + l.idx(tileSlot)).get() : slot.get()};
  };
  // The lane group's 16 V tokens as runs of consecutive slots of one page:
  // runs[r] holds tokens [first, first + count) of the group.
  struct TokenRun {
    Value page, firstSlot;
    int64_t first, count;
  };
  SmallVector<TokenRun> valueRuns;
  if (pagesSplitGroups) {
    ArrayRef<Value> runPages = ArrayRef<Value>(pages).drop_front(2 + blocks);
    for (int64_t first = 0; first < kGroupTokens; first += s.pageSize)
      valueRuns.push_back(
          {runPages[first / s.pageSize], l.index(0), first, s.pageSize});
  } else {
    valueRuns.push_back(
        {vPage, pageHoldsTile ? (l.idx(vSlot0) + l.idx(tileSlot)).get() : vSlot0,
         0, kGroupTokens});
  }
  // The page and slot of token e of the lane group.
  auto valuePlace = [&](int64_t e) -> std::pair<Value, Value> {
    for (const TokenRun &run : valueRuns)
      if (e < run.first + run.count)
        return {run.page, (l.idx(run.firstSlot) + (e - run.first)).get()};
    llvm_unreachable("token outside the lane group");
  };
  auto constant = [&](TypedAttr value) -> Value {
    return arith::ConstantOp::create(b, value);
  };
  // A partial last chunk (D = 80: head dims [64, 128) with D = 80 fp8):
  // lane groups j >= inRowGroups hold no head dim of the row. Their K and
  // query are read at the row's last 16 bytes (never past the row, never
  // LDS the query staging did not write) and both are replaced by zeros,
  // so that they add exact zeros (a query NaN of another row cannot reach
  // this one).
  const int64_t lastChunk = chunks - 1;
  const int64_t inRowGroups =
      (s.headDim - lastChunk * qkChunkDims) / x;
  Value inRow;
  if (inRowGroups < kLaneGroups)
    inRow = l.cmpI(arith::CmpIPredicate::ult, group, l.index(inRowGroups));
  // `words` (an i32 vector) with zeros in the pad lane groups of chunk c.
  auto zeroPastRow = [&](Value words, int64_t c) -> Value {
    if (!inRow || c != lastChunk)
      return words;
    return l.select(inRow, words,
                    l.splatConstant(cast<VectorType>(words.getType()), 0));
  };
  // The first head dim of lane group j in chunk c, kept inside the row.
  auto chunkFirst = [&](int64_t c) -> Value {
    Value first = qkHeadDim(x, instr, l.idx(c), 0, j, l.idx(0)).get();
    if (!inRow || c != lastChunk)
      return first;
    return l.select(inRow, first, l.index(s.headDim - x));
  };

  // Q^T: the lane's row, head-dim chunks 4c + j (qkHeadDim), from LDS.
  // With its residual, queries[k][c] holds the value and residual chunks.
  // gfx950's 16x16x128: queries[k][p] holds chunks 2p and 2p + 1, stored
  // side by side (wideQueryWord).
  const size_t tiles = state.mTiles.size();
  const int64_t chunksPerRead = wideQK ? 2 : 1;
  const int64_t chunkWords = chunksPerRead * x * computeBytes / 4;
  // The query chunk(s) from `c` of M-tile k: the value and, with its
  // residual, the residual.
  auto loadQuery = [&](size_t k, int64_t c) {
    const MTileLanes &m = state.mTiles[k];
    IndexExpr element = l.idx(chunkFirst(c));
    IndexExpr rowWord = element * computeBytes / 4;
    if (wideQK)
      rowWord = wideQueryWord(rowWord);
    IndexExpr word = (i + firstRowOf(l, m)) * queryRowWords + rowWord +
                     l.idx(state.queryOffset);
    SmallVector<Value> terms;
    for (int64_t base : queryResidual
                            ? SmallVector<int64_t>{0, queryResidualWord()}
                            : SmallVector<int64_t>{0}) {
      Value words = vector::LoadOp::create(
          b, VectorType::get({chunkWords}, b.getI32Type()), scratch,
          ValueRange{(word + base).get()}, /*nontemporal=*/false,
          llvm::Align(16));
      words = zeroPastRow(words, c);
      terms.push_back(l.bitcast(
          VectorType::get({chunksPerRead * x}, s.computeType), words));
    }
    return terms;
  };
  // K of block `blk` (tokens qkToken(blk, i)), head-dim chunk c (16 bytes
  // per lane: chunk 4c + j).
  // nhd / hnd: the lane's x consecutive head-dim values of the token, one
  // 16-byte load as in the packed layout, at the layout's address.
  auto loadKey = [&](int64_t blk, int64_t c) {
    Value key;
    if (s.layout != CacheLayout::packed) {
      auto [page, slot] = keyPlace(blk);
      Value first = chunkFirst(c);
      key = vector::LoadOp::create(
          b, kvVector(x), views.keys,
          buildCacheElementIndices(b, b.getLoc(), s.layout, CacheOperand::key,
                                   s.vLayout, x, page, kvHead, slot, first,
                                   constant));
    } else {
      int64_t slotOffset = qkToken<int64_t>(blk, 0) - qkToken<int64_t>(0, 0);
      Value slot = l.idx(kSlot0) + slotOffset;
      Value packIndex = l.idx(chunkFirst(c)) / x;
      key = vector::LoadOp::create(
          b, kvVector(x), views.keys,
          ValueRange{kPage, kvHead, packIndex, slot, l.index(0)});
    }
    if (inRow && c == lastChunk) {
      auto wordsType = VectorType::get({4}, b.getI32Type());
      key = l.bitcast(kvVector(x), zeroPastRow(l.bitcast(wordsType, key), c));
    }
    return toComputeType(l, key);
  };
  // S^T block b of M-tile t (element r = token 16 j + 4 b + r), chunk-major:
  // only one chunk of the query (per M-tile, with its residual) and of a
  // block's keys is live at a time next to the accumulators, instead of
  // the whole query. Each block still sums its chunks in order.
  Value zeros = l.splatConstant(vec4, 0.0);
  SmallVector<SmallVector<Value>> scores(
      tiles, SmallVector<Value>(blocks, zeros));
  for (int64_t c = 0; c < chunks; c += chunksPerRead) {
    SmallVector<SmallVector<Value>> query;
    for (size_t k = 0; k < tiles; ++k)
      query.push_back(loadQuery(k, c));
    for (int64_t blk = 0; blk < blocks; ++blk) {
      if (wideQK) {
        // Two load chunks per 16x16x128: lane group j's 16 bytes of chunk
        // c and of chunk c + 1 are its two 16-byte K runs, for K and the
        // query alike, so every head-dim element meets its own query value
        // (docs/mfma-lowering.md).
        Value key = concat(l, loadKey(blk, c), loadKey(blk, c + 1));
        for (size_t k = 0; k < tiles; ++k)
          for (Value term : query[k])
            scores[k][blk] =
                amdgpu::MFMAOp::create(b, vec4, kBlock, kBlock, kWideFp8K,
                                       /*blocks=*/1, key, term, scores[k][blk]);
        continue;
      }
      Value keyChunk = loadKey(blk, c);
      for (size_t k = 0; k < tiles; ++k)
        for (int64_t step = 0; step < stepsPerChunk; ++step) {
          Value key = slice(l, keyChunk, step * instr.perLane, instr.perLane);
          for (Value term : query[k])
            scores[k][blk] = mfmaOp(
                b, key, slice(l, term, step * instr.perLane, instr.perLane),
                scores[k][blk]);
        }
    }
  }

  // Per-token scales ([N, Hkv, P]). With one M-tile and the edge branch's
  // registers, each lane loads its own token's (token i of its group) and
  // the group's are spread where used (mulTokens): one 4-byte load per
  // lane and scale instead of four 16-byte ones, one reciprocal, zero test
  // and NaN check per token instead of 16 per lane, no 16-element vectors
  // of them. With two M-tiles every use of a spread value would be an
  // instruction per M-tile (v_mul_f32_dpp for each element, against
  // v_pk_mul_f32 for two: 60-75 more per tile at D = 128, 32 rows), so
  // each lane loads its group's 16 (one load per run of them in one page);
  // kernels at the register limit keep that form too (the lane form took
  // the D = 256 32-row per-token kernels from 251-257 to 277-281 VGPRs).
  const bool registersToSpare = edgeTileBranch;
  // Pages shorter than the 16 tokens of a group keep the group's form too
  // (not measured with the lane form).
  const bool laneScales = tiles == 1 && registersToSpare && !pagesSplitGroups;
  auto tokenScales = [&](Value scales) -> Value {
    if (laneScales) {
      return memref::LoadOp::create(
          b, scales,
          ValueRange{valueRuns[0].page, kvHead,
                     (l.idx(valueRuns[0].firstSlot) + i).get()});
    }
    auto groupType = VectorType::get({kGroupTokens}, f32);
    if (valueRuns.size() == 1)
      return vector::LoadOp::create(
                 b, groupType, scales,
                 ValueRange{valueRuns[0].page, kvHead, valueRuns[0].firstSlot})
          .getResult();
    Value group = l.splatConstant(groupType, 0.0);
    for (const TokenRun &run : valueRuns) {
      Value part = vector::LoadOp::create(
          b, VectorType::get({run.count}, f32), scales,
          ValueRange{run.page, kvHead, run.firstSlot});
      group = vector::InsertStridedSliceOp::create(
          b, part, group, ArrayRef<int64_t>{run.first},
          ArrayRef<int64_t>{1});
    }
    return group;
  };
  // `vec` times the per-token values `values` of its tokens `tokens`.
  auto mulByTokens = [&](Value vec, Value values, ArrayRef<int64_t> tokens) {
    if (laneScales)
      return mulTokens(l, vec, values, tokens);
    return l.mulF(vec, l.shuffle(values, values, tokens));
  };
  const SmallVector<int64_t> groupTokens =
      llvm::to_vector(llvm::seq<int64_t>(0, kGroupTokens));
  // Scores in the exp2 domain (scale before mask): the row's scale, and
  // per-token key scales, applied right away so that they die here. A
  // score that is not finite must become NaN before the mask (an infinite
  // K element or scale would otherwise give a -inf that weighs 0, like a
  // masked score): bf16 K elements can be infinite, so bf16 caches check
  // every score; fp8 ones cannot, so only infinite per-token K scales need
  // checking (the row's scale is checked once, outside the loop).
  const bool keysMayBeInfinite = !isa<FloatType>(s.kvType) ||
                                 s.kvType.getIntOrFloatBitWidth() != 8;
  Value kScales;
  if (s.scale == ScaleMode::per_token) {
    kScales = tokenScales(views.kScale);
    if (!keysMayBeInfinite)
      kScales = buildNaNIfNotFinite(b, b.getLoc(), kScales);
  }
  // Tile starts are below 2^31 (context lengths are i32).
  Value tileStart32 =
      d.alibi ? arith::TruncIOp::create(b, b.getI32Type(), tileStart).getResult()
              : Value();
  for (size_t k = 0; k < tiles; ++k)
    for (int64_t blk = 0; blk < blocks; ++blk) {
      Value &score = scores[k][blk];
      // The token's scale first: its spread multiplies (v_mul_f32_dpp)
      // read the product's result directly, and the row's scale is then
      // a vector multiply (v_pk_mul_f32 where the chip has it).
      if (kScales)
        score = mulByTokens(
            score, kScales,
            ArrayRef<int64_t>(groupTokens).slice(blk * kResultElements,
                                                 kResultElements));
      score = l.mulF(score, l.broadcast(vec4, state.mTiles[k].rowScale));
      // Checked before the soft cap, which would map +-inf to +-cap.
      if (keysMayBeInfinite)
        score = buildNaNIfNotFinite(b, b.getLoc(), score);
      // Before the mask, so that masked columns stay exactly -inf.
      if (s.softCap)
        score = emitSoftCap(b, score, *s.softCap, /*fastReciprocal=*/true);
      // ALiBi after the cap, before the mask: element r of block blk is
      // token 16 j + 4 blk + r of the wave's quarter (qkToken).
      if (const MTileLanes &m = state.mTiles[k]; m.alibiSlope) {
        auto i32s = VectorType::get({kResultElements}, b.getI32Type());
        SmallVector<int64_t> offsets;
        for (int64_t r = 0; r < kResultElements; ++r)
          offsets.push_back(blk * kResultElements + r);
        Value first = l.addI(tileStart32, m.alibiDistance);
        Value distance = l.addI(l.broadcast(i32s, first),
                                l.vectorOf(i32s, offsets));
        score = emitAlibiBias(b, score, l.broadcast(vec4, m.alibiSlope),
                              distance);
      }
    }
  // Edge tiles: scores outside each row's visible range become -inf, and
  // per-token V scales and V bytes of tokens outside the op's valid range
  // 0. A tile that every row sees whole (all but a long row's edge tiles)
  // needs none of it, so the masking is a uniform branch taken for edge
  // tiles only (one for the scores and scales here, one for the V bytes
  // after their loads), where registers allow (edgeTileBranch).
  const int64_t loadsPerGroup = s.kvBytes();
  const int64_t tokensPerLoad = kGroupTokens / loadsPerGroup;
  auto wordsType = VectorType::get({4}, b.getI32Type());
  // An infinite per-token V scale needs no check: it makes the wave's V
  // unit infinite, so the tile's P factors are 0 * inf = NaN for its token
  // (and 0 for the others), and its rows are NaN from then on.
  Value vScales =
      s.scale == ScaleMode::per_token ? tokenScales(views.vScale) : Value();
  Value allOnes = l.splatConstant(wordsType, -1);
  Value full = edgeTileBranch ? tileIsFull(l, map, tileStart) : Value();
  // V's masking in a branch of its own (below) or as words from this one.
  Value valueBranch = tiles > 1 && loadsPerGroup == 1 ? full : Value();
  SmallVector<Value> validWords;
  {
    auto mask = [&] {
      SmallVector<Value> masked =
          maskEdgeTile(l, map, state, scores, vScales, tileStart);
      // In the edge branch: full tiles hold no partly seen token.
      if (partlyRunSlots && partlyScoresInLoop)
        storePartlySeen(l, map, state,
                        ArrayRef<Value>(masked).take_front(tiles * blocks),
                        tileStart);
      if (!valueBranch)
        masked.append(validValueWords(l, map, tileStart));
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
    Value shift = l.broadcast(vec4, l.select(nothingSeen, zero, newMax));
    SmallVector<Value> probs;
    Value blockSum;
    for (Value block : masked) {
      Value p = l.exp2(l.subF(block, shift));
      probs.push_back(p);
      blockSum = blockSum ? l.addF(blockSum, p) : p;
    }
    Value laneSum = l.extract(blockSum, 0);
    for (int64_t e = 1; e < kResultElements; ++e)
      laneSum = l.addF(laneSum, l.extract(blockSum, e));
    next.rowMax.push_back(newMax);
    next.rowSum.push_back(l.addF(l.mulF(state.rowSum[k], alpha), laneSum));

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
      p16 = mulByTokens(p16, pFactors, groupTokens);
    else if (pScale != 1.0)
      p16 = l.mulF(p16, l.splatConstant(tokenVector, pScale));
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
      // The weights as the product sees them, back in units of P: divided
      // by the folding factor (a reciprocal is precise enough here).
      Value used = l.extF(stepVector, quantized);
      probOperands[k].push_back({quantized});
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
                        exactStep, mulByTokens(used, inverseFactors, positions));
      } else if (pFactors) {
        Value folded = l.shuffle(pFactors, pFactors, positions);
        Value zeros = l.splatConstant(stepVector, 0.0);
        Value unfolded = l.cmpF(arith::CmpFPredicate::OEQ, folded, zeros);
        Value inverse = inverseOf(
            l.select(unfolded, l.splatConstant(stepVector, 1.0), folded));
        used = l.select(unfolded, zeros, l.mulF(used, inverse));
      } else {
        used = l.mulF(used, l.splatConstant(stepVector, 1.0 / pScale));
      }
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
  }

  if (registersToSpare)
    next.out = rescaleOutputs(l, state.out, outScales, /*branch=*/true);

  // V^T: for head-dim block blk, lane (d = 16 blk + i, group j) loads the
  // group's 16 tokens of d (one or two 16-byte loads) as i32 words; values
  // of tokens outside [valid_begin, valid_end) are zeroed (0 * NaN would
  // poison O). With the edge branch, two M-tiles and one load per lane
  // group (fp8): in edge tiles only (the loads before a second uniform
  // branch, their masking on its edge side; 51-60 fewer instructions per
  // tile at D = 128, 32 rows, still 2 waves per SIMD). Else every load is
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
        auto [page, slot] = valuePlace(e);
        elements.push_back(memref::LoadOp::create(
            b, views.values,
            buildCacheElementIndices(b, b.getLoc(), s.layout,
                                     CacheOperand::value, s.vLayout, x, page,
                                     kvHead, slot, dIndex, constant)));
      }
      return l.bitcast(wordsType, vector::FromElementsOp::create(
                                      b, kvVector(tokensPerLoad), elements));
    }
    SmallVector<Value> indices =
        s.vLayout == VLayout::plain
            ? SmallVector<Value>{vPage, kvHead, dIndex,
                                 (l.idx(vSlot0) + u * tokensPerLoad).get()}
            : SmallVector<Value>{vPage, kvHead, (l.idx(vSlot0) / x + u).get(),
                                 dIndex, l.index(0)};
    return l.bitcast(wordsType,
                     vector::LoadOp::create(b, kvVector(tokensPerLoad),
                                            views.values, indices));
  };
  auto maskWords = [&](ArrayRef<Value> words, ArrayRef<Value> valid) {
    SmallVector<Value> masked;
    for (auto [n, word] : llvm::enumerate(words))
      masked.push_back(l.andI(word, valid[n % loadsPerGroup]));
    return masked;
  };
  SmallVector<Value> valueWords; // [blk * loadsPerGroup + u], when loaded
  if (valueBranch) {
    for (int64_t blk = 0; blk < dBlocks; ++blk)
      for (int64_t u = 0; u < loadsPerGroup; ++u)
        valueWords.push_back(loadValueWords(blk, u));
    valueWords = unlessFull(b, valueBranch, valueWords, [&] {
      return maskWords(valueWords, validValueWords(l, map, tileStart));
    });
  }
  for (int64_t blk = 0; blk < dBlocks; ++blk) {
    SmallVector<Value> words;
    if (valueBranch) {
      words.assign(valueWords.begin() + blk * loadsPerGroup,
                   valueWords.begin() + (blk + 1) * loadsPerGroup);
    } else {
      for (int64_t u = 0; u < loadsPerGroup; ++u)
        words.push_back(loadValueWords(blk, u));
      words = maskWords(words, validWords);
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
        for (Value prob : probOperands[k][step])
          next.out[k][blk] = mfmaOp(b, operand, prob, next.out[k][blk]);
    }
  }
  return next;
}
