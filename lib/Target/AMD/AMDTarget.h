//===- AMDTarget.h - facts shared by the AMD lowering and emission -*- C++ -*-//
#ifndef PA_LIB_TARGET_AMD_AMDTARGET_H
#define PA_LIB_TARGET_AMD_AMDTARGET_H

#include "mlir/Support/LLVM.h"
#include "pa/IR/KernelAttributes.h"
#include "pa/Target/KernelsToLLVM.h"
#include "pa/Target/LLVMSupport.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <string>

namespace mlir::pa::amd {

inline constexpr llvm::StringLiteral kTriple = "amdgcn-amd-amdhsa";

/// What no code object links: the ROCm device libraries.
inline constexpr llvm::StringRef kDeviceLibraryPrefixes[] = {"__ocml_",
                                                             "__ockl_"};
inline const UnlinkedLibrary kDeviceLibraries = {
    "no code object links", kDeviceLibraryPrefixes, "ROCm device-library",
    "lower math with convert-math-to-llvm and give kernels known block "
    "sizes"};

/// LLVM's AMDGPU backend, for pa::createTargetMachine (LLVMSupport.h).
inline void (*const kBackendInitializers[])() = {
    LLVMInitializeAMDGPUTargetInfo, LLVMInitializeAMDGPUTarget,
    LLVMInitializeAMDGPUTargetMC, LLVMInitializeAMDGPUAsmPrinter,
    LLVMInitializeAMDGPUAsmParser};
inline const LLVMBackend kBackend = {"AMDGPU", kTriple, /*features=*/"",
                                     llvm::Reloc::PIC_, kBackendInitializers};

} // namespace mlir::pa::amd

#endif // PA_LIB_TARGET_AMD_AMDTARGET_H
