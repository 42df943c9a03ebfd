//===- Passes.td - AMD code-generation passes ---------------*- tablegen -*-===//
#ifndef PA_TARGET_AMD_PASSES_TD
#define PA_TARGET_AMD_PASSES_TD

include "mlir/Pass/PassBase.td"

def PaConvertKernelsToROCDL
    : Pass<"pa-convert-kernels-to-rocdl", "::mlir::gpu::GPUModuleOp"> {
  let summary = "convert kernels (gpu/arith/cf/memref/vector/amdgpu) to the "
                "LLVM and ROCDL dialects without ROCm device-library calls";
  let description = [{
    The dialect conversion of a gpu.module whose kernels are loops over
    memrefs (gpu, arith, cf, memref, vector, amdgpu ops and LLVM math
    intrinsics) to LLVM + ROCDL for the module's `pa.target` AMD chip
    (gfx942, gfx950), without any call into the ROCm device libraries. fp8
    values of the other flavour than the chip's and workgroup memory beyond
    its LDS are diagnosed first.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::ROCDL::ROCDLDialect",
                           "::mlir::amdgpu::AMDGPUDialect",
                           "::mlir::vector::VectorDialect"];
}

#endif // PA_TARGET_AMD_PASSES_TD
