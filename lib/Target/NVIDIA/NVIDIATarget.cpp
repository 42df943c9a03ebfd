//===- NVIDIATarget.cpp - NVIDIA chip checks ------------------------------===//
#include "NVIDIATarget.h"
#include "pa/Target/NVIDIA/Pipeline.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::pa;

FailureOr<ChipInfo> mlir::pa::resolveNVIDIAChip(Location loc,
                                                StringRef chipName) {
  std::optional<ChipInfo> chip = lookupChip(chipName);
  if (chip && chip->vendor == Vendor::NVIDIA)
    return *chip;
  if (chip)
    return emitError(loc) << "chip '" << chipName
                          << "' is not an NVIDIA chip; PTX is built for sm_90a";
  return emitError(loc) << "unknown NVIDIA chip '" << chipName
                        << "'; PTX is built for sm_90a (known chips: "
                        << knownChipNames() << ")";
}
