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

using namespace mlir;

namespace {

/// Marks every public func.func definition `llvm.emit_c_interface`, so that
/// an ExecutionEngine can call the entry points as `_mlir_ciface_<name>`
/// with memref descriptors. Runs before the kernels become (private) host
/// functions, so only the functions the user wrote are marked.
struct RequestCInterfacePass
    : PassWrapper<RequestCInterfacePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(RequestCInterfacePass)

  StringRef getArgument() const override { return "pa-request-c-interface"; }
  StringRef getDescription() const override {
    return "mark public func.func definitions llvm.emit_c_interface";
  }
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
                     "sm_90a); it fixes the plan budget and fp8 flavour"),
      llvm::cl::init("gfx950")};
};

/// pa ops -> tiled IR: kernels (workgroup programs) in gpu.module
/// @pa_kernels, their bodies lowered to loops.
void addTiledIRLowering(OpPassManager &pm, StringRef chip) {
  pm.addPass(pa::createPaLowerPlan({chip.str()}));
  pm.addPass(pa::createPaTile({chip.str()}));
  pm.addPass(pa::createPaLowerReduce({chip.str()}));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(pa::createPaStagePageIds());
  kernels.addPass(pa::createPaLowerTileToLoops());
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

void mlir::pa::buildHostPipeline(OpPassManager &pm, StringRef chip) {
  pm.addPass(std::make_unique<RequestCInterfacePass>());
  addTiledIRLowering(pm, chip);
  addHostExecutionLowering(pm);
}

void mlir::pa::buildTiledToHostPipeline(OpPassManager &pm) {
  pm.addPass(std::make_unique<RequestCInterfacePass>());
  addHostExecutionLowering(pm);
}

void mlir::pa::registerPaPassesAndPipelines() {
  registerPaTransformsPasses();
  PassRegistration<RequestCInterfacePass>();
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
