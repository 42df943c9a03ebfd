//===- ScoreMath.cpp - score transforms shared by every backend -----------===//
#include "pa/Transforms/ScoreMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <limits>

using namespace mlir;

Value mlir::pa::emitSoftCap(ImplicitLocOpBuilder &b, Value scores, float cap,
                            bool fastReciprocal) {
  Type type = scores.getType();
  auto constant = [&](float value) -> Value {
    FloatAttr scalar = b.getF32FloatAttr(value);
    if (auto vector = dyn_cast<VectorType>(type))
      return arith::ConstantOp::create(
          b, DenseElementsAttr::get(vector, scalar.getValue()));
    return arith::ConstantOp::create(b, scalar);
  };
  const double log2e = 1.4426950408889634;
  // tanh(y) = 1 - 2 / (e^(2y) + 1) with y = scores / cap, and
  // e^(2y) = exp2(scores * 2 log2(e) / cap).
  Value exponential = math::Exp2Op::create(
      b, arith::MulFOp::create(
             b, scores, constant(static_cast<float>(2.0 * log2e / cap))));
  Value denominator = arith::AddFOp::create(b, exponential, constant(1.0f));
  arith::FastMathFlags flags =
      fastReciprocal ? arith::FastMathFlags::arcp | arith::FastMathFlags::afn
                     : arith::FastMathFlags::none;
  Value reciprocal =
      arith::DivFOp::create(b, constant(1.0f), denominator,
                            arith::FastMathFlagsAttr::get(b.getContext(), flags));
  return arith::SubFOp::create(
      b, constant(cap), arith::MulFOp::create(b, constant(2.0f * cap), reciprocal));
}

Value mlir::pa::emitAlibiSlopeExp2(ImplicitLocOpBuilder &b, Value slope) {
  const double log2e = 1.4426950408889634;
  FloatAttr scalar = b.getF32FloatAttr(static_cast<float>(log2e));
  Value factor =
      isa<VectorType>(slope.getType())
          ? arith::ConstantOp::create(
                b, DenseElementsAttr::get(cast<VectorType>(slope.getType()),
                                          scalar.getValue()))
                .getResult()
          : arith::ConstantOp::create(b, scalar).getResult();
  return arith::MulFOp::create(b, slope, factor);
}

Value mlir::pa::emitAlibiBias(ImplicitLocOpBuilder &b, Value scores,
                              Value slopeExp2, Value distance) {
  Value distanceF32 =
      arith::SIToFPOp::create(b, scores.getType(), distance);
  return arith::AddFOp::create(
      b, scores, arith::MulFOp::create(b, slopeExp2, distanceF32));
}

Value mlir::pa::emitLogSumExp(ImplicitLocOpBuilder &b, Value rowMax,
                              Value den) {
  Value zero = arith::ConstantOp::create(b, b.getF32FloatAttr(0.0f));
  Value negInf = arith::ConstantOp::create(
      b, b.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
  Value sum = arith::AddFOp::create(b, rowMax, math::LogOp::create(b, den));
  Value empty =
      arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, den, zero);
  return arith::SelectOp::create(b, empty, negInf, sum);
}
