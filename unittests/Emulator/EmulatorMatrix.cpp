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
//                    [--key-prefetch auto|none|next-tile]
//                    [--chips gfx942,gfx950] [--shard I/N] [--programs N]
//                    [--every N] [--filter TEXT] [--from J] [--list]
//                    [--dump-failing FILE] [--large-pool] [--verbose]
//
// `full` is the whole matrix (make test-emulator-full); `ci` is the subset
// CTest runs: every program of the matrix with its two cheapest standard
// length sets and its own extra sets, which covers every axis value of the
// matrix on each chip (checked) at a size that fits CI. Exits non-zero on
// any failure. --filter runs only the programs whose description contains
// TEXT (the features sinks, lse and alibi are named only when on, so
// `--filter alibi` selects the ALiBi programs); --from J starts at job J
// (the [J/N] numbers), to resume a run; --list prints the selected jobs
// and runs nothing.
// --large-pool runs every case with its K, V and per-token scales in pools
// of 2 GiB or more (LargePool.h): the dynamic-pool kernel's 64-bit branch,
// where the matrix's small pools take its 32-bit loop.
// The driver (command line, jobs, cases, coverage) is MatrixDriver.h,
// shared with PAISAMatrix.
//
//===----------------------------------------------------------------------===//
#include "../Numerics/MatrixDriver.h"

#include "pa/API/EmulatedProgram.h"

#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

using namespace pa;
using namespace pa::numerics;

int main(int argc, char **argv) {
  MatrixOptions options;
  mlir::pa::EmulationOptions emulation;
  // The emulated module of every program with a failing case goes here.
  std::string dumpFile;
  for (int i = 1; i < argc; ++i) {
    int read = parseMatrixOption(argc, argv, i, options);
    if (read < 0)
      return 2;
    if (read)
      continue;
    if (!std::strcmp(argv[i], "--kernels") && i + 1 < argc) {
      emulation.kernels = !std::strcmp(argv[++i], "lane0")
                              ? mlir::pa::EmulatedKernels::lane0Baseline
                              : mlir::pa::EmulatedKernels::rocdlPipeline;
    } else if (!std::strcmp(argv[i], "--fp8-residual") && i + 1 < argc) {
      if (!parseInto(argv[++i], mlir::pa::parseFp8Residual,
                     emulation.fp8Residual,
                     "--fp8-residual takes none, p or query-and-p"))
        return 2;
    } else if (!std::strcmp(argv[i], "--key-prefetch") && i + 1 < argc) {
      if (!parseInto(argv[++i], mlir::pa::parseKeyPrefetch,
                     emulation.keyPrefetch,
                     "--key-prefetch takes auto, none or next-tile"))
        return 2;
    } else if (!std::strcmp(argv[i], "--dump-failing") && i + 1 < argc) {
      dumpFile = argv[++i];
    } else {
      std::printf("unknown argument %s\nusage: PAEmulatorMatrix %s "
                  "[--kernels rocdl|lane0] [--fp8-residual none|p|"
                  "query-and-p] "
                  "[--key-prefetch auto|none|next-tile] "
                  "[--dump-failing FILE]\n",
                  argv[i], kMatrixUsage);
      return 2;
    }
  }
  emulation.cacheOffsets = options.cacheOffsets;

  mlir::pa::emulator::Stats totals;
  std::shared_ptr<mlir::pa::EmulatedProgram> current;
  MatrixHooks hooks;
  hooks.compile = [&](const ProgramSpec &spec, MatrixProgram &program,
                      std::string &error) {
    auto compiled =
        mlir::pa::EmulatedProgram::compile(program.config, error, emulation);
    if (mlir::failed(compiled))
      return false;
    current = std::move(*compiled);
    program.run = [emulated = current, &totals](
                      const mlir::pa::HostBuffers &buffers,
                      std::string &message) {
      mlir::pa::emulator::Stats stats;
      mlir::LogicalResult result = emulated->run(buffers, message, &stats);
      totals += stats;
      return result;
    };
    // fp8 compute quantizes the query per row unless its residual is
    // multiplied too (the lane-0 baseline computes exactly).
    if (emulation.kernels == mlir::pa::EmulatedKernels::rocdlPipeline)
      program.comparison = comparisonFor(program.config, spec.shape.kvType,
                                         emulation.fp8Residual);
    return true;
  };
  hooks.finished = [&](const ProgramSpec &spec, bool failed) {
    if (!failed || dumpFile.empty())
      return;
    if (FILE *dump = std::fopen(dumpFile.c_str(), "a")) {
      std::fprintf(dump, "// %s\n%s\n", describe(spec).c_str(),
                   current->moduleText().c_str());
      std::fclose(dump);
    }
  };
  hooks.summary = [&] {
    std::printf("emulator: %llu wave instructions, %llu lane instructions "
                "in %.1fs: %.3g lane-instructions/s (%.3g "
                "wave-instructions/s); %llu workgroups, %llu barriers, %llu "
                "MFMAs\n",
                (unsigned long long)totals.waveInstructions,
                (unsigned long long)totals.laneInstructions, totals.seconds,
                totals.seconds > 0 ? totals.laneInstructions / totals.seconds
                                   : 0.0,
                totals.seconds > 0 ? totals.waveInstructions / totals.seconds
                                   : 0.0,
                (unsigned long long)totals.workgroups,
                (unsigned long long)totals.barriers,
                (unsigned long long)totals.mfmas);
  };
  return runMatrix(options, "emulated", hooks);
}
