//===- Passes.h - pa lowering passes ----------------------------*- C++ -*-===//
#ifndef PA_TRANSFORMS_PASSES_H
#define PA_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "pa/IR/Chip.h"

namespace mlir::pa {

#define GEN_PASS_DECL
#include "pa/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "pa/Transforms/Passes.h.inc"

/// Adds pa-set-target: `chip`, or when empty the module's own pa.target,
/// or else `defaultChip`.
void addSetTarget(OpPassManager &pm, llvm::StringRef chip,
                  llvm::StringRef defaultChip = kDefaultChip);

/// pa ops -> tiled IR, the start of every pipeline (host, lane 0, AMD,
/// NVIDIA): pa-set-target (addSetTarget), the plan lowered by `lowerPlan`
/// (pa-lower-plan when null), pa-tile and pa-lower-reduce, then in the
/// kernels pa-stage-page-ids (the chip's bound on staged page ids). Returns
/// the kernels' pass manager (gpu.module @pa_kernels), for the target's
/// lowering of the tiled IR.
OpPassManager &addPaToTiledIR(OpPassManager &pm, llvm::StringRef chip,
                              llvm::StringRef defaultChip = kDefaultChip,
                              std::unique_ptr<Pass> lowerPlan = nullptr);

/// Registers the pa passes and the named pipelines (`pa-lower-to-host`).
void registerPaPassesAndPipelines();

/// The `pa-lower-to-host` pipeline: pa ops to the LLVM dialect for the host
/// (CPU) executor, for kernels generated for `chip`. Public functions get
/// `llvm.emit_c_interface` (callable as `_mlir_ciface_<name>`).
void buildHostPipeline(OpPassManager &pm, llvm::StringRef chip);

/// The `pa-lower-tiled-to-host` pipeline: the host half of the one above,
/// from tiled IR (kernels in gpu.module @pa_kernels) to the LLVM dialect.
void buildTiledToHostPipeline(OpPassManager &pm);

} // namespace mlir::pa

#endif // PA_TRANSFORMS_PASSES_H
