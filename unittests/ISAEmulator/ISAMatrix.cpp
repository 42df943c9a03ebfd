//===- ISAMatrix.cpp - the numerics matrix on the shipped code objects ----===//
//
// The numerics matrix (unittests/Numerics/ProgramMatrix.h) with the real
// product: each program compiled to its gfx942 / gfx950 code object
// (compileDecode), run by the instruction-level executor
// (pa/ISAEmulator/ISAProgram.h) with outputs and partials poisoned, the plan
// compared exactly and the output and partials at the spec's tolerance
// with the float64 oracle, exactly as the wave64 emulator's matrix does.
//
//   PAISAMatrix [--subset ci|full] [--chips gfx942,gfx950] [--shard I/N]
//               [--programs N] [--every N] [--verbose] [--counts]
//
// `ci` runs the CI length sets (ciSets) of every `--every`-th program
// (default 1); `full` every set of every program. Exits non-zero on any
// failure.
//
//===----------------------------------------------------------------------===//
#include "../Numerics/OracleComparison.h"
#include "../Numerics/ProgramMatrix.h"

#include "pa/API/Compile.h"
#include "pa/API/HostProgram.h"
#include "pa/ISAEmulator/ISAProgram.h"
#include "ExecutorRunner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <numeric>
#include <string>
#include <vector>

using namespace pa;
using namespace pa::numerics;

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start)
      .count();
}

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

void printCounts(const std::string &name, const isa::Stats &s) {
  std::printf("    %-10s wave-instr %llu: salu %llu smem %llu valu %llu mfma "
              "%llu (passes %llu) lds %llu vmem-load %llu vmem-store %llu "
              "branch %llu waitcnt %llu barrier %llu; bytes loaded %llu "
              "stored %llu lds %llu; %llu workgroups, %.2fs\n",
              name.c_str(), (unsigned long long)s.waveInstructions,
              (unsigned long long)s.salu, (unsigned long long)s.smem,
              (unsigned long long)s.valu, (unsigned long long)s.mfma,
              (unsigned long long)s.mfmaPasses, (unsigned long long)s.lds,
              (unsigned long long)s.vmemLoad, (unsigned long long)s.vmemStore,
              (unsigned long long)s.branch, (unsigned long long)s.waitcnt,
              (unsigned long long)s.barrier,
              (unsigned long long)s.vmemBytesLoaded,
              (unsigned long long)s.vmemBytesStored,
              (unsigned long long)s.ldsBytes, (unsigned long long)s.workgroups,
              s.seconds);
}

} // namespace

int main(int argc, char **argv) {
  bool full = false, verbose = false, counts = false;
  std::vector<std::string> chips = {"gfx942", "gfx950"};
  size_t shard = 0, shards = 1, programLimit = SIZE_MAX, every = 1;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--subset") && i + 1 < argc) {
      full = !std::strcmp(argv[++i], "full");
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
    } else if (!std::strcmp(argv[i], "--every") && i + 1 < argc) {
      every = std::max<size_t>(1, std::strtoull(argv[++i], nullptr, 10));
    } else if (!std::strcmp(argv[i], "--verbose")) {
      verbose = true;
    } else if (!std::strcmp(argv[i], "--counts")) {
      counts = true;
    } else {
      std::printf("unknown argument %s\n", argv[i]);
      return 2;
    }
  }

  struct Job {
    ProgramSpec spec;
    size_t index;
  };
  std::vector<Job> jobs;
  std::vector<ProgramSpec> matrix = programMatrix();
  if (matrix.size() > programLimit)
    matrix.resize(programLimit);
  for (size_t index = 0; index < matrix.size(); index += every)
    for (const std::string &chip : chips)
      jobs.push_back({forChip(matrix[index], chip), index});

  MatrixTally tally;
  double compileSeconds = 0, runSeconds = 0;
  auto start = std::chrono::steady_clock::now();
  for (size_t j = 0; j < jobs.size(); ++j) {
    if (j % shards != shard)
      continue;
    const ProgramSpec &spec = jobs[j].spec;
    std::mt19937_64 random(1000003 * (jobs[j].index + 1));
    std::vector<std::vector<int32_t>> sets = lengthSets(spec, random);
    std::vector<size_t> chosen(sets.size());
    std::iota(chosen.begin(), chosen.end(), 0);
    if (!full)
      chosen = ciSets(spec, jobs[j].index, sets);
    std::string description = describe(spec);
    auto compileStart = std::chrono::steady_clock::now();
    std::string error;
    mlir::pa::DecodeConfig config = programConfigFor(
        spec.shape, spec.sinks, spec.chip, spec.budget, spec.maxPartitions);
    mlir::FailureOr<mlir::pa::CompiledKernels> compiled =
        mlir::pa::compileDecode(config, mlir::pa::CompileOptions(), error);
    std::unique_ptr<isa::ISAProgram> program;
    if (mlir::succeeded(compiled))
      program = isa::ISAProgram::load(compiled->codeObject,
                                      compiled->metadataJson, error);
    double compileTime = secondsSince(compileStart);
    compileSeconds += compileTime;
    if (!program) {
      tally.failed += int(chosen.size());
      std::printf("FAIL %s: compile / load: %s\n", description.c_str(),
                  error.c_str());
      std::fflush(stdout);
      continue;
    }
    // As the emulator matrix: fp8 compute quantizes the query per row.
    ComparisonOptions comparison;
    if (config.kvType != mlir::pa::KVCacheType::bf16 &&
        config.computeType.value_or(mlir::pa::ComputeType::fp8) ==
            mlir::pa::ComputeType::fp8 &&
        mlir::pa::kDefaultFp8Residual !=
            mlir::pa::Fp8Residual::queryAndProbabilities)
      comparison.queryQuantizedPerRow = spec.shape.kvType;
    int programFailures = 0;
    double programWorst = 0, programSeconds = 0;
    std::map<std::string, isa::Stats> perKernel;
    for (size_t set = 0; set < sets.size(); ++set) {
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
      CaseResult result = runAndCompare(
          config, executorRunner(*program, config, perKernel),
          c, /*outputBits=*/nullptr, comparison);
      runSeconds += result.runSeconds;
      programSeconds += result.runSeconds;
      programWorst = std::max(
          {programWorst, result.output.ratio, result.partials.ratio});
      if (!tally.record(result, caseName))
        ++programFailures;
      if (verbose)
        std::printf("  lengths=%s run %.3fs output ratio %.3g partial ratio "
                    "%.3g\n",
                    lengths.c_str(), result.runSeconds, result.output.ratio,
                    result.partials.ratio);
    }
    std::printf("%s [%zu/%zu] %s: compile %.2fs, %zu cases, executed %.2fs, "
                "worst error %.3f of tolerance\n",
                programFailures ? "FAIL" : "ok  ", j + 1, jobs.size(),
                description.c_str(), compileTime, chosen.size(),
                programSeconds, programWorst);
    if (counts)
      for (const auto &[name, stats] : perKernel)
        printCounts(name, stats);
    std::fflush(stdout);
  }
  std::printf("\n%d configurations (%s subset, every %zu-th program, shard "
              "%zu/%zu); compile %.1fs, run %.1fs, total %.1fs\n",
              tally.passed + tally.failed, full ? "full" : "ci", every, shard,
              shards, compileSeconds, runSeconds, secondsSince(start));
  tally.printWorst();
  std::printf("%d passed, %d failed\n", tally.passed, tally.failed);
  return tally.failed == 0 ? 0 : 1;
}
