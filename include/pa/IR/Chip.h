//===- Chip.h - the chips pa-mlir targets -----------------------*- C++ -*-===//
//
// One table of the per-chip facts the passes need. Adding a chip is adding a
// row here (and a backend pass for a new ISA). The chip a module is compiled
// for is stated in the IR (`#pa.target`, PaDialect.h); this table is what
// its name stands for. No MLIR dependency: the emulator and the tools read it
// too.
//
//===----------------------------------------------------------------------===//
#ifndef PA_IR_CHIP_H
#define PA_IR_CHIP_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace mlir::pa {

enum class Vendor { AMD, NVIDIA };

/// The fp8 encoding a chip's matrix units and conversions take.
enum class Fp8Format {
  E4M3FNUZ, // MI300 (gfx942): bias 8, one NaN, no -0, no infinities
  E4M3FN,   // OCP (gfx950, sm_90a): bias 7, NaN = S.1111.111, no infinities
};

struct ChipInfo {
  llvm::StringRef name;
  Vendor vendor;
  /// Compute units (AMD CUs, NVIDIA SMs) of the flagship part: the default
  /// plan budget is twice this and the default max_partitions this.
  int64_t computeUnits;
  /// Threads per workgroup of the generated kernels (4 waves / 4 warps).
  int64_t workgroupSize;
  /// Lanes of a wave (AMD, 64) or warp (NVIDIA, 32).
  int64_t waveSize;
  /// Workgroup (LDS / shared) memory available to one workgroup, in bytes.
  int64_t workgroupMemoryBytes;
  /// Most page ids the decode kernel stages in workgroup memory: the spec's
  /// 4096, and on AMD at most an eighth of the LDS, so that on gfx942
  /// (64 KiB) the MFMA decode kernel (ids + query / merge scratch) stays
  /// within 32 KiB and two workgroups fit a CU; later tiles read the block
  /// table directly.
  int64_t maxStagedPageIds;
  /// fp8 element type of the matrix units (f8E4M3FNUZ or f8E4M3FN).
  Fp8Format fp8Format;
  /// CDNA4's v_mfma_f32_16x16x128_f8f6f4 (K = 128 fp8 products per lane
  /// pair; twice the fp8 rate of 16x16x32).
  bool hasF8F6F4Mfma = false;
};

/// The chip a module is compiled for when nobody names one (pipelines,
/// pa-compile, the C and Python APIs).
inline constexpr llvm::StringLiteral kDefaultChip = "gfx950";
/// The default of the NVIDIA-only tools and pipelines.
inline constexpr llvm::StringLiteral kDefaultNVIDIAChip = "sm_90a";

/// The chip named `name`, or nullopt for an unknown name.
std::optional<ChipInfo> lookupChip(llvm::StringRef name);

/// Names of the known chips, for diagnostics: "gfx942, gfx950, sm_90a".
llvm::StringRef knownChipNames();

/// MLIR's name of the fp8 type of `format` ("f8E4M3FNUZ", "f8E4M3FN").
llvm::StringRef fp8TypeName(Fp8Format format);

} // namespace mlir::pa

#endif // PA_IR_CHIP_H
