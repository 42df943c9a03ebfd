//===- AMDTarget.h - facts shared by the AMD lowering and emission -*- C++ -*-//
#ifndef PA_LIB_TARGET_AMD_AMDTARGET_H
#define PA_LIB_TARGET_AMD_AMDTARGET_H

#include "mlir/Support/LLVM.h"
#include "pa/IR/KernelAttributes.h"
#include "pa/Target/KernelsToLLVM.h"
#include "llvm/ADT/StringRef.h"
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

/// An AMDGPU target machine for `chip` at O3 (the AMDGPU backend is
/// initialized on first use); null with `error` set when LLVM lacks it.
std::unique_ptr<llvm::TargetMachine> createTargetMachine(llvm::StringRef chip,
                                                         std::string &error);

} // namespace mlir::pa::amd

#endif // PA_LIB_TARGET_AMD_AMDTARGET_H
