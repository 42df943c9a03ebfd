//===- ISAMatrix.cpp - the numerics matrix on the shipped code objects ----===//
//
// The numerics matrix (unittests/Numerics/ProgramMatrix.h) with the real
// product: each program compiled to its gfx942 / gfx950 code object and run
// by the instruction-level executor (pa/API/ISAExecutedProgram.h) with
// outputs and partials poisoned, the plan compared exactly and the output
// and partials at the spec's tolerance with the float64 oracle, through the
// driver the wave64 emulator's matrix uses (MatrixDriver.h).
//
//   PAISAMatrix [--subset ci|full] [--chips gfx942,gfx950] [--shard I/N]
//               [--programs N] [--every N] [--filter TEXT] [--from J]
//               [--verbose] [--counts] [--cache-offsets auto|64]
//
// `ci` runs the CI length sets (ciSets) of every `--every`-th program
// (default 1); `full` every set of every program. --counts prints each
// kernel's dynamic counts per program; --cache-offsets 64 compiles the
// code objects with only the 64-bit tile loop (pa-to-mfma's option), which
// the matrix's small pools never take otherwise. --from J starts at job J
// (the [J/N] numbers), to resume a run. Exits non-zero on any failure.
//
//===----------------------------------------------------------------------===//
#include "../Numerics/MatrixDriver.h"

#include "pa/API/ISAExecutedProgram.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>

using namespace pa;
using namespace pa::numerics;

namespace {

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
  MatrixOptions options;
  bool counts = false;
  for (int i = 1; i < argc; ++i) {
    int read = parseMatrixOption(argc, argv, i, options);
    if (read < 0)
      return 2;
    if (read)
      continue;
    if (!std::strcmp(argv[i], "--counts")) {
      counts = true;
    } else {
      std::printf("unknown argument %s\nusage: PAISAMatrix %s [--counts]\n",
                  argv[i], kMatrixUsage);
      return 2;
    }
  }

  mlir::pa::CompileOptions compileOptions;
  compileOptions.cacheOffsets = options.cacheOffsets;
  // Per kernel of the current program, summed over its cases.
  std::map<std::string, isa::Stats> perKernel;
  MatrixHooks hooks;
  hooks.compile = [&](const ProgramSpec &spec, MatrixProgram &program,
                      std::string &error) {
    auto compiled =
        mlir::pa::ISAExecutedProgram::compile(program.config, error,
                                              compileOptions);
    if (mlir::failed(compiled))
      return false;
    std::shared_ptr<mlir::pa::ISAExecutedProgram> executed =
        std::move(*compiled);
    perKernel.clear();
    program.run = [executed, &perKernel](const mlir::pa::HostBuffers &buffers,
                                         std::string &message) {
      return executed->run(buffers, message, &perKernel);
    };
    program.comparison = comparisonFor(program.config, spec.shape.kvType,
                                       mlir::pa::kDefaultFp8Residual);
    return true;
  };
  hooks.finished = [&](const ProgramSpec &, bool) {
    if (counts)
      for (const auto &[name, stats] : perKernel)
        printCounts(name, stats);
  };
  return runMatrix(options, "executed", hooks);
}
