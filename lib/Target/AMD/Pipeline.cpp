//===- Pipeline.cpp - the pa-lower-to-rocdl pipeline ----------------------===//
#include "pa/Target/AMD/Pipeline.h"
#include "AMDTarget.h"
#include "pa/Target/Pipelines.h"

using namespace mlir;
using namespace mlir::pa;

namespace {
struct ROCDLPipelineOptions : ChipPipelineOptions<ROCDLPipelineOptions> {
  static constexpr llvm::StringLiteral kChipHelp =
      "AMD chip the kernels are built for (gfx942, gfx950); it fixes the "
      "plan budget, fp8 flavour and ISA. Default: the module's pa.target, "
      "else gfx950";
  Option<Fp8Residual> fp8Residual{
      *this, "fp8-residual",
      llvm::cl::desc("fp8 products whose operand's fp8 residual is "
                     "multiplied too (pa-to-mfma): none, p, query-and-p"),
      llvm::cl::init(kDefaultFp8Residual), fp8ResidualValues()};
  Option<CacheOffsets> cacheOffsets{
      *this, "cache-offsets",
      llvm::cl::desc("how the decode kernel addresses K, V and per-token "
                     "scales (pa-to-mfma): auto, 64"),
      llvm::cl::init(CacheOffsets::automatic), cacheOffsetsValues()};
  Option<KeyPrefetch> keyPrefetch{
      *this, "key-prefetch",
      llvm::cl::desc("whether the decode loop loads the next tile's K "
                     "during the current tile (pa-to-mfma): auto, none, "
                     "next-tile"),
      llvm::cl::init(KeyPrefetch::automatic), keyPrefetchValues()};
};
} // namespace

void mlir::pa::buildROCDLPipeline(OpPassManager &pm, StringRef chip,
                                  const MFMAOptions &mfma) {
  // pa ops -> tiled IR (the same passes as the host path).
  OpPassManager &kernels = addPaToTiledIR(pm, chip);
  // arith ops without an LLVM lowering (ceil/floor division, ...) expanded
  // in the tiled IR, before pa-to-mfma: its float maxima must stay
  // llvm.maxnum (one v_max_f32), not become compare-and-select chains.
  kernels.addPass(arith::createArithExpandOpsPass());
  // Decode on 4 waves with MFMA, with the lane mapping stated in the IR
  // (#pa.mfma_layout), reduce spread over the lanes; the plan kernel
  // (tiny, no lane code) runs its workgroup program on lane 0.
  kernels.addPass(createPaMFMALayout());
  kernels.addPass(createPaToMFMA(
      {mfma.fp8Residual, mfma.cacheOffsets, mfma.keyPrefetch}));
  kernels.addPass(createPaWorkgroupToLane0());
  // CSE first: the lane code repeats its constants and index math
  // thousands of times, and the canonicalizer is twice as fast on the
  // deduplicated IR (same code objects).
  kernels.addPass(createCSEPass());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());

  // math.exp2 to llvm.intr.exp2 there, before anything could pick the
  // device-library (__ocml_*) lowering.
  addKernelsToLLVM(kernels, createPaConvertKernelsToROCDL());
}

void mlir::pa::registerAMDPipelines() {
  registerPaTargetAMDPasses();
  PassPipelineRegistration<ROCDLPipelineOptions>(
      "pa-lower-to-rocdl",
      "lower pa ops to kernels of gpu.module @pa_kernels in the LLVM/ROCDL "
      "dialects for an AMD chip (decode with MFMA on 4 waves, reduce spread "
      "over the lanes, plan on lane 0)",
      [](OpPassManager &pm, const ROCDLPipelineOptions &options) {
        buildROCDLPipeline(pm, options.chip, mfmaOptionsOf(options));
      });
}
