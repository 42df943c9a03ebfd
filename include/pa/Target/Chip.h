//===- Chip.h - the chips pa-mlir targets -----------------------*- C++ -*-===//
//
// One table of the per-chip facts the passes need. Adding a chip is adding a
// row here (and a backend pass for a new ISA).
//
//===----------------------------------------------------------------------===//
#ifndef PA_TARGET_CHIP_H
#define PA_TARGET_CHIP_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace mlir::pa {

enum class Vendor { AMD, NVIDIA };

struct ChipInfo {
  llvm::StringRef name;
  Vendor vendor;
  /// Compute units (AMD CUs, NVIDIA SMs) of the flagship part: the default
  /// plan budget is twice this and the default max_partitions this.
  int64_t computeUnits;
  /// Threads per workgroup of the generated kernels (4 waves / 4 warps).
  int64_t workgroupSize;
  /// Workgroup (LDS / shared) memory available to one workgroup, in bytes.
  int64_t workgroupMemoryBytes;
  /// fp8 element type the matrix units take: "f8E4M3FNUZ" or "f8E4M3FN".
  llvm::StringRef fp8TypeName;
  /// CDNA4's v_mfma_f32_16x16x128_f8f6f4 (K = 128 fp8 products per lane
  /// pair; twice the fp8 rate of 16x16x32).
  bool hasF8F6F4Mfma = false;
};

/// The chip named `name`, or nullopt for an unknown name.
std::optional<ChipInfo> lookupChip(llvm::StringRef name);

/// Names of the known chips, for diagnostics: "gfx942, gfx950, sm_90a".
llvm::StringRef knownChipNames();

} // namespace mlir::pa

#endif // PA_TARGET_CHIP_H
