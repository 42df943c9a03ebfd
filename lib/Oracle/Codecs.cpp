//===- Codecs.cpp - Bit-exact scalar codecs for the oracle ----------------===//
//
// All four formats are sign | exponent | mantissa; they differ only in the bias
// and in which patterns are special. One descriptor-driven decoder and one
// encoder serve them all.
//
//===----------------------------------------------------------------------===//
#include "pa/Oracle/Codecs.h"

#include "EnumNames.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pa::oracle {
namespace {

enum class Specials {
  Ieee,      // exponent all ones: infinity (mantissa 0) or NaN.
  NanOnlyFn, // only S.1111.111 is NaN; the top exponent is otherwise normal.
  NanOnlyUz, // only 1.0000.000 (the would-be -0) is NaN; no -0, no infinity.
};

struct Format {
  int exponentBits;
  int mantissaBits;
  int bias;
  Specials specials;

  int width() const { return 1 + exponentBits + mantissaBits; }
  uint32_t signBit() const { return 1u << (exponentBits + mantissaBits); }
  uint32_t exponentMask() const { return (1u << exponentBits) - 1; }
  uint32_t mantissaMask() const { return (1u << mantissaBits) - 1; }
  uint32_t widthMask() const { return (1u << width()) - 1; }
};

Format formatOf(ScalarType type) {
  switch (type) {
  case ScalarType::F8E4M3FN:
    return {4, 3, 7, Specials::NanOnlyFn};
  case ScalarType::F8E4M3FNUZ:
    return {4, 3, 8, Specials::NanOnlyUz};
  case ScalarType::BF16:
    return {8, 7, 127, Specials::Ieee};
  case ScalarType::F16:
    return {5, 10, 15, Specials::Ieee};
  }
  return {5, 10, 15, Specials::Ieee};
}

uint32_t maxFiniteBits(const Format &f) {
  switch (f.specials) {
  case Specials::Ieee:
    return ((f.exponentMask() - 1) << f.mantissaBits) | f.mantissaMask();
  case Specials::NanOnlyFn: // S.1111.110
    return (f.exponentMask() << f.mantissaBits) | (f.mantissaMask() - 1);
  case Specials::NanOnlyUz:
    return (f.exponentMask() << f.mantissaBits) | f.mantissaMask();
  }
  return 0;
}

uint32_t nanBits(const Format &f, bool negative) {
  uint32_t sign = negative ? f.signBit() : 0;
  switch (f.specials) {
  case Specials::Ieee: // quiet NaN
    return sign | (f.exponentMask() << f.mantissaBits) |
           (1u << (f.mantissaBits - 1));
  case Specials::NanOnlyFn:
    return sign | (f.exponentMask() << f.mantissaBits) | f.mantissaMask();
  case Specials::NanOnlyUz:
    return f.signBit();
  }
  return 0;
}

double decodeWith(const Format &f, uint32_t bits) {
  bits &= f.widthMask();
  bool negative = (bits & f.signBit()) != 0;
  uint32_t exponent = (bits >> f.mantissaBits) & f.exponentMask();
  uint32_t mantissa = bits & f.mantissaMask();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  switch (f.specials) {
  case Specials::Ieee:
    if (exponent == f.exponentMask())
      return mantissa != 0 ? nan
                           : (negative ? -1.0 : 1.0) *
                                 std::numeric_limits<double>::infinity();
    break;
  case Specials::NanOnlyFn:
    if (exponent == f.exponentMask() && mantissa == f.mantissaMask())
      return nan;
    break;
  case Specials::NanOnlyUz:
    if (bits == f.signBit())
      return nan;
    break;
  }
  double magnitude =
      exponent == 0
          ? std::ldexp(double(mantissa), 1 - f.bias - f.mantissaBits)
          : std::ldexp(double(mantissa | (1u << f.mantissaBits)),
                       int(exponent) - f.bias - f.mantissaBits);
  return negative ? -magnitude : magnitude;
}

// Round a non-negative value that is an exact double to an integer, ties to
// even, without depending on the floating-point environment's rounding mode.
int64_t roundHalfToEven(double value) {
  double floorValue = std::floor(value);
  double fraction = value - floorValue; // exact: value < 2^53
  int64_t result = int64_t(floorValue);
  if (fraction > 0.5 || (fraction == 0.5 && (result & 1) != 0))
    ++result;
  return result;
}

uint32_t encodeWith(const Format &f, double value, Overflow overflow) {
  bool negative = std::signbit(value);
  if (std::isnan(value))
    return nanBits(f, negative);
  uint32_t sign = negative ? f.signBit() : 0;
  uint32_t maxBits = maxFiniteBits(f);
  auto overflowed = [&]() -> uint32_t {
    if (overflow == Overflow::Saturate)
      return sign | maxBits;
    if (f.specials == Specials::Ieee)
      return sign | (f.exponentMask() << f.mantissaBits); // infinity
    return nanBits(f, negative);
  };
  double magnitude = std::fabs(value);
  if (std::isinf(magnitude))
    return f.specials == Specials::Ieee
               ? sign | (f.exponentMask() << f.mantissaBits)
               : overflowed();
  if (magnitude == 0)
    return f.specials == Specials::NanOnlyUz ? 0 : sign;

  // Quantize on the grid of the value's binade, with the exponent clamped to
  // the smallest normal one so that denormals share the bottom binade's grid.
  // The exponent is unbounded above, so values past the largest finite value
  // round as if the format continued; that decides the overflow boundary
  // (e.g. f8E4M3FN: 464 is the 448/480 midpoint and ties to even 448).
  int frexpExponent = 0;
  std::frexp(magnitude, &frexpExponent);
  const int minNormalExponent = 1 - f.bias;
  int exponent = std::max(frexpExponent - 1, minNormalExponent);
  int64_t significand =
      roundHalfToEven(std::ldexp(magnitude, f.mantissaBits - exponent));
  if (significand == 0)
    return f.specials == Specials::NanOnlyUz ? 0 : sign;
  if (significand == (int64_t(2) << f.mantissaBits)) { // carried into the
    significand >>= 1;                                  // next binade
    ++exponent;
  }
  if (std::ldexp(double(significand), exponent - f.mantissaBits) >
      decodeWith(f, maxBits))
    return overflowed();
  if (significand < (int64_t(1) << f.mantissaBits)) // denormal
    return sign | uint32_t(significand);
  uint32_t biased = uint32_t(exponent + f.bias);
  return sign | (biased << f.mantissaBits) |
         (uint32_t(significand) & f.mantissaMask());
}

} // namespace

const char *scalarTypeName(ScalarType type) {
  switch (type) {
  case ScalarType::F8E4M3FN:
    return "f8E4M3FN";
  case ScalarType::F8E4M3FNUZ:
    return "f8E4M3FNUZ";
  case ScalarType::BF16:
    return "bf16";
  case ScalarType::F16:
    return "f16";
  }
  return "?";
}

bool parseScalarType(const std::string &name, ScalarType &type) {
  return parseEnumName(name,
                       {ScalarType::F8E4M3FN, ScalarType::F8E4M3FNUZ,
                        ScalarType::BF16, ScalarType::F16},
                       scalarTypeName, type);
}

int scalarBitWidth(ScalarType type) { return formatOf(type).width(); }
int scalarByteSize(ScalarType type) { return scalarBitWidth(type) / 8; }
bool isFp8(ScalarType type) { return scalarBitWidth(type) == 8; }

double maxFiniteValue(ScalarType type) {
  Format f = formatOf(type);
  return decodeWith(f, maxFiniteBits(f));
}

double decodeScalar(ScalarType type, uint32_t bits) {
  return decodeWith(formatOf(type), bits);
}

uint32_t encodeScalar(ScalarType type, double value, Overflow overflow) {
  return encodeWith(formatOf(type), value, overflow);
}

double roundToScalar(ScalarType type, double value, Overflow overflow) {
  return decodeScalar(type, encodeScalar(type, value, overflow));
}

double decodeF8E4M3FN(uint8_t bits) {
  return decodeScalar(ScalarType::F8E4M3FN, bits);
}
double decodeF8E4M3FNUZ(uint8_t bits) {
  return decodeScalar(ScalarType::F8E4M3FNUZ, bits);
}
double decodeBf16(uint16_t bits) { return decodeScalar(ScalarType::BF16, bits); }
double decodeF16(uint16_t bits) { return decodeScalar(ScalarType::F16, bits); }

uint8_t encodeF8E4M3FN(double value, Overflow overflow) {
  return uint8_t(encodeScalar(ScalarType::F8E4M3FN, value, overflow));
}
uint8_t encodeF8E4M3FNUZ(double value, Overflow overflow) {
  return uint8_t(encodeScalar(ScalarType::F8E4M3FNUZ, value, overflow));
}
uint16_t encodeBf16(double value, Overflow overflow) {
  return uint16_t(encodeScalar(ScalarType::BF16, value, overflow));
}
uint16_t encodeF16(double value, Overflow overflow) {
  return uint16_t(encodeScalar(ScalarType::F16, value, overflow));
}

float roundToBf16(float value) {
  return float(roundToScalar(ScalarType::BF16, value, Overflow::NonFinite));
}
float roundToF16(float value) {
  return float(roundToScalar(ScalarType::F16, value, Overflow::NonFinite));
}

} // namespace pa::oracle
