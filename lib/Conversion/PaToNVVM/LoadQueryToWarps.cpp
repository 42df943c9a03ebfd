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
    for (int64_t i = 0; i < s.rows / kWarps; ++i) {
      Value m = e.addI(ids.warp, i * kWarps);
      Value row = e.addI(op.getRowBase(), m);
      Value isRow = e.cmpI(CmpIPredicate::ult, row, e.idx(queryRows));
      e.ifThenElse(
          isRow,
          [&] {
            Value queryRow = e.addI(e.mulI(op.getSequence(), op.getQueryLength()),
                                   arith::DivUIOp::create(b, row, group));
            Value head = e.addI(e.mulI(op.getKvHead(), op.getGroupSize()),
                               arith::RemUIOp::create(b, row, group));
            SmallVector<Value> values, columns;
            for (int64_t k = 0; k < perLane; ++k) {
              Value d = e.addI(ids.lane, 32 * k);
              if (32 * (k + 1) <= s.headDim) {
                Value x = e.load(op.getQuery(), {queryRow, head, d});
                values.push_back(x.getType().isF32() ? x : toF32(e, x));
              } else {
                // Read inside the row, then 0 past D.
                Value inRow = e.cmpI(CmpIPredicate::ult, d, e.idx(s.headDim));
                Value x = e.load(
                    op.getQuery(),
                    {queryRow, head, e.select(inRow, d, e.idx(s.headDim - 1))});
                x = x.getType().isF32() ? x : toF32(e, x);
                values.push_back(e.select(inRow, x, e.f32(0.0)));
              }
              columns.push_back(d);
            }
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
            storeQueryRow(e, m, values, columns);
          },
          [&] {
            Value zero = e.constant(s.operandType(b.getContext()), 0);
            for (int64_t term = 0; term < s.queryTerms(); ++term)
              for (int64_t k = 0; k < perLane; ++k)
                e.store(zero, buffers.query,
                        {fragmentIndex(e, s.qkDim(), term, m,
                                       e.addI(ids.lane, 32 * k))});
            if (buffers.rowScale)
              e.ifThen(e.cmpI(CmpIPredicate::eq, ids.lane, e.idx(0)),
                       [&] { e.store(e.f32(1.0), buffers.rowScale, {m}); });
          });
    }
    e.barrier();
  }

private:
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
