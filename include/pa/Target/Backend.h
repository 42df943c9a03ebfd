//===- Backend.h - a vendor's compile, stage by stage -----------*- C++ -*-===//
//
// AMD and NVIDIA compile in the same three stages, each a function of the
// vendor's options; a Backend names them, so that what drives a compile
// (pa-compile, the compile API, the C API, the fuzzer) is written once for
// both vendors:
//
//   lower      pa ops -> gpu.module @pa_kernels in LLVM and ROCDL / NVVM
//   translate  that gpu.module -> an O3-optimized llvm::Module
//   emit       llvm::Module -> KernelImage (binary, assembly, metadata)
//
// The vendors' backends: amdBackend() (AMD/CodeObject.h), nvidiaBackend()
// (NVIDIA/PTX.h).
//
//===----------------------------------------------------------------------===//
#ifndef PA_TARGET_BACKEND_H
#define PA_TARGET_BACKEND_H

#include "pa/Target/LLVMSupport.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <optional>
#include <string>

namespace mlir::pa {

/// What a backend's emit stage produces.
struct KernelImage {
  /// The linked binary: the AMDHSA code object (.hsaco; AMD, always) or the
  /// cubin ptxas assembled (NVIDIA, with emitCubin; else empty).
  std::string binary;
  /// The assembly: AMDGPU assembly (AMD, with keepIsa: one more code
  /// generation; else empty) or the PTX text (NVIDIA, always: what the CUDA
  /// driver JIT-compiles at module load).
  std::string assembly;
  /// Per-kernel metadata JSON: target, kernels in launch order with symbol,
  /// grid formula, workgroup size, argument layout and resource figures.
  std::string metadataJson;
};

/// One vendor's compile: its stages as functions of its options (the
/// vendor's parts), and the drivers that run them (the shared parts).
template <typename Options> struct Backend {
  /// LLVM's backend for the vendor's chips.
  const LLVMBackend &llvmBackend;
  /// Checks the options (a chip of this vendor, ...); errors at `loc`.
  LogicalResult (*verify)(Location loc, const Options &options);
  /// Adds the vendor's pa-lower-to-* pipeline for the options' chip.
  void (*buildPipeline)(OpPassManager &pm, const Options &options);
  /// The vendor's part of translate: LLVM IR for `machine`, optimized.
  FailureOr<std::unique_ptr<llvm::Module>> (*toLLVM)(
      ModuleOp module, const Options &options, llvm::TargetMachine &machine,
      llvm::LLVMContext &llvmContext);
  /// The vendor's part of emit: code generation for `machine`, the metadata.
  FailureOr<KernelImage> (*toImage)(ModuleOp module, llvm::Module &llvmModule,
                                    const Options &options,
                                    llvm::TargetMachine &machine);

  /// Translates the module's gpu.module @pa_kernels (already lowered) to LLVM
  /// IR for the vendor's triple and the chip, optimized at O3. Errors when
  /// the result calls external functions (the vendor's device libraries:
  /// ROCm's __ocml_* / __ockl_*, CUDA's libdevice __nv_*).
  FailureOr<std::unique_ptr<llvm::Module>>
  translate(ModuleOp module, const Options &options,
            llvm::LLVMContext &llvmContext) const {
    if (failed(verify(module.getLoc(), options)))
      return failure();
    FailureOr<std::unique_ptr<llvm::TargetMachine>> machine =
        targetMachine(module.getLoc(), options);
    if (failed(machine))
      return failure();
    return toLLVM(module, options, **machine, llvmContext);
  }

  /// Code generation of `llvmModule` and the metadata; the kernels' argument
  /// meanings, grids and launch order come from the lowered `module`.
  FailureOr<KernelImage> emit(ModuleOp module, llvm::Module &llvmModule,
                              const Options &options) const {
    FailureOr<std::unique_ptr<llvm::TargetMachine>> machine =
        targetMachine(module.getLoc(), options);
    if (failed(machine))
      return failure();
    return toImage(module, llvmModule, options, **machine);
  }

  /// Verifies the options and runs the pipeline on `module`, in place;
  /// `instrument` may add instrumentations to its pass manager first (the
  /// compile API's stage recorder).
  LogicalResult
  lower(ModuleOp module, const Options &options,
        llvm::function_ref<void(PassManager &)> instrument = {}) const {
    if (failed(verify(module.getLoc(), options)))
      return failure();
    PassManager pm(module.getContext());
    buildPipeline(pm, options);
    if (instrument)
      instrument(pm);
    return pm.run(module);
  }

  /// pa ops in `module` (modified in place) through the three stages; on
  /// failure nullopt with every diagnostic in `error` (for the C API).
  std::optional<KernelImage> compile(ModuleOp module, const Options &options,
                                     std::string &error) const {
    DiagnosticText collect(module.getContext(), error);
    if (failed(lower(module, options)))
      return std::nullopt;
    llvm::LLVMContext llvmContext;
    FailureOr<std::unique_ptr<llvm::Module>> llvmModule =
        translate(module, options, llvmContext);
    if (failed(llvmModule))
      return std::nullopt;
    FailureOr<KernelImage> image = emit(module, **llvmModule, options);
    if (failed(image))
      return std::nullopt;
    return std::move(*image);
  }

private:
  FailureOr<std::unique_ptr<llvm::TargetMachine>>
  targetMachine(Location loc, const Options &options) const {
    std::string error;
    std::unique_ptr<llvm::TargetMachine> machine =
        createTargetMachine(llvmBackend, options.chip, error);
    if (!machine)
      return emitError(loc) << error;
    return machine;
  }
};

} // namespace mlir::pa

#endif // PA_TARGET_BACKEND_H
