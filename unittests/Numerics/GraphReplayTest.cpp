//===- GraphReplayTest.cpp - one compiled program, many inputs ------------===//
//
// The host counterpart of replaying a captured GPU graph: a program is
// compiled once and run again with new context lengths (including all
// zero), batch sizes, scales, queries and sinks. Every run must follow its
// own inputs (checked against the oracle), and rerunning old inputs must
// reproduce the old output bit for bit.
//
//===----------------------------------------------------------------------===//
#include "OracleComparison.h"

#include "pa/Oracle/CaseGen.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace pa;
using namespace pa::numerics;

namespace {

class GraphReplay : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    shape.numQueryHeads = 8;
    shape.numKvHeads = 2;
    shape.headDim = 128;
    shape.pageSize = 16;
    shape.queryLen = 2;
    shape.kvType = oracle::ScalarType::F8E4M3FN;
    shape.vLayout = oracle::VLayout::Transposed;
    shape.scaleMode = oracle::ScaleMode::PerToken;
    shape.window = 257;
    std::string error;
    auto compiled = mlir::pa::HostProgram::compile(
        programConfigFor(shape, /*sinks=*/true, "gfx950", std::nullopt,
                         std::nullopt),
        error);
    ASSERT_TRUE(mlir::succeeded(compiled)) << error;
    program = std::move(*compiled).release();
  }
  static void TearDownTestSuite() { delete program; }

  /// A fresh case; `poisonInvisible` overwrites the tokens no row sees
  /// with garbage, which rules out growing their visibility later.
  static oracle::DecodeCase generated(std::vector<int32_t> lengths,
                                      uint64_t seed,
                                      bool poisonInvisible = true) {
    oracle::DecodeCase c;
    std::string error;
    EXPECT_TRUE(generateCaseOf(shape, /*sinks=*/true, std::move(lengths), seed,
                               poisonInvisible, c, error))
        << error;
    return c;
  }

  static void expectMatchesOracle(const oracle::DecodeCase &c,
                                  std::vector<uint16_t> *output = nullptr) {
    CaseResult result = runAndCompare(*program, c, output);
    EXPECT_TRUE(result.passed) << result.failure;
  }

  static oracle::DecodeShape shape;
  static mlir::pa::HostProgram *program;
};

oracle::DecodeShape GraphReplay::shape;
mlir::pa::HostProgram *GraphReplay::program = nullptr;

TEST_F(GraphReplay, RunsFollowNewLengthsBatchesAndInputs) {
  ASSERT_NE(program, nullptr);
  std::vector<uint16_t> first, again;
  oracle::DecodeCase c = generated({300, 5, 1000}, 1);
  expectMatchesOracle(c, &first);
  // New queries, KV, scales and sinks with the same lengths.
  expectMatchesOracle(generated({300, 5, 1000}, 2));
  // All lengths zero: every row sees nothing and outputs exactly 0.
  std::vector<uint16_t> zeros;
  expectMatchesOracle(generated({0, 0, 0}, 3), &zeros);
  for (uint16_t bits : zeros)
    ASSERT_EQ(bits & 0x7fff, 0) << "an empty sequence must output 0";
  // Another batch size and pool.
  expectMatchesOracle(generated({1, 2, 257, 4099, 0}, 4));
  expectMatchesOracle(generated({600}, 5));
  // The first inputs again: the same output, bit for bit.
  expectMatchesOracle(c, &again);
  EXPECT_EQ(first, again);
}

TEST_F(GraphReplay, RunsFollowChangedScalesQueriesAndSinksInPlace) {
  ASSERT_NE(program, nullptr);
  // Every written token stays valid, so the lengths can shrink later.
  oracle::DecodeCase c = generated({700, 40}, 11, /*poisonInvisible=*/false);
  std::vector<uint16_t> before, after;
  expectMatchesOracle(c, &before);

  // New sinks only: one head's sink at +inf zeroes that head.
  c.sinks[0] = std::numeric_limits<float>::infinity();
  c.sinks[3] = -std::numeric_limits<float>::infinity();
  c.sinks[5] = 3.0f;
  expectMatchesOracle(c, &after);
  EXPECT_NE(before, after);

  // New scales only (per-token, all slots the sequences use).
  for (float &scale : c.keyScales)
    if (std::isfinite(scale))
      scale *= 1.5f;
  for (float &scale : c.valueScales)
    if (std::isfinite(scale))
      scale *= 0.5f;
  expectMatchesOracle(c);

  // New queries only.
  oracle::DecodeCase other = generated({700, 40}, 12);
  c.query = other.query;
  expectMatchesOracle(c);

  // New lengths in the same block table: shorter sequences.
  c.contextLengths = {513, 17};
  expectMatchesOracle(c);
}

// The comparison itself must be able to fail: a program compiled with another
// softmax scale than the case's is caught, in the output and the partials.
TEST(OracleComparison, DetectsAProgramThatComputesSomethingElse) {
  oracle::CaseConfig config;
  config.contextLengths = {300, 20};
  config.batch = 2;
  config.seed = 5;
  oracle::DecodeCase c;
  std::string error;
  ASSERT_TRUE(oracle::generateCase(config, c, error)) << error;
  mlir::pa::DecodeConfig wrong =
      programConfigFor(config, false, "gfx950", std::nullopt, std::nullopt);
  wrong.softmaxScale = 0.5 / std::sqrt(double(config.headDim));
  auto program = mlir::pa::HostProgram::compile(wrong, error);
  ASSERT_TRUE(mlir::succeeded(program)) << error;
  CaseResult result = runAndCompare(**program, c);
  EXPECT_FALSE(result.passed);
  EXPECT_GT(result.output.ratio, 1.0);
  EXPECT_GT(result.partials.ratio, 1.0);
}

} // namespace
