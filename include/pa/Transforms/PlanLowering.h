//===- PlanLowering.h - pa.plan to a planning kernel ------------*- C++ -*-===//
//
// What every lowering of pa.plan shares: the plan's constant parameters
// with the chip's defaults filled in, and the rewrite of each pa.plan into
// a launch of a one-workgroup `pa_plan` kernel over (context_lengths,
// work_info, reduce_info) on a 1x1x1 grid. The kernel's body is the
// caller's: pa-lower-plan's sequential workgroup program, or the NVIDIA
// pipeline's plan on 128 threads (pa-lower-plan-to-threads).
//
//===----------------------------------------------------------------------===//
#ifndef PA_TRANSFORMS_PLANLOWERING_H
#define PA_TRANSFORMS_PLANLOWERING_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "pa/Target/Chip.h"

namespace mlir::pa {

/// The constant plan parameters of one pa.plan, defaults filled in.
struct PlanParams {
  int64_t queryLength;
  int64_t window; // <= 0: no window
  int64_t kvHeads;
  int64_t budget;
  int64_t maxPartitions;
};

/// Fills the body of a `pa_plan` kernel (arguments: context_lengths,
/// work_info, reduce_info; workgroup attributions as requested) at `body`.
using PlanKernelBody = llvm::function_ref<void(
    ImplicitLocOpBuilder &body, gpu::GPUFuncOp kernel,
    const PlanParams &params)>;

/// Rewrites every pa.plan of `module` into the launch of a `pa_plan`
/// kernel with `attributions` workgroup buffers whose body `buildBody`
/// fills; returns the kernels (empty when there is no pa.plan).
SmallVector<gpu::GPUFuncOp> lowerPlanOps(ModuleOp module, const ChipInfo &chip,
                                         ArrayRef<MemRefType> attributions,
                                         PlanKernelBody buildBody);

} // namespace mlir::pa

#endif // PA_TRANSFORMS_PLANLOWERING_H
