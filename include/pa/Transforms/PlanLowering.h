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

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "pa/IR/Chip.h"
#include "pa/IR/PaOps.h"
#include "pa/Transforms/IntegerArithmetic.h"
#include "pa/Transforms/TileLowering.h"

namespace mlir::pa {

/// The constant plan parameters of one pa.plan, defaults filled in.
struct PlanParams {
  int64_t queryLength;
  int64_t window; // <= 0: no window
  int64_t kvHeads;
  int64_t budget;
  int64_t maxPartitions;
};

/// The plan's arithmetic, in i64 (window bounds reach 2^31, cum * rem is a
/// product of two plan-sized numbers), shared by every planning kernel so
/// that they compute the same bits: the spec's formulas in one place.
class PlanArithmetic : public IntegerArithmetic {
public:
  PlanArithmetic(ImplicitLocOpBuilder &b, const PlanParams &params)
      : IntegerArithmetic(b, b.getLoc()), b(b), params(params) {}

  /// Context length of sequence `sequence` (index) as i64. Negative lengths
  /// are invalid input; they are read as 0 (no tiles, an empty sequence)
  /// rather than producing negative tile ranges.
  Value contextLength(Value contextLengths, Value sequence) {
    Value raw = memref::LoadOp::create(b, contextLengths, ValueRange{sequence});
    return max(toI64(raw), i64(0));
  }

  /// A sequence's tiles: [first, first + count).
  struct TileRange {
    Value first, count;
  };
  /// The spec's tiles of a sequence with context length `length`:
  /// [W > 0 ? max(0, C - (Q-1) - W) / 256 : 0, ceil(C / 256)).
  TileRange tileRange(Value length) {
    Value first;
    if (params.window > 0) {
      Value end = buildVisibleEnd(b, b.getLoc(), length, params.queryLength);
      first = div(buildVisibleBegin(b, b.getLoc(), end, params.window,
                                    /*clamp=*/true),
                  i64(kTileTokens));
    } else {
      first = i64(0);
    }
    Value end = div(add(length, i64(kTileTokens - 1)), i64(kTileTokens));
    return {first, max(sub(end, first), i64(0))};
  }

  /// The spec's capacity (DecodeConfig::planCapacity):
  /// min(B * max_partitions, max(B, ceil(budget / Hkv))).
  Value capacity(Value batch) {
    Value perHead = div(add(i64(params.budget), i64(params.kvHeads - 1)),
                        i64(params.kvHeads));
    return min(mul(batch, i64(params.maxPartitions)), max(batch, perHead));
  }

protected:
  ImplicitLocOpBuilder &b;
  const PlanParams &params;
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
