//===- NVIDIATarget.cpp - the NVPTX target machine and chip checks --------===//
#include "NVIDIATarget.h"
#include "pa/Target/NVIDIA/Pipeline.h"
#include "pa/Target/LLVMSupport.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"

using namespace mlir;
using namespace mlir::pa;

std::unique_ptr<llvm::TargetMachine>
mlir::pa::nvidia::createTargetMachine(StringRef chip, std::string &error) {
  static void (*const initializers[])() = {
      LLVMInitializeNVPTXTargetInfo, LLVMInitializeNVPTXTarget,
      LLVMInitializeNVPTXTargetMC, LLVMInitializeNVPTXAsmPrinter};
  return pa::createTargetMachine({"NVPTX", kTriple, kPTXFeatures,
                                  /*relocation=*/std::nullopt, initializers},
                                 chip, error);
}

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
