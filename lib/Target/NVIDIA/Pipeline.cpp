//===- Pipeline.cpp - the pa-lower-to-nvvm pipeline -----------------------===//
#include "pa/Target/NVIDIA/Pipeline.h"
#include "NVIDIATarget.h"
#include "pa/Target/Pipelines.h"

using namespace mlir;
using namespace mlir::pa;

namespace {
struct NVVMPipelineOptions : ChipPipelineOptions<NVVMPipelineOptions> {
  static constexpr llvm::StringLiteral kChipHelp =
      "NVIDIA chip the kernels are built for (sm_90a); it fixes the plan "
      "budget, fp8 flavour and ISA. Default: the module's pa.target, else "
      "sm_90a";
};
} // namespace

void mlir::pa::buildNVVMPipeline(OpPassManager &pm, StringRef chip,
                                 const WarpOptions &warp) {
  // pa ops -> tiled IR (the same passes as the host and AMD paths, but the
  // plan kernel on 128 threads instead of a sequential program).
  addPaToTiledIR(pm, chip, kDefaultNVIDIAChip, createPaLowerPlanToThreads());
  // A sequence of one partition: its output from the decode, not the
  // reduce (the decode kernel gets the reduce's output operands).
  pm.addPass(createPaNVVMSinglePartitionOutput());
  pm.addNestedPass<gpu::GPUModuleOp>(
      createPaToNVVM({/*fp8Products=*/warp.e4m3Products ? "e4m3" : "f16",
                      /*keyAhead=*/warp.keyAheadBlocks,
                      /*keyAheadInRegisters=*/warp.keyAheadInRegisters,
                      /*keyAheadBulk=*/warp.keyAheadBulk,
                      /*valueStage=*/warp.valueStageBlocks,
                      /*valueAhead=*/warp.valueAheadBlocks,
                      /*l2Prefetch=*/warp.l2Prefetch,
                      /*l2PrefetchMinTiles=*/warp.l2PrefetchMinTiles}));
  // The grids pa-to-nvvm's kernels ask for (the reduce's row slices on z).
  pm.addPass(createPaNVVMLaunchGrids());
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());

  // math.exp2 to llvm.intr.exp2 before anything could pick the libdevice
  // (__nv_exp2f) lowering; arith ops without an LLVM lowering are expanded
  // in the conversion (ConvertToNVVM.cpp).
  addKernelsToLLVM(kernels, createPaConvertKernelsToNVVM());
  kernels.addPass(createCanonicalizerPass());
}

void mlir::pa::registerNVIDIAPipelines() {
  registerPaTargetNVIDIAPasses();
  PassPipelineRegistration<NVVMPipelineOptions>(
      "pa-lower-to-nvvm",
      "lower pa ops to kernels of gpu.module @pa_kernels in the LLVM/NVVM "
      "dialects for an NVIDIA chip (pa-to-nvvm distributes them over the "
      "threads of 128-thread workgroups)",
      [](OpPassManager &pm, const NVVMPipelineOptions &options) {
        buildNVVMPipeline(pm, options.chip);
      });
}
