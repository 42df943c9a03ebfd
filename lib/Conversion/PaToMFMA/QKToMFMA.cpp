//===- QKToMFMA.cpp - pa.tile.qk on lanes -----------------------------------===//
//
// pa.tile.qk of one tile, in the lane loop's body (TileStep): the lane's
// page ids (K's and V's: TilePlaces), K loads and S^T = K Q^T with MFMA
// (the query from LDS), then the scores in the exp2 domain: per-token K
// scales, the row's scale, the non-finite check, the soft cap and the
// tile's pa.tile.alibi bias (its lane values are loop-invariant:
// MTileLanes), block by block so that each block's factors die there.
// The scores go to softmax's pattern unmasked (TileStep::scores).
//
//===----------------------------------------------------------------------===//
#include "DecodeLowering.h"

using namespace mlir;
using namespace mlir::pa;
using namespace mlir::pa::mfma;

TilePlaces DecodeLowering::placeTileTokens(LaneBuilder &l, Value ids,
                                           Value tileStart) {
  ImplicitLocOpBuilder &b = l.b;
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
  TilePlaces places;
  places.kPage = pages[0];
  places.vPage = pages[1];
  if (pageHoldsTile)
    places.tileSlot = l.toIndex(arith::RemUIOp::create(
        b, tileStart, l.i64(s.pageSize)));
  if (pagesSplitGroups) {
    places.kBlockPages.assign(pages.begin() + 2, pages.begin() + 2 + blocks);
    ArrayRef<Value> runPages = ArrayRef<Value>(pages).drop_front(2 + blocks);
    for (int64_t first = 0; first < kGroupTokens; first += s.pageSize)
      places.valueRuns.push_back(
          {runPages[first / s.pageSize], l.index(0), first, s.pageSize});
  } else {
    places.valueRuns.push_back(
        {places.vPage,
         pageHoldsTile ? (l.idx(vSlot0) + l.idx(places.tileSlot)).get()
                       : vSlot0,
         0, kGroupTokens});
  }
  return places;
}

Value DecodeLowering::tokenScales(LaneBuilder &l, const TileStep &tile,
                                  Value scales) {
  ImplicitLocOpBuilder &b = l.b;
  ArrayRef<TilePlaces::TokenRun> valueRuns = tile.places.valueRuns;
  if (scalesPerLane()) {
    return memref::LoadOp::create(
        b, scales,
        ValueRange{valueRuns[0].page, tile.kvHead,
                   (l.idx(valueRuns[0].firstSlot) + l.idx(rowLane)).get()});
  }
  auto groupType = VectorType::get({kGroupTokens}, f32);
  if (valueRuns.size() == 1)
    return vector::LoadOp::create(
               b, groupType, scales,
               ValueRange{valueRuns[0].page, tile.kvHead,
                          valueRuns[0].firstSlot})
        .getResult();
  Value group = l.splatConstant(groupType, 0.0);
  for (const TilePlaces::TokenRun &run : valueRuns) {
    Value part = vector::LoadOp::create(
        b, VectorType::get({run.count}, f32), scales,
        ValueRange{run.page, tile.kvHead, run.firstSlot});
    group = vector::InsertStridedSliceOp::create(
        b, part, group, ArrayRef<int64_t>{run.first}, ArrayRef<int64_t>{1});
  }
  return group;
}

Value DecodeLowering::mulByTokens(LaneBuilder &l, const TileStep &tile,
                                  Value vec, Value values,
                                  ArrayRef<int64_t> tokens) {
  if (scalesPerLane())
    return mulTokens(l, vec, values, tokens);
  return l.mulF(vec, l.shuffle(values, values, tokens));
}

Value DecodeLowering::lastChunkInRow(LaneBuilder &l) {
  const int64_t inRowGroups =
      (s.headDim - (qkChunks - 1) * qkChunkDims) / s.kvPack;
  if (inRowGroups >= kLaneGroups)
    return {};
  return l.cmpI(arith::CmpIPredicate::ult, group, l.index(inRowGroups));
}

Value DecodeLowering::zeroPastRow(LaneBuilder &l, Value inRow, Value words,
                                  int64_t c) {
  if (!inRow || c != qkChunks - 1)
    return words;
  return l.select(inRow, words,
                  l.splatConstant(cast<VectorType>(words.getType()), 0));
}

Value DecodeLowering::chunkFirst(LaneBuilder &l, Value inRow, int64_t c) {
  Value first =
      qkHeadDim(s.kvPack, instr, l.idx(c), 0, l.idx(group), l.idx(0)).get();
  if (!inRow || c != qkChunks - 1)
    return first;
  return l.select(inRow, first, l.index(s.headDim - s.kvPack));
}

Value DecodeLowering::loadTileKey(LaneBuilder &l, const TilePlaces &places,
                                  Value kvHead, const CacheViews &views,
                                  Value inRow, int64_t blk, int64_t c) {
  ImplicitLocOpBuilder &b = l.b;
  const int64_t x = s.kvPack;
  auto kvVector = VectorType::get({x}, s.kvType);
  // nhd / hnd: the lane's x consecutive head-dim values of the token, one
  // 16-byte load as in the packed layout, at the layout's address.
  Value key;
  if (s.layout != CacheLayout::packed) {
    const bool pageHoldsTile = s.pageSize > kTileTokens;
    Value page = places.kPage, slot;
    if (s.pageSize < kGroupTokens) {
      page = places.kBlockPages[blk];
      slot = ((l.idx(kColumn) + qkToken<int64_t>(blk, 0)) % s.pageSize).get();
    } else {
      IndexExpr inPage =
          l.idx(kSlot0) + (qkToken<int64_t>(blk, 0) - qkToken<int64_t>(0, 0));
      slot = pageHoldsTile ? (inPage + l.idx(places.tileSlot)).get()
                           : inPage.get();
    }
    Value first = chunkFirst(l, inRow, c);
    key = vector::LoadOp::create(
        b, kvVector, views.keys,
        buildCacheElementIndices(
            b, b.getLoc(), s.layout, CacheOperand::key, s.vLayout, x, page,
            kvHead, slot, first, [&](TypedAttr value) -> Value {
              return arith::ConstantOp::create(b, value);
            }));
  } else {
    int64_t slotOffset = qkToken<int64_t>(blk, 0) - qkToken<int64_t>(0, 0);
    Value slot = l.idx(kSlot0) + slotOffset;
    Value packIndex = l.idx(chunkFirst(l, inRow, c)) / x;
    key = vector::LoadOp::create(
        b, kvVector, views.keys,
        ValueRange{places.kPage, kvHead, packIndex, slot, l.index(0)});
  }
  if (inRow && c == qkChunks - 1) {
    auto wordsType = VectorType::get({4}, b.getI32Type());
    key = l.bitcast(kvVector,
                    zeroPastRow(l, inRow, l.bitcast(wordsType, key), c));
  }
  return key;
}

SmallVector<Value> DecodeLowering::loadTileKeys(LaneBuilder &l,
                                                const TilePlaces &places,
                                                Value kvHead,
                                                const CacheViews &views) {
  Value inRow = lastChunkInRow(l);
  // As i32 words, the registers' own type: carried as gfx950's fp8
  // vectors, LLVM rebuilt them byte by byte where two meet in one operand.
  auto words = VectorType::get({4}, l.b.getI32Type());
  SmallVector<Value> keys;
  for (int64_t c = 0; c < qkChunks; ++c)
    for (int64_t blk = 0; blk < kQuarterTokens / kBlock; ++blk)
      keys.push_back(l.bitcast(
          words, loadTileKey(l, places, kvHead, views, inRow, blk, c)));
  return keys;
}

SmallVector<Type> DecodeLowering::tileKeyTypes() const {
  return SmallVector<Type>(tileKeyLoads(),
                           VectorType::get({4}, IntegerType::get(ctx, 32)));
}

void DecodeLowering::lowerQK(TileQKOp op, ImplicitLocOpBuilder &b) {
  TileStep &tile = *currentStep;
  LaneBuilder l(b);
  const int64_t x = s.kvPack;
  const int64_t chunks = qkChunks;
  const int64_t stepsPerChunk = x / instr.perLane;
  IndexExpr i = l.idx(rowLane);
  const int64_t blocks = kQuarterTokens / kBlock;
  tile.places = placeTileTokens(l, op.getPageIds(), tile.tileStart);
  Value inRow = lastChunkInRow(l);
  // The tile's K loads: those the previous step issued (prefetched), else
  // each where the product first needs it, so that a chunk's loads are
  // live only next to its MFMAs.
  auto keyOf = [&](int64_t blk, int64_t c) -> Value {
    Value key = tile.keys.empty()
                    ? loadTileKey(l, tile.places, tile.kvHead, tile.views,
                                  inRow, blk, c)
                    : l.bitcast(VectorType::get({x}, s.kvType),
                                tile.keys[c * blocks + blk]);
    return toComputeType(l, key);
  };
  // gfx950's 16x16x128 operand: chunks c and c + 1 side by side (carried
  // keys joined as words: as fp8 vectors LLVM joined them byte by byte).
  auto wideKeyOf = [&](int64_t blk, int64_t c) -> Value {
    if (tile.keys.empty())
      return concat(l, keyOf(blk, c), keyOf(blk, c + 1));
    return l.bitcast(VectorType::get({2 * x}, s.kvType),
                     concat(l, tile.keys[c * blocks + blk],
                            tile.keys[(c + 1) * blocks + blk]));
  };

  // Q^T: the lane's row, head-dim chunks 4c + j (qkHeadDim), from LDS.
  // queries[k][c] holds the chunks of every term of the query.
  // gfx950's 16x16x128: queries[k][p] holds chunks 2p and 2p + 1, stored
  // side by side (wideQueryWord).
  const size_t tiles = tile.state.mTiles.size();
  const int64_t chunksPerRead = wideQK ? 2 : 1;
  const int64_t chunkWords = chunksPerRead * x * computeBytes / 4;
  // The query chunk(s) from `c` of M-tile k, of each of its terms.
  auto loadQuery = [&](size_t k, int64_t c) {
    const MTileLanes &m = tile.state.mTiles[k];
    IndexExpr element = l.idx(chunkFirst(l, inRow, c));
    IndexExpr rowWord = element * computeBytes / 4;
    if (wideQK)
      rowWord = wideQueryWord(rowWord);
    IndexExpr word = (i + firstRowOf(l, m)) * queryRowWords + rowWord +
                     l.idx(tile.state.queryOffset);
    SmallVector<Value> terms;
    for (int64_t term = 0; term < queryTerms; ++term) {
      Value words = vector::LoadOp::create(
          b, VectorType::get({chunkWords}, b.getI32Type()), scratch,
          ValueRange{(word + queryTermWord(term)).get()},
          /*nontemporal=*/false, llvm::Align(16));
      words = zeroPastRow(l, inRow, words, c);
      terms.push_back(l.bitcast(
          VectorType::get({chunksPerRead * x}, s.computeType), words));
    }
    return terms;
  };
  // S^T block b of M-tile t (element r = token 16 j + 4 b + r), chunk-major:
  // only one chunk of the query (per M-tile and term) and of a
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
        Value key = wideKeyOf(blk, c);
        for (size_t k = 0; k < tiles; ++k)
          for (Value term : query[k])
            scores[k][blk] =
                amdgpu::MFMAOp::create(b, vec4, kBlock, kBlock, kWideFp8K,
                                       /*blocks=*/1, key, term, scores[k][blk]);
        continue;
      }
      Value keyChunk = keyOf(blk, c);
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
    kScales = tokenScales(l, tile, tile.views.kScale);
    if (!keysMayBeInfinite)
      kScales = buildNaNIfNotFinite(b, b.getLoc(), kScales);
  }
  // The next tile's K, issued once this tile's are no longer read: they
  // arrive while this tile's softmax and PV run. With per-token scales,
  // after the scales' loads (a wait for those would wait for the prefetch
  // too) and before their spread: the DPP moves then stay in the block of
  // the multiplies they fold into (LLVM sinks the multiplies past the
  // prefetch's branch, not the moves: 16 v_mov_b32_dpp more per tile).
  // Without, after the scores are made (measured: 0-11 instructions fewer).
  auto issueNextKeys = [&] {
    if (tile.loadNextKeys)
      tile.nextKeys = tile.loadNextKeys(b);
  };
  if (kScales)
    issueNextKeys();
  // Tile starts are below 2^31 (context lengths are i32).
  Value tileStart32 = d.alibi ? arith::TruncIOp::create(b, b.getI32Type(),
                                                         tile.tileStart)
                                    .getResult()
                              : Value();
  for (size_t k = 0; k < tiles; ++k)
    for (int64_t blk = 0; blk < blocks; ++blk) {
      Value &score = scores[k][blk];
      // The token's scale first: its spread multiplies (v_mul_f32_dpp)
      // read the product's result directly, and the row's scale is then
      // a vector multiply (v_pk_mul_f32 where the chip has it).
      if (kScales)
        score = mulByTokens(
            l, tile, score, kScales,
            ArrayRef<int64_t>(groupTokens).slice(blk * kResultElements,
                                                 kResultElements));
      score = l.mulF(score, l.broadcast(vec4, tile.state.mTiles[k].rowScale));
      // Checked before the soft cap, which would map +-inf to +-cap.
      if (keysMayBeInfinite)
        score = buildNaNIfNotFinite(b, b.getLoc(), score);
      // Before the mask, so that masked columns stay exactly -inf.
      if (s.softCap)
        score = emitSoftCap(b, score, *s.softCap, /*fastReciprocal=*/true);
      // ALiBi after the cap, before the mask: element r of block blk is
      // token 16 j + 4 blk + r of the wave's quarter (qkToken).
      if (const MTileLanes &m = tile.state.mTiles[k]; m.alibiSlope) {
        auto i32s = VectorType::get({kResultElements}, b.getI32Type());
        SmallVector<int64_t> offsets;
        for (int64_t r = 0; r < kResultElements; ++r)
          offsets.push_back(blk * kResultElements + r - m.alibiShift);
        Value first = l.addI(tileStart32, m.alibiDistance);
        Value distance = l.addI(l.broadcast(i32s, first),
                                l.vectorOf(i32s, offsets));
        score = emitAlibiBias(b, score, l.broadcast(vec4, m.alibiSlope),
                              distance);
      }
    }
  if (!kScales)
    issueNextKeys();
  tile.scores = std::move(scores);
}

namespace {

/// pa.tile.qk (with the tile's pa.tile.alibi, whose bias it adds): the
/// tile's scores in registers for softmax's pattern.
using QKToMFMA = TileOpToMFMA<TileQKOp, &DecodeLowering::lowerQK>;

} // namespace

void mfma::populateQKToMFMAPatterns(RewritePatternSet &patterns,
                                    DecodeLowering &lowering) {
  patterns.add<QKToMFMA>(patterns.getContext(), lowering);
}
