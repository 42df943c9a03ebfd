//===- AMDTarget.cpp - AMD chip checks ------------------------------------===//
#include "AMDTarget.h"
#include "pa/Target/AMD/Pipeline.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::pa;

FailureOr<ChipInfo> mlir::pa::resolveAMDChip(Location loc, StringRef chipName) {
  std::optional<ChipInfo> chip = lookupChip(chipName);
  if (chip && chip->vendor == Vendor::AMD)
    return *chip;
  if (chip)
    return emitError(loc) << "chip '" << chipName
                          << "' is not an AMD chip; AMD code objects are "
                             "built for gfx942 and gfx950";
  return emitError(loc) << "unknown AMD chip '" << chipName
                        << "'; AMD code objects are built for gfx942 and "
                           "gfx950 (known chips: "
                        << knownChipNames() << ")";
}
