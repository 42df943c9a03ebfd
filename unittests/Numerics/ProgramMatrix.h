//===- ProgramMatrix.h - the decode configurations of the numerics matrix -===//
//
// The matrix of issue 4: static configurations (one compiled program each)
// and the dynamic variations (context-length sets) every executor of the
// decode runs against the oracle: the host JIT (NumericsMatrix) and the
// wave64 emulator (unittests/Emulator).
//
//===----------------------------------------------------------------------===//
#ifndef PA_UNITTESTS_NUMERICS_PROGRAMMATRIX_H
#define PA_UNITTESTS_NUMERICS_PROGRAMMATRIX_H

#include "pa/IR/Chip.h"
#include "pa/Oracle/CaseGen.h"

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace pa::numerics {

/// nhd / hnd K and V as views of one combined cache, as vLLM v1 and
/// FlashInfer keep them: each page's K then its V ([N, 2, ...]: page
/// strides of two pages), or all K pages then all V pages ([2, N, ...]:
/// contiguous halves). A program that read the pages contiguously would
/// read the other half's pages.
enum class CombinedCache { None, PageInterleaved, Halves };

/// "interleaved" ([N, 2, ...]), "halves" ([2, N, ...]) or "none".
const char *combinedCacheName(CombinedCache combined);

/// The static part of a configuration: one compiled program.
struct ProgramSpec {
  oracle::DecodeShape shape;
  bool sinks = false;
  std::string chip = std::string(mlir::pa::kDefaultChip);
  std::optional<int64_t> budget, maxPartitions;
  /// Dynamic variations to run, beyond the standard ones.
  std::vector<std::vector<int32_t>> extraLengths;
  /// The values of the extraLengths cases (the standard sets' are uniform
  /// but for every 4th program's normal-distribution set).
  oracle::ValueDistribution extraDistribution =
      oracle::ValueDistribution::Uniform;
  /// Sink logits (+-inf allowed); empty: random.
  std::vector<double> sinkValues;
  /// Every case gets this non-finite input (spec, "Non-finite inputs"):
  /// the oracle's NaN rows must be NaN, the others within tolerance.
  oracle::NonFiniteInput nonFinite = oracle::NonFiniteInput::None;
  /// K and V of every case in one combined cache (nhd / hnd programs).
  CombinedCache combinedCache = CombinedCache::None;
  std::string label;
};

/// One line naming every static parameter of `p`.
std::string describe(const ProgramSpec &p);

/// A fixed-seed sweep over the axes of the matrix, plus the special
/// programs the sweep cannot be relied on to produce, plus one program per
/// family of non-finite input, unsplit and split.
std::vector<ProgramSpec> programMatrix();

/// The nhd and hnd cache layouts with page sizes 1 to 1024, crossed with
/// windows, sinks, MTP, scales and GQA shapes. Run after programMatrix()
/// by the host matrix and by the AMD matrices (emulator, instruction-level
/// executor), so that the older programs keep their random cases; part of
/// the NVIDIA check set (pa-cuda-gen).
std::vector<ProgramSpec> layoutPrograms();

/// Head dims that are no multiple of the QK load chunk (80 to 272) and
/// D = 512 with 32 rows, fp8 and bf16, crossed with windows, sinks, MTP,
/// scales, GQA shapes and layouts. Run after layoutPrograms() by the host
/// matrix and the AMD matrices; part of the NVIDIA check set (pa-cuda-gen).
std::vector<ProgramSpec> headDimPrograms();

/// One program per family of non-finite input (oracle::NonFiniteInput,
/// spec "Non-finite inputs"), one partition per sequence behind a window
/// and split-K with sinks; fp8 KV is e4m3fn. Part of programMatrix(), and
/// of the NVIDIA check set (pa-cuda-gen).
std::vector<ProgramSpec> nonFinitePrograms();

/// The model features (logits soft-cap, the log-sum-exp output) crossed
/// with windows, sinks, MTP, per-token scales, GQA shapes, split-K and a
/// non-finite input. Part of
/// programMatrix(), and of the NVIDIA check set (pa-cuda-gen).
std::vector<ProgramSpec> modelFeaturePrograms();

/// Normal-distributed inputs in the CI subsets (their extra sets) where a
/// precision choice once failed the tolerance: a bf16 cache with per-token
/// scales (one rounding of P to bf16 for the PV product, 1.57 times it,
/// layout-hnd-p1's normal set), and fp8 compute at softmax scale 1 (the
/// query as two fp8 terms, 1.5-1.8 times it). Part of programMatrix().
std::vector<ProgramSpec> precisionPrograms();

/// The context-length sets each program runs: boundaries of pages and
/// tiles, empty and one-token sequences, and random ones.
std::vector<std::vector<int32_t>> lengthSets(const ProgramSpec &p,
                                             std::mt19937_64 &random);

/// Values an axis of the matrix must take.
struct AxisNeed {
  const char *axis;
  std::vector<int64_t> values;
};

/// The axis values a set of programs covers (D, P, V, kv, scale, Q, G, Hkv,
/// W, sinks, f16 query, budget1, and G at Q = 8 as Q8G).
struct AxisCoverage {
  std::map<std::string, std::set<int64_t>> seen;
  void note(const ProgramSpec &p);
  /// Every value of `needs` was seen; prints "coverage: WHO no program
  /// with AXIS = V" for each that was not.
  bool check(const std::vector<AxisNeed> &needs, const std::string &who) const;
};

/// Every value the issue lists appears somewhere in `programs`; prints what
/// is missing.
bool checkCoverage(const std::vector<ProgramSpec> &programs);

/// The case of length set `set` (`lengths`) of program `index`, with fresh
/// random inputs drawn from `random`.
oracle::CaseConfig caseConfigFor(const ProgramSpec &spec, size_t index,
                                 size_t set,
                                 const std::vector<int32_t> &lengths,
                                 std::mt19937_64 &random);

/// `spec` for `chip`: an fp8 cache takes the chip's flavour (e4m3fn on
/// gfx950, e4m3fnuz on gfx942).
ProgramSpec forChip(ProgramSpec spec, const std::string &chip);

/// The length sets of program `index` (of `sets`) that the CI subsets of
/// the emulators run: the two cheapest standard sets, the program's extra
/// sets and, for every 16th program, the normal-distribution set.
std::vector<size_t> ciSets(const ProgramSpec &spec, size_t index,
                           const std::vector<std::vector<int32_t>> &sets);

} // namespace pa::numerics

#endif // PA_UNITTESTS_NUMERICS_PROGRAMMATRIX_H
