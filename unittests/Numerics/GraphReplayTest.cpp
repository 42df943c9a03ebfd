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
#include "pa/Oracle/ReplayScript.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace pa;
using namespace pa::numerics;

namespace {

class GraphReplay : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    shape = oracle::replayProgramShape();
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

  /// The shared replay steps on the compiled program: every run matches
  /// the oracle, every check across runs holds.
  static oracle::ReplayHooks hooks() {
    oracle::ReplayHooks h;
    h.generate = [](std::vector<int32_t> lengths, uint64_t seed,
                    bool poisonInvisible) {
      return generated(std::move(lengths), seed, poisonInvisible);
    };
    h.run = [](const char *what, const oracle::DecodeCase &c,
               std::vector<uint16_t> *output) {
      CaseResult result = runAndCompare(*program, c, output);
      EXPECT_TRUE(result.passed) << what << ": " << result.failure;
      return result.passed;
    };
    h.fail = [](const std::string &why) { ADD_FAILURE() << why; };
    return h;
  }

  static oracle::DecodeShape shape;
  static mlir::pa::HostProgram *program;
};

oracle::DecodeShape GraphReplay::shape;
mlir::pa::HostProgram *GraphReplay::program = nullptr;

// New values, all lengths zero, other batch sizes and pools, then the first
// inputs again (the same output, bit for bit).
TEST_F(GraphReplay, RunsFollowNewLengthsBatchesAndInputs) {
  ASSERT_NE(program, nullptr);
  oracle::replayNewInputs(hooks());
}

// One case's sinks, scales, query and lengths changed in place.
TEST_F(GraphReplay, RunsFollowChangedScalesQueriesAndSinksInPlace) {
  ASSERT_NE(program, nullptr);
  oracle::replayInPlace(hooks());
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
