//===- EmulatorMatrix.cpp - the numerics matrix through the emulator ------===//
//
// The host path's numerics matrix (unittests/Numerics/ProgramMatrix.h) run
// through the wave64 emulator for both AMD chips: every program once per
// chip (an fp8 cache takes the chip's flavour: e4m3fn on gfx950, e4m3fnuz
// on gfx942), outputs and partials poisoned, the plan compared exactly and
// the output and partials at the spec's tolerance with the float64 oracle
// (fp8 compute without the query's residual: the partials with the oracle's
// per-row fp8 quantization of the query, as the spec allows).
//
//   PAEmulatorMatrix [--subset ci|full] [--kernels rocdl|lane0]
//                    [--fp8-residual none|p|query-and-p]
//                    [--cache-offsets auto|64]
//                    [--chips gfx942,gfx950] [--shard I/N] [--programs N]
//                    [--filter TEXT]
//                    [--dump-failing FILE] [--verbose]
//
// `full` is the whole matrix (make test-emulator-full); `ci` is the subset
// CTest runs: every program of the matrix with its two cheapest standard
// length sets and its own extra sets, which covers every axis value of the
// matrix on each chip (checked) at a size that fits CI. Exits non-zero on
// any failure. --filter runs only the programs whose description contains
// TEXT.
//
//===----------------------------------------------------------------------===//
#include "../Numerics/OracleComparison.h"
#include "../Numerics/ProgramMatrix.h"

#include "pa/API/EmulatedProgram.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <vector>

using namespace pa;
using namespace pa::numerics;
using oracle::ScalarType;

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start)
      .count();
}

/// The axis values a chip's runs covered, for the per-chip coverage check.
struct Coverage {
  std::map<std::string, std::set<int64_t>> seen;

  void note(const ProgramSpec &p) {
    const oracle::DecodeShape &s = p.shape;
    seen["D"].insert(s.headDim);
    seen["P"].insert(s.pageSize);
    seen["V"].insert(int64_t(s.vLayout));
    seen["kv"].insert(int64_t(s.kvType));
    seen["scale"].insert(int64_t(s.scaleMode));
    seen["Q"].insert(s.queryLen);
    seen["G"].insert(s.numQueryHeads / s.numKvHeads);
    seen["Hkv"].insert(s.numKvHeads);
    seen["W"].insert(s.window);
    seen["sinks"].insert(p.sinks);
    seen["f16 query"].insert(s.queryType == ScalarType::F16);
    seen["budget1"].insert(p.budget && *p.budget == 1);
  }

  /// What `chip` must have covered: every value of the host matrix's axes
  /// (the fp8 flavour being the chip's).
  bool check(const std::string &chip) const {
    int64_t fp8 = int64_t(chip == "gfx942" ? ScalarType::F8E4M3FNUZ
                                           : ScalarType::F8E4M3FN);
    struct Need {
      const char *axis;
      std::vector<int64_t> values;
    } needs[] = {
        {"D", {64, 128, 256, 512}},
        {"P", {16, 64, 128}},
        {"V", {0, 1}},
        {"kv", {fp8, int64_t(ScalarType::BF16)}},
        {"scale", {0, 1, 2}},
        {"Q", {1, 2, 3, 4, 8}},
        {"G", {4, 8, 16, 32}},
        {"Hkv", {1, 2}},
        {"W", {0, 1, 17, 257, 8193}},
        {"sinks", {0, 1}},
        {"f16 query", {0, 1}},
        {"budget1", {0, 1}},
    };
    bool ok = true;
    for (const Need &need : needs) {
      auto found = seen.find(need.axis);
      for (int64_t value : need.values)
        if (found == seen.end() || !found->second.count(value)) {
          std::printf("coverage: %s ran no program with %s = %lld\n",
                      chip.c_str(), need.axis, (long long)value);
          ok = false;
        }
    }
    return ok;
  }
};

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
} // namespace

/// `parse(text)` into `value`; prints `usage` and returns false when
/// `text` is no value of the option.
template <typename T, typename Parse>
bool parseInto(const char *text, Parse parse, T &value, const char *usage) {
  std::optional<T> parsed = parse(text);
  if (!parsed) {
    std::printf("%s\n", usage);
    return false;
  }
  value = *parsed;
  return true;
}

int main(int argc, char **argv) {
  bool full = false, verbose = false;
  mlir::pa::EmulationOptions emulation;
  std::vector<std::string> chips = {"gfx942", "gfx950"};
  size_t shard = 0, shards = 1, programLimit = SIZE_MAX;
  // The emulated module of every program with a failing case goes here.
  std::string dumpFile;
  std::string filter;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--subset") && i + 1 < argc) {
      full = !std::strcmp(argv[++i], "full");
    } else if (!std::strcmp(argv[i], "--kernels") && i + 1 < argc) {
      emulation.kernels = !std::strcmp(argv[++i], "lane0")
                              ? mlir::pa::EmulatedKernels::lane0Baseline
                              : mlir::pa::EmulatedKernels::rocdlPipeline;
    } else if (!std::strcmp(argv[i], "--fp8-residual") && i + 1 < argc) {
      if (!parseInto(argv[++i], mlir::pa::parseFp8Residual,
                     emulation.fp8Residual,
                     "--fp8-residual takes none, p or query-and-p"))
        return 2;
    } else if (!std::strcmp(argv[i], "--cache-offsets") && i + 1 < argc) {
      if (!parseInto(argv[++i], mlir::pa::parseCacheOffsets,
                     emulation.cacheOffsets, "--cache-offsets takes auto or 64"))
        return 2;
    } else if (!std::strcmp(argv[i], "--chips") && i + 1 < argc) {
      chips = split(argv[++i]);
    } else if (!std::strcmp(argv[i], "--shard") && i + 1 < argc) {
      if (std::sscanf(argv[++i], "%zu/%zu", &shard, &shards) != 2 ||
          shards == 0 || shard >= shards) {
        std::printf("--shard takes I/N with I < N\n");
        return 2;
      }
    } else if (!std::strcmp(argv[i], "--programs") && i + 1 < argc) {
      programLimit = std::strtoull(argv[++i], nullptr, 10);
    } else if (!std::strcmp(argv[i], "--filter") && i + 1 < argc) {
      filter = argv[++i];
    } else if (!std::strcmp(argv[i], "--dump-failing") && i + 1 < argc) {
      dumpFile = argv[++i];
    } else if (!std::strcmp(argv[i], "--verbose")) {
      verbose = true;
    } else {
      std::printf("unknown argument %s\n", argv[i]);
      return 2;
    }
  }

  // Every (program, chip) pair, dealt round-robin to the shards; the random
  // stream is per pair, so a case does not depend on the sharding.
  struct Job {
    ProgramSpec spec;
    size_t index;
  };
  std::vector<Job> jobs;
  std::vector<ProgramSpec> matrix = programMatrix();
  if (matrix.size() > programLimit)
    matrix.resize(programLimit);
  for (size_t index = 0; index < matrix.size(); ++index)
    for (const std::string &chip : chips)
      jobs.push_back({forChip(matrix[index], chip), index});

  std::map<std::string, Coverage> coverage;
  MatrixTally tally;
  double compileSeconds = 0, runSeconds = 0, oracleSeconds = 0;
  mlir::pa::emulator::Stats totals;
  auto start = std::chrono::steady_clock::now();

  for (size_t j = 0; j < jobs.size(); ++j) {
    const ProgramSpec &spec = jobs[j].spec;
    std::mt19937_64 random(1000003 * (jobs[j].index + 1));
    std::vector<std::vector<int32_t>> sets = lengthSets(spec, random);
    std::vector<size_t> chosen(sets.size());
    std::iota(chosen.begin(), chosen.end(), 0);
    if (!full)
      chosen = ciSets(spec, jobs[j].index, sets);
    coverage[spec.chip].note(spec);
    std::string description = describe(spec);
    if (j % shards != shard ||
        description.find(filter) == std::string::npos)
      continue;

    auto compileStart = std::chrono::steady_clock::now();
    std::string error;
    auto program = mlir::pa::EmulatedProgram::compile(
        programConfigFor(spec.shape, spec.sinks, spec.chip, spec.budget,
                         spec.maxPartitions),
        error, emulation);
    double compiled = secondsSince(compileStart);
    compileSeconds += compiled;
    if (mlir::failed(program)) {
      tally.failed += int(chosen.size());
      std::printf("FAIL %s: compile: %s\n", description.c_str(),
                  error.c_str());
      std::fflush(stdout);
      continue;
    }
    // fp8 compute quantizes the query per row unless its residual is
    // multiplied too: the partials are then those of the quantized query.
    ComparisonOptions comparison;
    const mlir::pa::DecodeConfig &config = (*program)->config();
    if (emulation.kernels == mlir::pa::EmulatedKernels::rocdlPipeline &&
        config.kvType != mlir::pa::KVCacheType::bf16 &&
        config.computeType.value_or(mlir::pa::ComputeType::fp8) ==
            mlir::pa::ComputeType::fp8 &&
        emulation.fp8Residual != mlir::pa::Fp8Residual::queryAndProbabilities)
      comparison.queryQuantizedPerRow = spec.shape.kvType;
    int programFailures = 0;
    double programWorst = 0;
    mlir::pa::emulator::Stats programStats;
    for (size_t set = 0; set < sets.size(); ++set) {
      // Every set draws its random inputs, run or not, so that the CI
      // subset's cases are those of the full run.
      oracle::CaseConfig config =
          caseConfigFor(spec, jobs[j].index, set, sets[set], random);
      if (std::find(chosen.begin(), chosen.end(), set) == chosen.end())
        continue;
      std::string lengths = lengthsText(sets[set]);
      std::string caseName = description + " lengths=" + lengths;
      oracle::DecodeCase c;
      if (!oracle::generateCase(config, c, error)) {
        tally.recordFailure(caseName, "case generation: " + error);
        ++programFailures;
        continue;
      }
      mlir::pa::emulator::Stats stats;
      CaseResult result = runAndCompare(
          (*program)->config(),
          [&](const mlir::pa::HostBuffers &buffers, std::string &message) {
            return (*program)->run(buffers, message, &stats);
          },
          c, /*outputBits=*/nullptr, comparison);
      programStats += stats;
      runSeconds += result.runSeconds;
      oracleSeconds += result.oracleSeconds;
      programWorst = std::max(
          {programWorst, result.output.ratio, result.partials.ratio});
      if (!tally.record(result, caseName))
        ++programFailures;
      if (verbose)
        std::printf("  lengths=%s run %.3fs (%.3g lane-instr/s) oracle %.3fs "
                    "output ratio %.3g partial ratio %.3g\n",
                    lengths.c_str(), result.runSeconds,
                    stats.seconds > 0 ? stats.laneInstructions / stats.seconds
                                      : 0.0,
                    result.oracleSeconds, result.output.ratio,
                    result.partials.ratio);
    }
    totals += programStats;
    if (programFailures && !dumpFile.empty()) {
      if (FILE *dump = std::fopen(dumpFile.c_str(), "a")) {
        std::fprintf(dump, "// %s\n%s\n", description.c_str(),
                     (*program)->moduleText().c_str());
        std::fclose(dump);
      }
    }
    std::printf("%s [%zu/%zu] %s: compile %.2fs, %zu cases, emulated %.2fs, "
                "worst error %.3f of tolerance\n",
                programFailures ? "FAIL" : "ok  ", j + 1, jobs.size(),
                description.c_str(), compiled, chosen.size(),
                programStats.seconds, programWorst);
    std::fflush(stdout);
  }

  bool covered = true;
  for (const std::string &chip : chips)
    covered &= coverage[chip].check(chip);

  double elapsed = secondsSince(start);
  std::printf("\n%d configurations (%s subset, shard %zu/%zu); compile "
              "%.1fs, run %.1fs, oracle %.1fs, total %.1fs\n",
              tally.passed + tally.failed, full ? "full" : "ci", shard, shards,
              compileSeconds, runSeconds, oracleSeconds, elapsed);
  std::printf("emulator: %llu wave instructions, %llu lane instructions in "
              "%.1fs: %.3g lane-instructions/s (%.3g wave-instructions/s); "
              "%llu workgroups, %llu barriers, %llu MFMAs\n",
              (unsigned long long)totals.waveInstructions,
              (unsigned long long)totals.laneInstructions, totals.seconds,
              totals.seconds > 0 ? totals.laneInstructions / totals.seconds
                                 : 0.0,
              totals.seconds > 0 ? totals.waveInstructions / totals.seconds
                                 : 0.0,
              (unsigned long long)totals.workgroups,
              (unsigned long long)totals.barriers,
              (unsigned long long)totals.mfmas);
  tally.printWorst();
  if (!covered) {
    std::printf("the subset misses axis values on some chip\n");
    ++tally.failed;
  }
  std::printf("%d passed, %d failed\n", tally.passed, tally.failed);
  return tally.failed == 0 ? 0 : 1;
}
