//===- NVIDIATarget.cpp - the NVPTX target machine and chip checks --------===//
#include "NVIDIATarget.h"
#include "pa/Target/NVIDIA/Pipeline.h"
#include "pa/Target/KernelStrides.h"
#include "pa/Target/LLVMSupport.h"
#include "pa/Transforms/KernelBuilder.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"

#include <mutex>

using namespace mlir;
using namespace mlir::pa;

std::unique_ptr<llvm::TargetMachine>
mlir::pa::nvidia::createTargetMachine(StringRef chip, std::string &error) {
  static std::once_flag initialized;
  std::call_once(initialized, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  return pa::createTargetMachine(kTriple, chip, kPTXFeatures,
                                 /*relocation=*/std::nullopt, "NVPTX", error);
}

SmallVector<std::string> mlir::pa::nvidia::kernelParamFields(
    gpu::GPUFuncOp kernel) {
  SmallVector<std::string> fields;
  for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes())) {
    std::string name = kernelArgumentName(kernel, i);
    auto memref = dyn_cast<MemRefType>(type);
    if (!memref) {
      fields.push_back(name);
      continue;
    }
    // The unpacked descriptor, in the order the LLVM lowering passes it.
    fields.push_back(name + ".allocated_ptr");
    fields.push_back(name + ".aligned_ptr");
    fields.push_back(name + ".offset");
    for (int64_t d = 0; d < memref.getRank(); ++d)
      fields.push_back(name + ".size[" + std::to_string(d) + "]");
    for (int64_t d = 0; d < memref.getRank(); ++d)
      fields.push_back(name + ".stride[" + std::to_string(d) + "]");
  }
  return fields;
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
