//===- KernelsToLLVM.h - the kernels' way to LLVM, both targets -*- C++ -*-===//
//
// What the AMD and NVIDIA targets do alike on the way from the kernels of
// gpu.module @pa_kernels to an optimized LLVM module, with the target's own
// parts passed in: the LLVM dialect conversion (upstream's arith, cf,
// memref, vector, index and ub patterns, plus the target's gpu / vendor
// dialect ones), the passes before it, the names its kernel arguments get,
// the check that nothing calls an unlinked library, and the translation to
// LLVM IR optimized at O3.
//
//===----------------------------------------------------------------------===//
#ifndef PA_TARGET_KERNELSTOLLVM_H
#define PA_TARGET_KERNELSTOLLVM_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/DataLayout.h"

#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
class PipelineTuningOptions;
class TargetMachine;
} // namespace llvm

namespace mlir {
class LLVMTypeConverter;
} // namespace mlir

namespace mlir::pa {

/// The passes before a target's LLVM conversion that both targets run:
/// structured loops to branches, math to LLVM intrinsics (before anything
/// could pick a device-library lowering), memref metadata and affine maps
/// to what the LLVM patterns take.
void addKernelsToLLVMPreparation(OpPassManager &kernels);

/// The kernels' whole way to the LLVM dialects: the preparation above, the
/// vendor's conversion (`toVendorDialects`: pa-convert-kernels-to-rocdl or
/// -nvvm) and the reconciliation of the casts it leaves.
void addKernelsToLLVM(OpPassManager &kernels,
                      std::unique_ptr<Pass> toVendorDialects);

/// Records on `kernel`, before its arguments become LLVM-level ones, what
/// each of those will be (`fieldsAttrName`, an array of names: a memref
/// argument becomes its unpacked descriptor NAME.allocated_ptr,
/// .aligned_ptr, .offset, .size[i], .stride[i]; another keeps its name,
/// kernelArgumentName) and which strides it reads at run time
/// (recordDynamicStrides).
void recordKernelArguments(gpu::GPUFuncOp kernel, StringRef fieldsAttrName);

/// The argument names recordKernelArguments put on `kernel` (lowered or
/// not) as `fieldsAttrName`; none when absent.
SmallVector<std::string> readKernelArguments(Operation *kernel,
                                             StringRef fieldsAttrName);

/// What the compiler knows about a kernel that the target's own metadata
/// (the AMDGPU note, the PTX) does not say: what both targets' metadata
/// writers start from.
struct KernelInterface {
  /// pa.grid's formula; empty when absent.
  std::string grid;
  /// The meanings of its LLVM-level arguments (readKernelArguments).
  SmallVector<std::string> argumentFields;
  /// The kernel, lowered or not: its dynamic strides (KernelStrides.h) and
  /// the target's own attributes.
  Operation *kernel = nullptr;
};

/// The kernels (gpu.func or llvm.func) of gpu.module @pa_kernels by symbol
/// name, their argument meanings read from `fieldsAttrName`.
llvm::StringMap<KernelInterface> collectKernelInterfaces(ModuleOp module,
                                                         StringRef fieldsAttrName);

/// The entry of `kernels` named `name`, or null.
const KernelInterface *
lookupKernelInterface(const llvm::StringMap<KernelInterface> &kernels,
                      StringRef name);

/// A target's parts of the LLVM dialect conversion.
struct DeviceToLLVM {
  /// The vendor dialect that stays legal ("rocdl", "nvvm").
  StringRef dialect;
  /// Type and attribute conversions of the target (address spaces, ...).
  function_ref<void(LLVMTypeConverter &)> configureTypes;
  /// The target's patterns (gpu and vendor ops), after the common ones.
  function_ref<void(LLVMTypeConverter &, RewritePatternSet &)> addPatterns;
  /// The target's in-dialect rewrites, applied with upstream's gpu rewrites
  /// (gpu ops that expand to other gpu ops) before the conversion; none
  /// when null.
  function_ref<void(RewritePatternSet &)> addRewrites = nullptr;
};

/// Applies the in-dialect rewrites (upstream's gpu ones, then
/// `device.addRewrites`) greedily, then converts `kernels` fully to the
/// LLVM dialect and `device.dialect`, with
/// 64-bit indices (window and plan arithmetic reach 2^31 - 1) and
/// `dataLayout` (the backend's, so that memref and index arithmetic agree
/// with it). LLVM's math intrinsics stay legal (the upstream GPU passes
/// route some to device-library calls), which the backends expand.
LogicalResult convertKernelsToLLVM(gpu::GPUModuleOp kernels,
                                   const llvm::DataLayout &dataLayout,
                                   const DeviceToLLVM &device);

/// A device library the target's artifacts do not link.
struct UnlinkedLibrary {
  /// Who does not link it: "no code object links", "the PTX does not link".
  StringRef linker;
  /// The prefixes of the library's function names ("__ocml_", ...).
  ArrayRef<StringRef> prefixes;
  /// Its name in the errors: "ROCm device-library", "libdevice".
  StringRef name;
  /// What to do instead, after a call of one of its functions.
  StringRef advice;
};

/// Reports every function `kernels` (lowered to the LLVM dialect) declares
/// without defining: each would be a call into a library the artifact does
/// not link ("kernels call external function 'F', which LINKER", and
/// "(a NAME function: ADVICE)" for one of `library`'s).
LogicalResult checkNoExternalFunctions(gpu::GPUModuleOp kernels,
                                       const UnlinkedLibrary &library);

/// The kernels of `module` (gpu.module @pa_kernels, lowered to the LLVM and
/// vendor dialects; `registerDeviceTranslation` registers the vendor
/// dialect's translation, `deviceDialectName` names it in the error) as LLVM
/// IR for `machine`, `prepare`d (module flags) and optimized at O3 with
/// `tuning`. Fails with an error when the result declares a function that
/// is no intrinsic ("... calls external functions that LINKER: F, G", and
/// "(NAME functions are not available)" when one is `library`'s).
FailureOr<std::unique_ptr<llvm::Module>> translateKernelsToLLVMIR(
    ModuleOp module, llvm::LLVMContext &llvmContext,
    llvm::TargetMachine &machine,
    function_ref<void(DialectRegistry &)> registerDeviceTranslation,
    StringRef deviceDialectName, const llvm::PipelineTuningOptions &tuning,
    function_ref<void(llvm::Module &)> prepare,
    const UnlinkedLibrary &library);

} // namespace mlir::pa

#endif // PA_TARGET_KERNELSTOLLVM_H
