//===- LaneBuilder.h - IR helpers for per-lane code -------------*- C++ -*-===//
//
// IndexExpr: an index value with integer operators, so that the layout
// functions of Layouts.h (templates over the integer type) emit IR when
// called with lane ids, folding constants as they go.
// LaneBuilder: constants, f32 / vector arithmetic and wave shuffles.
//
//===----------------------------------------------------------------------===//
#ifndef PA_CONVERSION_PATOMFMA_LANEBUILDER_H
#define PA_CONVERSION_PATOMFMA_LANEBUILDER_H

#include "pa/Transforms/ArithEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <limits>
#include <optional>

namespace mlir::pa::mfma {

/// An index-typed value (or constant) that builds arith ops through integer
/// operators. All operands are non-negative: / and % are unsigned.
class IndexExpr {
public:
  IndexExpr(ImplicitLocOpBuilder &b, Value value) : b(&b), value(value) {
    if (auto cst = getConstantIntValue(value))
      constant = *cst;
  }
  IndexExpr(ImplicitLocOpBuilder &b, int64_t cst) : b(&b), constant(cst) {}

  /// The index value; a constant is materialized at each use (at the
  /// builder's current insertion point, so it dominates that use).
  Value get() const {
    if (value)
      return value;
    return arith::ConstantIndexOp::create(*b, *constant);
  }
  operator Value() const { return get(); }
  std::optional<int64_t> getConstant() const { return constant; }

  friend IndexExpr operator+(const IndexExpr &x, const IndexExpr &y) {
    if (x.isConstant(0))
      return y;
    if (y.isConstant(0))
      return x;
    return x.combine<arith::AddIOp>(y, [](int64_t p, int64_t q) { return p + q; });
  }
  friend IndexExpr operator-(const IndexExpr &x, const IndexExpr &y) {
    if (y.isConstant(0))
      return x;
    return x.combine<arith::SubIOp>(y, [](int64_t p, int64_t q) { return p - q; });
  }
  friend IndexExpr operator*(const IndexExpr &x, const IndexExpr &y) {
    if (x.isConstant(1))
      return y;
    if (y.isConstant(1))
      return x;
    if (x.isConstant(0) || y.isConstant(0))
      return IndexExpr(*x.b, int64_t{0});
    return x.combine<arith::MulIOp>(y, [](int64_t p, int64_t q) { return p * q; });
  }
  friend IndexExpr operator/(const IndexExpr &x, const IndexExpr &y) {
    if (y.isConstant(1))
      return x;
    return x.combine<arith::DivUIOp>(y, [](int64_t p, int64_t q) { return p / q; });
  }
  friend IndexExpr operator%(const IndexExpr &x, const IndexExpr &y) {
    if (y.isConstant(1))
      return IndexExpr(*x.b, int64_t{0});
    return x.combine<arith::RemUIOp>(y, [](int64_t p, int64_t q) { return p % q; });
  }
  friend IndexExpr operator+(const IndexExpr &x, int64_t y) { return x + x.lift(y); }
  friend IndexExpr operator+(int64_t x, const IndexExpr &y) { return y.lift(x) + y; }
  friend IndexExpr operator-(const IndexExpr &x, int64_t y) { return x - x.lift(y); }
  friend IndexExpr operator*(const IndexExpr &x, int64_t y) { return x * x.lift(y); }
  friend IndexExpr operator*(int64_t x, const IndexExpr &y) { return y.lift(x) * y; }
  friend IndexExpr operator/(const IndexExpr &x, int64_t y) { return x / x.lift(y); }
  friend IndexExpr operator%(const IndexExpr &x, int64_t y) { return x % x.lift(y); }

private:
  bool isConstant(int64_t v) const { return constant && *constant == v; }
  IndexExpr lift(int64_t v) const { return IndexExpr(*b, v); }
  template <typename OpTy, typename Fold>
  IndexExpr combine(const IndexExpr &y, Fold fold) const {
    if (constant && y.constant)
      return IndexExpr(*b, fold(*constant, *y.constant));
    return IndexExpr(*b, OpTy::create(*b, get(), y.get()).getResult());
  }

  ImplicitLocOpBuilder *b;
  Value value;
  std::optional<int64_t> constant;
};

/// Scalar and vector arithmetic of the per-lane code: ArithEmitter's, and
/// constants, vectors and wave shuffles.
class LaneBuilder : public ArithEmitter {
public:
  explicit LaneBuilder(ImplicitLocOpBuilder &b) : ArithEmitter(b) {}

  IndexExpr idx(int64_t v) { return IndexExpr(b, v); }
  IndexExpr idx(Value v) { return IndexExpr(b, v); }
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, v); }
  Value i32(int64_t v) { return arith::ConstantIntOp::create(b, v, 32); }
  Value i64(int64_t v) { return arith::ConstantIntOp::create(b, v, 64); }
  Value f32(double v) {
    return arith::ConstantFloatOp::create(b, b.getF32Type(),
                                          APFloat(static_cast<float>(v)));
  }
  Value negInf() { return f32(-std::numeric_limits<double>::infinity()); }
  /// A constant vector of `type` with every element `value` (int or float).
  Value splatConstant(VectorType type, double value) {
    Type element = type.getElementType();
    Attribute scalar =
        isa<FloatType>(element)
            ? Attribute(b.getFloatAttr(element, value))
            : Attribute(b.getIntegerAttr(element, static_cast<int64_t>(value)));
    return arith::ConstantOp::create(b, DenseElementsAttr::get(type, scalar));
  }
  /// The f32 constant `value` shaped like `like` (f32 or an f32 vector).
  Value splatLike(Value like, double value) {
    if (auto type = dyn_cast<VectorType>(like.getType()))
      return splatConstant(type, value);
    return f32(value);
  }
  /// A constant integer vector of `type` holding `values`.
  Value vectorOf(VectorType type, ArrayRef<int64_t> values) {
    unsigned width = type.getElementTypeBitWidth();
    SmallVector<APInt> elements;
    for (int64_t v : values)
      elements.push_back(APInt(width, v, /*isSigned=*/true));
    return arith::ConstantOp::create(b, DenseElementsAttr::get(type, elements));
  }
  Value broadcast(VectorType type, Value scalar) {
    return vector::BroadcastOp::create(b, type, scalar);
  }

  Value bitcast(VectorType type, Value x) {
    return vector::BitCastOp::create(b, type, x);
  }
  Value extract(Value vec, int64_t position) {
    return vector::ExtractOp::create(b, vec, ArrayRef<int64_t>{position});
  }
  /// Elements `positions` of `x` (or of the concatenation x ++ y).
  Value shuffle(Value x, Value y, ArrayRef<int64_t> positions) {
    return vector::ShuffleOp::create(b, x, y, positions);
  }

  /// `value` of this lane combined with the lanes at xor distances
  /// `distances` (butterfly), in that order: every lane of the group ends
  /// with the same result. Fixed order: deterministic.
  Value butterfly(Value value, ArrayRef<int32_t> distances,
                  function_ref<Value(Value, Value)> combine) {
    for (int32_t distance : distances) {
      Value other = gpu::ShuffleOp::create(b, value, distance,
                                           /*width=*/64, gpu::ShuffleMode::XOR)
                        .getShuffleResult();
      value = combine(value, other);
    }
    return value;
  }
};

} // namespace mlir::pa::mfma

#endif // PA_CONVERSION_PATOMFMA_LANEBUILDER_H
