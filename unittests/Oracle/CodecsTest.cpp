//===- CodecsTest.cpp - Bit-exact codec tests -----------------------------===//
//
// Decoding is checked against formulas written here from sign, exponent and
// mantissa (or, for bf16, against the float whose top half it is); encoding
// against round trips, every midpoint between neighbours, and the overflow
// boundaries worked out by hand.
//
//===----------------------------------------------------------------------===//
#include "pa/Oracle/Codecs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace pa::oracle;

namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const ScalarType kAllTypes[] = {ScalarType::F8E4M3FN, ScalarType::F8E4M3FNUZ,
                                ScalarType::BF16, ScalarType::F16};
const Overflow kBothModes[] = {Overflow::Saturate, Overflow::NonFinite};

// (-1)^s * 2^(e - bias) * 1.m, or 2^(1 - bias) * 0.m for e == 0.
double fromFields(int sign, int exponent, int mantissa, int mantissaBits,
                  int bias) {
  double fraction = mantissa / std::pow(2.0, mantissaBits);
  double magnitude = exponent == 0
                         ? fraction * std::pow(2.0, 1 - bias)
                         : (1.0 + fraction) * std::pow(2.0, exponent - bias);
  return sign ? -magnitude : magnitude;
}

double expectedF8E4M3FN(int bits) {
  int s = bits >> 7, e = (bits >> 3) & 15, m = bits & 7;
  if (e == 15 && m == 7)
    return kNaN;
  return fromFields(s, e, m, 3, 7);
}

double expectedF8E4M3FNUZ(int bits) {
  if (bits == 0x80)
    return kNaN;
  return fromFields(bits >> 7, (bits >> 3) & 15, bits & 7, 3, 8);
}

double expectedF16(int bits) {
  int s = bits >> 15, e = (bits >> 10) & 31, m = bits & 1023;
  if (e == 31)
    return m != 0 ? kNaN : (s ? -kInf : kInf);
  return fromFields(s, e, m, 10, 15);
}

double expectedBf16(int bits) {
  uint32_t wide = uint32_t(bits) << 16; // bf16 is the top half of a float
  float value;
  std::memcpy(&value, &wide, sizeof value);
  return value;
}

void expectSameValue(double expected, double actual, int bits) {
  if (std::isnan(expected)) {
    EXPECT_TRUE(std::isnan(actual)) << "pattern 0x" << std::hex << bits;
    return;
  }
  EXPECT_EQ(expected, actual) << "pattern 0x" << std::hex << bits;
  EXPECT_EQ(std::signbit(expected), std::signbit(actual))
      << "pattern 0x" << std::hex << bits;
}

uint32_t signMask(ScalarType type) { return 1u << (scalarBitWidth(type) - 1); }

} // namespace

TEST(Codecs, DecodeF8E4M3FNMatchesFieldFormulaForAllPatterns) {
  for (int bits = 0; bits < 256; ++bits)
    expectSameValue(expectedF8E4M3FN(bits), decodeF8E4M3FN(uint8_t(bits)), bits);
}

TEST(Codecs, DecodeF8E4M3FNUZMatchesFieldFormulaForAllPatterns) {
  for (int bits = 0; bits < 256; ++bits)
    expectSameValue(expectedF8E4M3FNUZ(bits), decodeF8E4M3FNUZ(uint8_t(bits)),
                    bits);
}

TEST(Codecs, DecodeBf16MatchesFloatTopHalfForAllPatterns) {
  for (int bits = 0; bits < 65536; ++bits)
    expectSameValue(expectedBf16(bits), decodeBf16(uint16_t(bits)), bits);
}

TEST(Codecs, DecodeF16MatchesFieldFormulaForAllPatterns) {
  for (int bits = 0; bits < 65536; ++bits)
    expectSameValue(expectedF16(bits), decodeF16(uint16_t(bits)), bits);
}

TEST(Codecs, KnownValues) {
  EXPECT_EQ(decodeF8E4M3FN(0x7E), 448.0);
  EXPECT_EQ(decodeF8E4M3FN(0x01), std::ldexp(1.0, -9));
  EXPECT_EQ(decodeF8E4M3FN(0x08), std::ldexp(1.0, -6));
  EXPECT_EQ(decodeF8E4M3FNUZ(0x7F), 240.0);
  EXPECT_EQ(decodeF8E4M3FNUZ(0x01), std::ldexp(1.0, -10));
  EXPECT_EQ(decodeBf16(0x3F80), 1.0);
  EXPECT_EQ(decodeF16(0x3C00), 1.0);
  EXPECT_EQ(maxFiniteValue(ScalarType::F8E4M3FN), 448.0);
  EXPECT_EQ(maxFiniteValue(ScalarType::F8E4M3FNUZ), 240.0);
  EXPECT_EQ(maxFiniteValue(ScalarType::F16), 65504.0);
  EXPECT_EQ(maxFiniteValue(ScalarType::BF16),
            std::ldexp(255.0, 120)); // 1.1111111b * 2^127
}

TEST(Codecs, EncodeInvertsDecodeForEveryNonNanPattern) {
  for (ScalarType type : kAllTypes) {
    for (uint32_t bits = 0; bits < (1u << scalarBitWidth(type)); ++bits) {
      double value = decodeScalar(type, bits);
      if (std::isnan(value))
        continue;
      for (Overflow mode : kBothModes)
        EXPECT_EQ(encodeScalar(type, value, mode), bits)
            << scalarTypeName(type) << " 0x" << std::hex << bits;
    }
  }
}

// Between any two neighbouring finite magnitudes (denormal, binade edges and
// all), the midpoint goes to the even pattern and anything off it to the
// nearer neighbour; negative values mirror positive ones.
TEST(Codecs, MidpointsRoundToEvenAndNeighboursToNearest) {
  for (ScalarType type : kAllTypes) {
    const uint32_t sign = signMask(type);
    for (uint32_t low = 0; low + 1 < sign; ++low) {
      double a = decodeScalar(type, low), b = decodeScalar(type, low + 1);
      if (!std::isfinite(a) || !std::isfinite(b))
        continue;
      const double mid = (a + b) / 2; // exact: both have few mantissa bits
      const uint32_t even = (low & 1) == 0 ? low : low + 1;
      for (double s : {1.0, -1.0}) {
        const uint32_t signBits = s < 0 ? sign : 0;
        if (s < 0 && type == ScalarType::F8E4M3FNUZ && even == 0) {
          EXPECT_EQ(encodeScalar(type, s * mid, Overflow::NonFinite), 0u);
        } else {
          EXPECT_EQ(encodeScalar(type, s * mid, Overflow::NonFinite),
                    signBits | even)
              << scalarTypeName(type) << " tie above 0x" << std::hex << low;
        }
        EXPECT_EQ(encodeScalar(type, s * std::nextafter(mid, b),
                               Overflow::NonFinite),
                  signBits | (low + 1))
            << scalarTypeName(type) << " just above mid 0x" << std::hex << low;
        uint32_t below = encodeScalar(type, s * std::nextafter(mid, a),
                                      Overflow::NonFinite);
        if (type == ScalarType::F8E4M3FNUZ && low == 0)
          EXPECT_EQ(below, 0u); // -0 does not exist
        else
          EXPECT_EQ(below, signBits | low)
              << scalarTypeName(type) << " just below mid 0x" << std::hex << low;
      }
    }
  }
}

TEST(Codecs, DenormalRoundingSpotChecks) {
  const double minDenormal = std::ldexp(1.0, -9); // f8E4M3FN 0x01
  EXPECT_EQ(encodeF8E4M3FN(minDenormal, Overflow::NonFinite), 0x01);
  EXPECT_EQ(encodeF8E4M3FN(minDenormal / 2, Overflow::NonFinite), 0x00);
  EXPECT_EQ(encodeF8E4M3FN(minDenormal * 0.51, Overflow::NonFinite), 0x01);
  EXPECT_EQ(encodeF8E4M3FN(minDenormal * 1.5, Overflow::NonFinite), 0x02);
  EXPECT_EQ(encodeF8E4M3FN(minDenormal * 7.5, Overflow::NonFinite), 0x08);
  EXPECT_EQ(encodeF8E4M3FNUZ(std::ldexp(1.0, -10) * 2.5, Overflow::NonFinite),
            0x02);
  EXPECT_EQ(encodeF16(std::ldexp(1.0, -25), Overflow::NonFinite), 0x0000);
  EXPECT_EQ(encodeF16(std::ldexp(3.0, -25), Overflow::NonFinite), 0x0002);
  EXPECT_EQ(encodeBf16(std::ldexp(1.0, -133), Overflow::NonFinite), 0x0001);
  EXPECT_EQ(encodeF8E4M3FN(1e-300, Overflow::NonFinite), 0x00);
  EXPECT_EQ(encodeF8E4M3FN(std::numeric_limits<double>::denorm_min(),
                           Overflow::NonFinite),
            0x00);
}

TEST(Codecs, NegativeZero) {
  EXPECT_EQ(encodeF8E4M3FN(-0.0, Overflow::NonFinite), 0x80);
  EXPECT_TRUE(std::signbit(decodeF8E4M3FN(0x80)));
  EXPECT_EQ(encodeF8E4M3FN(-1e-6, Overflow::NonFinite), 0x80);
  EXPECT_EQ(encodeF8E4M3FNUZ(-0.0, Overflow::NonFinite), 0x00);
  EXPECT_EQ(encodeF8E4M3FNUZ(-0.0, Overflow::Saturate), 0x00);
  EXPECT_EQ(encodeF8E4M3FNUZ(-1e-6, Overflow::NonFinite), 0x00);
  EXPECT_EQ(encodeBf16(-0.0, Overflow::NonFinite), 0x8000);
  EXPECT_EQ(encodeF16(-0.0, Overflow::NonFinite), 0x8000);
}

TEST(Codecs, NanInNanOut) {
  for (ScalarType type : kAllTypes)
    for (Overflow mode : kBothModes)
      for (double nan : {kNaN, -kNaN})
        EXPECT_TRUE(std::isnan(decodeScalar(type, encodeScalar(type, nan, mode))))
            << scalarTypeName(type);
  EXPECT_EQ(encodeF8E4M3FNUZ(kNaN, Overflow::Saturate), 0x80);
  EXPECT_EQ(encodeF8E4M3FN(kNaN, Overflow::Saturate), 0x7F);
  EXPECT_EQ(encodeF8E4M3FN(-kNaN, Overflow::Saturate), 0xFF);
}

TEST(Codecs, InfinitySaturatesOrBecomesNanForFp8) {
  EXPECT_EQ(encodeF8E4M3FN(kInf, Overflow::Saturate), 0x7E);
  EXPECT_EQ(encodeF8E4M3FN(-kInf, Overflow::Saturate), 0xFE);
  EXPECT_EQ(encodeF8E4M3FN(kInf, Overflow::NonFinite), 0x7F);
  EXPECT_EQ(encodeF8E4M3FN(-kInf, Overflow::NonFinite), 0xFF);
  EXPECT_EQ(encodeF8E4M3FNUZ(kInf, Overflow::Saturate), 0x7F);
  EXPECT_EQ(encodeF8E4M3FNUZ(-kInf, Overflow::Saturate), 0xFF);
  EXPECT_EQ(encodeF8E4M3FNUZ(kInf, Overflow::NonFinite), 0x80);
  EXPECT_EQ(encodeF8E4M3FNUZ(-kInf, Overflow::NonFinite), 0x80);
  // bf16 and f16 have infinities, kept in both modes.
  for (Overflow mode : kBothModes) {
    EXPECT_EQ(encodeBf16(kInf, mode), 0x7F80);
    EXPECT_EQ(encodeBf16(-kInf, mode), 0xFF80);
    EXPECT_EQ(encodeF16(kInf, mode), 0x7C00);
    EXPECT_EQ(encodeF16(-kInf, mode), 0xFC00);
  }
}

// Rounding continues past the largest finite value as if the format went on:
// f8E4M3FN: 448 = 1.110b*2^8, the next would-be value 480 = 1.111b*2^8 is the
// NaN pattern, so the midpoint 464 ties to the even 448 and anything above
// overflows. f8E4M3FNUZ: 240 = 1.111b*2^7, the next would-be value is 256 =
// 1.000b*2^8 (even), so the midpoint 248 overflows and anything below is 240.
TEST(Codecs, OverflowBoundaries) {
  struct Boundary {
    ScalarType type;
    double midpoint;
    bool midpointOverflows;
  };
  const Boundary boundaries[] = {
      {ScalarType::F8E4M3FN, 464.0, false},
      {ScalarType::F8E4M3FNUZ, 248.0, true},
      {ScalarType::BF16, std::ldexp(511.0, 119), true}, // (max + 2^128) / 2
      {ScalarType::F16, 65520.0, true},
  };
  for (const Boundary &b : boundaries) {
    SCOPED_TRACE(scalarTypeName(b.type));
    const double max = maxFiniteValue(b.type);
    const uint32_t maxBits = encodeScalar(b.type, max, Overflow::NonFinite);
    const uint32_t sign = signMask(b.type);
    const bool hasInfinity = !isFp8(b.type);
    for (double s : {1.0, -1.0}) {
      const uint32_t signBits = s < 0 ? sign : 0;
      auto overflowsTo = [&](double value) {
        EXPECT_EQ(encodeScalar(b.type, s * value, Overflow::Saturate),
                  signBits | maxBits)
            << value;
        double nonFinite = decodeScalar(
            b.type, encodeScalar(b.type, s * value, Overflow::NonFinite));
        if (hasInfinity)
          EXPECT_EQ(nonFinite, s * kInf) << value;
        else
          EXPECT_TRUE(std::isnan(nonFinite)) << value;
      };
      auto staysAtMax = [&](double value) {
        for (Overflow mode : kBothModes)
          EXPECT_EQ(encodeScalar(b.type, s * value, mode), signBits | maxBits)
              << value;
      };
      staysAtMax(std::nextafter(b.midpoint, 0.0));
      if (b.midpointOverflows)
        overflowsTo(b.midpoint);
      else
        staysAtMax(b.midpoint);
      overflowsTo(std::nextafter(b.midpoint, kInf));
      overflowsTo(2 * max);
      overflowsTo(1e300);
    }
  }
  EXPECT_EQ(encodeF8E4M3FN(470.0, Overflow::NonFinite), 0x7F);
  EXPECT_EQ(encodeF8E4M3FN(470.0, Overflow::Saturate), 0x7E);
  EXPECT_EQ(encodeF8E4M3FNUZ(247.0, Overflow::NonFinite), 0x7F);
}

// bf16 RNE is the classic bit trick on the float's bits (non-NaN inputs).
TEST(Codecs, Bf16EncodeMatchesBitTrickOnFloats) {
  auto bitTrick = [](uint32_t f) {
    return uint16_t((f + 0x7FFFu + ((f >> 16) & 1u)) >> 16);
  };
  auto check = [&](uint32_t f) {
    float value;
    std::memcpy(&value, &f, sizeof value);
    if (std::isnan(value))
      return;
    ASSERT_EQ(encodeBf16(value, Overflow::NonFinite), bitTrick(f))
        << std::hex << f;
  };
  for (uint32_t high = 0; high < 65536; ++high)
    for (uint32_t low : {0x0000u, 0x7FFFu, 0x8000u, 0x8001u, 0xFFFFu})
      check((high << 16) | low);
  std::mt19937_64 random(7);
  for (int i = 0; i < 200000; ++i)
    check(uint32_t(random()));
}

#ifdef __FLT16_MAX__
// The compiler's own conversions are an independent RNE implementation.
TEST(Codecs, F16EncodeMatchesCompilerConversion) {
  std::mt19937_64 random(11);
  for (int i = 0; i < 200000; ++i) {
    uint64_t bits = random();
    double wide = std::ldexp(double(bits >> 11) * 0x1p-53, int(bits % 48) - 30);
    if (bits & 1)
      wide = -wide;
    for (double value : {wide, double(float(wide))}) {
      _Float16 converted = (_Float16)value;
      uint16_t expected;
      std::memcpy(&expected, &converted, sizeof expected);
      ASSERT_EQ(encodeF16(value, Overflow::NonFinite), expected) << value;
    }
  }
}
#endif

// Random values in every format's range: no representable value is nearer.
TEST(Codecs, EncodedValueIsNearestRepresentable) {
  std::mt19937_64 random(3);
  for (ScalarType type : kAllTypes) {
    const double max = maxFiniteValue(type);
    for (int i = 0; i < 20000; ++i) {
      double unit = double(random() >> 11) * 0x1p-53;
      double value = max * std::pow(2.0, -40.0 * unit); // log-uniform
      uint32_t bits = encodeScalar(type, value, Overflow::NonFinite);
      double rounded = decodeScalar(type, bits);
      ASSERT_TRUE(std::isfinite(rounded)) << value;
      for (uint32_t neighbour : {bits - 1, bits + 1}) {
        if (neighbour >= signMask(type))
          continue;
        double other = decodeScalar(type, neighbour);
        if (std::isfinite(other)) {
          ASSERT_LE(std::fabs(value - rounded), std::fabs(value - other))
              << scalarTypeName(type) << " " << value;
        }
      }
    }
  }
}

TEST(Codecs, RoundToQueryDtypes) {
  EXPECT_EQ(roundToBf16(1.0f + 0x1p-8f), 1.0f);            // tie -> even
  EXPECT_EQ(roundToBf16(1.0f + 3 * 0x1p-8f), 1.0f + 0x1p-6f); // tie -> even
  EXPECT_EQ(roundToBf16(1.0f + 0x1p-8f + 0x1p-20f), 1.0f + 0x1p-7f);
  EXPECT_EQ(roundToF16(1.0f + 0x1p-11f), 1.0f);
  EXPECT_EQ(roundToF16(1.0f + 3 * 0x1p-11f), 1.0f + 0x1p-9f);
  EXPECT_EQ(roundToF16(70000.0f), std::numeric_limits<float>::infinity());
  EXPECT_EQ(roundToF16(0x1p-12f), 0x1p-12f);
  EXPECT_EQ(roundToScalar(ScalarType::F8E4M3FN, 0.3), 0.3125);
}

TEST(Codecs, NamesRoundTrip) {
  for (ScalarType type : kAllTypes) {
    ScalarType parsed = type == ScalarType::F16 ? ScalarType::BF16 : ScalarType::F16;
    ASSERT_TRUE(parseScalarType(scalarTypeName(type), parsed));
    EXPECT_EQ(parsed, type);
  }
  ScalarType unused;
  EXPECT_FALSE(parseScalarType("fp8", unused));
  EXPECT_EQ(scalarByteSize(ScalarType::F8E4M3FNUZ), 1);
  EXPECT_EQ(scalarByteSize(ScalarType::BF16), 2);
}
