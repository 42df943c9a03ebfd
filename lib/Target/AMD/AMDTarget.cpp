//===- AMDTarget.cpp - the AMDGPU target machine and chip checks ----------===//
#include "AMDTarget.h"
#include "pa/Target/AMD/Pipeline.h"
#include "pa/Target/LLVMSupport.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"

using namespace mlir;
using namespace mlir::pa;

std::unique_ptr<llvm::TargetMachine>
mlir::pa::amd::createTargetMachine(StringRef chip, std::string &error) {
  static void (*const initializers[])() = {
      LLVMInitializeAMDGPUTargetInfo, LLVMInitializeAMDGPUTarget,
      LLVMInitializeAMDGPUTargetMC, LLVMInitializeAMDGPUAsmPrinter,
      LLVMInitializeAMDGPUAsmParser};
  return pa::createTargetMachine(
      {"AMDGPU", kTriple, /*features=*/"", llvm::Reloc::PIC_, initializers},
      chip, error);
}

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
