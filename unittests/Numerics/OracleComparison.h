//===- OracleComparison.h - compiled decode vs the float64 oracle -*- C++ -*-===//
//
// Runs one oracle-generated case through a HostProgram (outputs and scratch
// poisoned first) and compares the plan exactly, and the output and the
// split-K partials at the spec's tolerance, with the oracle. Shared by the
// numerics matrix and the graph-replay test.
//
//===----------------------------------------------------------------------===//
#ifndef PA_UNITTESTS_NUMERICS_ORACLECOMPARISON_H
#define PA_UNITTESTS_NUMERICS_ORACLECOMPARISON_H

#include "ProgramMatrix.h"
#include "pa/API/HostProgram.h"
#include "pa/Oracle/CaseGen.h"
#include "pa/Oracle/Reference.h"
#include "pa/Oracle/Tally.h"

#include <chrono>
#include <functional>
#include <string>

namespace pa::numerics {

/// The program configuration of a generated case's static part.
mlir::pa::DecodeConfig programConfigFor(const oracle::DecodeShape &shape,
                                        bool sinks, const std::string &chip,
                                        std::optional<int64_t> budget,
                                        std::optional<int64_t> maxPartitions);

/// A fresh random case of `shape` (sinks random when `sinks`) with context
/// lengths `lengths`, data from `seed` (garbage from seed + 1);
/// `poisonInvisible`: tokens no row sees are garbage too. False with
/// `error` when generation fails.
bool generateCaseOf(const oracle::DecodeShape &shape, bool sinks,
                    std::vector<int32_t> lengths, uint64_t seed,
                    bool poisonInvisible, oracle::DecodeCase &c,
                    std::string &error);

using oracle::Deviation;

using oracle::CaseResult;
using oracle::lengthsText;
using oracle::MatrixTally;
using oracle::secondsSince;

/// An executor of a compiled decode on caller buffers (the host JIT, the
/// emulator): HostProgram::run's contract.
using DecodeRunner = std::function<mlir::LogicalResult(
    const mlir::pa::HostBuffers &, std::string &)>;

/// What the compiled program does that the exact function does not, as the
/// spec allows it.
struct ComparisonOptions {
  /// The program quantizes the query per row to this fp8 type (fp8
  /// compute): the split-K partials (which carry the scores) are compared
  /// with the oracle's partials of the quantized query
  /// (oracle::withQueryQuantizedPerRow); the output, the spec's contract,
  /// is always compared with the exact function.
  std::optional<oracle::ScalarType> queryQuantizedPerRow;
  /// > 0: the query rows lie this many NaN elements apart beyond their
  /// Hq * D (a view of a fused qkv tensor, HostBuffers::queryRowStride),
  /// so a program that read them packed would read NaN.
  int64_t queryRowPadding = 0;
  /// nhd / hnd K and V as views of one combined cache (page strides in
  /// HostBuffers::keyPageStride for [N, 2, ...]).
  using CombinedCache = numerics::CombinedCache;
  CombinedCache combinedCache = CombinedCache::None;
};

/// Runs `c` through a program of `config` that `run` executes and
/// compares with the oracle; the raw output bits go to `outputBits` when
/// given.
CaseResult runAndCompare(const mlir::pa::DecodeConfig &config,
                         const DecodeRunner &run, const oracle::DecodeCase &c,
                         std::vector<uint16_t> *outputBits = nullptr,
                         const ComparisonOptions &options = {});

/// runAndCompare through the host program `program` (whose configuration
/// must match the case).
CaseResult runAndCompare(const mlir::pa::HostProgram &program,
                         const oracle::DecodeCase &c,
                         std::vector<uint16_t> *outputBits = nullptr,
                         const ComparisonOptions &options = {});

} // namespace pa::numerics

#endif // PA_UNITTESTS_NUMERICS_ORACLECOMPARISON_H
