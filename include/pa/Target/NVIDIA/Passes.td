//===- Passes.td - NVIDIA code-generation passes ------------*- tablegen -*-===//
#ifndef PA_TARGET_NVIDIA_PASSES_TD
#define PA_TARGET_NVIDIA_PASSES_TD

include "mlir/Pass/PassBase.td"

def PaLowerPlanToThreads : Pass<"pa-lower-plan-to-threads", "ModuleOp"> {
  let summary = "lower pa.plan to a planning kernel that runs on the 128 "
                "threads of one NVIDIA workgroup (the work plan of "
                "pa-lower-plan)";
  let description = [{
    The plan of `pa-lower-plan` (the same arithmetic, PlanLowering.h) as a
    kernel whose 128 threads scan the context lengths in shared memory and
    write the `work_info` rows in parallel; for the module's `pa.target`
    NVIDIA chip. pa-to-nvvm leaves the kernel as it is.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def PaNVVMLaunchGrids : Pass<"pa-nvvm-launch-grids", "ModuleOp"> {
  let summary = "apply the grid z that pa-to-nvvm kernels ask for "
                "(pa.nvvm.grid_z) to their gpu.launch_func ops and pa.grid";
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect"];
}

def PaConvertKernelsToNVVM
    : Pass<"pa-convert-kernels-to-nvvm", "::mlir::gpu::GPUModuleOp"> {
  let summary = "convert kernels (gpu/arith/cf/memref/vector/nvvm) to the "
                "LLVM and NVVM dialects without libdevice calls; workgroup "
                "buffers become dynamic shared memory";
  let description = [{
    For the module's `pa.target` NVIDIA chip (sm_90a): kernels using gpu,
    arith, cf, memref, vector and nvvm ops and LLVM math intrinsics become
    LLVM + NVVM with no libdevice (`__nv_*`) calls. Workgroup buffers become
    views of the kernel's dynamic shared memory (static .shared is capped at
    48 KiB); more than the chip has per block is diagnosed.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // PA_TARGET_NVIDIA_PASSES_TD
