//===- FloatFormatsTest.cpp - the emulator's small floats vs APFloat ------===//
//
// LLVM's APFloat is the independent reference: every encoding of the 8- and
// 16-bit formats decodes to the same value, and f32 values (every class:
// boundaries, ties, subnormals, overflow, random bit patterns) round to the
// same encoding (round to nearest even), with the fp8 saturation of the
// AMD arith.truncf lowering on top for f32ToSmallFloat.
//
//===----------------------------------------------------------------------===//
#include "pa/Emulator/FloatFormats.h"

#include "llvm/ADT/APFloat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

using namespace mlir::pa::emulator;

namespace {

struct Format {
  ScalarKind kind;
  const llvm::fltSemantics *semantics;
  unsigned bits;
};

const Format kFormats[] = {
    {ScalarKind::F8E4M3FN, &llvm::APFloat::Float8E4M3FN(), 8},
    {ScalarKind::F8E4M3FNUZ, &llvm::APFloat::Float8E4M3FNUZ(), 8},
    {ScalarKind::F8E5M2, &llvm::APFloat::Float8E5M2(), 8},
    {ScalarKind::F8E5M2FNUZ, &llvm::APFloat::Float8E5M2FNUZ(), 8},
    {ScalarKind::BF16, &llvm::APFloat::BFloat(), 16},
    {ScalarKind::F16, &llvm::APFloat::IEEEhalf(), 16},
};

float decodeReference(const Format &f, uint32_t bits) {
  llvm::APFloat value(*f.semantics, llvm::APInt(f.bits, bits));
  bool lost;
  value.convert(llvm::APFloat::IEEEsingle(),
                llvm::APFloat::rmNearestTiesToEven, &lost);
  return value.convertToFloat();
}

/// The encoding APFloat rounds `x` to (NaN: any NaN of the format).
uint32_t encodeReference(const Format &f, float x) {
  llvm::APFloat value(x);
  bool lost;
  value.convert(*f.semantics, llvm::APFloat::rmNearestTiesToEven, &lost);
  return uint32_t(value.bitcastToAPInt().getZExtValue());
}

bool isNaNEncoding(const Format &f, uint32_t bits) {
  return std::isnan(decodeReference(f, bits));
}

float largest(const Format &f) {
  return llvm::APFloat::getLargest(*f.semantics).convertToDouble();
}

/// The f32 values every format is checked on.
std::vector<float> probes() {
  std::vector<float> values = {0.0f, -0.0f, INFINITY, -INFINITY, NAN,
                               1.0f, -1.0f, 1e-45f, -1e-45f, 3.4e38f};
  for (const Format &f : kFormats) {
    // Around every representable value: itself, the midpoints to the
    // neighbours (ties) and values just beside them.
    for (uint32_t bits = 0; bits < (1u << f.bits); bits += f.bits == 8 ? 1 : 7) {
      float v = decodeReference(f, bits);
      if (!std::isfinite(v))
        continue;
      float next = decodeReference(f, bits + 1);
      values.push_back(v);
      if (std::isfinite(next) && next != v) {
        float mid = v + (next - v) / 2;
        values.push_back(mid);
        values.push_back(std::nextafter(mid, INFINITY));
        values.push_back(std::nextafter(mid, -INFINITY));
      }
    }
    float top = largest(f);
    for (float scale : {1.0f, 1.0001f, 1.03f, 1.07f, 1.2f, 2.0f, 1e3f})
      for (float sign : {1.0f, -1.0f})
        values.push_back(sign * top * scale);
  }
  std::mt19937 random(42);
  for (int i = 0; i < 200000; ++i) {
    uint32_t bits = random();
    float v;
    std::memcpy(&v, &bits, 4);
    values.push_back(v);
    values.push_back(std::ldexp(float(random()) / 4294967296.0f - 0.5f,
                                int(random() % 40) - 20));
  }
  return values;
}

TEST(FloatFormats, EveryEncodingDecodesLikeAPFloat) {
  for (const Format &f : kFormats)
    for (uint32_t bits = 0; bits < (1u << f.bits); ++bits) {
      float want = decodeReference(f, bits);
      float got = smallFloatToF32(f.kind, bits);
      if (std::isnan(want))
        EXPECT_TRUE(std::isnan(got)) << scalarKindName(f.kind) << " " << bits;
      else
        EXPECT_EQ(std::memcmp(&want, &got, 4), 0)
            << scalarKindName(f.kind) << " 0x" << std::hex << bits << ": "
            << got << " vs " << want;
    }
}

TEST(FloatFormats, RoundingMatchesAPFloat) {
  std::vector<float> values = probes();
  for (const Format &f : kFormats)
    for (float x : values) {
      uint32_t want = encodeReference(f, x);
      uint32_t got = f32ToSmallFloatUnsaturated(f.kind, x);
      if (isNaNEncoding(f, want)) {
        ASSERT_TRUE(isNaNEncoding(f, got))
            << scalarKindName(f.kind) << " of " << x;
        continue;
      }
      ASSERT_EQ(got, want) << scalarKindName(f.kind) << " of " << x;
    }
}

TEST(FloatFormats, Fp8TruncationSaturatesFiniteValues) {
  std::vector<float> values = probes();
  for (const Format &f : kFormats) {
    const bool fp8 = f.bits == 8;
    const float top = largest(f);
    for (float x : values) {
      // The AMD arith.truncf lowering clamps finite values to +-max first
      // (fp8 only); infinities and NaN go to the converter unchanged.
      float clamped = fp8 && std::isfinite(x)
                          ? std::fmax(-top, std::fmin(top, x))
                          : x;
      uint32_t want = encodeReference(f, clamped);
      uint32_t got = f32ToSmallFloat(f.kind, x);
      if (isNaNEncoding(f, want)) {
        ASSERT_TRUE(isNaNEncoding(f, got))
            << scalarKindName(f.kind) << " of " << x;
        continue;
      }
      ASSERT_EQ(got, want) << scalarKindName(f.kind) << " of " << x;
    }
  }
}

TEST(FloatFormats, KnownValues) {
  EXPECT_EQ(f32ToSmallFloat(ScalarKind::F8E4M3FN, 1000.0f), 0x7Eu); // 448
  EXPECT_EQ(f32ToSmallFloat(ScalarKind::F8E4M3FNUZ, 1000.0f), 0x7Fu); // 240
  EXPECT_EQ(f32ToSmallFloat(ScalarKind::F8E4M3FNUZ, -0.0f), 0x00u);
  EXPECT_EQ(f32ToSmallFloatUnsaturated(ScalarKind::F8E4M3FN, 1000.0f), 0x7Fu);
  EXPECT_EQ(f32ToSmallFloatUnsaturated(ScalarKind::F8E4M3FNUZ, 1000.0f),
            0x80u);
  EXPECT_EQ(smallFloatToF32(ScalarKind::F8E4M3FNUZ, 0x7F), 240.0f);
  EXPECT_EQ(smallFloatToF32(ScalarKind::F8E4M3FN, 0x7E), 448.0f);
  EXPECT_EQ(f32ToSmallFloat(ScalarKind::BF16, 1.0f + 1.0f / 256), 0x3F80u);
  EXPECT_EQ(f32ToSmallFloat(ScalarKind::BF16, 1.0f + 3.0f / 256), 0x3F82u);
}

} // namespace
