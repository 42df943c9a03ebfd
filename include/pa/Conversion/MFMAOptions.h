//===- MFMAOptions.h - options of the MFMA lowering -------------*- C++ -*-===//
//
// Shared by pa-to-mfma, the pa-lower-to-rocdl pipeline, the compile API and
// pa-compile, so that the option has one spelling everywhere.
//
//===----------------------------------------------------------------------===//
#ifndef PA_CONVERSION_MFMAOPTIONS_H
#define PA_CONVERSION_MFMAOPTIONS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

#include <optional>

namespace mlir::pa {

/// Which operands of the fp8 MFMA products (fp8 compute) also contribute
/// their fp8 residual (value - fp8(value), itself in fp8) through a second
/// MFMA: about 2^-8 instead of 2^-4 relative quantization error for that
/// operand, one more MFMA per step of its product.
enum class Fp8Residual {
  /// One MFMA per step: Q and P quantized to fp8 once (the design's
  /// minimum; P's 2^-4 relative error fails the spec's tolerance on short
  /// rows).
  none,
  /// P's residual in the PV product: the outputs of uniform(-0.5, 0.5)
  /// inputs stay within the tolerance, but the query's per-row fp8
  /// quantization moves the scores by ~2^-5 relative, which peaked
  /// softmaxes (normal inputs, long rows) turn into output errors of
  /// several times the tolerance.
  probabilities,
  /// Also the query's residual in the QK product (the default): the
  /// products see ~8 significant bits of Q and P, and every input
  /// distribution of the numerics matrix passes. Where softmax_scale *
  /// sqrt(D) > 2 the residual's own residual too (a third QK MFMA per
  /// step): the scores' error grows with the scale, and at scale 1 two
  /// query terms missed the tolerance on single logits.
  queryAndProbabilities,
};

/// What pa-to-mfma, the pipeline, the compile API and pa-compile use
/// unless told otherwise.
inline constexpr Fp8Residual kDefaultFp8Residual =
    Fp8Residual::queryAndProbabilities;

/// How the decode kernel addresses the paged buffers (K, V, per-token
/// scales).
enum class CacheOffsets {
  /// 16-byte buffer loads with 32-bit offsets (bounds-checked) when every
  /// paged buffer is below 2^31 bytes, 64-bit global addresses otherwise:
  /// decided at compile time for a static pool, else by a run-time check
  /// of the pool size, with both tile loops in the kernel.
  automatic,
  /// 64-bit global addresses only (one tile loop, run once per M-tile):
  /// pools known to be large, and the tests of that loop on small pools.
  only64Bit,
};

/// Whether the decode kernel's 32-bit tile loop loads the next tile's K
/// while the current tile's softmax and PV run (software pipelining across
/// tiles: the loads stay in flight across the loop's back edge, carried in
/// registers), instead of each tile's K just before its QK.
enum class KeyPrefetch {
  /// Where the registers of one tile's K fit beside the loop without
  /// losing a wave per SIMD (docs/mfma-lowering.md, "K of the next tile"):
  /// fp8 caches with 32-row groups (2 M-tiles, 2 waves): packed at D = 64
  /// or 128, nhd / hnd at D = 128 with pages of 2 tokens or more; with
  /// per-token scales at D = 128 where each lane holds its own token's
  /// (pages of 16 tokens or more); 16-row groups of packed caches at query
  /// length 1 where the LDS allows at most 3 waves (gfx942 at D = 64 and
  /// 128), and at D = 128 on gfx950, which then asks for 3 waves instead of
  /// the 4 its LDS allows (at 4 the scheduler serialized K's loads). The
  /// 64-bit loop (pools of 2 GiB or more) prefetches where the 32-bit loop
  /// does at 16 rows, except with per-token scales, a window and ALiBi
  /// together.
  automatic,
  /// Each tile's K loaded in its own step.
  none,
  /// Every decode kernel's 32-bit loop, and 16-row kernels' 64-bit loop
  /// under automatic's exception (may lower the occupancy).
  nextTile,
};

/// The pa-to-mfma options that shape the decode kernel, as the pipeline
/// passes them on.
struct MFMAOptions {
  Fp8Residual fp8Residual = kDefaultFp8Residual;
  CacheOffsets cacheOffsets = CacheOffsets::automatic;
  KeyPrefetch keyPrefetch = KeyPrefetch::automatic;
};

/// The MFMA options of any options struct that holds them under the same
/// public names (the compile and emulation options, the pipeline's).
template <typename Options>
MFMAOptions mfmaOptionsOf(const Options &options) {
  return {options.fp8Residual, options.cacheOffsets, options.keyPrefetch};
}

/// "none", "p", "query-and-p".
llvm::StringRef stringifyFp8Residual(Fp8Residual residual);
std::optional<Fp8Residual> parseFp8Residual(llvm::StringRef text);
/// The values of an `fp8-residual` command-line or pass option.
llvm::cl::ValuesClass fp8ResidualValues();
/// "auto", "64".
std::optional<CacheOffsets> parseCacheOffsets(llvm::StringRef text);
/// The values of a `cache-offsets` command-line or pass option.
llvm::cl::ValuesClass cacheOffsetsValues();
/// "auto", "none", "next-tile".
std::optional<KeyPrefetch> parseKeyPrefetch(llvm::StringRef text);
/// The values of a `key-prefetch` command-line or pass option.
llvm::cl::ValuesClass keyPrefetchValues();

} // namespace mlir::pa

#endif // PA_CONVERSION_MFMAOPTIONS_H
