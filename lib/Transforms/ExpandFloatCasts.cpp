//===- ExpandFloatCasts.cpp - small-float casts as integer bit ops --------===//
//
// All formats involved are sign | exponent | mantissa and differ only in
// widths, bias and which patterns are special, so one extend and one
// truncate routine, driven by a format descriptor, serve every pair. See
// FloatCasts.h for the exact semantics.
//
//===----------------------------------------------------------------------===//
#include "pa/Transforms/FloatCasts.h"
#include "pa/Transforms/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

namespace mlir::pa {
#define GEN_PASS_DEF_PAEXPANDFLOATCASTS
#include "pa/Transforms/Passes.h.inc"
} // namespace mlir::pa

using namespace mlir;

namespace {

/// What a format does with the patterns IEEE reserves for specials.
enum class Specials {
  Ieee,           // all-ones exponent: infinity (mantissa 0) or NaN.
  NanOnlyAllOnes, // f8E4M3FN: only S.1111.111 is NaN; no infinity.
  NanOnlyNegZero, // f8E4M3FNUZ: only 0x80 (the would-be -0) is NaN.
};

struct FloatFormat {
  unsigned exponentBits;
  unsigned mantissaBits;
  int64_t bias;
  Specials specials;

  unsigned width() const { return 1 + exponentBits + mantissaBits; }
  uint64_t signBit() const { return uint64_t(1) << (width() - 1); }
  uint64_t absMask() const { return signBit() - 1; }
  uint64_t exponentMask() const { return (uint64_t(1) << exponentBits) - 1; }
  uint64_t mantissaMask() const { return (uint64_t(1) << mantissaBits) - 1; }
  uint64_t infinityBits() const { return exponentMask() << mantissaBits; }
  uint64_t quietBit() const { return uint64_t(1) << (mantissaBits - 1); }
  /// Bit pattern of the largest finite magnitude.
  uint64_t maxFiniteBits() const {
    switch (specials) {
    case Specials::Ieee:
      return infinityBits() - 1;
    case Specials::NanOnlyAllOnes:
      return absMask() - 1;
    case Specials::NanOnlyNegZero:
      return absMask();
    }
    llvm_unreachable("unknown specials");
  }
};

constexpr FloatFormat kF32 = {8, 23, 127, Specials::Ieee};

/// The formats the helpers convert between: the small ones and the wide
/// sources of a truncation.
std::optional<FloatFormat> lookupFormat(Type type) {
  if (type.isBF16())
    return FloatFormat{8, 7, 127, Specials::Ieee};
  if (type.isF16())
    return FloatFormat{5, 10, 15, Specials::Ieee};
  if (isa<Float8E4M3FNType>(type))
    return FloatFormat{4, 3, 7, Specials::NanOnlyAllOnes};
  if (isa<Float8E4M3FNUZType>(type))
    return FloatFormat{4, 3, 8, Specials::NanOnlyNegZero};
  if (type.isF32())
    return kF32;
  if (type.isF64())
    return FloatFormat{11, 52, 1023, Specials::Ieee};
  return std::nullopt;
}

/// The sources emitTruncToSmallFloat rounds from.
bool isWideSource(Type elementType) {
  return elementType.isF32() || elementType.isF64();
}

/// `shaped` (a scalar or vector type) with its element type replaced.
Type withElementType(Type shaped, Type element) {
  if (auto vector = dyn_cast<VectorType>(shaped))
    return vector.clone(element);
  return element;
}

/// Emits integer ops on scalars or vectors of one integer type; constants
/// are splatted to the shape.
class BitEmitter {
public:
  BitEmitter(OpBuilder &builder, Location loc, Type intType)
      : b(builder), loc(loc), type(intType),
        width(getElementTypeOrSelf(intType).getIntOrFloatBitWidth()) {}

  Value constant(int64_t value) {
    return createScalarOrSplatConstant(
        b, loc, type, APInt(width, value, /*isSigned=*/value < 0));
  }
  Value andi(Value x, uint64_t mask) {
    return arith::AndIOp::create(b, loc, x, constant(mask));
  }
  Value ori(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value ori(Value x, uint64_t bits) { return ori(x, constant(bits)); }
  Value shl(Value x, Value amount) {
    return arith::ShLIOp::create(b, loc, x, amount);
  }
  Value shl(Value x, unsigned amount) { return shl(x, constant(amount)); }
  Value shr(Value x, Value amount) {
    return arith::ShRUIOp::create(b, loc, x, amount);
  }
  Value shr(Value x, unsigned amount) { return shr(x, constant(amount)); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value add(Value x, int64_t y) { return add(x, constant(y)); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value cmp(arith::CmpIPredicate predicate, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, predicate, x, y);
  }
  Value cmp(arith::CmpIPredicate predicate, Value x, int64_t y) {
    return cmp(predicate, x, constant(y));
  }
  Value select(Value condition, Value ifTrue, Value ifFalse) {
    return arith::SelectOp::create(b, loc, condition, ifTrue, ifFalse);
  }
  Value select(Value condition, int64_t ifTrue, Value ifFalse) {
    return select(condition, constant(ifTrue), ifFalse);
  }

  OpBuilder &b;
  Location loc;
  Type type;
  unsigned width;
};

using arith::CmpIPredicate;

} // namespace

bool mlir::pa::isSmallFloatType(Type elementType) {
  return elementType.isBF16() || elementType.isF16() ||
         isa<Float8E4M3FNType, Float8E4M3FNUZType>(elementType);
}

Value mlir::pa::emitExtToF32(OpBuilder &builder, Location loc, Value value) {
  Type sourceType = value.getType();
  if (!isSmallFloatType(getElementTypeOrSelf(sourceType)))
    return Value();
  const FloatFormat f = *lookupFormat(getElementTypeOrSelf(sourceType));
  const unsigned m = f.mantissaBits;
  Type i32 = withElementType(sourceType, builder.getI32Type());
  Type f32 = withElementType(sourceType, builder.getF32Type());
  BitEmitter e(builder, loc, i32);

  Value narrow = arith::BitcastOp::create(
      builder, loc, withElementType(sourceType, builder.getIntegerType(f.width())),
      value);
  Value bits = arith::ExtUIOp::create(builder, loc, i32, narrow);
  Value sign = e.shl(e.shr(bits, f.width() - 1), 31);
  Value abs = e.andi(bits, f.absMask());
  Value exponent = e.shr(abs, m);
  Value mantissa = e.andi(abs, f.mantissaMask());

  // Normal numbers: move the fields into f32 position and rebias.
  Value magnitude = e.add(e.shl(abs, kF32.mantissaBits - m),
                          (kF32.bias - f.bias) << kF32.mantissaBits);
  if (f.bias != kF32.bias) {
    // A denormal m * 2^(1-bias-M) is normal in f32. The exact int->float
    // conversion of m normalizes it; subtracting from the exponent field
    // then scales by 2^-(bias+M-1). (With f32's bias, bf16, the normal
    // formula already yields the matching f32 denormal.)
    Value mantissaAsF32 = arith::BitcastOp::create(
        builder, loc, i32, arith::UIToFPOp::create(builder, loc, f32, mantissa));
    Value denormal =
        e.sub(mantissaAsF32, e.constant((f.bias + m - 1) << kF32.mantissaBits));
    denormal = e.select(e.cmp(CmpIPredicate::eq, abs, 0), 0, denormal);
    magnitude =
        e.select(e.cmp(CmpIPredicate::eq, exponent, 0), denormal, magnitude);
  }
  Value result = e.ori(sign, magnitude);

  const uint64_t f32QuietNan = kF32.infinityBits() | kF32.quietBit();
  switch (f.specials) {
  case Specials::Ieee: {
    // Infinity, or NaN keeping its payload and made quiet.
    Value payload = e.shl(mantissa, kF32.mantissaBits - m);
    Value special = e.ori(e.ori(sign, kF32.infinityBits()), payload);
    Value isNan = e.cmp(CmpIPredicate::ne, mantissa, 0);
    special = e.select(isNan, e.ori(special, kF32.quietBit()), special);
    Value isSpecial = e.cmp(CmpIPredicate::eq, exponent, f.exponentMask());
    result = e.select(isSpecial, special, result);
    break;
  }
  case Specials::NanOnlyAllOnes: {
    Value isNan = e.cmp(CmpIPredicate::eq, abs, f.absMask());
    result = e.select(isNan, e.ori(sign, f32QuietNan), result);
    break;
  }
  case Specials::NanOnlyNegZero: {
    Value isNan = e.cmp(CmpIPredicate::eq, bits, f.signBit());
    result = e.select(isNan, f32QuietNan, result);
    break;
  }
  }
  return arith::BitcastOp::create(builder, loc, f32, result);
}

Value mlir::pa::emitTruncToSmallFloat(OpBuilder &builder, Location loc,
                                      Value value, Type target) {
  Type sourceType = value.getType();
  Type sourceElement = getElementTypeOrSelf(sourceType);
  if (!isWideSource(sourceElement) || !isSmallFloatType(target))
    return Value();
  const FloatFormat s = *lookupFormat(sourceElement);
  const FloatFormat t = *lookupFormat(target);
  Type wide = withElementType(sourceType, builder.getIntegerType(s.width()));
  BitEmitter e(builder, loc, wide);

  Value bits = arith::BitcastOp::create(builder, loc, wide, value);
  Value sign = e.shr(bits, s.width() - 1);
  Value abs = e.andi(bits, s.absMask());
  Value isNan = e.cmp(CmpIPredicate::ugt, abs, s.infinityBits());

  // fp8 has no infinity: clamping the magnitude (infinity included) to the
  // largest finite value saturates, and rounding never exceeds it. The
  // clamp bound is that value in the source format: same exponent, mantissa
  // shifted up.
  Value clamped = abs;
  if (t.specials != Specials::Ieee) {
    uint64_t maxBits = t.maxFiniteBits();
    int64_t maxExponent = int64_t(maxBits >> t.mantissaBits) - t.bias + s.bias;
    uint64_t maxInSource =
        (uint64_t(maxExponent) << s.mantissaBits) |
        ((maxBits & t.mantissaMask()) << (s.mantissaBits - t.mantissaBits));
    clamped = arith::MinUIOp::create(builder, loc, abs, e.constant(maxInSource));
  }

  Value exponent = e.shr(clamped, s.mantissaBits);
  Value mantissa = e.andi(clamped, s.mantissaMask());
  Value significand = e.ori(
      mantissa, e.select(e.cmp(CmpIPredicate::ne, exponent, 0),
                         int64_t(1) << s.mantissaBits, e.constant(0)));
  // Target exponent field minus one of the value's binade (source denormals
  // share the smallest normal binade). When negative, the result is a target
  // denormal: it stays 0 and the significand is shifted right further.
  Value binade = arith::MaxUIOp::create(builder, loc, exponent, e.constant(1));
  Value fieldMinusOne = e.add(binade, t.bias - s.bias - 1);
  Value field = arith::MaxSIOp::create(builder, loc, fieldMinusOne, e.constant(0));
  Value shift = e.add(e.sub(field, fieldMinusOne),
                      int64_t(s.mantissaBits - t.mantissaBits));
  // Past this shift every significand bit is below half an ulp: rounds to 0
  // (and keeps the shift amounts in range).
  shift = arith::MinUIOp::create(builder, loc, shift,
                                 e.constant(s.mantissaBits + 2));

  // Round to nearest, ties to even.
  Value one = e.constant(1);
  Value kept = e.shr(significand, shift);
  Value dropped = arith::AndIOp::create(builder, loc, significand,
                                        e.sub(e.shl(one, shift), one));
  Value half = e.shl(one, e.sub(shift, one));
  Value keptIsOdd = e.cmp(CmpIPredicate::ne, e.andi(kept, 1), 0);
  Value roundsUp = arith::OrIOp::create(
      builder, loc, e.cmp(CmpIPredicate::ugt, dropped, half),
      arith::AndIOp::create(builder, loc, e.cmp(CmpIPredicate::eq, dropped, half),
                            keptIsOdd));
  kept = e.add(kept, arith::ExtUIOp::create(builder, loc, wide, roundsUp));
  // The kept significand carries the implicit bit, which adds the missing one
  // to the field; a carry out of the mantissa moves to the next binade.
  Value magnitude = e.add(e.shl(field, t.mantissaBits), kept);

  Value nanMagnitude;
  switch (t.specials) {
  case Specials::Ieee:
    // Overflow rounds to infinity; NaN stays quiet NaN with its top payload.
    magnitude = arith::MinUIOp::create(builder, loc, magnitude,
                                       e.constant(t.infinityBits()));
    nanMagnitude = e.ori(e.shr(mantissa, s.mantissaBits - t.mantissaBits),
                         t.infinityBits() | t.quietBit());
    break;
  case Specials::NanOnlyAllOnes:
  case Specials::NanOnlyNegZero:
    nanMagnitude = e.constant(t.absMask());
    break;
  }
  Value result = e.ori(e.shl(sign, t.width() - 1),
                       e.select(isNan, nanMagnitude, magnitude));
  if (t.specials == Specials::NanOnlyNegZero) {
    // No -0 (that pattern is the only NaN): zero is unsigned, NaN is 0x80.
    result = e.select(e.cmp(CmpIPredicate::eq, magnitude, 0), 0, result);
    result = e.select(isNan, int64_t(t.signBit()), result);
  }
  Value narrow = arith::TruncIOp::create(
      builder, loc, withElementType(sourceType, builder.getIntegerType(t.width())),
      result);
  return arith::BitcastOp::create(builder, loc,
                                  withElementType(sourceType, target), narrow);
}

namespace {

bool touchesSmallFloat(Operation *cast) {
  return pa::isSmallFloatType(getElementTypeOrSelf(cast->getOperand(0))) ||
         pa::isSmallFloatType(getElementTypeOrSelf(cast->getResult(0)));
}

/// `value` as f32 when it is a small float (an exact extension), else as is.
Value extendIfSmall(OpBuilder &builder, Location loc, Value value) {
  if (pa::isSmallFloatType(getElementTypeOrSelf(value)))
    return pa::emitExtToF32(builder, loc, value);
  return value;
}

LogicalResult expandExtF(arith::ExtFOp op) {
  Type from = getElementTypeOrSelf(op.getIn());
  Type to = getElementTypeOrSelf(op.getType());
  if (!pa::isSmallFloatType(from))
    return op.emitOpError() << "extension from " << from << " to " << to
                            << " is not supported by pa-expand-float-casts";
  OpBuilder builder(op);
  Value result = pa::emitExtToF32(builder, op.getLoc(), op.getIn());
  if (pa::isSmallFloatType(to)) // fp8 -> bf16/f16: exact, so one rounding.
    result = pa::emitTruncToSmallFloat(builder, op.getLoc(), result, to);
  else if (to.getIntOrFloatBitWidth() > 32)
    result = arith::ExtFOp::create(builder, op.getLoc(), op.getType(), result);
  else if (!to.isF32())
    return op.emitOpError() << "extension from " << from << " to " << to
                            << " is not supported by pa-expand-float-casts";
  op.replaceAllUsesWith(result);
  op.erase();
  return success();
}

LogicalResult expandTruncF(arith::TruncFOp op) {
  Type from = getElementTypeOrSelf(op.getIn());
  Type to = getElementTypeOrSelf(op.getType());
  if (!pa::isSmallFloatType(to) ||
      !(isWideSource(from) || pa::isSmallFloatType(from)))
    return op.emitOpError() << "truncation from " << from << " to " << to
                            << " is not supported by pa-expand-float-casts";
  if (std::optional<arith::RoundingMode> mode = op.getRoundingmode();
      mode && *mode != arith::RoundingMode::to_nearest_even)
    return op.emitOpError() << "rounding mode "
                            << arith::stringifyRoundingMode(*mode)
                            << " is not supported (only to_nearest_even)";
  OpBuilder builder(op);
  // bf16/f16 -> fp8 goes through f32, which holds them exactly.
  Value wide = extendIfSmall(builder, op.getLoc(), op.getIn());
  Value result = pa::emitTruncToSmallFloat(builder, op.getLoc(), wide, to);
  op.replaceAllUsesWith(result);
  op.erase();
  return success();
}

struct PaExpandFloatCastsPass
    : pa::impl::PaExpandFloatCastsBase<PaExpandFloatCastsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<Operation *> casts;
    getOperation()->walk([&](Operation *op) {
      if (isa<arith::ExtFOp, arith::TruncFOp>(op) && touchesSmallFloat(op))
        casts.push_back(op);
    });
    for (Operation *op : casts) {
      auto ext = dyn_cast<arith::ExtFOp>(op);
      if (failed(ext ? expandExtF(ext)
                     : expandTruncF(cast<arith::TruncFOp>(op))))
        return signalPassFailure();
    }
  }
};

} // namespace
