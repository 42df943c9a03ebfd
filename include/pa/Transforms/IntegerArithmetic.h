//===- IntegerArithmetic.h - scalar integer math over arith -----*- C++ -*-===//
//
// The one builder of the scalar integer arithmetic the lowerings emit (plan
// formulas, window and tile bounds, block-table widths): i64 where values
// reach 2^31 (window bounds, products of plan-sized numbers), index for
// loop bounds, i32 for what the buffers hold.
//
//===----------------------------------------------------------------------===//
#ifndef PA_TRANSFORMS_INTEGERARITHMETIC_H
#define PA_TRANSFORMS_INTEGERARITHMETIC_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

#include <utility>

namespace mlir::pa {

/// Creates arith ops at `builder`'s insertion point (wherever it is when
/// called, so it follows the builder into regions) with location `loc`.
class IntegerArithmetic {
public:
  IntegerArithmetic(OpBuilder &builder, Location loc)
      : builder(builder), loc(loc) {}

  Value i64(int64_t value) {
    return make<arith::ConstantIntOp>(builder.getI64Type(), value);
  }
  Value i32(int64_t value) {
    return make<arith::ConstantIntOp>(builder.getI32Type(), value);
  }
  Value idx(int64_t value) { return make<arith::ConstantIndexOp>(value); }
  /// An index or a narrower integer as i64 (sign-extended).
  Value toI64(Value x) {
    if (x.getType().isIndex())
      return make<arith::IndexCastOp>(builder.getI64Type(), x);
    return make<arith::ExtSIOp>(builder.getI64Type(), x);
  }
  Value toIndex(Value x) {
    return make<arith::IndexCastOp>(builder.getIndexType(), x);
  }
  Value toI32(Value x) {
    return make<arith::TruncIOp>(builder.getI32Type(), x);
  }
  Value add(Value x, Value y) { return make<arith::AddIOp>(x, y); }
  Value sub(Value x, Value y) { return make<arith::SubIOp>(x, y); }
  Value mul(Value x, Value y) { return make<arith::MulIOp>(x, y); }
  /// Division of non-negative operands (so truncation is the floor).
  Value div(Value x, Value y) { return make<arith::DivSIOp>(x, y); }
  Value min(Value x, Value y) { return make<arith::MinSIOp>(x, y); }
  Value max(Value x, Value y) { return make<arith::MaxSIOp>(x, y); }
  Value cmp(arith::CmpIPredicate predicate, Value x, Value y) {
    return make<arith::CmpIOp>(predicate, x, y);
  }
  Value select(Value condition, Value x, Value y) {
    return make<arith::SelectOp>(condition, x, y);
  }

private:
  template <typename Op, typename... Args> Value make(Args &&...args) {
    return Op::create(builder, loc, std::forward<Args>(args)...);
  }

  OpBuilder &builder;
  Location loc;
};

} // namespace mlir::pa

#endif // PA_TRANSFORMS_INTEGERARITHMETIC_H
