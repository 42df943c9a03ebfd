//===- OracleComparison.cpp - compiled decode vs the float64 oracle -------===//
#include "OracleComparison.h"

#include "pa/Oracle/Codecs.h"
#include "pa/Oracle/Planner.h"
#include "pa/Oracle/ProgramConfig.h"
#include "pa/Oracle/Reference.h"
#include "pa/IR/Chip.h"

#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <cmath>
#include <limits>
#include <sstream>

using namespace mlir::pa;

namespace pa::numerics {

namespace {

constexpr int32_t kPlanPoison = int32_t(0xDEADBEEFu);
const float kNaN = std::numeric_limits<float>::quiet_NaN();

/// Accumulates the first failure message of a case.
class Failures {
public:
  explicit Failures(CaseResult &result) : result(result) {}
  std::ostream *first() {
    if (!result.failure.empty())
      return nullptr;
    stream.str("");
    return &stream;
  }
  void commit() {
    if (result.failure.empty())
      result.failure = stream.str();
  }

private:
  CaseResult &result;
  std::ostringstream stream;
};

} // namespace

bool generateCaseOf(const oracle::DecodeShape &shape, bool sinks,
                    std::vector<int32_t> lengths, uint64_t seed,
                    bool poisonInvisible, oracle::DecodeCase &c,
                    std::string &error) {
  oracle::CaseConfig config;
  static_cast<oracle::DecodeShape &>(config) = shape;
  config.sinks = sinks;
  config.batch = int64_t(lengths.size());
  config.contextLengths = std::move(lengths);
  config.seed = seed;
  config.garbageSeed = seed + 1;
  config.poisonInvisible = poisonInvisible;
  return oracle::generateCase(config, c, error);
}

DecodeConfig programConfigFor(const oracle::DecodeShape &shape, bool sinks,
                              const std::string &chip,
                              std::optional<int64_t> budget,
                              std::optional<int64_t> maxPartitions) {
  DecodeConfig config;
  std::string error;
  // The oracle's enums have C values by construction: no field is refused.
  if (!fromCConfig(oracle::programConfigOf(shape, sinks), config, error))
    std::abort();
  config.chip = chip;
  config.budget = budget;
  config.maxPartitions = maxPartitions;
  return config;
}

CaseResult runAndCompare(const HostProgram &program,
                         const oracle::DecodeCase &c,
                         std::vector<uint16_t> *outputBits,
                         const ComparisonOptions &options) {
  return runAndCompare(
      program.config(),
      [&](const HostBuffers &buffers, std::string &error) {
        return program.run(buffers, error);
      },
      c, outputBits, options);
}

CaseResult runAndCompare(const DecodeConfig &config, const DecodeRunner &run,
                         const oracle::DecodeCase &c,
                         std::vector<uint16_t> *outputBits,
                         const ComparisonOptions &options) {
  CaseResult result;
  Failures failures(result);
  const int64_t batch = c.batch, hkv = c.numKvHeads, d = c.headDim;
  const int64_t rows = oracle::rowsPerKvHead(c);
  const int64_t capacity = config.planCapacity(batch);
  const int64_t outputCount = batch * c.queryLen * c.numQueryHeads * d;
  const uint16_t outputPoison =
      uint16_t(oracle::encodeScalar(c.queryType, kNaN, oracle::Overflow::NonFinite));

  std::vector<uint16_t> query = oracle::encodeQuery(c);
  const int64_t rowElements = c.numQueryHeads * d;
  int64_t queryRowStride = 0;
  if (options.queryRowPadding > 0) {
    queryRowStride = rowElements + options.queryRowPadding;
    std::vector<uint16_t> strided(
        size_t(batch * c.queryLen * queryRowStride), outputPoison);
    for (int64_t row = 0; row < batch * c.queryLen; ++row)
      std::copy_n(query.begin() + row * rowElements, rowElements,
                  strided.begin() + row * queryRowStride);
    query = std::move(strided);
  }
  // K and V placed in one combined cache (ComparisonOptions::CombinedCache),
  // each at its page stride, given explicitly. The halves of [2, N', ...]
  // hold N' = 2N pages, the N after the ones in use poisoned with NaN (a
  // pool with room, as an engine allocates it): V does not start where K's
  // pages end, so a half read at another page stride, or past its last
  // page, reads NaN, and a program that took the halves for two adjacent
  // buffers fails.
  std::vector<uint8_t> combined;
  const uint8_t *keyCache = c.keyCache.data(), *valueCache = c.valueCache.data();
  int64_t pageStride = 0;
  if (options.combinedCache != ComparisonOptions::CombinedCache::None) {
    const size_t pageBytes = c.keyCache.size() / size_t(c.numPages);
    const size_t elementBytes = oracle::scalarByteSize(c.kvType);
    const bool interleaved = options.combinedCache ==
                             ComparisonOptions::CombinedCache::PageInterleaved;
    const size_t halfBytes = interleaved ? pageBytes : 2 * c.keyCache.size();
    combined.resize(interleaved ? 2 * c.keyCache.size() : 2 * halfBytes);
    const uint32_t nan = oracle::encodeScalar(c.kvType, kNaN,
                                              oracle::Overflow::NonFinite);
    for (size_t at = 0; at < combined.size(); at += elementBytes)
      for (size_t byte = 0; byte < elementBytes; ++byte)
        combined[at + byte] = uint8_t(nan >> (8 * byte));
    const size_t keyPageStep = interleaved ? 2 * pageBytes : pageBytes;
    for (int64_t n = 0; n < c.numPages; ++n) {
      std::copy_n(c.keyCache.begin() + n * pageBytes, pageBytes,
                  combined.begin() + n * keyPageStep);
      std::copy_n(c.valueCache.begin() + n * pageBytes, pageBytes,
                  combined.begin() + halfBytes + n * keyPageStep);
    }
    keyCache = combined.data();
    valueCache = combined.data() + halfBytes;
    pageStride = int64_t(keyPageStep / elementBytes);
  }
  std::vector<int32_t> workInfo(size_t(capacity * 4), kPlanPoison);
  std::vector<int32_t> reduceInfo(size_t(batch * 2), kPlanPoison);
  std::vector<float> expSums(size_t(hkv * capacity * rows), kNaN);
  std::vector<float> maxLogits(expSums.size(), kNaN);
  std::vector<float> tmpOut(size_t(hkv * capacity * rows * d), kNaN);
  std::vector<uint16_t> output(size_t(outputCount), outputPoison);
  std::vector<float> lse(config.returnLse
                             ? size_t(batch * c.queryLen * c.numQueryHeads)
                             : 0,
                         kNaN);

  HostBuffers buffers;
  buffers.batch = batch;
  buffers.numPages = c.numPages;
  buffers.maxPagesPerSequence = c.maxPagesPerSequence;
  buffers.capacity = capacity;
  buffers.query = query.data();
  buffers.queryRowStride = queryRowStride;
  buffers.keyCache = keyCache;
  buffers.valueCache = valueCache;
  buffers.keyPageStride = pageStride;
  buffers.valuePageStride = pageStride;
  buffers.blockTables = c.blockTables.data();
  buffers.contextLengths = c.contextLengths.data();
  buffers.kScale = c.keyScales.empty() ? nullptr : c.keyScales.data();
  buffers.vScale = c.valueScales.empty() ? nullptr : c.valueScales.data();
  buffers.sinks = c.sinks.empty() ? nullptr : c.sinks.data();
  buffers.alibiSlopes = c.alibi ? c.alibiSlopes.data() : nullptr;
  buffers.workInfo = workInfo.data();
  buffers.reduceInfo = reduceInfo.data();
  buffers.expSums = expSums.data();
  buffers.maxLogits = maxLogits.data();
  buffers.tmpOut = tmpOut.data();
  buffers.output = output.data();
  buffers.lse = config.returnLse ? lse.data() : nullptr;

  auto start = std::chrono::steady_clock::now();
  std::string error;
  if (mlir::failed(run(buffers, error))) {
    result.failure = "run failed: " + error;
    return result;
  }
  result.runSeconds = secondsSince(start);
  if (outputBits)
    *outputBits = output;

  // The oracle's plan, partials and direct answer.
  start = std::chrono::steady_clock::now();
  oracle::PlanRequest request = oracle::planRequestFor(
      c, config.effectiveBudget(), config.effectiveMaxPartitions(),
      lookupChip(config.chip)->computeUnits);
  oracle::WorkPlan plan;
  oracle::PartialResults partials;
  oracle::DecodeCase partialsCase = c;
  partialsCase.queryQuantizedPerRow = options.queryQuantizedPerRow;
  std::vector<double> reference, partialsReference, lseReference;
  // The log-sum-exp is the reducer's M and den: compared, like the
  // partials, with the query the products see.
  if (!oracle::computeWorkPlan(request, plan, error) ||
      !oracle::computePartials(partialsCase, plan, partials, error) ||
      !oracle::referenceDecodeDirect(c, reference, error) ||
      (config.returnLse &&
       !oracle::referenceDecodeDirect(partialsCase, partialsReference, error,
                                      &lseReference))) {
    result.failure = "oracle failed: " + error;
    return result;
  }
  result.oracleSeconds = secondsSince(start);
  result.planSlots = plan.capacity;

  // The plan must be the oracle's, bit for bit (it is integer arithmetic).
  if (plan.capacity != capacity) {
    std::ostringstream os;
    os << "capacity " << capacity << " but the oracle plans "
       << plan.capacity;
    result.failure = os.str();
    return result;
  }
  for (int64_t i = 0; i < capacity * 4; ++i) {
    if (workInfo[size_t(i)] == plan.workInfo[size_t(i)])
      continue;
    std::ostringstream os;
    os << "work_info[" << i / 4 << "][" << i % 4 << "] = "
       << workInfo[size_t(i)] << ", oracle " << plan.workInfo[size_t(i)];
    result.failure = os.str();
    return result;
  }
  for (int64_t i = 0; i < batch * 2; ++i) {
    if (reduceInfo[size_t(i)] == plan.reduceInfo[size_t(i)])
      continue;
    std::ostringstream os;
    os << "reduce_info[" << i / 2 << "][" << i % 2 << "] = "
       << reduceInfo[size_t(i)] << ", oracle " << plan.reduceInfo[size_t(i)];
    result.failure = os.str();
    return result;
  }

  const double tolerance = oracle::specTolerance(c.kvType);
  for (int64_t i = 0; i < outputCount; ++i) {
    double got = oracle::decodeScalar(c.queryType, output[size_t(i)]);
    double ref = reference[size_t(i)];
    if (result.output.note(got, ref, tolerance,
                           oracle::outputRoundingSlack(c.queryType, ref)))
      continue;
    if (std::ostream *os = failures.first()) {
      *os << "output[" << i / (c.numQueryHeads * d) << "]["
          << i / d % c.numQueryHeads << "][" << i % d << "] = " << got
          << ", oracle " << ref;
      failures.commit();
    }
  }

  for (size_t i = 0; i < lse.size(); ++i) {
    if (result.partials.note(lse[i], lseReference[i], tolerance))
      continue;
    if (std::ostream *os = failures.first()) {
      *os << "lse[" << int64_t(i) / c.numQueryHeads << "]["
          << int64_t(i) % c.numQueryHeads << "] = " << lse[i] << ", oracle "
          << lseReference[i];
      failures.commit();
    }
  }

  // Partials of every slot the plan uses.
  for (int64_t seq = 0; seq < batch; ++seq) {
    for (int64_t slot = plan.firstSlot(seq),
                 end = slot + plan.partitionCount(seq);
         slot < end; ++slot) {
      ++result.usedSlots;
      for (int64_t h = 0; h < hkv; ++h) {
        for (int64_t r = 0; r < rows; ++r) {
          int64_t at = partials.rowIndex(h, slot, r);
          auto check = [&](const char *name, double got, double ref,
                           int64_t element) {
            if (result.partials.note(got, ref, tolerance))
              return;
            if (std::ostream *os = failures.first()) {
              *os << name << "[" << h << "][" << slot << "][" << r << "]";
              if (element >= 0)
                *os << "[" << element << "]";
              *os << " = " << got << ", oracle " << ref;
              failures.commit();
            }
          };
          check("max_logits", maxLogits[size_t(at)],
                partials.maxLogits[size_t(at)], -1);
          check("exp_sums", expSums[size_t(at)], partials.expSums[size_t(at)],
                -1);
          for (int64_t e = 0; e < d; ++e)
            check("tmp_out", tmpOut[size_t(at * d + e)],
                  partials.tmpOut[size_t(at * d + e)], e);
        }
      }
    }
  }
  result.passed = result.failure.empty();
  return result;
}

} // namespace pa::numerics
