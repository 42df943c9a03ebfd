//===- ReferenceTest.cpp - Float64 reference: invariance and brute force --===//
#include "TestSupport.h"

#include "pa/Oracle/Visibility.h"

#include <cmath>
#include <set>
#include <limits>

using namespace pa::oracle;
using namespace pa::oracle::test;

namespace {

const double kInf = std::numeric_limits<double>::infinity();

void expectClose(const std::vector<double> &expected,
                 const std::vector<double> &actual, const char *what) {
  ASSERT_EQ(expected.size(), actual.size()) << what;
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_TRUE(std::isfinite(actual[i])) << what << " element " << i;
    ASSERT_LE(std::fabs(actual[i] - expected[i]),
              1e-12 * std::fabs(expected[i]) + 1e-14)
        << what << " element " << i << ": expected " << expected[i]
        << " got " << actual[i];
  }
}

CaseConfig invarianceConfig(int64_t batch, int64_t queryLen,
                            int64_t numQueryHeads, int64_t numKvHeads,
                            ScalarType kvType, ScalarType queryType,
                            VLayout layout, ScaleMode scales, int64_t window,
                            uint64_t seed) {
  CaseConfig config;
  config.batch = batch;
  config.queryLen = queryLen;
  config.numQueryHeads = numQueryHeads;
  config.numKvHeads = numKvHeads;
  config.headDim = 64;
  config.kvType = kvType;
  config.queryType = queryType;
  config.vLayout = layout;
  config.scaleMode = scales;
  config.window = window;
  config.maxContextLength = 2000;
  config.seed = seed;
  return config;
}

std::vector<CaseConfig> invarianceConfigs() {
  using ST = ScalarType;
  std::vector<CaseConfig> configs;
  configs.push_back(invarianceConfig(3, 1, 8, 1, ST::F8E4M3FN, ST::BF16,
                                     VLayout::Plain, ScaleMode::PerTensor, 0, 1));
  CaseConfig c = invarianceConfig(3, 4, 8, 2, ST::F8E4M3FNUZ, ST::F16,
                                  VLayout::Transposed, ScaleMode::PerToken, 257, 2);
  c.sinks = true;
  c.contextLengths = {2000, 513, 3};
  configs.push_back(c);
  c = invarianceConfig(2, 2, 4, 4, ST::BF16, ST::BF16, VLayout::Transposed,
                       ScaleMode::None, 1, 3);
  c.sinks = true;
  c.pageSize = 32;
  c.contextLengths = {1999, 257}; // W = 1, Q = 2: rows see tokens 255, 256
  configs.push_back(c);
  c = invarianceConfig(2, 8, 32, 1, ST::F8E4M3FN, ST::F16, VLayout::Plain,
                       ScaleMode::PerToken, 0, 4);
  c.contextLengths = {1500, 9};
  c.distribution = ValueDistribution::Normal;
  configs.push_back(c);
  c = invarianceConfig(4, 3, 4, 2, ST::F8E4M3FNUZ, ST::BF16, VLayout::Plain,
                       ScaleMode::PerTensor, 5000, 5);
  c.contextLengths = {0, 1, 2, 1800};
  c.sinks = true;
  c.sinkValues = {-kInf, kInf, 0.5, -1.0};
  configs.push_back(c);
  c = invarianceConfig(2, 5, 10, 5, ST::F8E4M3FN, ST::BF16, VLayout::Transposed,
                       ScaleMode::PerToken, 2147483647, 6);
  c.contextLengths = {2047, 1025};
  configs.push_back(c);
  c = invarianceConfig(3, 4, 8, 2, ST::BF16, ST::F16, VLayout::Plain,
                       ScaleMode::None, 17, 7);
  c.contextLengths = {1777, 270, 4}; // 270: tokens 250..269 span two tiles
  c.distribution = ValueDistribution::Normal;
  c.poisonInvisible = true;
  configs.push_back(c);
  c = invarianceConfig(4, 6, 12, 3, ST::F8E4M3FN, ST::BF16, VLayout::Plain,
                       ScaleMode::PerToken, 300, 8);
  c.pageSize = 64;
  c.sinks = true;
  configs.push_back(c);
  return configs;
}

} // namespace

// Any plan, from one partition per sequence to one tile per partition, gives
// the unsplit answer.
TEST(Reference, SplitEqualsDirectForEveryPlan) {
  for (const CaseConfig &config : invarianceConfigs()) {
    SCOPED_TRACE(toJson(config));
    const DecodeCase c = generated(config);
    const std::vector<double> expected = direct(c);
    int64_t maxTiles = 1;
    for (int32_t length : c.contextLengths)
      maxTiles = std::max(
          maxTiles, visibleTileRange(length, c.queryLen, c.window).size());
    ASSERT_GT(maxTiles, 1) << "case must span several tiles";
    const int64_t H = c.numKvHeads, B = c.batch;
    enum class Extreme { None, OnePartitionPerSequence, OneTilePerPartition };
    struct Budget {
      int64_t budget, maxPartitions;
      Extreme extreme;
    };
    const Budget budgets[] = {
        {1, 1, Extreme::OnePartitionPerSequence},
        {3 * H, 2, Extreme::None},
        {2 * H * B, 3, Extreme::None},
        {7 * H, 64, Extreme::None},
        {4 * H * B, 16, Extreme::None},
        {H * B * maxTiles, maxTiles, Extreme::OneTilePerPartition}};
    for (const Budget &budget : budgets) {
      SCOPED_TRACE(::testing::Message() << "budget " << budget.budget
                                        << " max partitions "
                                        << budget.maxPartitions);
      const WorkPlan p =
          plan(planRequestFor(c, budget.budget, budget.maxPartitions));
      expectClose(expected, split(c, p), "split");
      for (int64_t b = 0; b < B; ++b) {
        int64_t tiles = visibleTileRange(c.contextLengths[size_t(b)],
                                         c.queryLen, c.window).size();
        if (budget.extreme == Extreme::OnePartitionPerSequence) {
          EXPECT_EQ(p.partitionCount(b), std::min<int64_t>(tiles, 1));
        }
        if (budget.extreme == Extreme::OneTilePerPartition) {
          EXPECT_EQ(p.partitionCount(b), tiles);
        }
      }
    }
  }
}

// C = 258, Q = 4, W = 1: row q sees only token 254 + q, so with one tile per
// partition rows 0-1 see nothing in tile 1 and rows 2-3 nothing in tile 0.
TEST(Reference, PartialsOfRowsWithNothingVisibleAreEmpty) {
  CaseConfig config;
  config.queryLen = 4;
  config.numQueryHeads = 2;
  config.numKvHeads = 1;
  config.headDim = 32;
  config.window = 1;
  config.contextLengths = {258};
  config.seed = 17;
  const DecodeCase c = generated(config);
  PlanRequest request = planRequestFor(c, 64, 64);
  request.contextLengths = {258};
  const WorkPlan p = plan(request);
  ASSERT_EQ(p.partitionCount(0), 2);
  PartialResults partials;
  std::string error;
  ASSERT_TRUE(computePartials(c, p, partials, error)) << error;
  ASSERT_EQ(partials.rows, 8);
  for (int64_t slot = 0; slot < 2; ++slot) {
    for (int64_t row = 0; row < 8; ++row) {
      const int64_t q = row / 2;
      const bool visible = (slot == 0) == (q < 2);
      const int64_t i = partials.rowIndex(0, slot, row);
      if (visible) {
        EXPECT_TRUE(std::isfinite(partials.maxLogits[size_t(i)]));
        EXPECT_EQ(partials.expSums[size_t(i)], 1.0); // one token: e^0
      } else {
        EXPECT_EQ(partials.maxLogits[size_t(i)], -kInf);
        EXPECT_EQ(partials.expSums[size_t(i)], 0.0);
        for (int64_t d = 0; d < c.headDim; ++d)
          EXPECT_EQ(partials.tmpOut[size_t(i * c.headDim + d)], 0.0);
      }
    }
  }
  // Unused slots are NaN, like unwritten kernel scratch; the reducer must
  // not read them.
  ASSERT_GT(p.capacity, 2);
  EXPECT_TRUE(std::isnan(partials.maxLogits[size_t(partials.rowIndex(0, 2, 0))]));
  std::vector<double> out;
  ASSERT_TRUE(reducePartials(c, p, partials, out, error)) << error;
  expectClose(direct(c), out, "reduced");
}

TEST(Reference, SingleVisibleTokenReturnsItsValue) {
  CaseConfig config;
  config.numQueryHeads = 1;
  config.headDim = 16;
  config.kvType = ScalarType::BF16;
  config.scaleMode = ScaleMode::None;
  config.contextLengths = {1};
  config.seed = 5;
  DecodeCase c = generated(config);
  const std::vector<double> out = direct(c);
  const TokenLocation at = locateToken(c, 0, 0);
  for (int64_t d = 0; d < 16; ++d)
    EXPECT_EQ(out[size_t(d)],
              dequantizedElement(c, CacheOperand::Value, at, 0, d));
  // A sink z adds e^(z - M) to the denominator: out = V e^s / (e^s + e^z).
  c.sinks = {0.75f};
  double s = 0;
  for (int64_t d = 0; d < 16; ++d)
    s += double(c.query[size_t(d)]) *
         dequantizedElement(c, CacheOperand::Key, at, 0, d);
  s *= 0.25; // 16^-0.5
  const double weight = std::exp(s) / (std::exp(s) + std::exp(0.75));
  const std::vector<double> withSink = direct(c);
  for (int64_t d = 0; d < 16; ++d)
    EXPECT_NEAR(withSink[size_t(d)],
                weight * dequantizedElement(c, CacheOperand::Value, at, 0, d),
                1e-15);
}

//===----------------------------------------------------------------------===//
// Dense brute force with an explicit mask matrix
//===----------------------------------------------------------------------===//

namespace {

struct BruteForce {
  std::vector<double> output;  // [B*Q, Hq, D]
  std::vector<double> lse;     // [B*Q, Hq]: log(sum e^s + e^z)
  std::vector<bool> rowIsEmpty; // [B*Q]: the mask row has no true entry
};

// Attention of every query row over dense per-sequence K/V. The mask is built
// from "t <= pos and t > pos - W" token by token; the softmax follows the
// spec's first formula, with its stated special cases spelled out.
BruteForce bruteForce(const DecodeCase &c) {
  BruteForce result;
  const int64_t B = c.batch, Q = c.queryLen, Hq = c.numQueryHeads,
                Hkv = c.numKvHeads, D = c.headDim, G = Hq / Hkv;
  const double scale = c.softmaxScale ? *c.softmaxScale : 1 / std::sqrt(double(D));
  result.output.assign(size_t(B * Q * Hq * D), 0.0);
  result.lse.assign(size_t(B * Q * Hq), -kInf);
  result.rowIsEmpty.assign(size_t(B * Q), true);
  for (int64_t b = 0; b < B; ++b) {
    const int64_t C = c.contextLengths[size_t(b)];
    std::vector<std::vector<bool>> mask(static_cast<size_t>(Q),
                                        std::vector<bool>(static_cast<size_t>(C)));
    for (int64_t q = 0; q < Q; ++q) {
      const int64_t pos = C - Q + q;
      for (int64_t t = 0; t < C; ++t) {
        bool causal = t <= pos;
        bool inWindow = c.window <= 0 || t >= pos - c.window + 1;
        mask[size_t(q)][size_t(t)] = causal && inWindow;
        if (causal && inWindow)
          result.rowIsEmpty[size_t(b * Q + q)] = false;
      }
    }
    // Dense K/V [t][h][d], read only where some row's mask is set.
    std::vector<double> K(size_t(C * Hkv * D)), V(K.size());
    for (int64_t t = 0; t < C; ++t) {
      bool needed = false;
      for (int64_t q = 0; q < Q; ++q)
        needed = needed || mask[size_t(q)][size_t(t)];
      if (!needed)
        continue;
      for (int64_t h = 0; h < Hkv; ++h)
        for (int64_t d = 0; d < D; ++d) {
          const TokenLocation at{
              c.blockTables[size_t(b * c.maxPagesPerSequence + t / c.pageSize)],
              t % c.pageSize};
          K[size_t((t * Hkv + h) * D + d)] =
              dequantizedElement(c, CacheOperand::Key, at, h, d);
          V[size_t((t * Hkv + h) * D + d)] =
              dequantizedElement(c, CacheOperand::Value, at, h, d);
        }
    }
    for (int64_t q = 0; q < Q; ++q) {
      for (int64_t hq = 0; hq < Hq; ++hq) {
        const int64_t h = hq / G;
        const double z = c.sinks.empty() ? -kInf : c.sinks[size_t(hq)];
        double *out = &result.output[size_t(((b * Q + q) * Hq + hq) * D)];
        double &lse = result.lse[size_t((b * Q + q) * Hq + hq)];
        if (z == kInf) {
          lse = kInf;
          continue; // exactly 0
        }
        if (result.rowIsEmpty[size_t(b * Q + q)]) {
          lse = z; // log(e^z), -inf without a sink
          continue; // exactly 0
        }
        std::vector<double> logits(static_cast<size_t>(C));
        double M = z;
        for (int64_t t = 0; t < C; ++t) {
          if (!mask[size_t(q)][size_t(t)])
            continue;
          double dot = 0;
          for (int64_t d = 0; d < D; ++d)
            dot += double(c.query[size_t(((b * Q + q) * Hq + hq) * D + d)]) *
                   K[size_t((t * Hkv + h) * D + d)];
          logits[size_t(t)] = scale * dot;
          if (c.logitsSoftCap > 0)
            logits[size_t(t)] =
                c.logitsSoftCap * std::tanh(logits[size_t(t)] / c.logitsSoftCap);
          if (c.alibi) // after the cap; pos = C - Q + q is the row's token
            logits[size_t(t)] +=
                double(c.alibiSlopes[size_t(hq)]) * double(t - (C - Q + q));
          M = std::max(M, logits[size_t(t)]);
        }
        double den = z == -kInf ? 0.0 : std::exp(z - M);
        std::vector<double> num(size_t(D), 0.0);
        for (int64_t t = 0; t < C; ++t) {
          if (!mask[size_t(q)][size_t(t)])
            continue;
          double p = std::exp(logits[size_t(t)] - M);
          den += p;
          for (int64_t d = 0; d < D; ++d)
            num[size_t(d)] += p * V[size_t((t * Hkv + h) * D + d)];
        }
        for (int64_t d = 0; d < D; ++d)
          out[d] = num[size_t(d)] / den;
        lse = M + std::log(den);
      }
    }
  }
  return result;
}

} // namespace

TEST(Reference, MatchesDenseBruteForceOnTinyCases) {
  const int64_t windows[] = {0, -1, 1, 2, 5, 40, 2147483647};
  const ScalarType kvTypes[] = {ScalarType::F8E4M3FN, ScalarType::F8E4M3FNUZ,
                                ScalarType::BF16};
  int emptyRowsSeen = 0, infiniteSinkHeadsSeen = 0, cases = 0;
  int softCappedCases = 0, alibiCases = 0;
  for (ScalarType kvType : kvTypes) {
    for (int64_t queryLen : {1, 3, 5}) {
      for (int64_t window : windows) {
        for (int sinkMode = 0; sinkMode < 3; ++sinkMode) {
          ++cases;
          CaseConfig config;
          config.batch = 5;
          config.queryLen = queryLen;
          config.numKvHeads = 1 + cases % 2;
          config.numQueryHeads = config.numKvHeads * (int64_t(1) << (cases % 3));
          config.headDim = 16;
          config.pageSize = 16;
          config.kvType = kvType;
          config.queryType = cases % 2 ? ScalarType::BF16 : ScalarType::F16;
          config.vLayout = cases % 4 < 2 ? VLayout::Plain : VLayout::Transposed;
          config.scaleMode = ScaleMode(cases % 3);
          config.window = window;
          config.contextLengths = {0, 1, 4, 37, 300};
          config.sinks = sinkMode > 0;
          if (sinkMode == 2) { // -inf, +inf and finite sinks side by side
            for (int64_t i = 0; i < config.numQueryHeads; ++i)
              config.sinkValues.push_back(i % 3 == 0 ? -kInf : i % 3 == 1 ? kInf : 0.3);
          }
          if (cases % 5 == 0)
            config.softmaxScale = 0.7;
          if (cases % 4 == 1) { // a soft-cap where tanh is far from linear
            config.softmaxScale = 2.0;
            config.logitsSoftCap = 0.4;
            ++softCappedCases;
          }
          if (cases % 3 == 2) { // ALiBi, also together with the soft-cap
            config.alibi = true;
            ++alibiCases;
          }
          config.seed = uint64_t(cases);
          SCOPED_TRACE(toJson(config));
          const DecodeCase c = generated(config);
          const BruteForce expected = bruteForce(c);
          const std::vector<double> fromDirect = direct(c);
          expectClose(expected.output, fromDirect, "direct");
          expectClose(expected.output, split(c, plan(planRequestFor(c, 1, 1))),
                      "split, one partition per sequence");
          expectClose(expected.output, split(c, plan(planRequestFor(c, 64, 64))),
                      "split, one tile per partition");
          // The log-sum-exp, direct and through the reducer.
          std::vector<double> output, directLse, splitLse;
          std::string error;
          ASSERT_TRUE(referenceDecodeDirect(c, output, error, &directLse)) << error;
          const WorkPlan tilePlan = plan(planRequestFor(c, 64, 64));
          PartialResults partials;
          ASSERT_TRUE(computePartials(c, tilePlan, partials, error)) << error;
          ASSERT_TRUE(reducePartials(c, tilePlan, partials, output, error,
                                     &splitLse))
              << error;
          for (size_t i = 0; i < expected.lse.size(); ++i) {
            if (std::isinf(expected.lse[i])) {
              ASSERT_EQ(directLse[i], expected.lse[i]) << "lse " << i;
              ASSERT_EQ(splitLse[i], expected.lse[i]) << "lse " << i;
            } else {
              ASSERT_NEAR(directLse[i], expected.lse[i], 1e-12) << "lse " << i;
              ASSERT_NEAR(splitLse[i], expected.lse[i], 1e-12) << "lse " << i;
            }
          }
          // Edge rows are exactly 0, not merely close to it.
          const int64_t Hq = c.numQueryHeads, D = c.headDim;
          for (int64_t row = 0; row < c.batch * c.queryLen; ++row) {
            for (int64_t hq = 0; hq < Hq; ++hq) {
              const bool infiniteSink = !c.sinks.empty() && c.sinks[size_t(hq)] == kInf;
              if (!expected.rowIsEmpty[size_t(row)] && !infiniteSink)
                continue;
              emptyRowsSeen += expected.rowIsEmpty[size_t(row)];
              infiniteSinkHeadsSeen += infiniteSink;
              for (int64_t d = 0; d < D; ++d)
                ASSERT_EQ(fromDirect[size_t((row * Hq + hq) * D + d)], 0.0)
                    << "row " << row << " head " << hq;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(emptyRowsSeen, 0);
  EXPECT_GT(infiniteSinkHeadsSeen, 0);
  EXPECT_GT(softCappedCases, 0);
  EXPECT_GT(alibiCases, 0);
}

// The soft-cap changes the output by far more than the spec's tolerance
// where scores reach the cap (so a kernel that ignores it fails), and a cap
// far above every score changes nothing measurable.
TEST(Reference, SoftCapMattersOnlyNearTheCap) {
  CaseConfig config = invarianceConfig(2, 2, 8, 2, ScalarType::F8E4M3FN,
                                       ScalarType::BF16, VLayout::Plain,
                                       ScaleMode::PerToken, 0, 31);
  config.headDim = 128;
  config.softmaxScale = 1.0;
  config.contextLengths = {300, 41};
  const std::vector<double> uncapped = direct(generated(config));
  config.logitsSoftCap = 1.0;
  const std::vector<double> capped = direct(generated(config));
  config.logitsSoftCap = 1e6;
  const std::vector<double> farCap = direct(generated(config));
  double largest = 0, farthest = 0;
  for (size_t i = 0; i < uncapped.size(); ++i) {
    largest = std::max(largest, std::fabs(capped[i] - uncapped[i]));
    farthest = std::max(farthest, std::fabs(farCap[i] - uncapped[i]));
  }
  EXPECT_GT(largest, 20 * specTolerance(ScalarType::F8E4M3FN));
  EXPECT_LT(farthest, 1e-9);
}

// ALiBi slopes change the output by far more than the spec's tolerance (a
// kernel that ignores them fails), and zero slopes change nothing.
TEST(Reference, AlibiMattersAndZeroSlopesChangeNothing) {
  CaseConfig config = invarianceConfig(2, 2, 8, 2, ScalarType::F8E4M3FN,
                                       ScalarType::BF16, VLayout::Plain,
                                       ScaleMode::PerToken, 0, 31);
  config.headDim = 128;
  config.contextLengths = {300, 41};
  const std::vector<double> plain = direct(generated(config));
  config.alibi = true;
  DecodeCase sloped = generated(config);
  const std::vector<double> biased = direct(sloped);
  std::fill(sloped.alibiSlopes.begin(), sloped.alibiSlopes.end(), 0.0f);
  const std::vector<double> zero = direct(sloped);
  double largest = 0;
  for (size_t i = 0; i < plain.size(); ++i) {
    largest = std::max(largest, std::fabs(biased[i] - plain[i]));
    ASSERT_EQ(zero[i], plain[i]) << i;
  }
  EXPECT_GT(largest, 20 * specTolerance(ScalarType::F8E4M3FN));
}

TEST(Reference, NegativeInfiniteSinkEqualsNoSink) {
  CaseConfig config = invarianceConfig(3, 3, 8, 2, ScalarType::F8E4M3FN,
                                       ScalarType::BF16, VLayout::Transposed,
                                       ScaleMode::PerToken, 100, 21);
  config.contextLengths = {700, 2, 0};
  const DecodeCase noSink = generated(config);
  config.sinks = true;
  config.sinkValues.assign(8, -kInf);
  const DecodeCase minusInfinity = generated(config);
  const WorkPlan p = plan(planRequestFor(noSink, 8, 8));
  EXPECT_TRUE(sameBits(direct(noSink), direct(minusInfinity)));
  EXPECT_TRUE(sameBits(split(noSink, p), split(minusInfinity, p)));
  config.sinkValues.assign(8, 0.0); // a finite sink does change the output
  EXPECT_FALSE(sameBits(direct(noSink), direct(generated(config))));
}

TEST(Reference, PositiveInfiniteSinkGivesZero) {
  CaseConfig config = invarianceConfig(2, 2, 4, 1, ScalarType::BF16,
                                       ScalarType::BF16, VLayout::Plain,
                                       ScaleMode::None, 0, 22);
  config.sinks = true;
  config.sinkValues.assign(4, kInf);
  const DecodeCase c = generated(config);
  for (double value : direct(c))
    ASSERT_EQ(value, 0.0);
  for (double value : split(c, plan(planRequestFor(c, 16, 16))))
    ASSERT_EQ(value, 0.0);
}

// Garbage (NaN/inf patterns, random bits) in unused pages, page tails, unused
// per-token scales, spare block-table entries and tokens no row sees: a
// different garbage seed changes those bytes and never the output.
TEST(Reference, GarbageNeverChangesTheOutput) {
  for (CaseConfig config : invarianceConfigs()) {
    config.poisonInvisible = true;
    SCOPED_TRACE(toJson(config));
    config.garbageSeed = 1;
    const DecodeCase first = generated(config);
    config.garbageSeed = 2;
    const DecodeCase second = generated(config);
    ASSERT_FALSE(sameBits(first.keyCache, second.keyCache));
    ASSERT_FALSE(sameBits(first.valueCache, second.valueCache));
    if (config.scaleMode == ScaleMode::PerToken) {
      ASSERT_FALSE(sameBits(first.keyScales, second.keyScales));
    }
    ASSERT_TRUE(sameBits(first.query, second.query));
    const std::vector<double> expected = direct(first);
    for (double value : expected)
      ASSERT_TRUE(std::isfinite(value));
    EXPECT_TRUE(sameBits(expected, direct(second)));
    const WorkPlan p = plan(planRequestFor(first, 5 * first.numKvHeads, 8));
    EXPECT_TRUE(sameBits(split(first, p), split(second, p)));
  }
}

TEST(Reference, RejectsInvalidCasesAndStalePlans) {
  CaseConfig config;
  config.contextLengths = {100};
  config.numQueryHeads = 2;
  config.headDim = 32;
  const DecodeCase good = generated(config);
  std::vector<double> out;
  std::string error;
  auto rejects = [&](void (*mutate)(DecodeCase &), const char *expected) {
    DecodeCase c = good;
    mutate(c);
    error.clear();
    EXPECT_FALSE(referenceDecodeDirect(c, out, error)) << expected;
    EXPECT_NE(error.find(expected), std::string::npos) << error;
  };
  rejects([](DecodeCase &c) { c.query[0] = 1.0f + 0x1p-12f; }, "representable");
  rejects([](DecodeCase &c) { c.keyCache.pop_back(); }, "cache");
  rejects([](DecodeCase &c) { c.blockTables[0] = int32_t(c.numPages); }, "outside the pool");
  rejects([](DecodeCase &c) { c.window = -2; }, "window");
  rejects([](DecodeCase &c) { c.kvType = ScalarType::F16; }, "kv dtype");
  rejects([](DecodeCase &c) { c.numKvHeads = 3; }, "multiple");
  rejects([](DecodeCase &c) { c.headDim = 24; }, "headDim");
  rejects([](DecodeCase &c) { c.contextLengths[0] = -1; }, "context length");
  rejects([](DecodeCase &c) { c.keyScales.clear(); }, "scale mode");
  rejects([](DecodeCase &c) { c.sinks = {1.0f}; }, "sinks");

  PlanRequest request = planRequestFor(good, 4, 4);
  request.contextLengths = {90}; // plan made for other lengths
  EXPECT_FALSE(referenceDecodeSplit(good, plan(request), out, error));
  EXPECT_NE(error.find("context length"), std::string::npos) << error;
}

// fp8 compute's query (DecodeCase::queryQuantizedPerRow), against values
// worked out by hand: the row's largest magnitude becomes the fp8 maximum
// (448 for e4m3fn, 240 for e4m3fnuz), every value is rounded to the fp8
// grid there (RNE) and scaled back.
TEST(Reference, QueryQuantizedPerRowAsFp8ComputeSeesIt) {
  DecodeCase c;
  c.headDim = 4;
  const float row[4] = {1.0f, -0.3f, 0.1f, 0.0f};
  std::vector<double> exact = productQueryRow(c, row);
  EXPECT_EQ(exact, std::vector<double>({1.0, double(-0.3f), double(0.1f), 0.0}));

  c.queryQuantizedPerRow = ScalarType::F8E4M3FN;
  std::vector<double> fn = productQueryRow(c, row);
  // 448; -134.4 -> -128 (grid 16 in [128, 256)); 44.8 -> 44 (grid 4).
  EXPECT_DOUBLE_EQ(fn[0], 1.0);
  EXPECT_DOUBLE_EQ(fn[1], -128.0 / 448.0);
  EXPECT_DOUBLE_EQ(fn[2], 44.0 / 448.0);
  EXPECT_EQ(fn[3], 0.0);

  c.queryQuantizedPerRow = ScalarType::F8E4M3FNUZ;
  std::vector<double> fnuz = productQueryRow(c, row);
  // 240; -72 and 24 are on the grid (8 in [64, 128), 2 in [16, 32)).
  EXPECT_DOUBLE_EQ(fnuz[0], 1.0);
  EXPECT_NEAR(fnuz[1], -72.0 / 240.0, 1e-15);
  EXPECT_NEAR(fnuz[2], 24.0 / 240.0, 1e-15);

  const float zeros[4] = {0, 0, 0, 0};
  EXPECT_EQ(productQueryRow(c, zeros), std::vector<double>(4, 0.0));
}

// The partials of a quantized query differ from the exact ones (the scores
// carry the quantization), and the unquantized case is untouched.
TEST(Reference, QuantizedQueryChangesTheScoresOnly) {
  CaseConfig config;
  config.headDim = 128;
  config.kvType = ScalarType::F8E4M3FN;
  config.contextLengths = {37};
  config.seed = 7;
  const DecodeCase c = generated(config);
  const WorkPlan p = plan(planRequestFor(c, 4, 4));
  std::string error;
  PartialResults exact, quantized;
  ASSERT_TRUE(computePartials(c, p, exact, error)) << error;
  DecodeCase q = c;
  q.queryQuantizedPerRow = ScalarType::F8E4M3FN;
  ASSERT_TRUE(computePartials(q, p, quantized, error)) << error;
  double largest = 0.0;
  for (size_t i = 0; i < exact.maxLogits.size(); ++i)
    if (std::isfinite(exact.maxLogits[i]))
      largest = std::max(largest, std::fabs(exact.maxLogits[i] -
                                            quantized.maxLogits[i]));
  EXPECT_GT(largest, 0.0);
  EXPECT_LT(largest, 0.1);
}

// The pass criterion, with the output dtype's own rounding allowed: a bf16
// output of 2.28835 can be no closer than 2.28125 (the bf16 grid is 2^-6
// in [2, 4)), 0.0071 away, more than 2e-3 (1 + 2.29) = 0.0066.
TEST(Reference, ToleranceAllowsTheOutputDtypesRounding) {
  EXPECT_EQ(specTolerance(ScalarType::BF16), 2e-3);
  EXPECT_EQ(specTolerance(ScalarType::F8E4M3FN), 5e-3);
  EXPECT_EQ(specTolerance(ScalarType::F8E4M3FNUZ), 5e-3);
  const double ref = 2.28835, got = 2.28125;
  EXPECT_NEAR(outputRoundingSlack(ScalarType::BF16, ref), ref - got, 1e-12);
  EXPECT_GT(toleranceRatio(got, ref, 2e-3), 1.0);
  EXPECT_LE(toleranceRatio(got, ref, 2e-3,
                           outputRoundingSlack(ScalarType::BF16, ref)),
            1.0);
  // The slack is only the rounding: two grid steps up still fail.
  EXPECT_GT(toleranceRatio(2.3125, ref, 2e-3,
                           outputRoundingSlack(ScalarType::BF16, ref)),
            1.0);
  // f16 has 3 more bits: the same value leaves almost nothing.
  EXPECT_LT(outputRoundingSlack(ScalarType::F16, ref), 1e-3);
  // Exact -inf must match; NaN never passes.
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(toleranceRatio(-inf, -inf, 5e-3), 0.0);
  EXPECT_GT(toleranceRatio(0.0, -inf, 5e-3), 1.0);
  EXPECT_GT(toleranceRatio(std::nan(""), 0.5, 5e-3), 1.0);
}

// Spec, "Non-finite inputs": each family of non-finite input makes the rows
// it reaches NaN (direct and split alike, so the reducer does not drop a
// NaN partition), and leaves every other element exactly as without it.
TEST(Reference, NonFiniteInputsMakeExactlyTheReachedRowsNaN) {
  const NonFiniteInput families[] = {
      NonFiniteInput::KeyScale,      NonFiniteInput::ValueScale,
      NonFiniteInput::QueryNaN,      NonFiniteInput::QueryInfinity,
      NonFiniteInput::QueryF16Overflow, NonFiniteInput::KeyNaN,
      NonFiniteInput::ValueNaN,      NonFiniteInput::KeyScaleInfinity,
      NonFiniteInput::ValueScaleInfinity, NonFiniteInput::KeyInfinity,
      NonFiniteInput::ValueInfinity, NonFiniteInput::SoftmaxScaleNaN,
      NonFiniteInput::SoftmaxScaleInfinity,
      NonFiniteInput::ValueNaNPartlySeen,
      NonFiniteInput::ValueScaleNaNPartlySeen};
  for (ScaleMode scales : {ScaleMode::PerTensor, ScaleMode::PerToken}) {
    for (NonFiniteInput family : families) {
      const bool partlySeen = family == NonFiniteInput::ValueNaNPartlySeen ||
                              family == NonFiniteInput::ValueScaleNaNPartlySeen;
      // A token's own scale exists with per-token scales only.
      if (family == NonFiniteInput::ValueScaleNaNPartlySeen &&
          scales != ScaleMode::PerToken)
        continue;
      CaseConfig config;
      config.batch = 3;
      config.queryLen = 2;
      config.numQueryHeads = 4;
      config.numKvHeads = 2;
      config.headDim = 16;
      config.window = 300;
      config.scaleMode = scales;
      config.queryType = ScalarType::F16;
      config.poisonInvisible = true;
      config.contextLengths = {700, 5, 1100};
      config.seed = 11 + uint64_t(family);
      // Infinite cache elements need a kv dtype with infinities.
      const bool element = family == NonFiniteInput::KeyInfinity ||
                           family == NonFiniteInput::ValueInfinity;
      if (element)
        config.kvType = ScalarType::BF16;
      CaseConfig clean = config;
      config.nonFinite = family;
      if (family == NonFiniteInput::SoftmaxScaleNaN)
        config.softmaxScale = std::numeric_limits<double>::quiet_NaN();
      if (family == NonFiniteInput::SoftmaxScaleInfinity)
        config.softmaxScale = -std::numeric_limits<double>::infinity();
      SCOPED_TRACE(toJson(config));
      const DecodeCase c = generated(config);
      const std::vector<double> with = direct(c), without = direct(generated(clean));
      const int64_t D = c.headDim;
      int64_t nanElements = 0, nanRows = 0;
      std::set<int64_t> partlySeenPositions;
      for (size_t row = 0; row * D < with.size(); ++row) {
        int64_t inRow = 0;
        for (int64_t d = 0; d < D; ++d) {
          const size_t i = row * size_t(D) + size_t(d);
          if (std::isnan(with[i])) {
            ++inRow;
            continue;
          }
          ASSERT_TRUE(sameBits(std::vector<double>{with[i]},
                               std::vector<double>{without[i]}))
              << "element " << i << " changed without becoming NaN";
        }
        nanElements += inRow;
        nanRows += inRow > 0;
        // A value element reaches one head-dim column; anything else the
        // whole row (an infinite v_scale: every value of its token).
        const bool valueElement = family == NonFiniteInput::ValueNaN ||
                                  family == NonFiniteInput::ValueInfinity ||
                                  family == NonFiniteInput::ValueNaNPartlySeen;
        if (inRow > 0 && !valueElement)
          EXPECT_EQ(inRow, D) << "row " << row;
        if (valueElement)
          EXPECT_LE(inRow, 1) << "row " << row;
        // The partly seen token (the last, or behind the window the first
        // of position 0's window) is seen by one of the two MTP positions
        // only ([B, Q, Hq, D] rows): the other's rows stay as they were.
        if (inRow > 0 && partlySeen)
          partlySeenPositions.insert(int64_t(row) / c.numQueryHeads %
                                     c.queryLen);
      }
      if (partlySeen)
        EXPECT_EQ(partlySeenPositions.size(), 1u);
      EXPECT_GT(nanElements, 0);
      const bool queryFamily = family == NonFiniteInput::QueryNaN ||
                               family == NonFiniteInput::QueryInfinity ||
                               family == NonFiniteInput::QueryF16Overflow;
      if (queryFamily)
        EXPECT_EQ(nanRows, 1);
      // Split-K: the same elements are NaN, with every plan shape.
      for (int64_t budget : {int64_t(1), int64_t(64)}) {
        const std::vector<double> splitOut =
            split(c, plan(planRequestFor(c, budget, 16)));
        ASSERT_EQ(splitOut.size(), with.size());
        for (size_t i = 0; i < with.size(); ++i)
          ASSERT_EQ(std::isnan(splitOut[i]), std::isnan(with[i]))
              << "element " << i << " budget " << budget;
      }
    }
  }
}

TEST(Reference, NaNIsMatchedOnlyByNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(toleranceRatio(nan, nan, 5e-3), 0.0);
  EXPECT_TRUE(std::isinf(toleranceRatio(0.0, nan, 5e-3)));
  EXPECT_TRUE(std::isinf(toleranceRatio(nan, 0.0, 5e-3)));
  EXPECT_TRUE(std::isinf(
      toleranceRatio(std::numeric_limits<double>::infinity(), nan, 5e-3)));
}
