//===- LoadQueryToMFMA.cpp - pa.tile.load_query on wave64 lanes ----------===//
//
// The query row group into LDS, once per workgroup, before the tile loop:
// quantized per row to fp8 (its scale to `stats`) or rounded to bf16, in
// the order the QK product reads it (wideQueryWord for 16x16x128), as
// the terms the QK product takes (DecodeLanes::queryTerms).
//
//===----------------------------------------------------------------------===//
#include "DecodeLowering.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::pa;
using namespace mlir::pa::mfma;

namespace {

/// Each wave quantizes whole query rows: a row's D values are spread over
/// lanesPerRow lanes of 4 * unitsPerLane consecutive values; the row's
/// max |q| is a butterfly over those lanes. fp8: q8 = q * (fp8_max /
/// max|q|), the scale max|q| / fp8_max goes to `stats`; bf16: q rounded.
void stageQuery(const DecodeLanes &lanes, TileLoadQueryOp op,
                ImplicitLocOpBuilder &b) {
  const DecodeShape &s = lanes.s;
  Value tid = lanes.tid, wave = lanes.wave, lane = lanes.lane;
  Value scratch = lanes.scratch, stats = lanes.stats;
  Type f32 = lanes.f32;
  LaneBuilder l(b);
  Value firstThread = l.cmpI(arith::CmpIPredicate::eq, tid, l.index(0));
  scf::IfOp::create(b, firstThread, [&](OpBuilder &nested, Location loc) {
    ImplicitLocOpBuilder nb(loc, nested);
    LaneBuilder nl(nb);
    memref::StoreOp::create(nb, nl.i32(0), scratch,
                            ValueRange{nl.index(lanes.zeroWord())});
    scf::YieldOp::create(nb);
  });
  // 4 values per unit; a power of two of lanes per row so that rows never
  // straddle waves (D = 192: 16 lanes of 3 units; D = 80: 4 lanes of 5).
  const int64_t units = s.headDim / 4;
  const int64_t lanesPerRow = std::min<int64_t>(
      kWaveLanes,
      int64_t{1} << llvm::countr_zero(static_cast<uint64_t>(units)));
  const int64_t unitsPerLane = units / lanesPerRow;
  const int64_t rowsPerPass = kWaveLanes / lanesPerRow;
  const int64_t rowsPerRound = kWaves * rowsPerPass;
  const int64_t values = 4 * unitsPerLane;
  auto queryType = cast<MemRefType>(op.getQuery().getType());
  auto loadType = VectorType::get({values}, queryType.getElementType());
  auto wideType = VectorType::get({values}, f32);
  IndexExpr laneExpr = l.idx(lane);
  IndexExpr laneInRow = laneExpr % lanesPerRow;
  IndexExpr rowInPass = laneExpr / lanesPerRow;
  SmallVector<int32_t> rowLanes;
  for (int64_t distance = 1; distance < lanesPerRow; distance *= 2)
    rowLanes.push_back(static_cast<int32_t>(distance));

  // The rounds of rows as a run-time loop: unrolled, its 8 rounds at
  // D = 256 and 32 rows were 10% of the decode kernel's code (compile
  // time), for work done once per workgroup. With few lanes per row (D =
  // 80: 64 rows a round) one round holds more rows than the group: the
  // lanes of rows m >= rows compute nothing they store (two waves storing
  // the same row would race).
  const int64_t rounds = std::max<int64_t>(1, s.rows / rowsPerRound);
  Value round = l.index(0);
  if (rounds > 1) {
    auto roundLoop =
        scf::ForOp::create(b, l.index(0), l.index(rounds), l.index(1));
    b.setInsertionPointToStart(roundLoop.getBody());
    round = roundLoop.getInductionVar();
  }
  {
    IndexExpr m =
        l.idx(round) * rowsPerRound + l.idx(wave) * rowsPerPass + rowInPass;
    IndexExpr row = l.idx(op.getRowBase()) + m;
    Value isQueryRow =
        l.cmpI(arith::CmpIPredicate::ult, row, l.index(s.totalRows));
    // Null where every lane's row is one of the group's.
    Value ownsRow;
    if (rowsPerRound > s.rows) {
      ownsRow = l.cmpI(arith::CmpIPredicate::ult, m, l.index(s.rows));
      isQueryRow = l.andI(isQueryRow, ownsRow);
    }
    // `store` where the lane's row is the group's.
    auto ifOwnsRow = [&](function_ref<void()> store) {
      if (!ownsRow)
        return store();
      OpBuilder::InsertionGuard guard(b);
      auto owned = scf::IfOp::create(b, ownsRow, /*withElseRegion=*/false);
      b.setInsertionPointToStart(&owned.getThenRegion().front());
      store();
    };
    IndexExpr d0 = laneInRow * values;
    auto read = scf::IfOp::create(
        b, isQueryRow,
        [&](OpBuilder &nested, Location loc) {
          ImplicitLocOpBuilder nb(loc, nested);
          LaneBuilder nl(nb);
          IndexExpr r = nl.idx(row.get());
          Value queryRow =
              nl.idx(op.getSequence()) * s.queryLength + r / s.groupSize;
          Value head = nl.idx(op.getKvHead()) * s.groupSize + r % s.groupSize;
          Value q = vector::LoadOp::create(nb, loadType, op.getQuery(),
                                           ValueRange{queryRow, head, d0});
          if (queryType.getElementType() != f32)
            q = nl.extF(wideType, q);
          scf::YieldOp::create(nb, q);
        },
        [&](OpBuilder &nested, Location loc) {
          ImplicitLocOpBuilder nb(loc, nested);
          scf::YieldOp::create(nb, LaneBuilder(nb).splatConstant(wideType, 0));
        });
    // A row holding a NaN or infinity becomes NaN as a whole
    // (pa.tile.load_query): 0 * q is NaN exactly for those elements.
    Value q = read.getResult(0);
    Value poisoned = l.mulF(q, l.splatConstant(wideType, 0.0));
    Value poison = l.extract(poisoned, 0);
    for (int64_t e = 1; e < values; ++e)
      poison = l.addF(poison, l.extract(poisoned, e));
    poison = l.butterfly(poison, rowLanes,
                         [&](Value x, Value y) { return l.addF(x, y); });
    q = l.addF(q, l.broadcast(wideType, poison));
    Value rowWord = m * lanes.queryRowWords;
    auto storeWords = [&](Value packed, int64_t words, int64_t base) {
      auto wordType = VectorType::get({words}, b.getI32Type());
      // A lane's words stay within one 16-value run (words <= 4 | 4 w).
      IndexExpr word = laneInRow * words;
      if (lanes.wideQK)
        word = wideQueryWord(word);
      Value bits = l.bitcast(wordType, packed);
      ifOwnsRow([&] {
        vector::StoreOp::create(
            b, bits, scratch, ValueRange{(l.idx(rowWord) + word + base).get()},
            /*nontemporal=*/false,
            llvm::Align(int64_t{4}
                        << llvm::countr_zero(static_cast<uint64_t>(words))));
      });
    };
    // The query's terms: term k + 1 is the rounding (`round`) of what
    // terms 0..k missed, `words` i32 words per lane.
    auto storeTerms = [&](Value rest, function_ref<Value(Value)> round,
                          int64_t words) {
      for (int64_t term = 0; term < lanes.queryTerms; ++term) {
        Value rounded = round(rest);
        storeWords(rounded, words, lanes.queryTermWord(term));
        if (term + 1 < lanes.queryTerms)
          rest = l.subF(rest, l.extF(wideType, rounded));
      }
    };
    if (!s.fp8Compute()) {
      auto computeVector = VectorType::get({values}, s.computeType);
      storeTerms(
          q, [&](Value v) { return l.truncF(computeVector, v); },
          values * lanes.computeBytes / 4);
      return;
    }
    Value absMax = l.absF(l.extract(q, 0));
    for (int64_t e = 1; e < values; ++e)
      absMax = l.maxF(absMax, l.absF(l.extract(q, e)));
    absMax = l.butterfly(absMax, rowLanes,
                         [&](Value x, Value y) { return l.maxF(x, y); });
    double fp8Max = largestFinite(s.computeType);
    Value zero = l.f32(0.0);
    Value isZero = l.cmpF(arith::CmpFPredicate::OEQ, absMax, zero);
    Value inverse = l.select(isZero, zero, l.divF(l.f32(fp8Max), absMax));
    // fp8 terms in the row's scale: |term k| <= fp8_max / 16^k, in range.
    storeTerms(
        l.mulF(q, l.broadcast(wideType, inverse)),
        [&](Value v) { return lanes.quantizeInRange(l, v); }, unitsPerLane);
    Value scale = l.divF(absMax, l.f32(fp8Max));
    Value firstLane = l.cmpI(arith::CmpIPredicate::eq, laneInRow, l.index(0));
    if (ownsRow)
      firstLane = l.andI(firstLane, ownsRow);
    scf::IfOp::create(b, firstLane, [&](OpBuilder &nested, Location loc) {
      memref::StoreOp::create(
          nested, loc, scale, stats,
          ValueRange{(l.idx(lanes.statsQueryScale()) + m).get()});
      scf::YieldOp::create(nested, loc);
    });
  }
}

/// pa.tile.load_query becomes the staging code in its place.
using LoadQueryToMFMA =
    TileOpToMFMA<TileLoadQueryOp, stageQuery, const DecodeLanes>;

} // namespace

void mfma::populateLoadQueryToMFMAPatterns(RewritePatternSet &patterns,
                                           DecodeLanes &lanes) {
  patterns.add<LoadQueryToMFMA>(patterns.getContext(), lanes);
}
