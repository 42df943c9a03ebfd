//===- AMDTarget.h - facts shared by the AMD lowering and emission -*- C++ -*-//
#ifndef PA_LIB_TARGET_AMD_AMDTARGET_H
#define PA_LIB_TARGET_AMD_AMDTARGET_H

#include "mlir/Support/LLVM.h"
#include "pa/IR/KernelAttributes.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <string>

namespace mlir::pa::amd {

inline constexpr llvm::StringLiteral kTriple = "amdgcn-amd-amdhsa";



/// An AMDGPU target machine for `chip` at O3 (the AMDGPU backend is
/// initialized on first use); null with `error` set when LLVM lacks it.
std::unique_ptr<llvm::TargetMachine> createTargetMachine(llvm::StringRef chip,
                                                         std::string &error);

} // namespace mlir::pa::amd

#endif // PA_LIB_TARGET_AMD_AMDTARGET_H
