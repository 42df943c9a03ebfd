//===- ArithEmitter.h - arith / math one-liners of the emitters -*- C++ -*-===//
//
// The element arithmetic that every lowering's emitter builds (the tile
// ops' loop lowering, AMD's lane code, NVIDIA's warp code): one op per call
// at an ImplicitLocOpBuilder's insertion point, on scalars or vectors. The
// emitters derive from it and add their own constants (cached or not),
// index math and target operations.
//
//===----------------------------------------------------------------------===//
#ifndef PA_TRANSFORMS_ARITHEMITTER_H
#define PA_TRANSFORMS_ARITHEMITTER_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::pa {

class ArithEmitter {
public:
  explicit ArithEmitter(ImplicitLocOpBuilder &b) : b(b) {}

  ImplicitLocOpBuilder &b;

  //===--- integers ------------------------------------------------------===//
  Value addI(Value x, Value y) { return arith::AddIOp::create(b, x, y); }
  Value subI(Value x, Value y) { return arith::SubIOp::create(b, x, y); }
  Value mulI(Value x, Value y) { return arith::MulIOp::create(b, x, y); }
  Value andI(Value x, Value y) { return arith::AndIOp::create(b, x, y); }
  Value xorI(Value x, Value y) { return arith::XOrIOp::create(b, x, y); }
  Value maxSI(Value x, Value y) { return arith::MaxSIOp::create(b, x, y); }
  Value minSI(Value x, Value y) { return arith::MinSIOp::create(b, x, y); }
  Value cmpI(arith::CmpIPredicate predicate, Value x, Value y) {
    return arith::CmpIOp::create(b, predicate, x, y);
  }
  Value select(Value condition, Value x, Value y) {
    return arith::SelectOp::create(b, condition, x, y);
  }
  /// begin <= x < end (signed).
  Value inRange(Value x, Value begin, Value end) {
    return andI(cmpI(arith::CmpIPredicate::sge, x, begin),
                cmpI(arith::CmpIPredicate::slt, x, end));
  }
  /// An index or a narrower integer as i64 (sign-extended).
  Value toI64(Value x) {
    if (x.getType().isIndex())
      return arith::IndexCastOp::create(b, b.getI64Type(), x);
    return arith::ExtSIOp::create(b, b.getI64Type(), x);
  }
  Value toIndex(Value x) {
    return arith::IndexCastOp::create(b, b.getIndexType(), x);
  }
  /// An index as i32 (a value known to fit: tile numbers, lane offsets).
  Value toI32(Value index) {
    return arith::IndexCastOp::create(b, b.getI32Type(), index);
  }

  //===--- floats --------------------------------------------------------===//
  Value addF(Value x, Value y) { return arith::AddFOp::create(b, x, y); }
  Value subF(Value x, Value y) { return arith::SubFOp::create(b, x, y); }
  Value mulF(Value x, Value y) { return arith::MulFOp::create(b, x, y); }
  Value divF(Value x, Value y) { return arith::DivFOp::create(b, x, y); }
  /// x * y + z rounded once.
  Value fma(Value x, Value y, Value z) {
    return math::FmaOp::create(b, x, y, z);
  }
  /// NaN-propagating maximum (the reference lowering's).
  Value maxF(Value x, Value y) { return arith::MaximumFOp::create(b, x, y); }
  /// Maximum ignoring NaN (one v_max_f32 on AMD): for maxima whose NaN
  /// inputs make the result NaN anyway through the sums they feed.
  Value maxNumF(Value x, Value y) { return arith::MaxNumFOp::create(b, x, y); }
  Value absF(Value x) { return math::AbsFOp::create(b, x); }
  Value negF(Value x) { return arith::NegFOp::create(b, x); }
  Value exp2(Value x) { return math::Exp2Op::create(b, x); }
  Value cmpF(arith::CmpFPredicate predicate, Value x, Value y) {
    return arith::CmpFOp::create(b, predicate, x, y);
  }
  /// x == y, false where either is NaN.
  Value eqF(Value x, Value y) { return cmpF(arith::CmpFPredicate::OEQ, x, y); }
  Value extF(Type type, Value x) { return arith::ExtFOp::create(b, type, x); }
  Value truncF(Type type, Value x) {
    return arith::TruncFOp::create(b, type, x);
  }
};

} // namespace mlir::pa

#endif // PA_TRANSFORMS_ARITHEMITTER_H
