//===- TestSupport.h - Shared helpers of the oracle unit tests --*- C++ -*-===//
#ifndef PA_UNITTESTS_ORACLE_TESTSUPPORT_H
#define PA_UNITTESTS_ORACLE_TESTSUPPORT_H

#include "pa/Oracle/CaseGen.h"
#include "pa/Oracle/Planner.h"
#include "pa/Oracle/Reference.h"

#include <gtest/gtest.h>

#include <cstring>

namespace pa::oracle::test {

inline DecodeCase generated(const CaseConfig &config) {
  DecodeCase c;
  std::string error;
  EXPECT_TRUE(generateCase(config, c, error)) << error;
  return c;
}

inline std::vector<double> direct(const DecodeCase &c) {
  std::vector<double> out;
  std::string error;
  EXPECT_TRUE(referenceDecodeDirect(c, out, error)) << error;
  return out;
}

inline WorkPlan plan(const PlanRequest &request) {
  WorkPlan result;
  std::string error;
  EXPECT_TRUE(computeWorkPlan(request, result, error)) << error;
  return result;
}

inline std::vector<double> split(const DecodeCase &c, const WorkPlan &p) {
  std::vector<double> out;
  std::string error;
  EXPECT_TRUE(referenceDecodeSplit(c, p, out, error)) << error;
  return out;
}

// Bitwise equality, so NaN == NaN and -0 != +0.
template <typename T>
bool sameBits(const std::vector<T> &a, const std::vector<T> &b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

} // namespace pa::oracle::test

#endif // PA_UNITTESTS_ORACLE_TESTSUPPORT_H
