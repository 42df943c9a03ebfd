//===- TileOperandsToWarps.cpp - operands of several tile ops -------------===//
//
// The helpers of TileOpLowering (DecodeLowering.h) that more than one
// tile-op pattern uses: A fragments in shared memory, page ids and KV
// addresses, scales, KV words, mma, and pv's V chunks (qk requests the
// first ones).
//
//===----------------------------------------------------------------------===//
#include "DecodeLowering.h"

#include "pa/Transforms/TileLowering.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::pa;
using namespace mlir::pa::nvvm;
using arith::CmpIPredicate;

Value TileOpLowering::fragmentIndex(WarpEmitter &e, int64_t extent,
                                    int64_t term, Value m, Value k) const {
  const int64_t blocks = extent / (4 * s.chunk);
  const int64_t perWord = s.elementsPerWord();
  Value mt = e.div(m, 16), half = e.rem(e.div(m, 8), 2), g = e.rem(m, 8);
  Value block = e.div(k, 4 * s.chunk);
  Value t = e.rem(e.div(k, s.chunk), 4);
  Value j = e.rem(k, s.chunk);
  Value word = e.div(j, perWord), sub = e.rem(j, perWord);
  Value slot = e.addI(e.mulI(e.rem(word, 2), 2), half);
  Value lane = e.addI(e.mulI(g, 4), t);
  Value group =
      e.addI(e.mulI(e.addI(e.mulI(e.addI(mt, term * s.mTiles()), blocks), block),
                  s.stepsPerChunk()),
            e.div(word, 2));
  Value wordIndex = e.addI(e.addI(e.mulI(group, 128), e.mulI(lane, 4)), slot);
  return e.addI(e.mulI(wordIndex, perWord), sub);
}

std::array<Value, 4> TileOpLowering::loadFragment(WarpEmitter &e, Value buffer,
                                                  int64_t extent, int64_t term,
                                                  int64_t mt, int64_t block,
                                                  int64_t step) const {
  const int64_t blocks = extent / (4 * s.chunk);
  int64_t group =
      ((term * s.mTiles() + mt) * blocks + block) * s.stepsPerChunk() + step;
  Value at =
      e.mulI(e.addI(e.idx(group * 128), e.mulI(ids.lane, 4)), s.elementsPerWord());
  SmallVector<Value> w =
      e.words(e.loadVector(buffer, {at}, 4 * s.elementsPerWord()));
  return {w[0], w[1], w[2], w[3]};
}

TilePages TileOpLowering::tilePages(WarpEmitter &e, Value tileStart) const {
  Value parity = e.andI(e.shr(tileStart, llvm::Log2_64(kTileTokens)), 1);
  TilePages pages{e.mulI(e.toIndex(parity), pagesPerTile(s.pageSize)), {}};
  if (s.pageSize > kTileTokens)
    pages.firstSlot = e.toIndex(e.rem(tileStart, s.pageSize));
  return pages;
}

std::pair<Value, Value> TileOpLowering::locate(WarpEmitter &e,
                                               const TilePages &pages,
                                               Value token) const {
  if (pages.firstSlot)
    return {e.toIndex(e.load(buffers.pageIds, {pages.idBase})),
            e.addI(pages.firstSlot, token)};
  Value id =
      e.load(buffers.pageIds, {e.addI(pages.idBase, e.div(token, s.pageSize))});
  return {e.toIndex(id), e.rem(token, s.pageSize)};
}

SmallVector<Value, 5> TileOpLowering::cacheIndices(WarpEmitter &e,
                                                   CacheOperand operand,
                                                   Value page, Value kvHead,
                                                   Value slot, Value d) const {
  return buildCacheElementIndices(
      e.b, e.b.getLoc(), s.layout, operand,
      s.transposedV ? VLayout::transposed : VLayout::plain, s.chunk, page,
      kvHead, slot, d, [&](TypedAttr value) -> Value {
        return arith::ConstantOp::create(e.b, value);
      });
}

TileOpLowering::RowTokens TileOpLowering::rowTokens(WarpEmitter &e,
                                                    Value m) const {
  ImplicitLocOpBuilder &b = e.b;
  Value row = e.toI64(e.addI(state.rowBase, m));
  Value isRow =
      e.cmpI(CmpIPredicate::slt, row, e.i64(s.queryLength * s.groupSize));
  Value end =
      buildVisibleEnd(b, b.getLoc(), state.contextLength, s.queryLength,
                      arith::DivSIOp::create(b, row, e.i64(s.groupSize)));
  Value begin = buildVisibleBegin(b, b.getLoc(), end, s.window, /*clamp=*/true);
  return {isRow, begin, end};
}

std::pair<Value, Value> TileOpLowering::groupPositions(WarpEmitter &e) const {
  Value rowBase = e.toI64(state.rowBase);
  Value lastRow = e.subI(e.minSI(e.addI(rowBase, e.i64(s.rows)),
                                 e.i64(s.queryLength * s.groupSize)),
                         e.i64(1));
  return {arith::DivSIOp::create(e.b, rowBase, e.i64(s.groupSize)),
          arith::DivSIOp::create(e.b, lastRow, e.i64(s.groupSize))};
}

Value TileOpLowering::rowSees(WarpEmitter &e, const RowTokens &row,
                              Value token) const {
  return e.andI(row.isRow, e.inRange(token, row.begin, row.end));
}

Value TileOpLowering::tensorScale(WarpEmitter &e, Value scales) const {
  // Loaded once, before the tile loop: inside it, each tile's load waited
  // a round trip to memory behind the barrier that starts pv.
  OpBuilder::InsertionGuard guard(e.b);
  Operation *loop = nullptr;
  for (Operation *op = e.b.getInsertionBlock()->getParentOp(); op;
       op = op->getParentOp())
    if (isa<scf::ForOp>(op) &&
        !op->isAncestor(scales.getParentBlock()->getParentOp()))
      loop = op;
  if (loop)
    e.b.setInsertionPoint(loop);
  return toF32(e, e.load(scales, {e.idx(0)}));
}

Value TileOpLowering::tokenScale(WarpEmitter &e, ScaleMode mode, Value scales,
                                 const TilePages &pages, Value kvHead,
                                 Value token) const {
  switch (mode) {
  case ScaleMode::none:
    return e.f32(1.0);
  case ScaleMode::per_tensor:
    return tensorScale(e, scales);
  case ScaleMode::per_token: {
    auto [page, slot] = locate(e, pages, token);
    return toF32(e, e.load(scales, {page, kvHead, slot}));
  }
  }
  llvm_unreachable("unknown scale mode");
}

void TileOpLowering::storeProbTerms(WarpEmitter &e, Value m, Value token,
                                    Value x0, Value x1) const {
  ImplicitLocOpBuilder &b = e.b;
  auto at = [&](int64_t term) {
    return fragmentIndex(e, kTileTokens, term, m, token);
  };
  auto storePair = [&](int64_t term, Value packed) {
    // `packed`: the two operands, token first, in the low bits.
    int64_t bits = 2 * 8 * s.operandBytes();
    Value asVector = vector::BroadcastOp::create(
        b, VectorType::get({1}, b.getIntegerType(bits)), packed);
    Value pair = vector::BitCastOp::create(
        b, VectorType::get({2}, s.operandType(b.getContext())), asVector);
    e.storeVector(pair, buffers.probs, {at(term)});
  };
  switch (s.products) {
  case Products::F16:
    storePair(0, e.packF16x2(x0, x1));
    return;
  case Products::BF16: {
    Value hi = e.packBF16x2(x0, x1);
    auto [hi0, hi1] = e.unpackBF16x2(hi);
    storePair(0, hi);
    storePair(1, e.packBF16x2(e.subF(x0, hi0), e.subF(x1, hi1)));
    return;
  }
  case Products::E4M3: {
    for (int64_t term = 0; term < s.probTerms(); ++term) {
      Value packed = e.packE4M3x2(x0, x1);
      storePair(term, packed);
      if (term + 1 < s.probTerms()) {
        auto [back0, back1] = e.unpackE4M3x2(packed);
        x0 = e.subF(x0, back0);
        x1 = e.subF(x1, back1);
      }
    }
    return;
  }
  }
}

Value TileOpLowering::toF32(WarpEmitter &e, Value x) {
  if (x.getType().isF32())
    return x;
  return arith::ExtFOp::create(e.b, e.b.getF32Type(), x);
}

SmallVector<Value> TileOpLowering::kvWords(WarpEmitter &e, Value chunk) const {
  SmallVector<Value> raw = e.words(chunk);
  if (s.products != Products::F16)
    return raw;
  ImplicitLocOpBuilder &b = e.b;
  SmallVector<Value> halves;
  for (Value word : raw) {
    Value low = arith::TruncIOp::create(b, b.getI16Type(), word);
    Value high = arith::TruncIOp::create(b, b.getI16Type(), e.shr(word, 16));
    halves.push_back(e.e4m3x2ToF16x2(low));
    halves.push_back(e.e4m3x2ToF16x2(high));
  }
  return halves;
}

std::array<Value, 2> TileOpLowering::bFragment(ArrayRef<Value> chunk,
                                               int64_t step) {
  return {chunk[2 * step], chunk[2 * step + 1]};
}

Accumulator TileOpLowering::mma(WarpEmitter &e, std::array<Value, 4> a,
                                std::array<Value, 2> b,
                                const Accumulator &c) const {
  switch (s.products) {
  case Products::E4M3:
    return e.mmaE4M3(a, b, c);
  case Products::F16:
    return e.mma(/*bf16=*/false, a, b, c);
  case Products::BF16:
    return e.mma(/*bf16=*/true, a, b, c);
  }
  llvm_unreachable("unknown products");
}

Accumulator TileOpLowering::zeros(WarpEmitter &e) const {
  Value zero = e.f32(0.0);
  return {zero, zero, zero, zero};
}

Value TileOpLowering::keyAheadIndex(WarpEmitter &e, int64_t block,
                                    int64_t j) const {
  return e.mulI(e.addI(ids.tid, (block * 8 + j) * kWorkgroupThreads), s.chunk);
}

void TileOpLowering::forEachKeyAheadChunk(
    WarpEmitter &e, Value tileStart,
    function_ref<void(int64_t, int64_t, ValueRange)> chunk) const {
  TilePages tile = tilePages(e, tileStart);
  Value warpTokens = e.mulI(ids.warp, kTokensPerWarp);
  for (int64_t j = 0; j < kTokensPerWarp / 8; ++j) {
    auto [page, slot] =
        locate(e, tile, e.addI(warpTokens, e.addI(ids.g, 8 * j)));
    for (int64_t block = 0; block < s.keyAheadBlocks; ++block)
      chunk(block, j,
            {page, state.kvHead, e.addI(ids.t, 4 * block), slot, e.idx(0)});
  }
}

void TileOpLowering::copyKeysAhead(WarpEmitter &e, Value tileStart) const {
  forEachKeyAheadChunk(
      e, tileStart, [&](int64_t block, int64_t j, ValueRange indices) {
        e.copyAsync16(buffers.keyAhead, {keyAheadIndex(e, block, j)},
                      state.keyCache, indices);
      });
}

SmallVector<Value> TileOpLowering::loadKeysAhead(WarpEmitter &e, Value exists,
                                                 Value tileStart) const {
  SmallVector<Type> types;
  for (Value chunk : state.keysAhead)
    types.push_back(chunk.getType());
  return e.ifValues(
      exists, types,
      [&] {
        SmallVector<Value> chunks(types.size());
        forEachKeyAheadChunk(
            e, tileStart, [&](int64_t block, int64_t j, ValueRange indices) {
              chunks[block * 8 + j] =
                  e.loadVectorOnce(state.keyCache, indices, s.chunk);
            });
        return chunks;
      },
      [&] {
        return llvm::map_to_vector(types,
                                   [&](Type type) { return e.zero(type); });
      });
}

void TileOpLowering::copyKeyStage(WarpEmitter &e, Value tileStart) const {
  e.ifThen(e.cmpI(CmpIPredicate::eq, ids.warp, e.idx(0)), [&] {
    Value idBase = tilePages(e, tileStart).idBase;
    e.ifThen(e.cmpI(CmpIPredicate::eq, ids.lane, e.idx(0)), [&] {
      e.arriveExpectingBytes(buffers.keyBarrier,
                             s.keyStageRows() * s.keyStageRowBytes());
    });
    const int64_t pages = pagesPerTile(s.pageSize);
    for (int64_t first = 0; first < s.keyStageRows(); first += 32) {
      Value row = e.addI(ids.lane, first);
      auto copyRow = [&] {
        Value t = e.rem(row, 4), page = e.rem(e.div(row, 4), pages);
        Value block = e.div(row, 4 * pages);
        Value id = e.toIndex(e.load(buffers.pageIds, {e.addI(idBase, page)}));
        e.copyBulk(buffers.keyStage, {e.mulI(row, s.keyStageRowStride())},
                   state.keyCache,
                   {id, state.kvHead, e.addI(e.mulI(block, 4), t), e.idx(0),
                    e.idx(0)},
                   s.keyStageRowBytes(), buffers.keyBarrier);
      };
      if (first + 32 <= s.keyStageRows())
        copyRow();
      else
        e.ifThen(e.cmpI(CmpIPredicate::ult, row, e.idx(s.keyStageRows())),
                 copyRow);
    }
  });
}

Value TileOpLowering::keyStageIndex(WarpEmitter &e, int64_t block,
                                    Value token) const {
  Value row = e.addI(e.addI(e.mulI(e.div(token, s.pageSize), 4), ids.t),
                     block * pagesPerTile(s.pageSize) * 4);
  return e.addI(e.mulI(row, s.keyStageRowStride()),
                e.mulI(e.rem(token, s.pageSize), s.chunk));
}

void TileOpLowering::setKeysAhead(ValueRange chunks, bool initial) const {
  scf::ForOp loop = state.ops.tileLoop;
  // keysAhead are the loop's last iteration arguments (carryKeysAhead).
  MutableOperandRange operands =
      initial ? loop.getInitArgsMutable()
              : cast<scf::YieldOp>(loop.getBody()->getTerminator())
                    .getResultsMutable();
  const unsigned first = operands.size() - chunks.size();
  for (auto [i, chunk] : llvm::enumerate(chunks))
    operands[first + i].set(chunk);
}

void TileOpLowering::copyValueStage(WarpEmitter &e, const TilePages &tile,
                                    Value valueCache, Value kvHead) const {
  e.ifThen(e.cmpI(CmpIPredicate::eq, ids.tid, e.idx(0)), [&] {
    e.arriveExpectingBytes(buffers.valueBarrier,
                           s.valueUnits() * s.valueUnitBytes());
    const int64_t unitsPerPage = s.pageSize / s.valueUnitTokens();
    for (int64_t first = 0; first < s.valueUnits(); first += unitsPerPage) {
      Value page = locate(e, tile, e.idx(first * s.valueUnitTokens())).first;
      // A page may hold more units than a partial stage (a transposed V's
      // page of 128 tokens: 8 units, one block of fp8 4).
      const int64_t end = std::min(first + unitsPerPage, s.valueUnits());
      for (int64_t u = first; u < end; ++u) {
        // Transposed V: [page, head, slot group, D, E]; plain: [page,
        // head, D, P].
        SmallVector<Value> source =
            s.transposedV
                ? SmallVector<Value>{page, kvHead, e.idx(u - first), e.idx(0),
                                     e.idx(0)}
                : SmallVector<Value>{page, kvHead, e.idx(0), e.idx(0)};
        e.copyBulk(buffers.valueStage, {e.idx(u * s.valueUnitStride())},
                   valueCache, source, s.valueUnitBytes(),
                   buffers.valueBarrier);
      }
    }
  });
}

void TileOpLowering::prefetchPages(WarpEmitter &e, const TilePages &tile,
                                   Value cache, Value kvHead,
                                   int64_t bytes) const {
  const int64_t pages = pagesPerTile(s.pageSize);
  Value lane = e.andI(e.cmpI(CmpIPredicate::eq, ids.warp, e.idx(kWarps - 1)),
                      e.cmpI(CmpIPredicate::ult, ids.lane, e.idx(pages)));
  // A partition of fewer tiles does not prefetch: its trip count
  // ceil(span / step) >= min tiles, i.e. span > step * (min tiles - 1)
  // (loop-invariant: hoisted).
  if (s.prefetchMinTiles > 1) {
    scf::ForOp loop = state.ops.tileLoop;
    Value span = e.subI(loop.getUpperBound(), loop.getLowerBound());
    lane = e.andI(lane, e.cmpI(CmpIPredicate::sgt, span,
                               e.mulI(loop.getStep(), s.prefetchMinTiles - 1)));
  }
  e.ifThen(lane, [&] {
    Value id =
        e.toIndex(e.load(buffers.pageIds, {e.addI(tile.idBase, ids.lane)}));
    SmallVector<Value> indices = {id, kvHead};
    indices.resize(cast<MemRefType>(cache.getType()).getRank(), e.idx(0));
    e.prefetchL2(cache, indices, bytes);
  });
}

Value TileOpLowering::tilePhase(WarpEmitter &e) const {
  scf::ForOp loop = state.ops.tileLoop;
  Value iteration = arith::DivUIOp::create(
      e.b, e.subI(loop.getInductionVar(), loop.getLowerBound()),
      loop.getStep());
  Value parity = e.rem(iteration, 2);
  Type i32 = e.b.getI32Type();
  if (parity.getType().isIndex())
    return arith::IndexCastUIOp::create(e.b, i32, parity);
  if (parity.getType() == i32) // a loop on i32
    return parity;
  return arith::TruncIOp::create(e.b, i32, parity);
}

Value TileOpLowering::chunkTokenOf(WarpEmitter &e, int64_t block) const {
  return e.addI(e.mulI(ids.t, s.chunk), block * 4 * s.chunk);
}

bool TileOpLowering::interleavedColumns(int64_t nBlocks) const {
  return s.layout != CacheLayout::packed && s.pvDim() == s.headDim &&
         llvm::isPowerOf2_64(nBlocks);
}

Value TileOpLowering::pvColumn(WarpEmitter &e, int64_t first, int64_t nBlocks,
                               int64_t nb, Value n) const {
  if (interleavedColumns(nBlocks))
    return e.addI(e.mulI(n, nBlocks), first * 8 + nb);
  return e.addI(n, (first + nb) * 8);
}

SmallVector<Value> TileOpLowering::loadValueChunks(WarpEmitter &e, TilePVOp op,
                                                   const TilePages &tile,
                                                   int64_t first,
                                                   int64_t nBlocks,
                                                   int64_t block) const {
  Value warpColumns = e.mulI(ids.warp, s.pvDim() / kWarps);
  Value firstToken = chunkTokenOf(e, block);
  // Column n = g of n-block nb (pvColumn), pad columns (past D) read at
  // column D - 1.
  auto columnOf = [&](int64_t nb) {
    Value column = e.addI(warpColumns, pvColumn(e, first, nBlocks, nb, ids.g));
    if (s.pvDim() == s.headDim)
      return column;
    return e.select(e.cmpI(CmpIPredicate::ult, column, e.idx(s.headDim)), column,
                    e.idx(s.headDim - 1));
  };
  SmallVector<Value> chunks;
  if (s.layout != CacheLayout::packed) {
    // nhd / hnd keep a token's head dims together, not a head dim's
    // tokens: a chunk is E tokens' loads (each token placed through its
    // own page id where pages are shorter than E).
    SmallVector<std::pair<Value, Value>> places;
    if (s.pageSize % s.chunk == 0) {
      auto [page, slot] = locate(e, tile, firstToken);
      for (int64_t k = 0; k < s.chunk; ++k)
        places.push_back({page, e.addI(slot, k)});
    } else {
      for (int64_t k = 0; k < s.chunk; ++k)
        places.push_back(locate(e, tile, e.addI(firstToken, k)));
    }
    Type element =
        cast<MemRefType>(op.getValueCache().getType()).getElementType();
    // elements[nb][k]: token k's value in n-block nb's column.
    SmallVector<SmallVector<Value>> elements(nBlocks);
    if (interleavedColumns(nBlocks)) {
      // Each warp reads its D / 4 columns of a token's row: the first
      // warp's load brings the row's 256-byte block into L2 for the rest.
      for (auto [page, slot] : places) {
        Value columns =
            e.loadVectorL2Block(op.getValueCache(),
                                cacheIndices(e, CacheOperand::value, page,
                                             op.getKvHead(), slot, columnOf(0)),
                                nBlocks);
        for (int64_t nb = 0; nb < nBlocks; ++nb)
          elements[nb].push_back(e.extract(columns, nb));
      }
    } else {
      for (int64_t nb = 0; nb < nBlocks; ++nb)
        for (auto [page, slot] : places)
          elements[nb].push_back(
              e.load(op.getValueCache(),
                     cacheIndices(e, CacheOperand::value, page, op.getKvHead(),
                                  slot, columnOf(nb))));
    }
    for (int64_t nb = 0; nb < nBlocks; ++nb)
      chunks.push_back(vector::FromElementsOp::create(
          e.b, VectorType::get({s.chunk}, element), elements[nb]));
    return chunks;
  }
  if (block < s.valueStageBlocks) {
    // Column c, token k of the unit holding the chunk's tokens.
    const int64_t unitTokens = s.valueUnitTokens();
    Value unitStart =
        e.mulI(e.div(firstToken, unitTokens), s.valueUnitStride());
    Value inUnit = e.rem(firstToken, unitTokens);
    for (int64_t nb = 0; nb < nBlocks; ++nb)
      chunks.push_back(e.loadVector(
          buffers.valueStage,
          {e.addI(unitStart, e.addI(e.mulI(columnOf(nb), unitTokens), inUnit))},
          s.chunk));
    return chunks;
  }
  auto [page, slot] = locate(e, tile, firstToken);
  for (int64_t nb = 0; nb < nBlocks; ++nb) {
    Value column = columnOf(nb);
    SmallVector<Value> indices =
        s.transposedV
            ? SmallVector<Value>{page, op.getKvHead(), e.div(slot, s.chunk),
                                 column, e.idx(0)}
            : SmallVector<Value>{page, op.getKvHead(), column, slot};
    chunks.push_back(e.loadVectorOnce(op.getValueCache(), indices, s.chunk));
  }
  return chunks;
}
