//===- Tally.cpp - a numerics matrix's results against the oracle ---------===//
#include "pa/Oracle/Tally.h"

#include <cstdio>

namespace pa::oracle {

bool MatrixTally::tally(const CaseResult &result, const std::string &caseName) {
  if (result.output.ratio > worstOutput.ratio) {
    worstOutput = result.output;
    worstOutputCase = caseName;
  }
  if (result.partials.ratio > worstPartials.ratio) {
    worstPartials = result.partials;
    worstPartialsCase = caseName;
  }
  (result.passed ? passed : failed) += 1;
  return result.passed;
}

bool MatrixTally::record(const CaseResult &result,
                         const std::string &caseName) {
  if (tally(result, caseName))
    return true;
  std::printf("FAIL %s: %s\n", caseName.c_str(), result.failure.c_str());
  return false;
}

void MatrixTally::recordFailure(const std::string &caseName,
                                const std::string &why) {
  ++failed;
  std::printf("FAIL %s: %s\n", caseName.c_str(), why.c_str());
}

void MatrixTally::printWorst() const {
  std::printf("worst output error: |out - ref| = %.3g (%.3f of tolerance; "
              "got %.6g, ref %.6g) in %s\n",
              worstOutput.absolute, worstOutput.ratio, worstOutput.got,
              worstOutput.ref, worstOutputCase.c_str());
  std::printf("worst partial error: |got - ref| = %.3g (%.3f of tolerance; "
              "got %.6g, ref %.6g) in %s\n",
              worstPartials.absolute, worstPartials.ratio, worstPartials.got,
              worstPartials.ref, worstPartialsCase.c_str());
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start)
      .count();
}

std::string lengthsText(const std::vector<int32_t> &lengths) {
  std::string text;
  for (int32_t length : lengths)
    text += (text.empty() ? "" : ",") + std::to_string(length);
  return text;
}

} // namespace pa::oracle
