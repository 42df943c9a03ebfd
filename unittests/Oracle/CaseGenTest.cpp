//===- CaseGenTest.cpp - Case generator and JSON descriptions -------------===//
#include "TestSupport.h"

#include "pa/Oracle/Visibility.h"

#include <cmath>
#include <limits>
#include <set>

using namespace pa::oracle;
using namespace pa::oracle::test;

namespace {

const double kInf = std::numeric_limits<double>::infinity();

CaseConfig everyFieldChanged() {
  CaseConfig config;
  config.batch = 3;
  config.queryLen = 4;
  config.numQueryHeads = 16;
  config.numKvHeads = 2;
  config.headDim = 64;
  config.pageSize = 64;
  config.kvType = ScalarType::F8E4M3FNUZ;
  config.queryType = ScalarType::F16;
  config.vLayout = VLayout::Transposed;
  config.scaleMode = ScaleMode::PerToken;
  config.window = 257;
  config.sinks = true;
  config.sinkValues.assign(16, 0.1);
  config.sinkValues[0] = -kInf;
  config.sinkValues[1] = kInf;
  config.sinkValues[2] = 1e-300;
  config.softmaxScale = 0.1234567890123456789;
  config.logitsSoftCap = 30.000000000000004;
  config.contextLengths = {2147483647, 0, 1000000000};
  config.minContextLength = 5;
  config.maxContextLength = 77;
  config.poolPages = 1234;
  config.spareTableColumns = 3;
  config.distribution = ValueDistribution::Normal;
  config.poisonInvisible = true;
  config.nonFinite = NonFiniteInput::QueryF16Overflow;
  config.seed = 18446744073709551615ull;
  config.garbageSeed = 9007199254740993ull; // 2^53 + 1: not a double
  return config;
}

// 64-bit FNV-1a over every buffer of a case, in a fixed order.
uint64_t fingerprint(const DecodeCase &c) {
  uint64_t hash = 14695981039346656037ull;
  auto mix = [&](const void *data, size_t size) {
    const uint8_t *bytes = static_cast<const uint8_t *>(data);
    for (size_t i = 0; i < size; ++i)
      hash = (hash ^ bytes[i]) * 1099511628211ull;
  };
  mix(c.query.data(), c.query.size() * sizeof(float));
  mix(c.keyCache.data(), c.keyCache.size());
  mix(c.valueCache.data(), c.valueCache.size());
  mix(c.blockTables.data(), c.blockTables.size() * sizeof(int32_t));
  mix(c.contextLengths.data(), c.contextLengths.size() * sizeof(int32_t));
  mix(c.keyScales.data(), c.keyScales.size() * sizeof(float));
  mix(c.valueScales.data(), c.valueScales.size() * sizeof(float));
  mix(c.sinks.data(), c.sinks.size() * sizeof(float));
  return hash;
}

bool sameCase(const DecodeCase &a, const DecodeCase &b) {
  return sameBits(a.query, b.query) && sameBits(a.keyCache, b.keyCache) &&
         sameBits(a.valueCache, b.valueCache) &&
         sameBits(a.blockTables, b.blockTables) &&
         sameBits(a.contextLengths, b.contextLengths) &&
         sameBits(a.keyScales, b.keyScales) &&
         sameBits(a.valueScales, b.valueScales) && sameBits(a.sinks, b.sinks) &&
         a.numPages == b.numPages &&
         a.maxPagesPerSequence == b.maxPagesPerSequence;
}

CaseConfig mediumConfig() {
  CaseConfig config;
  config.batch = 4;
  config.queryLen = 2;
  config.numQueryHeads = 8;
  config.numKvHeads = 2;
  config.headDim = 64;
  config.scaleMode = ScaleMode::PerToken;
  config.window = 100;
  config.sinks = true;
  config.contextLengths = {500, 33, 0, 1000};
  config.seed = 42;
  return config;
}

} // namespace

TEST(CaseJson, RoundTripKeepsEveryField) {
  const CaseConfig original = everyFieldChanged();
  const std::string text = toJson(original);
  CaseConfig parsed;
  std::string error;
  ASSERT_TRUE(fromJson(text, parsed, error)) << error << "\n" << text;
  EXPECT_EQ(toJson(parsed), text);
  EXPECT_EQ(parsed.seed, original.seed);
  EXPECT_EQ(parsed.garbageSeed, original.garbageSeed);
  EXPECT_EQ(parsed.sinkValues, original.sinkValues); // incl. +-inf, 1e-300
  EXPECT_EQ(parsed.softmaxScale, original.softmaxScale);
  EXPECT_EQ(parsed.logitsSoftCap, original.logitsSoftCap);
  EXPECT_EQ(parsed.contextLengths, original.contextLengths);
  EXPECT_EQ(parsed.kvType, original.kvType);
  EXPECT_EQ(parsed.queryType, original.queryType);
  EXPECT_EQ(parsed.vLayout, original.vLayout);
  EXPECT_EQ(parsed.scaleMode, original.scaleMode);
  EXPECT_EQ(parsed.distribution, original.distribution);
  EXPECT_EQ(parsed.poisonInvisible, original.poisonInvisible);
  EXPECT_EQ(parsed.nonFinite, original.nonFinite);
  EXPECT_EQ(parsed.spareTableColumns, original.spareTableColumns);
  EXPECT_NE(text.find("-Infinity"), std::string::npos);
  // Every field differs from its default, so each one is really written.
  EXPECT_NE(text, toJson(CaseConfig()));
}

TEST(CaseJson, EmptyObjectGivesDefaultsAndNullClearsOptional) {
  CaseConfig parsed = everyFieldChanged();
  std::string error;
  ASSERT_TRUE(fromJson("{}", parsed, error)) << error;
  EXPECT_EQ(toJson(parsed), toJson(CaseConfig()));
  ASSERT_TRUE(fromJson(" {\"softmax_scale\": null, \"seed\": 7,\n"
                       " \"context_lengths\": [1, 2]} ",
                       parsed, error))
      << error;
  EXPECT_FALSE(parsed.softmaxScale.has_value());
  EXPECT_EQ(parsed.seed, 7u);
  EXPECT_EQ(parsed.contextLengths, (std::vector<int32_t>{1, 2}));
}

TEST(CaseJson, RejectsMalformedDescriptions) {
  const char *bad[] = {
      "",
      "[]",
      "{\"batch\": 1",
      "{\"batch\": 1,}",
      "{\"batchh\": 1}",
      "{\"batch\": 1.5}",
      "{\"batch\": \"1\"}",
      "{\"kv_dtype\": \"fp8\"}",
      "{\"sinks\": 1}",
      "{\"context_lengths\": [1, 2147483648]}",
      "{\"seed\": -1}",
      "{\"batch\": 1} trailing",
  };
  for (const char *text : bad) {
    CaseConfig config;
    std::string error;
    EXPECT_FALSE(fromJson(text, config, error)) << text;
    EXPECT_FALSE(error.empty()) << text;
  }
}

TEST(CaseGen, RegenerationIsBitIdentical) {
  const CaseConfig config = mediumConfig();
  const DecodeCase first = generated(config);
  EXPECT_TRUE(sameCase(first, generated(config)));
  CaseConfig parsed;
  std::string error;
  ASSERT_TRUE(fromJson(toJson(config), parsed, error)) << error;
  EXPECT_TRUE(sameCase(first, generated(parsed)));
  CaseConfig otherSeed = config;
  otherSeed.seed = 43;
  EXPECT_FALSE(sameCase(first, generated(otherSeed)));
}

// Pins the generator's output: the same description must give the same bytes
// with any compiler, standard library and host. Update only on purpose.
TEST(CaseGen, OutputIsPinned) {
  EXPECT_EQ(fingerprint(generated(mediumConfig())), 5608453137904573765ull);
}

TEST(CaseGen, PagesArePermutedOverALargerPool) {
  CaseConfig config = mediumConfig();
  const DecodeCase c = generated(config);
  int64_t needed = 0;
  std::set<int32_t> used;
  for (int64_t b = 0; b < c.batch; ++b) {
    const int64_t pages = (c.contextLengths[size_t(b)] + c.pageSize - 1) / c.pageSize;
    needed += pages;
    for (int64_t i = 0; i < pages; ++i)
      used.insert(c.blockTables[size_t(b * c.maxPagesPerSequence + i)]);
  }
  EXPECT_EQ(int64_t(used.size()), needed) << "pages must not be shared";
  EXPECT_GT(c.numPages, needed);
  EXPECT_GT(c.maxPagesPerSequence, (1000 + 15) / 16);
  // Not the identity mapping: sequence 0's pages are not 0, 1, 2, ...
  bool identity = true;
  for (int64_t i = 0; i < 8; ++i)
    identity = identity && c.blockTables[size_t(i)] == i;
  EXPECT_FALSE(identity);
  // Spare block-table entries point at unused pages.
  for (int64_t b = 0; b < c.batch; ++b) {
    const int64_t pages = (c.contextLengths[size_t(b)] + c.pageSize - 1) / c.pageSize;
    for (int64_t i = pages; i < c.maxPagesPerSequence; ++i)
      EXPECT_EQ(used.count(c.blockTables[size_t(b * c.maxPagesPerSequence + i)]), 0u);
  }

  config.poolPages = needed - 1;
  DecodeCase unused;
  std::string error;
  EXPECT_FALSE(generateCase(config, unused, error));
  EXPECT_NE(error.find("pool_pages"), std::string::npos);
}

TEST(CaseGen, UnwrittenBytesHoldGarbageAndWrittenOnesDoNot) {
  for (ScalarType kvType :
       {ScalarType::F8E4M3FN, ScalarType::F8E4M3FNUZ, ScalarType::BF16}) {
    SCOPED_TRACE(scalarTypeName(kvType));
    CaseConfig config = mediumConfig();
    config.kvType = kvType;
    config.poisonInvisible = true;
    const DecodeCase c = generated(config);
    const CacheGeometry g = cacheGeometry(c);
    const int byteSize = scalarByteSize(kvType);
    std::vector<bool> visibleSlot(size_t(g.numPages * g.pageSize), false);
    for (int64_t b = 0; b < c.batch; ++b) {
      const IndexRange seen =
          visibleToAnyRow(c.contextLengths[size_t(b)], c.queryLen, c.window);
      for (int64_t t = seen.begin; t < seen.end; ++t) {
        TokenLocation at = locateToken(c, b, t);
        visibleSlot[size_t(at.page * g.pageSize + at.slot)] = true;
      }
    }
    int64_t nanInGarbage = 0, garbageElements = 0, nanScales = 0;
    for (int64_t page = 0; page < g.numPages; ++page) {
      for (int64_t slot = 0; slot < g.pageSize; ++slot) {
        const bool visible = visibleSlot[size_t(page * g.pageSize + slot)];
        for (int64_t h = 0; h < g.numKvHeads; ++h) {
          const float scale = c.keyScales[size_t(perTokenScaleIndex(g, page, h, slot))];
          if (visible)
            ASSERT_TRUE(std::isfinite(scale) && scale > 0);
          else
            nanScales += std::isnan(scale);
          for (int64_t d = 0; d < g.headDim; ++d) {
            double value = decodeScalar(
                kvType, readElementBits(c.valueCache, byteSize,
                                        valueIndex(g, c.vLayout, page, h, slot, d)));
            if (visible) {
              ASSERT_TRUE(std::isfinite(value));
            } else {
              ++garbageElements;
              nanInGarbage += std::isnan(value);
            }
          }
        }
      }
    }
    EXPECT_GT(nanInGarbage, garbageElements / 4);
    EXPECT_LT(nanInGarbage, garbageElements); // random bits too
    EXPECT_GT(nanScales, 0);
  }
}

TEST(CaseGen, ValuesScalesAndQueriesLookAsIntended) {
  CaseConfig config = mediumConfig();
  config.contextLengths = {2000, 2000, 2000, 2000};
  config.headDim = 128;
  const DecodeCase c = generated(config);
  const CacheGeometry g = cacheGeometry(c);
  // Dequantized values follow uniform(-0.5, 0.5) up to fp8 rounding.
  double maxMagnitude = 0, sum = 0;
  int64_t count = 0;
  bool powerOfTwoScale = false, otherScale = false;
  for (int64_t t = 0; t < 2000; ++t) {
    TokenLocation at = locateToken(c, 1, t);
    const float scale = c.keyScales[size_t(perTokenScaleIndex(g, at.page, 0, at.slot))];
    int exponent;
    (std::frexp(scale, &exponent) == 0.5 ? powerOfTwoScale : otherScale) = true;
    for (int64_t d = 0; d < c.headDim; ++d) {
      double value = dequantizedElement(c, CacheOperand::Key, at, 0, d);
      maxMagnitude = std::max(maxMagnitude, std::fabs(value));
      sum += value;
      ++count;
    }
  }
  EXPECT_LE(maxMagnitude, 0.5 * 1.0625); // fp8 rounding may overshoot 0.5
  EXPECT_GT(maxMagnitude, 0.4);
  EXPECT_LT(std::fabs(sum / double(count)), 0.01);
  EXPECT_TRUE(powerOfTwoScale);
  EXPECT_TRUE(otherScale);

  int64_t tiny = 0;
  for (float value : c.query) {
    ASSERT_EQ(double(value), roundToScalar(ScalarType::BF16, value));
    tiny += std::fabs(value) >= 0x1p-12f && std::fabs(value) < 0x1p-11f;
  }
  EXPECT_GT(tiny, int64_t(c.query.size()) / 64);
  ASSERT_EQ(c.sinks.size(), size_t(8));
  for (float sink : c.sinks)
    EXPECT_TRUE(sink >= -2.0f && sink <= 4.0f);

  config.distribution = ValueDistribution::Normal;
  config.scaleMode = ScaleMode::None;
  config.kvType = ScalarType::BF16;
  const DecodeCase normal = generated(config);
  double sumSquares = 0;
  count = 0;
  for (int64_t t = 0; t < 2000; ++t)
    for (int64_t d = 0; d < normal.headDim; ++d, ++count) {
      double value = dequantizedElement(normal, CacheOperand::Value,
                                        locateToken(normal, 0, t), 1, d);
      sumSquares += value * value;
    }
  EXPECT_NEAR(sumSquares / double(count), 1.0, 0.02);
}

TEST(CaseGen, GeneratedContextLengthsStayInRange) {
  CaseConfig config;
  config.batch = 50;
  config.minContextLength = 10;
  config.maxContextLength = 20;
  config.headDim = 16;
  config.numQueryHeads = 1;
  const DecodeCase c = generated(config);
  std::set<int32_t> seen(c.contextLengths.begin(), c.contextLengths.end());
  EXPECT_EQ(*seen.begin(), 10);
  EXPECT_EQ(*seen.rbegin(), 20);
  EXPECT_GT(seen.size(), 5u);
  config.maxContextLength = 9;
  DecodeCase unused;
  std::string error;
  EXPECT_FALSE(generateCase(config, unused, error));
}

// Bad shapes are refused before any buffer is sized or written.
TEST(CaseGen, RejectsBadConfigs) {
  auto rejects = [](void (*mutate)(CaseConfig &), const char *expected) {
    CaseConfig config;
    config.contextLengths = {40};
    mutate(config);
    DecodeCase unused;
    std::string error;
    EXPECT_FALSE(generateCase(config, unused, error)) << expected;
    EXPECT_NE(error.find(expected), std::string::npos) << error;
  };
  rejects([](CaseConfig &c) { c.vLayout = VLayout::Transposed; c.pageSize = 20; },
          "transposed V");
  rejects([](CaseConfig &c) { c.headDim = 40; }, "packed K");
  rejects([](CaseConfig &c) { c.batch = 0; c.contextLengths.clear(); }, "positive");
  rejects([](CaseConfig &c) { c.numKvHeads = 3; }, "multiple");
  rejects([](CaseConfig &c) { c.contextLengths = {1, 2}; }, "context_lengths");
  rejects([](CaseConfig &c) { c.contextLengths = {-5}; }, "non-negative");
  rejects([](CaseConfig &c) { c.sinkValues = {1.0}; }, "sink_values");
  rejects([](CaseConfig &c) { c.queryType = ScalarType::F8E4M3FN; }, "query dtype");
  rejects([](CaseConfig &c) { c.spareTableColumns = -1; }, "spare_table_columns");
  rejects([](CaseConfig &c) { c.nonFinite = NonFiniteInput::QueryF16Overflow; },
          "f16 query");
  rejects([](CaseConfig &c) {
    c.scaleMode = ScaleMode::None;
    c.nonFinite = NonFiniteInput::KeyScale;
  }, "scale mode");
  rejects([](CaseConfig &c) {
    c.contextLengths = {0};
    c.nonFinite = NonFiniteInput::KeyNaN;
  }, "no visible token");
  rejects([](CaseConfig &c) {
    c.kvType = ScalarType::F8E4M3FN;
    c.nonFinite = NonFiniteInput::KeyInfinity;
  }, "kv dtype with infinities");
  rejects([](CaseConfig &c) { c.nonFinite = NonFiniteInput::SoftmaxScaleNaN; },
          "softmax_scale = NaN");
  rejects([](CaseConfig &c) {
    c.softmaxScale = std::numeric_limits<double>::quiet_NaN();
    c.nonFinite = NonFiniteInput::SoftmaxScaleInfinity;
  }, "infinite softmax_scale");
  rejects([](CaseConfig &c) {
    c.queryLen = 1;
    c.nonFinite = NonFiniteInput::ValueNaNPartlySeen;
  }, "query_len > 1");
  rejects([](CaseConfig &c) {
    c.queryLen = 2;
    c.scaleMode = ScaleMode::PerTensor;
    c.nonFinite = NonFiniteInput::ValueScaleNaNPartlySeen;
  }, "needs per-token scales");
}

// The non-finite value lands where the family says: a V-side one on a token
// every row of its sequence sees (the partly seen one on the last token,
// which row 0 does not see), a K-side one on a token some row sees;
// nothing else changes.
TEST(CaseGen, NonFiniteValuesLandOnVisibleTokens) {
  for (NonFiniteInput input :
       {NonFiniteInput::KeyScale, NonFiniteInput::ValueScale,
        NonFiniteInput::KeyNaN, NonFiniteInput::ValueNaN,
        NonFiniteInput::KeyScaleInfinity, NonFiniteInput::ValueScaleInfinity,
        NonFiniteInput::KeyInfinity, NonFiniteInput::ValueInfinity,
        NonFiniteInput::ValueNaNPartlySeen}) {
    for (uint64_t seed = 0; seed < 40; ++seed) {
      CaseConfig config;
      config.queryLen = 2;
      config.batch = 3;
      config.numKvHeads = 2;
      config.numQueryHeads = 4;
      config.headDim = 16;
      config.scaleMode = ScaleMode::PerToken;
      config.contextLengths = {0, 1, 17};
      config.seed = seed;
      const bool partlySeen = input == NonFiniteInput::ValueNaNPartlySeen;
      if (input == NonFiniteInput::KeyInfinity ||
          input == NonFiniteInput::ValueInfinity)
        config.kvType = ScalarType::BF16; // fp8 has no infinity
      CaseConfig clean = config;
      config.nonFinite = input;
      SCOPED_TRACE(toJson(config));
      const DecodeCase with = generated(config), without = generated(clean);
      const bool valueSide = input == NonFiniteInput::ValueScale ||
                             input == NonFiniteInput::ValueNaN ||
                             input == NonFiniteInput::ValueScaleInfinity ||
                             input == NonFiniteInput::ValueInfinity ||
                             partlySeen;
      const bool scale = input == NonFiniteInput::KeyScale ||
                         input == NonFiniteInput::ValueScale ||
                         input == NonFiniteInput::KeyScaleInfinity ||
                         input == NonFiniteInput::ValueScaleInfinity;
      int changed = 0;
      for (int64_t b = 0; b < with.batch; ++b) {
        const int64_t length = with.contextLengths[size_t(b)];
        for (int64_t t = 0; t < length; ++t) {
          const TokenLocation at = locateToken(with, b, t);
          for (int64_t h = 0; h < with.numKvHeads; ++h) {
            bool here = false;
            if (scale) {
              const size_t i = size_t(
                  perTokenScaleIndex(cacheGeometry(with), at.page, h, at.slot));
              const auto &a = valueSide ? with.valueScales : with.keyScales;
              const auto &c = valueSide ? without.valueScales : without.keyScales;
              here = !std::isfinite(a[i]) && std::isfinite(c[i]);
            } else {
              const CacheOperand operand =
                  valueSide ? CacheOperand::Value : CacheOperand::Key;
              for (int64_t d = 0; d < with.headDim; ++d)
                here = here || !std::isfinite(
                                   dequantizedElement(with, operand, at, h, d));
            }
            if (!here)
              continue;
            ++changed;
            const IndexRange all = visibleToAnyRow(length, 2, 0);
            EXPECT_TRUE(t >= all.begin && t < all.end) << "token " << t;
            // Row 0 sees up to length - 2; only the partly seen family
            // goes past it, to the last token.
            if (partlySeen)
              EXPECT_EQ(t, length - 1) << "sequence " << b;
            else if (valueSide)
              EXPECT_GT(length - 2 + 1, t) << "row 0 does not see token " << t
                                          << " of sequence " << b;
          }
        }
      }
      EXPECT_EQ(changed, 1);
    }
  }
}

// Behind a window the partly seen NaN V goes to the first token of row 0's
// window, which row Q - 1 has left (where the window cuts the sequence;
// else to the last token, as without one): exactly one of the two rows
// sees it.
TEST(CaseGen, PartlySeenValueBehindAWindow) {
  for (uint64_t seed = 0; seed < 40; ++seed) {
    CaseConfig config;
    config.queryLen = 2;
    config.window = 5;
    config.batch = 3;
    config.numKvHeads = 2;
    config.numQueryHeads = 4;
    config.headDim = 16;
    config.contextLengths = {0, 1, 17};
    config.seed = seed;
    config.nonFinite = NonFiniteInput::ValueNaNPartlySeen;
    SCOPED_TRACE(toJson(config));
    const DecodeCase c = generated(config);
    int changed = 0;
    for (int64_t b = 0; b < c.batch; ++b) {
      const int64_t length = c.contextLengths[size_t(b)];
      const IndexRange row0 = visibleTokenRange(length, 2, 0, 5);
      const IndexRange row1 = visibleTokenRange(length, 2, 1, 5);
      for (int64_t t = 0; t < length; ++t)
        for (int64_t h = 0; h < c.numKvHeads; ++h) {
          bool here = false;
          for (int64_t d = 0; d < c.headDim; ++d)
            here = here || !std::isfinite(dequantizedElement(
                               c, CacheOperand::Value, locateToken(c, b, t),
                               h, d));
          if (!here)
            continue;
          ++changed;
          const bool seen0 = t >= row0.begin && t < row0.end;
          const bool seen1 = t >= row1.begin && t < row1.end;
          EXPECT_NE(seen0, seen1) << "token " << t << " of sequence " << b;
          if (length == 17)
            EXPECT_EQ(t, 11) << "row 0's window is [11, 16), row 1's [12, 17)";
        }
    }
    EXPECT_EQ(changed, 1);
  }
}
