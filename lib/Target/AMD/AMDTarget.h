//===- AMDTarget.h - facts shared by the AMD lowering and emission -*- C++ -*-//
#ifndef PA_LIB_TARGET_AMD_AMDTARGET_H
#define PA_LIB_TARGET_AMD_AMDTARGET_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <string>

namespace mlir::pa::amd {

inline constexpr llvm::StringLiteral kTriple = "amdgcn-amd-amdhsa";

/// Set on each kernel by pa-convert-kernels-to-rocdl before its memref
/// arguments become descriptor fields: one StringAttr per LLVM-level kernel
/// argument ("query.aligned_ptr", "query.size[0]", ...). The metadata
/// reader pairs them with the code object's explicit arguments.
inline constexpr llvm::StringLiteral kKernargFieldsAttrName =
    "pa.kernarg_fields";

/// Registers pa-convert-kernels-to-rocdl (see createConvertKernelsToROCDLPass).
void registerConvertKernelsToROCDLPass();

/// An AMDGPU target machine for `chip` at O3 (the AMDGPU backend is
/// initialized on first use); null with `error` set when LLVM lacks it.
std::unique_ptr<llvm::TargetMachine> createTargetMachine(llvm::StringRef chip,
                                                         std::string &error);

} // namespace mlir::pa::amd

#endif // PA_LIB_TARGET_AMD_AMDTARGET_H
