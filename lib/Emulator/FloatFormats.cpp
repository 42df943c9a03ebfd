//===- FloatFormats.cpp - scalar kinds and small-float conversions --------===//
#include "pa/Emulator/FloatFormats.h"

#include <array>
#include <cmath>
#include <cstring>

using namespace mlir::pa::emulator;

namespace {

/// How a format spends its top encodings.
enum class Specials {
  IEEE, // all-ones exponent: infinity (mantissa 0) or NaN
  FN,   // only S.1...1.1...1 is NaN; no infinity
  FNUZ, // 0x80 (negative zero's encoding) is the only NaN; no infinity
};

struct Format {
  int exponentBits;
  int mantissaBits;
  int bias;
  Specials specials;
};

Format formatOf(ScalarKind kind) {
  switch (kind) {
  case ScalarKind::F16:
    return {5, 10, 15, Specials::IEEE};
  case ScalarKind::BF16:
    return {8, 7, 127, Specials::IEEE};
  case ScalarKind::F8E4M3FN:
    return {4, 3, 7, Specials::FN};
  case ScalarKind::F8E4M3FNUZ:
    return {4, 3, 8, Specials::FNUZ};
  case ScalarKind::F8E5M2:
    return {5, 2, 15, Specials::IEEE};
  case ScalarKind::F8E5M2FNUZ:
    return {5, 2, 16, Specials::FNUZ};
  default:
    return {8, 23, 127, Specials::IEEE};
  }
}

uint32_t signBit(const Format &f) {
  return 1u << (f.exponentBits + f.mantissaBits);
}
uint32_t exponentMask(const Format &f) { return (1u << f.exponentBits) - 1; }
uint32_t mantissaMask(const Format &f) { return (1u << f.mantissaBits) - 1; }

double maxFinite(const Format &f) {
  int topExponent = int(exponentMask(f)) - f.bias;
  double ulp = std::ldexp(1.0, -f.mantissaBits);
  switch (f.specials) {
  case Specials::IEEE: // the top exponent is reserved
    return (2.0 - ulp) * std::ldexp(1.0, topExponent - 1);
  case Specials::FN: // the top mantissa of the top exponent is NaN
    return (2.0 - 2 * ulp) * std::ldexp(1.0, topExponent);
  case Specials::FNUZ:
    return (2.0 - ulp) * std::ldexp(1.0, topExponent);
  }
  return 0;
}

uint32_t quietNaN(const Format &f, bool negative) {
  switch (f.specials) {
  case Specials::IEEE:
    return (negative ? signBit(f) : 0) | exponentMask(f) << f.mantissaBits |
           1u << (f.mantissaBits - 1);
  case Specials::FN:
    return (negative ? signBit(f) : 0) | exponentMask(f) << f.mantissaBits |
           mantissaMask(f);
  case Specials::FNUZ:
    return signBit(f);
  }
  return 0;
}

double decode(const Format &f, uint32_t bits) {
  bool negative = bits & signBit(f);
  uint32_t exponent = bits >> f.mantissaBits & exponentMask(f);
  uint32_t mantissa = bits & mantissaMask(f);
  switch (f.specials) {
  case Specials::IEEE:
    if (exponent == exponentMask(f))
      return mantissa ? std::nan("")
                      : (negative ? -INFINITY : INFINITY);
    break;
  case Specials::FN:
    if (exponent == exponentMask(f) && mantissa == mantissaMask(f))
      return std::nan("");
    break;
  case Specials::FNUZ:
    if (bits == signBit(f))
      return std::nan("");
    break;
  }
  double magnitude =
      exponent == 0
          ? std::ldexp(double(mantissa), 1 - f.bias - f.mantissaBits)
          : std::ldexp(1.0 + std::ldexp(double(mantissa), -f.mantissaBits),
                       int(exponent) - f.bias);
  return negative ? -magnitude : magnitude;
}

/// Round to nearest even into `f`; `saturate` clamps finite values to the
/// largest finite value first (infinities and NaN are left to the rounding:
/// formats without infinities turn them into NaN).
uint32_t encode(const Format &f, float value, bool saturate) {
  bool negative = std::signbit(value);
  if (std::isnan(value))
    return quietNaN(f, negative);
  const uint32_t sign = negative ? signBit(f) : 0;
  const uint32_t infinity = sign | exponentMask(f) << f.mantissaBits;
  const double largest = maxFinite(f);
  double magnitude = std::fabs(double(value));
  if (std::isinf(magnitude))
    return f.specials == Specials::IEEE ? infinity : quietNaN(f, negative);
  if (saturate && magnitude > largest)
    magnitude = largest;

  const int minExponent = 1 - f.bias;
  int exponent = minExponent;
  if (magnitude != 0) {
    int e;
    std::frexp(magnitude, &e);
    exponent = std::max(e - 1, minExponent);
  }
  // a / quantum and the product below are exact in double (powers of two).
  double quantum = std::ldexp(1.0, exponent - f.mantissaBits);
  double rounded = std::nearbyint(magnitude / quantum) * quantum;
  if (rounded == 0)
    return f.specials == Specials::FNUZ ? 0 : sign;
  if (rounded > largest)
    return f.specials == Specials::IEEE ? infinity : quietNaN(f, negative);

  int e;
  std::frexp(rounded, &e);
  int unbiased = e - 1;
  uint32_t exponentField, mantissa;
  if (unbiased < minExponent) {
    exponentField = 0;
    mantissa = uint32_t(rounded / std::ldexp(1.0, minExponent -
                                                       f.mantissaBits));
  } else {
    exponentField = uint32_t(unbiased + f.bias);
    mantissa = uint32_t((rounded / std::ldexp(1.0, unbiased) - 1.0) *
                        std::ldexp(1.0, f.mantissaBits));
  }
  return sign | exponentField << f.mantissaBits | mantissa;
}

/// f32 values of all 256 encodings of an 8-bit format.
const std::array<float, 256> &fp8Table(ScalarKind kind) {
  auto build = [](ScalarKind k) {
    std::array<float, 256> table;
    Format f = formatOf(k);
    for (uint32_t bits = 0; bits < 256; ++bits)
      table[bits] = float(decode(f, bits));
    return table;
  };
  static const std::array<float, 256> e4m3fn = build(ScalarKind::F8E4M3FN);
  static const std::array<float, 256> e4m3fnuz =
      build(ScalarKind::F8E4M3FNUZ);
  static const std::array<float, 256> e5m2 = build(ScalarKind::F8E5M2);
  static const std::array<float, 256> e5m2fnuz =
      build(ScalarKind::F8E5M2FNUZ);
  switch (kind) {
  case ScalarKind::F8E4M3FN:
    return e4m3fn;
  case ScalarKind::F8E4M3FNUZ:
    return e4m3fnuz;
  case ScalarKind::F8E5M2:
    return e5m2;
  default:
    return e5m2fnuz;
  }
}

uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}
} // namespace

unsigned mlir::pa::emulator::bitWidth(ScalarKind kind) {
  switch (kind) {
  case ScalarKind::I1:
    return 1;
  case ScalarKind::I8:
  case ScalarKind::F8E4M3FN:
  case ScalarKind::F8E4M3FNUZ:
  case ScalarKind::F8E5M2:
  case ScalarKind::F8E5M2FNUZ:
    return 8;
  case ScalarKind::I16:
  case ScalarKind::F16:
  case ScalarKind::BF16:
    return 16;
  case ScalarKind::I32:
  case ScalarKind::F32:
    return 32;
  case ScalarKind::I64:
  case ScalarKind::F64:
    return 64;
  }
  return 64;
}

unsigned mlir::pa::emulator::storageBytes(ScalarKind kind) {
  return kind == ScalarKind::I1 ? 1 : bitWidth(kind) / 8;
}

bool mlir::pa::emulator::isFloatKind(ScalarKind kind) {
  return kind >= ScalarKind::F16;
}

bool mlir::pa::emulator::isSmallFloatKind(ScalarKind kind) {
  return isFloatKind(kind) && kind != ScalarKind::F32 &&
         kind != ScalarKind::F64;
}

const char *mlir::pa::emulator::scalarKindName(ScalarKind kind) {
  switch (kind) {
  case ScalarKind::I1:
    return "i1";
  case ScalarKind::I8:
    return "i8";
  case ScalarKind::I16:
    return "i16";
  case ScalarKind::I32:
    return "i32";
  case ScalarKind::I64:
    return "i64";
  case ScalarKind::F16:
    return "f16";
  case ScalarKind::BF16:
    return "bf16";
  case ScalarKind::F32:
    return "f32";
  case ScalarKind::F64:
    return "f64";
  case ScalarKind::F8E4M3FN:
    return "f8E4M3FN";
  case ScalarKind::F8E4M3FNUZ:
    return "f8E4M3FNUZ";
  case ScalarKind::F8E5M2:
    return "f8E5M2";
  case ScalarKind::F8E5M2FNUZ:
    return "f8E5M2FNUZ";
  }
  return "?";
}

float mlir::pa::emulator::smallFloatToF32(ScalarKind kind, uint32_t bits) {
  switch (kind) {
  case ScalarKind::BF16: {
    uint32_t wide = bits << 16;
    float value;
    std::memcpy(&value, &wide, 4);
    return value;
  }
  case ScalarKind::F16:
    return float(decode(formatOf(kind), bits & 0xFFFF));
  default:
    return fp8Table(kind)[bits & 0xFF];
  }
}

uint32_t mlir::pa::emulator::f32ToSmallFloat(ScalarKind kind, float value) {
  if (kind == ScalarKind::BF16 && !std::isnan(value)) {
    // Round to nearest even on the bits: the carry may run into the
    // exponent, which is the correct result (up to infinity).
    uint32_t bits = floatBits(value);
    return (bits + 0x7FFF + (bits >> 16 & 1)) >> 16;
  }
  if (kind == ScalarKind::BF16) // keep sign and payload, quieted
    return floatBits(value) >> 16 | 0x40;
  // Only fp8 truncations are clamped (ArithToAMDGPU's saturateFP8Truncf).
  return encode(formatOf(kind), value, /*saturate=*/kind != ScalarKind::F16);
}

uint32_t mlir::pa::emulator::f32ToSmallFloatUnsaturated(ScalarKind kind,
                                                        float value) {
  if (kind == ScalarKind::BF16)
    return f32ToSmallFloat(kind, value);
  return encode(formatOf(kind), value, /*saturate=*/false);
}
