//===- Pipeline.h - pa ops to the ROCDL dialect -----------------*- C++ -*-===//
//
// The AMD half of the pipeline: pa ops -> tiled IR -> kernels in the
// LLVM/ROCDL dialects, ready for translation to LLVM IR (CodeObject.h).
//
//===----------------------------------------------------------------------===//
#ifndef PA_TARGET_AMD_PIPELINE_H
#define PA_TARGET_AMD_PIPELINE_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "pa/Conversion/MFMAOptions.h"
#include "pa/IR/Chip.h"

#include <memory>

namespace mlir::pa {

/// Registers `pa-convert-kernels-to-rocdl` and the `pa-lower-to-rocdl`
/// pipeline (for pa-opt and pa-compile).
void registerAMDPipelines();

/// `pa-lower-to-rocdl`: pa.plan / pa.decode / pa.reduce to kernels of
/// gpu.module @pa_kernels in the LLVM and ROCDL dialects for `chip` (gfx942
/// or gfx950): decode on 4 waves with MFMA and reduce spread over the lanes
/// (pa-to-mfma), the plan kernel on lane 0 (pa-workgroup-to-lane0). The
/// host function keeps its gpu.launch_func. `mfma` holds pa-to-mfma's
/// options.
void buildROCDLPipeline(OpPassManager &pm, llvm::StringRef chip,
                        const MFMAOptions &mfma = {});

/// `pa-convert-kernels-to-rocdl` (include/pa/Target/AMD/Passes.td).
#define GEN_PASS_DECL
#include "pa/Target/AMD/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "pa/Target/AMD/Passes.h.inc"

/// The AMD chip named `chipName`, or an error at `loc` naming the chips
/// pa-mlir can build code objects for.
FailureOr<ChipInfo> resolveAMDChip(Location loc, llvm::StringRef chipName);

/// Diagnoses fp8 values in `kernels` that `chip` cannot convert natively
/// (the other fp8 flavour). Runs before any upstream fp8 conversion: MLIR 22
/// crashes converting OCP fp8 for gfx942 instead of failing.
LogicalResult checkFp8Flavour(Operation *kernels, const ChipInfo &chip);

} // namespace mlir::pa

#endif // PA_TARGET_AMD_PIPELINE_H
