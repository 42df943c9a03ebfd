//===- Chip.cpp - the chips pa-mlir targets -------------------------------===//
#include "pa/IR/Chip.h"

using namespace mlir::pa;

namespace {
// MI300X has 304 CUs (MI308X 80, MI300A 228); MI355X 256; H200 132 SMs.
// Parts with fewer CUs pass an explicit budget.
const ChipInfo kChips[] = {
    {"gfx942", Vendor::AMD, 304, 256, 64, 64 * 1024,
     /*maxStagedPageIds=*/2048, Fp8Format::E4M3FNUZ},
    {"gfx950", Vendor::AMD, 256, 256, 64, 160 * 1024,
     /*maxStagedPageIds=*/4096, Fp8Format::E4M3FN, /*hasF8F6F4Mfma=*/true},
    // sm_90a stages 2048 ids (8 KiB): with 4096 (16 KiB) pa-to-nvvm's
    // decode kernel for 32 rows at D = 256 and fp8 KV needs 117 KiB of
    // shared memory, one workgroup per SM; with 2048, 109 KiB and two (the
    // H200 A/B at 1024 ids, 105 KiB, 2026-12-02: fp8 Q = 4 25% faster).
    // Tiles past the bound read the block table on one thread, which is
    // slow for small pages: the bound is no lower than the two workgroups
    // need.
    {"sm_90a", Vendor::NVIDIA, 132, 128, 32, 227 * 1024,
     /*maxStagedPageIds=*/2048, Fp8Format::E4M3FN},
};
} // namespace

std::optional<ChipInfo> mlir::pa::lookupChip(llvm::StringRef name) {
  for (const ChipInfo &chip : kChips)
    if (chip.name == name)
      return chip;
  return std::nullopt;
}

llvm::StringRef mlir::pa::knownChipNames() { return "gfx942, gfx950, sm_90a"; }

llvm::StringRef mlir::pa::fp8TypeName(Fp8Format format) {
  return format == Fp8Format::E4M3FNUZ ? "f8E4M3FNUZ" : "f8E4M3FN";
}
