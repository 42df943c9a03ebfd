//===- LoadQueryToWarps.cpp - pa.tile.load_query on NVIDIA warps ----------===//
//
// The pattern of pa.tile.load_query: each warp reads query rows, turns
// a row with a NaN or infinity into NaN, and stores the products' query
// terms (scaled per row by a power of two for f16 and e4m3 products) as
// A fragments in shared memory (fragmentIndex).
//
//===----------------------------------------------------------------------===//
#include "DecodeLowering.h"

using namespace mlir;
using namespace mlir::pa;
using namespace mlir::pa::nvvm;
using arith::CmpIPredicate;

namespace {

/// pa.tile.load_query: the query rows as A fragments of the products'
/// operand terms in shared memory.
struct LoadQueryToWarps final : TileOpToWarps<TileLoadQueryOp> {
  using TileOpToWarps::TileOpToWarps;

  void lower(TileLoadQueryOp op, WarpEmitter &e,
             PatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder &b = e.b;
    // Columns past D (up to qkDim) hold zeros.
    const int64_t perLane = s.qkDim() / 32;
    const int64_t queryRows = op.getQueryLength() * op.getGroupSize();
    Value group = e.idx(op.getGroupSize());
    Type element = cast<MemRefType>(op.getQuery().getType()).getElementType();
    // Every row's loads first (a branch per row that yields the values, 0
    // past D and for rows past the query's), then the conversions: with
    // a row's loads next to its conversion, each row of a warp waited for
    // the previous row's stores, one memory round trip per row (2 at
    // G = 8, 8 for 32-row tiles) before the first tile could start.
    struct Row {
      Value m, isRow;
      SmallVector<Value> values, columns;
    };
    SmallVector<Row> rows;
    for (int64_t i = 0; i < s.rows / kWarps; ++i) {
      Row &r = rows.emplace_back();
      r.m = e.addI(ids.warp, i * kWarps);
      Value row = e.addI(op.getRowBase(), r.m);
      r.isRow = e.cmpI(CmpIPredicate::ult, row, e.idx(queryRows));
      for (int64_t k = 0; k < perLane; ++k)
        r.columns.push_back(e.addI(ids.lane, 32 * k));
      r.values = e.ifValues(
          r.isRow, SmallVector<Type>(perLane, element),
          [&] {
            Value queryRow = e.addI(e.mulI(op.getSequence(), op.getQueryLength()),
                                   arith::DivUIOp::create(b, row, group));
            Value head = e.addI(e.mulI(op.getKvHead(), op.getGroupSize()),
                               arith::RemUIOp::create(b, row, group));
            SmallVector<Value> values;
            for (auto [k, d] : llvm::enumerate(r.columns)) {
              if (32 * (int64_t(k) + 1) > s.headDim) {
                // Read inside the row, then 0 past D.
                Value inRow = e.cmpI(CmpIPredicate::ult, d, e.idx(s.headDim));
                Value x = e.load(
                    op.getQuery(),
                    {queryRow, head, e.select(inRow, d, e.idx(s.headDim - 1))});
                values.push_back(e.select(inRow, x, e.zero(element)));
              } else {
                values.push_back(e.load(op.getQuery(), {queryRow, head, d}));
              }
            }
            return values;
          },
          [&]() -> SmallVector<Value> {
            return SmallVector<Value>(perLane, e.zero(element));
          });
    }
    // The conversions go just before the first op that reads the query
    // tile (the tile loop), after pa-stage-page-ids' staging: the block
    // table's reads are then in flight together with the query's.
    if (Operation *reader = firstQueryReader(op))
      b.setInsertionPoint(reader);
    for (Row &r : rows) {
      e.ifThenElse(
          r.isRow,
          [&] {
            SmallVector<Value> values;
            for (Value x : r.values)
              values.push_back(toF32(e, x));
            // A row holding a NaN or infinity becomes NaN as a whole
            // (pa.tile.load_query): 0 * x is NaN exactly for those.
            Value zero = e.f32(0.0);
            Value poison = zero;
            for (Value x : values)
              poison = e.addF(poison, e.mulF(x, zero));
            for (int64_t offset = 16; offset >= 1; offset /= 2)
              poison = e.addF(poison, e.shuffleXor(poison, offset));
            for (Value &x : values)
              x = e.addF(x, poison);
            storeQueryRow(e, r.m, values, r.columns);
          },
          [&] {
            Value zero = e.constant(s.operandType(b.getContext()), 0);
            for (int64_t term = 0; term < s.queryTerms(); ++term)
              for (Value d : r.columns)
                e.store(zero, buffers.query,
                        {fragmentIndex(e, s.qkDim(), term, r.m, d)});
            if (buffers.rowScale)
              e.ifThen(e.cmpI(CmpIPredicate::eq, ids.lane, e.idx(0)),
                       [&] { e.store(e.f32(1.0), buffers.rowScale, {r.m}); });
          });
    }
    e.barrier();
  }

private:
  /// The first op after `op` in its block that reads the query tile (in
  /// its regions), or null.
  static Operation *firstQueryReader(TileLoadQueryOp op) {
    Block *block = op->getBlock();
    Operation *first = nullptr;
    for (Operation *user : op.getQueryTile().getUsers()) {
      Operation *ancestor = block->findAncestorOpInBlock(*user);
      if (!ancestor || ancestor == op || ancestor->isBeforeInBlock(op))
        continue;
      if (!first || ancestor->isBeforeInBlock(first))
        first = ancestor;
    }
    return first;
  }

  /// Stores one row's operand terms (`values`, at `columns`).
  void storeQueryRow(WarpEmitter &e, Value m, ArrayRef<Value> values,
                     ArrayRef<Value> columns) const {
    ImplicitLocOpBuilder &b = e.b;
    Type f32 = b.getF32Type();
    Type narrow = s.products == Products::E4M3
                      ? Type(Float8E4M3FNType::get(b.getContext()))
                  : s.products == Products::F16 ? b.getF16Type()
                                                : b.getBF16Type();
    Value up;
    if (s.products != Products::BF16) {
      // 2^shift with amax * 2^shift in [2^top, 2^(top+1)).
      int64_t top = s.e4m3() ? llvm::Log2_64(kE4M3Headroom) - 1 : 14;
      Value amax = e.f32(0.0);
      for (Value x : values)
        amax = e.maxF(amax, e.absF(x));
      for (int64_t offset = 16; offset >= 1; offset /= 2)
        amax = e.maxF(amax, e.shuffleXor(amax, offset));
      // floor(log2(amax)) from the exponent field; a zero row gets the
      // largest shift, which is harmless.
      Value exponent = e.subI(
          e.andI(e.shr(e.bitcast(b.getI32Type(), amax), 23), 0xFF), e.i32(127));
      Value shift =
          e.minSI(e.maxSI(e.subI(e.i32(top), exponent), e.i32(-100)), e.i32(126));
      up = e.bitcast(f32, e.shl(e.addI(shift, 127), 23));
      Value down = e.bitcast(f32, e.shl(e.subI(e.i32(127), shift), 23));
      e.ifThen(e.cmpI(CmpIPredicate::eq, ids.lane, e.idx(0)),
               [&] { e.store(down, buffers.rowScale, {m}); });
    }
    for (auto [x, d] : llvm::zip(values, columns)) {
      Value rest = up ? e.mulF(x, up) : x;
      for (int64_t term = 0; term < s.queryTerms(); ++term) {
        Value part = arith::TruncFOp::create(b, narrow, rest);
        e.store(e.bitcast(s.operandType(b.getContext()), part), buffers.query,
                {fragmentIndex(e, s.qkDim(), term, m, d)});
        if (term + 1 < s.queryTerms())
          rest = e.subF(rest, arith::ExtFOp::create(b, f32, part));
      }
    }
  }
};

} // namespace

void mlir::pa::nvvm::populateLoadQueryToWarpsPatterns(
    RewritePatternSet &patterns, DecodeState &state) {
  patterns.add<LoadQueryToWarps>(patterns.getContext(), state);
}
