//===- Pipelines.cpp - pass registration and named pipelines --------------===//
#include "pa/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::pa {
#define GEN_PASS_DEF_PAREQUESTCINTERFACE
#include "pa/Transforms/Passes.h.inc"
} // namespace mlir::pa

using namespace mlir;

namespace {

/// pa-request-c-interface (Passes.td).
struct RequestCInterfacePass
    : pa::impl::PaRequestCInterfaceBase<RequestCInterfacePass> {
  using Base::Base;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal())
        func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                      UnitAttr::get(&getContext()));
  }
};

struct HostPipelineOptions : PassPipelineOptions<HostPipelineOptions> {
  Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("chip the kernels are generated for (gfx942, gfx950, "
                     "sm_90a); it fixes the plan budget and fp8 flavour. "
                     "Default: the module's pa.target, else gfx950")};
};

/// pa ops -> tiled IR: kernels (workgroup programs) in gpu.module
/// @pa_kernels, their bodies lowered to loops.
void addTiledIRLowering(OpPassManager &pm, StringRef chip) {
  pa::addPaToTiledIR(pm, chip).addPass(pa::createPaLowerTileToLoops());
}

/// Tiled IR -> LLVM dialect for the CPU: workgroups run in loops, small
/// float casts become bit operations, then the standard lowering.
void addHostExecutionLowering(OpPassManager &pm) {
  pm.addPass(pa::createPaGpuToHost());
  pm.addPass(pa::createPaExpandFloatCasts());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(createConvertVectorToSCFPass());
  pm.addPass(createLowerAffinePass());
  // Also lowers scf.parallel (to scf.for first).
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createConvertMathToLLVMPass());
  // Math ops without an LLVM intrinsic become libm calls.
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  // expand-strided-metadata creates affine.apply.
  pm.addPass(createLowerAffinePass());
  pm.addPass(arith::createArithExpandOpsPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

} // namespace

void mlir::pa::addSetTarget(OpPassManager &pm, StringRef chip,
                            StringRef defaultChip) {
  pm.addPass(pa::createPaSetTarget({chip.str(), defaultChip.str()}));
}

OpPassManager &mlir::pa::addPaToTiledIR(OpPassManager &pm, StringRef chip,
                                        StringRef defaultChip,
                                        std::unique_ptr<Pass> lowerPlan) {
  addSetTarget(pm, chip, defaultChip);
  pm.addPass(lowerPlan ? std::move(lowerPlan) : pa::createPaLowerPlan());
  pm.addPass(pa::createPaTile());
  pm.addPass(pa::createPaLowerReduce());
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(pa::createPaStagePageIds());
  return kernels;
}

void mlir::pa::buildHostPipeline(OpPassManager &pm, StringRef chip) {
  pm.addPass(pa::createPaRequestCInterface());
  addTiledIRLowering(pm, chip);
  addHostExecutionLowering(pm);
}

void mlir::pa::buildTiledToHostPipeline(OpPassManager &pm) {
  pm.addPass(pa::createPaRequestCInterface());
  addHostExecutionLowering(pm);
}

void mlir::pa::registerPaPassesAndPipelines() {
  registerPaTransformsPasses();
  PassPipelineRegistration<HostPipelineOptions>(
      "pa-lower-to-host",
      "lower pa ops to the LLVM dialect for the host (CPU) executor; public "
      "functions get C interfaces for the ExecutionEngine",
      [](OpPassManager &pm, const HostPipelineOptions &options) {
        buildHostPipeline(pm, options.chip);
      });
  PassPipelineRegistration<>(
      "pa-lower-tiled-to-host",
      "the host half of pa-lower-to-host: tiled IR (kernels in gpu.module "
      "@pa_kernels) to the LLVM dialect",
      buildTiledToHostPipeline);
}
