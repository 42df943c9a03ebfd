//===- MatrixDriver.h - the numerics matrix through an executor -*- C++ -*-===//
//
// The driver the executors of the AMD kernels share (PAEmulatorMatrix: the
// wave64 emulator; PAISAMatrix: the code objects on the instruction-level
// executor): their common command line, every (program, chip) pair of the
// matrix dealt round-robin to the shards, each compiled once by the
// executor's hook and its length sets (the CI subset's or all) run against
// the oracle with outputs and partials poisoned, the per-chip coverage of
// the matrix's axes checked, and the summary.
//
//===----------------------------------------------------------------------===//
#ifndef PA_UNITTESTS_NUMERICS_MATRIXDRIVER_H
#define PA_UNITTESTS_NUMERICS_MATRIXDRIVER_H

#include "OracleComparison.h"
#include "ProgramMatrix.h"

#include "pa/Conversion/MFMAOptions.h"

#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace pa::numerics {

struct MatrixOptions {
  /// Every length set of every program (else the CI subset: ciSets).
  bool full = false;
  bool verbose = false;
  std::vector<std::string> chips = {"gfx942", "gfx950"};
  size_t shard = 0, shards = 1;
  /// The first N programs; every N-th of them.
  size_t programLimit = SIZE_MAX, every = 1;
  /// Only programs whose description contains this.
  std::string filter;
  /// Print the selected jobs' descriptions; compile and run nothing.
  bool list = false;
  /// Only jobs from this one on (the [J/N] numbers, from 1): resumes a
  /// run that stopped.
  size_t from = 1;
  /// pa-to-mfma's cache-offsets for the AMD kernels: `64` builds only the
  /// 64-bit tile loop, which the matrix's small pools never take otherwise.
  mlir::pa::CacheOffsets cacheOffsets = mlir::pa::CacheOffsets::automatic;
  /// Every case's K, V and per-token scales in pools of 2 GiB or more
  /// (LargePool.h): the dynamic-pool kernel's 64-bit branch.
  bool largePool = false;
};

/// The driver's options, for usage lines.
inline constexpr const char *kMatrixUsage =
    "[--subset ci|full] [--chips gfx942,gfx950] [--shard I/N] "
    "[--programs N] [--every N] [--filter TEXT] [--from J] [--list] "
    "[--verbose] [--cache-offsets auto|64] [--large-pool]";

/// Reads the driver's option at argv[i] (advancing i past its value):
/// 1 when read, 0 when argv[i] is none of them, -1 after printing why its
/// value is wrong.
int parseMatrixOption(int argc, char **argv, int &i, MatrixOptions &options);

/// `parse(text)` into `value` (a matrix tool's own option); prints `usage`
/// and returns false when `text` is no value of the option.
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

/// A compiled program as the driver runs its cases.
struct MatrixProgram {
  mlir::pa::DecodeConfig config;
  DecodeRunner run;
  ComparisonOptions comparison;
};

/// The comparison of a program of `config` whose fp8 compute runs with
/// pa-to-mfma's `residual`: without the query's residual the query is
/// quantized per row, and the partials are those of the quantized query.
ComparisonOptions comparisonFor(const mlir::pa::DecodeConfig &config,
                                oracle::ScalarType kvType,
                                mlir::pa::Fp8Residual residual);

struct MatrixHooks {
  /// Compiles `spec` (whose configuration program.config holds) into
  /// program.run and program.comparison; false with `error`. A hook that
  /// leaves program.run empty only compiles: the program's cases are not
  /// run.
  std::function<bool(const ProgramSpec &spec, MatrixProgram &program,
                     std::string &error)>
      compile;
  /// After a program's cases ran (`failed`: one of them failed).
  std::function<void(const ProgramSpec &spec, bool failed)> finished;
  /// Before the summary's worst-error lines.
  std::function<void()> summary;
};

/// Runs the matrix as `options` say; `executor` names the executor in the
/// per-program lines. The process's exit code: 0 when every case passed
/// and (for a whole, unfiltered run) every axis value was covered on every
/// chip.
int runMatrix(const MatrixOptions &options, const char *executor,
              const MatrixHooks &hooks);

} // namespace pa::numerics

#endif // PA_UNITTESTS_NUMERICS_MATRIXDRIVER_H
