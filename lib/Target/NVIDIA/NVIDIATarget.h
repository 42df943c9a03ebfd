//===- NVIDIATarget.h - facts shared by the NVVM lowering and PTX -*- C++ -*-//
#ifndef PA_LIB_TARGET_NVIDIA_NVIDIATARGET_H
#define PA_LIB_TARGET_NVIDIA_NVIDIATARGET_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Support/LLVM.h"
#include "pa/IR/KernelAttributes.h"
#include "pa/Target/KernelsToLLVM.h"
#include "pa/Target/LLVMSupport.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <string>

namespace mlir::pa::nvidia {

inline constexpr llvm::StringLiteral kTriple = "nvptx64-nvidia-cuda";
/// PTX ISA 8.5: the first with every instruction the kernels use on sm_90a
/// (mma.sync m16n8k32 e4m3 needs 8.4); CUDA 12.5+ drivers load it.
inline constexpr llvm::StringLiteral kPTXFeatures = "+ptx85";

/// What the PTX does not link: libdevice.
inline constexpr llvm::StringRef kLibdevicePrefixes[] = {"__nv_"};
inline const UnlinkedLibrary kLibdevice = {
    "the PTX does not link", kLibdevicePrefixes, "libdevice",
    "lower math with convert-math-to-llvm"};

/// LLVM's NVPTX backend with kPTXFeatures, for pa::createTargetMachine
/// (LLVMSupport.h).
inline void (*const kBackendInitializers[])() = {
    LLVMInitializeNVPTXTargetInfo, LLVMInitializeNVPTXTarget,
    LLVMInitializeNVPTXTargetMC, LLVMInitializeNVPTXAsmPrinter};
inline const LLVMBackend kBackend = {"NVPTX", kTriple, kPTXFeatures,
                                     /*relocation=*/std::nullopt,
                                     kBackendInitializers};

} // namespace mlir::pa::nvidia

#endif // PA_LIB_TARGET_NVIDIA_NVIDIATARGET_H
