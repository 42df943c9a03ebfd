//===- Tally.h - a numerics matrix's results against the oracle -*- C++ -*-===//
//
// What every numerics harness (the host and emulator matrices in
// unittests/Numerics, pa-cuda-run on a GPU) keeps of its cases: each case's
// result against the oracle, and the counts and worst deviations of a run.
// Plain C++17, as the rest of the oracle.
//
//===----------------------------------------------------------------------===//
#ifndef PA_ORACLE_TALLY_H
#define PA_ORACLE_TALLY_H

#include "pa/Oracle/Reference.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace pa::oracle {

/// One case compared with the oracle.
struct CaseResult {
  bool passed = false;
  std::string failure; // why it failed (first problem found)
  Deviation output;    // vs the direct float64 reference
  Deviation partials;  // max_logits, exp_sums, tmp_out of used slots
  int64_t planSlots = 0, usedSlots = 0;
  double runSeconds = 0.0, oracleSeconds = 0.0;
};

/// The results of a matrix run's cases: counts, the worst output and partial
/// deviations and the cases they came from.
struct MatrixTally {
  int passed = 0, failed = 0;
  Deviation worstOutput, worstPartials;
  std::string worstOutputCase, worstPartialsCase;

  /// Counts the result of case `caseName`; whether it passed.
  bool tally(const CaseResult &result, const std::string &caseName);
  /// tally, and prints "FAIL caseName: why" when it failed.
  bool record(const CaseResult &result, const std::string &caseName);
  /// Records a case that failed before it ran (e.g. case generation).
  void recordFailure(const std::string &caseName, const std::string &why);
  /// The "worst output error" and "worst partial error" lines.
  void printWorst() const;
};

/// Seconds from `start` to now.
double secondsSince(std::chrono::steady_clock::time_point start);

/// "l0,l1,...": a length set as the matrices name it.
std::string lengthsText(const std::vector<int32_t> &lengths);

} // namespace pa::oracle

#endif // PA_ORACLE_TALLY_H
