//===- Pipeline.h - pa ops to the NVVM dialect ------------------*- C++ -*-===//
//
// The NVIDIA half of the pipeline: pa ops -> tiled IR -> pa-to-nvvm ->
// kernels in the LLVM/NVVM dialects, ready for translation to LLVM IR and
// PTX (PTX.h).
//
//===----------------------------------------------------------------------===//
#ifndef PA_TARGET_NVIDIA_PIPELINE_H
#define PA_TARGET_NVIDIA_PIPELINE_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "pa/Conversion/PaToNVVM/PaToNVVM.h"
#include "pa/IR/Chip.h"

#include <memory>

namespace mlir::pa {

/// Registers `pa-convert-kernels-to-nvvm` and the `pa-lower-to-nvvm`
/// pipeline (for pa-opt and pa-compile).
void registerNVIDIAPipelines();

/// `pa-lower-to-nvvm`: pa.plan / pa.decode / pa.reduce to kernels of
/// gpu.module @pa_kernels in the LLVM and NVVM dialects for `chip`
/// (sm_90a). The plan kernel is built on the workgroup's 128 threads
/// (pa-lower-plan-to-threads); pa-to-nvvm distributes the decode kernel
/// over the warps of its workgroup and the reduce kernel over its threads.
/// The host function keeps its gpu.launch_func ops. `warp`: pa-to-nvvm's
/// options.
void buildNVVMPipeline(OpPassManager &pm, llvm::StringRef chip,
                       const WarpOptions &warp = {});

/// `pa-lower-plan-to-threads` (PlanKernel.cpp), `pa-nvvm-launch-grids`
/// (LaunchGrids.cpp), `pa-convert-kernels-to-nvvm` (ConvertToNVVM.cpp):
/// include/pa/Target/NVIDIA/Passes.td.
#define GEN_PASS_DECL
#include "pa/Target/NVIDIA/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "pa/Target/NVIDIA/Passes.h.inc"

/// The NVIDIA chip named `chipName`, or an error at `loc` naming the chips
/// pa-mlir can build PTX for.
FailureOr<ChipInfo> resolveNVIDIAChip(Location loc, llvm::StringRef chipName);

} // namespace mlir::pa

#endif // PA_TARGET_NVIDIA_PIPELINE_H
