//===- MatrixDriver.cpp - the numerics matrix through an executor ---------===//
#include "MatrixDriver.h"

#include "LargePool.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <numeric>

namespace pa::numerics {

using oracle::ScalarType;

namespace {

std::vector<std::string> split(const std::string &text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos)
      comma = text.size();
    if (comma > start)
      parts.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return parts;
}

/// What `chip` must have covered: every value of the host matrix's axes
/// (the fp8 flavour being the chip's) and both query types.
bool checkChipCoverage(const AxisCoverage &coverage, const std::string &chip) {
  int64_t fp8 = int64_t(chip == "gfx942" ? ScalarType::F8E4M3FNUZ
                                         : ScalarType::F8E4M3FN);
  return coverage.check({{"D", {64, 128, 256, 512}},
                         {"P", {1, 2, 8, 16, 64, 128, 256, 512, 1024}},
                         {"V", {0, 1}},
                         {"layout",
                          {int64_t(oracle::CacheLayout::Packed),
                           int64_t(oracle::CacheLayout::Nhd),
                           int64_t(oracle::CacheLayout::Hnd)}},
                         {"kv", {fp8, int64_t(ScalarType::BF16)}},
                         {"scale", {0, 1, 2}},
                         {"Q", {1, 2, 3, 4, 8}},
                         {"G", {4, 8, 16, 32}},
                         {"Hkv", {1, 2}},
                         {"W", {0, 1, 17, 257, 8193}},
                         {"sinks", {0, 1}},
                         {"f16 query", {0, 1}},
                         {"budget1", {0, 1}}},
                        chip + " ran");
}

} // namespace

int parseMatrixOption(int argc, char **argv, int &i, MatrixOptions &options) {
  const char *arg = argv[i];
  bool hasValue = i + 1 < argc;
  if (!std::strcmp(arg, "--verbose")) {
    options.verbose = true;
    return 1;
  }
  if (!std::strcmp(arg, "--list")) {
    options.list = true;
    return 1;
  }
  if (!std::strcmp(arg, "--large-pool")) {
    options.largePool = true;
    return 1;
  }
  if (!hasValue)
    return 0;
  const char *value = argv[i + 1];
  if (!std::strcmp(arg, "--subset")) {
    options.full = !std::strcmp(value, "full");
  } else if (!std::strcmp(arg, "--chips")) {
    options.chips = split(value);
  } else if (!std::strcmp(arg, "--shard")) {
    if (std::sscanf(value, "%zu/%zu", &options.shard, &options.shards) != 2 ||
        options.shards == 0 || options.shard >= options.shards) {
      std::printf("--shard takes I/N with I < N\n");
      return -1;
    }
  } else if (!std::strcmp(arg, "--programs")) {
    options.programLimit = std::strtoull(value, nullptr, 10);
  } else if (!std::strcmp(arg, "--every")) {
    options.every = std::max<size_t>(1, std::strtoull(value, nullptr, 10));
  } else if (!std::strcmp(arg, "--filter")) {
    options.filter = value;
  } else if (!std::strcmp(arg, "--from")) {
    options.from = std::strtoull(value, nullptr, 10);
  } else if (!std::strcmp(arg, "--cache-offsets")) {
    if (!parseInto(value, mlir::pa::parseCacheOffsets, options.cacheOffsets,
                   "--cache-offsets takes auto or 64"))
      return -1;
  } else {
    return 0;
  }
  ++i;
  return 1;
}

ComparisonOptions comparisonFor(const mlir::pa::DecodeConfig &config,
                                oracle::ScalarType kvType,
                                mlir::pa::Fp8Residual residual) {
  ComparisonOptions comparison;
  if (config.kvType != mlir::pa::KVCacheType::bf16 &&
      config.computeType.value_or(mlir::pa::ComputeType::fp8) ==
          mlir::pa::ComputeType::fp8 &&
      residual != mlir::pa::Fp8Residual::queryAndProbabilities)
    comparison.queryQuantizedPerRow = kvType;
  return comparison;
}

int runMatrix(const MatrixOptions &options, const char *executor,
              const MatrixHooks &hooks) {
  // Every (program, chip) pair, dealt round-robin to the shards; the random
  // stream is per pair, so a case does not depend on the sharding.
  struct Job {
    ProgramSpec spec;
    size_t index;
  };
  std::vector<Job> jobs;
  std::vector<ProgramSpec> matrix = programMatrix();
  // The layout programs, then the head-dim programs, after the others,
  // numbered from kLayoutIndexBase
  // (a multiple of 16: ciSets' every-16th rule starts at their first), so
  // that neither list's random streams and length sets change when the
  // other grows.
  constexpr size_t kLayoutIndexBase = 1024;
  const size_t matrixPrograms = matrix.size();
  std::vector<ProgramSpec> layouts = layoutPrograms();
  std::vector<ProgramSpec> headDims = headDimPrograms();
  layouts.insert(layouts.end(), headDims.begin(), headDims.end());
  matrix.insert(matrix.end(), layouts.begin(), layouts.end());
  if (matrix.size() > options.programLimit)
    matrix.resize(options.programLimit);
  for (size_t at = 0; at < matrix.size(); at += options.every)
    for (const std::string &chip : options.chips)
      jobs.push_back({forChip(matrix[at], chip),
                      at < matrixPrograms
                          ? at
                          : kLayoutIndexBase + (at - matrixPrograms)});

  std::map<std::string, AxisCoverage> coverage;
  MatrixTally tally;
  double compileSeconds = 0, runSeconds = 0, oracleSeconds = 0;
  size_t listed = 0;
  auto start = std::chrono::steady_clock::now();
  for (size_t j = 0; j < jobs.size(); ++j) {
    const ProgramSpec &spec = jobs[j].spec;
    std::mt19937_64 random(1000003 * (jobs[j].index + 1));
    std::vector<std::vector<int32_t>> sets = lengthSets(spec, random);
    std::vector<size_t> chosen(sets.size());
    std::iota(chosen.begin(), chosen.end(), 0);
    if (!options.full)
      chosen = ciSets(spec, jobs[j].index, sets);
    coverage[spec.chip].note(spec);
    std::string description = describe(spec);
    if (j + 1 < options.from || j % options.shards != options.shard ||
        description.find(options.filter) == std::string::npos)
      continue;
    if (options.list) {
      std::printf("[%zu/%zu] %s\n", j + 1, jobs.size(), description.c_str());
      ++listed;
      continue;
    }

    auto compileStart = std::chrono::steady_clock::now();
    std::string error;
    MatrixProgram program;
    program.config = programConfigFor(spec.shape, spec.sinks, spec.chip,
                                      spec.budget, spec.maxPartitions);
    bool compiled = hooks.compile(spec, program, error);
    program.comparison.combinedCache = spec.combinedCache;
    double compileTime = secondsSince(compileStart);
    compileSeconds += compileTime;
    if (!compiled) {
      tally.failed += int(chosen.size());
      std::printf("FAIL %s: compile: %s\n", description.c_str(),
                  error.c_str());
      std::fflush(stdout);
      continue;
    }
    if (options.largePool && program.run)
      program.run = [run = program.run, config = program.config](
                        const mlir::pa::HostBuffers &buffers,
                        std::string &message) {
        LargePoolBuffers large(config, buffers, message);
        if (!message.empty())
          return mlir::failure();
        return run(large.buffers(), message);
      };
    // A hook that only compiles (PAMatrixIR) leaves no runner: no cases.
    if (!program.run) {
      std::printf("compiled [%zu/%zu] %s: %.2fs\n", j + 1, jobs.size(),
                  description.c_str(), compileTime);
      std::fflush(stdout);
      continue;
    }
    int programFailures = 0;
    double programWorst = 0, programSeconds = 0;
    for (size_t set = 0; set < sets.size(); ++set) {
      // Every set draws its random inputs, run or not, so that the CI
      // subset's cases are those of the full run.
      oracle::CaseConfig caseConfig =
          caseConfigFor(spec, jobs[j].index, set, sets[set], random);
      if (std::find(chosen.begin(), chosen.end(), set) == chosen.end())
        continue;
      std::string lengths = lengthsText(sets[set]);
      std::string caseName = description + " lengths=" + lengths;
      oracle::DecodeCase c;
      if (!oracle::generateCase(caseConfig, c, error)) {
        tally.recordFailure(caseName, "case generation: " + error);
        ++programFailures;
        continue;
      }
      CaseResult result = runAndCompare(program.config, program.run, c,
                                        /*outputBits=*/nullptr,
                                        program.comparison);
      runSeconds += result.runSeconds;
      oracleSeconds += result.oracleSeconds;
      programSeconds += result.runSeconds;
      programWorst = std::max(
          {programWorst, result.output.ratio, result.partials.ratio});
      if (!tally.record(result, caseName))
        ++programFailures;
      if (options.verbose)
        std::printf("  lengths=%s run %.3fs oracle %.3fs output ratio %.3g "
                    "partial ratio %.3g\n",
                    lengths.c_str(), result.runSeconds, result.oracleSeconds,
                    result.output.ratio, result.partials.ratio);
    }
    std::printf("%s [%zu/%zu] %s: compile %.2fs, %zu cases, %s %.2fs, "
                "worst error %.3f of tolerance\n",
                programFailures ? "FAIL" : "ok  ", j + 1, jobs.size(),
                description.c_str(), compileTime, chosen.size(), executor,
                programSeconds, programWorst);
    if (hooks.finished)
      hooks.finished(spec, programFailures != 0);
    std::fflush(stdout);
  }

  if (options.list) {
    std::printf("%zu of %zu jobs listed\n", listed, jobs.size());
    return listed ? 0 : 1;
  }

  // The coverage of the axes is the whole subset's (every shard checks
  // it), not defined for a part of the matrix.
  bool covered = true;
  if (options.every == 1 && options.programLimit == SIZE_MAX)
    for (const std::string &chip : options.chips)
      covered &= checkChipCoverage(coverage[chip], chip);

  std::printf("\n%d configurations (%s subset, every %zu-th program, shard "
              "%zu/%zu); compile %.1fs, run %.1fs, oracle %.1fs, total "
              "%.1fs\n",
              tally.passed + tally.failed, options.full ? "full" : "ci",
              options.every, options.shard, options.shards, compileSeconds,
              runSeconds, oracleSeconds, secondsSince(start));
  if (hooks.summary)
    hooks.summary();
  tally.printWorst();
  if (!covered) {
    std::printf("the subset misses axis values on some chip\n");
    ++tally.failed;
  }
  std::printf("%d passed, %d failed\n", tally.passed, tally.failed);
  return tally.failed == 0 ? 0 : 1;
}

} // namespace pa::numerics
