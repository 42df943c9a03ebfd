//===- NumericsMatrix.cpp - compiled decode vs the oracle, many configs ---===//
//
// The numerics harness of issue 4: a matrix of static configurations
// (programs, each compiled once) times dynamic variations (batch, context
// lengths, fresh random inputs) run through the host runtime and compared
// with the float64 oracle: the plan exactly, the output and the partials at
// the spec's tolerance. Prints one line per program and a summary
// "N passed, M failed"; exits non-zero on any failure.
//
//   PANumericsMatrix [--programs N] [--filter TEXT] [--shard I/N] [--verbose]
//
// --filter runs only the programs whose description contains TEXT, --shard
// only every N-th program starting at I (in both cases the cases are those of
// the whole run, so a failure reproduces with or without them).
//
//===----------------------------------------------------------------------===//
#include "OracleComparison.h"
#include "ProgramMatrix.h"

#include "pa/Oracle/CaseGen.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace pa;
using namespace pa::numerics;
using oracle::ScalarType;


int main(int argc, char **argv) {
  size_t programLimit = SIZE_MAX;
  std::string filter;
  bool verbose = false;
  size_t shard = 0, shards = 1;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--programs") && i + 1 < argc)
      programLimit = std::strtoull(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--filter") && i + 1 < argc)
      filter = argv[++i];
    else if (!std::strcmp(argv[i], "--verbose"))
      verbose = true;
    else if (!std::strcmp(argv[i], "--shard") && i + 1 < argc) {
      if (std::sscanf(argv[++i], "%zu/%zu", &shard, &shards) != 2 ||
          shards == 0 || shard >= shards) {
        std::printf("--shard takes I/N with I < N\n");
        return 2;
      }
    }
  }

  std::vector<ProgramSpec> programs = programMatrix();
  bool covered = checkCoverage(programs);
  // After the others, so their random cases stay what they were.
  std::vector<ProgramSpec> layouts = layoutPrograms();
  programs.insert(programs.end(), layouts.begin(), layouts.end());
  std::vector<ProgramSpec> headDims = headDimPrograms();
  programs.insert(programs.end(), headDims.begin(), headDims.end());
  if (programs.size() > programLimit)
    programs.resize(programLimit);

  MatrixTally tally;
  double compileSeconds = 0, runSeconds = 0, oracleSeconds = 0;
  auto total = std::chrono::steady_clock::now();
  std::mt19937_64 random(7);

  for (size_t index = 0; index < programs.size(); ++index) {
    const ProgramSpec &spec = programs[index];
    std::string description = describe(spec);
    if (description.find(filter) == std::string::npos ||
        index % shards != shard) {
      // Draw what the program's cases would, so the others' stay the same.
      std::vector<std::vector<int32_t>> sets = lengthSets(spec, random);
      for (size_t set = 0; set < sets.size(); ++set)
        caseConfigFor(spec, index, set, sets[set], random);
      continue;
    }
    auto start = std::chrono::steady_clock::now();
    std::string error;
    mlir::FailureOr<std::unique_ptr<mlir::pa::HostProgram>> program =
        mlir::pa::HostProgram::compile(
            programConfigFor(spec.shape, spec.sinks, spec.chip, spec.budget,
                             spec.maxPartitions),
            error);
    double compiled = secondsSince(start);
    compileSeconds += compiled;
    std::vector<std::vector<int32_t>> sets = lengthSets(spec, random);
    if (mlir::failed(program)) {
      tally.failed += int(sets.size());
      std::printf("FAIL %s: compile: %s\n", description.c_str(),
                  error.c_str());
      continue;
    }

    int programFailures = 0;
    double programWorst = 0;
    for (size_t set = 0; set < sets.size(); ++set) {
      oracle::CaseConfig config =
          caseConfigFor(spec, index, set, sets[set], random);
      oracle::DecodeCase c;
      if (!oracle::generateCase(config, c, error)) {
        tally.recordFailure(description, "case generation: " + error);
        ++programFailures;
        continue;
      }
      ComparisonOptions comparison;
      comparison.combinedCache = spec.combinedCache;
      CaseResult result =
          runAndCompare(**program, c, /*outputBits=*/nullptr, comparison);
      runSeconds += result.runSeconds;
      oracleSeconds += result.oracleSeconds;
      std::string lengths = lengthsText(sets[set]);
      programWorst = std::max(
          {programWorst, result.output.ratio, result.partials.ratio});
      if (!tally.record(result, description + " lengths=" + lengths))
        ++programFailures;
      if (verbose)
        std::printf("  lengths=%s slots=%lld/%lld run %.3fs oracle %.3fs "
                    "output ratio %.3g partial ratio %.3g\n",
                    lengths.c_str(), (long long)result.usedSlots,
                    (long long)result.planSlots, result.runSeconds,
                    result.oracleSeconds, result.output.ratio,
                    result.partials.ratio);
    }
    std::printf("%s [%zu/%zu] %s: compile %.2fs, %zu cases, worst error "
                "%.3f of tolerance\n",
                programFailures ? "FAIL" : "ok  ", index + 1, programs.size(),
                description.c_str(), compiled, sets.size(), programWorst);
    std::fflush(stdout);
  }

  std::printf("\n%d configurations (%zu programs); compile %.1fs, run %.1fs, "
              "oracle %.1fs, total %.1fs\n",
              tally.passed + tally.failed, programs.size(), compileSeconds,
              runSeconds, oracleSeconds, secondsSince(total));
  tally.printWorst();
  if (!covered) {
    std::printf("the matrix misses values the issue requires\n");
    ++tally.failed;
  }
  std::printf("%d passed, %d failed\n", tally.passed, tally.failed);
  return tally.failed == 0 ? 0 : 1;
}
