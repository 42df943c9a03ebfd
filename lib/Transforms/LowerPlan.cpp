//===- LowerPlan.cpp - pa.plan to a one-workgroup planning kernel ---------===//
//
// The kernel computes the spec's work plan ("The work plan") from the context
// lengths alone, so a captured graph can replay it with new lengths. It is a
// sequential workgroup program on a 1x1x1 grid:
//   1. zero all of work_info (every row of the buffer, so unused slots are 0);
//   2. pass over the sequences: total tiles and non-empty sequences;
//   3. capacity and the slots left after one per non-empty sequence;
//   4. pass over the sequences: prefix-sum apportioning, reduce_info[b] and
//      the work_info rows of the sequence's partitions.
// All arithmetic is i64: window bounds reach 2^31 and cum * rem is a product
// of two plan-sized numbers.
//
//===----------------------------------------------------------------------===//
#include "pa/IR/DiscardableAttributes.h"
#include "pa/IR/PaOps.h"
#include "pa/Transforms/KernelBuilder.h"
#include "pa/Transforms/Passes.h"
#include "pa/Transforms/PlanLowering.h"

#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::pa {
#define GEN_PASS_DEF_PALOWERPLAN
#include "pa/Transforms/Passes.h.inc"
} // namespace mlir::pa

using namespace mlir;
using namespace mlir::pa;

namespace {

/// Builds the body of the planning kernel; `args` are (context_lengths,
/// work_info, reduce_info) and the builder is inside the kernel.
void buildPlanBody(ImplicitLocOpBuilder &b, ValueRange args,
                   const PlanParams &params) {
  Value contextLengths = args[0], workInfo = args[1], reduceInfo = args[2];
  PlanArithmetic e(b, params);
  Value c0 = arith::ConstantIndexOp::create(b, 0);
  Value c1 = arith::ConstantIndexOp::create(b, 1);
  Value batch = memref::DimOp::create(b, contextLengths, 0);
  Value workRows = memref::DimOp::create(b, workInfo, 0);

  // 1. Zero the whole work_info buffer: unused slots must read all zero.
  Value zeroI32 = arith::ConstantIntOp::create(b, b.getI32Type(), 0);
  scf::ForOp::create(
      b, c0, workRows, c1, ValueRange{},
      [&](OpBuilder &nested, Location loc, Value slot, ValueRange) {
        ImplicitLocOpBuilder nb(loc, nested);
        for (int64_t field = 0; field < 4; ++field)
          memref::StoreOp::create(
              nb, zeroI32, workInfo,
              ValueRange{slot, arith::ConstantIndexOp::create(nb, field)});
        scf::YieldOp::create(nb);
      });

  // 2. Total tiles and non-empty sequences.
  auto totals = scf::ForOp::create(
      b, c0, batch, c1, ValueRange{e.i64(0), e.i64(0)},
      [&](OpBuilder &nested, Location loc, Value sequence, ValueRange acc) {
        ImplicitLocOpBuilder nb(loc, nested);
        PlanArithmetic ne(nb, params);
        Value tiles =
            ne.tileRange(ne.contextLength(contextLengths, sequence)).count;
        Value nonEmpty = arith::ExtUIOp::create(
            nb, nb.getI64Type(),
            arith::CmpIOp::create(nb, arith::CmpIPredicate::sgt, tiles,
                                  ne.i64(0)));
        scf::YieldOp::create(
            nb, ValueRange{ne.add(acc[0], tiles), ne.add(acc[1], nonEmpty)});
      });
  Value totalTiles = totals.getResult(0);
  Value nonEmptyCount = totals.getResult(1);

  // 3. Capacity >= B >= non-empty sequences, so rem >= 0.
  Value capacity = e.capacity(e.toI64(batch));
  Value remaining = e.sub(capacity, nonEmptyCount);
  Value denominator = e.max(totalTiles, e.i64(1));
  Value maxPartitions = e.i64(params.maxPartitions);

  // 4. Apportioning. cum * rem is exact in i64 while (sum of tiles) * rem <
  // 2^63: tiles per sequence are < 2^23 (i32 lengths) and rem < capacity.
  Value workRowsI64 = e.toI64(workRows);
  scf::ForOp::create(
      b, c0, batch, c1, ValueRange{e.i64(0), e.i64(0)},
      [&](OpBuilder &nested, Location loc, Value sequence, ValueRange acc) {
        ImplicitLocOpBuilder nb(loc, nested);
        PlanArithmetic ne(nb, params);
        Value cumBefore = acc[0], nextSlot = acc[1];
        Value length = ne.contextLength(contextLengths, sequence);
        PlanArithmetic::TileRange range = ne.tileRange(length);
        Value first = range.first, tiles = range.count;
        Value cum = ne.add(cumBefore, tiles);
        Value extra = ne.sub(ne.div(ne.mul(cum, remaining), denominator),
                             ne.div(ne.mul(cumBefore, remaining), denominator));
        // An empty sequence gets min(.., 0, ..) = 0 partitions.
        Value count =
            ne.min(ne.min(ne.add(extra, ne.i64(1)), tiles), maxPartitions);

        // Partition k covers [first + k*n/c, first + (k+1)*n/c). Slots past
        // the end of a too-small work_info buffer (the verifier rejects the
        // ones it can see) are skipped instead of written out of bounds, and
        // reduce_info counts only the slots written, so that the reducer
        // stays inside the partial buffers too.
        Value storable =
            ne.max(ne.min(count, ne.sub(workRowsI64, nextSlot)), ne.i64(0));
        Value c0n = arith::ConstantIndexOp::create(nb, 0);
        Value c1n = arith::ConstantIndexOp::create(nb, 1);
        memref::StoreOp::create(nb, ne.toI32(nextSlot), reduceInfo,
                                ValueRange{sequence, c0n});
        memref::StoreOp::create(nb, ne.toI32(storable), reduceInfo,
                                ValueRange{sequence, c1n});
        Value sequenceI32 = ne.toI32(ne.toI64(sequence));
        Value lengthI32 = ne.toI32(length);
        scf::ForOp::create(
            nb, c0n, ne.toIndex(storable), c1n, ValueRange{},
            [&](OpBuilder &inner, Location innerLoc, Value part, ValueRange) {
              ImplicitLocOpBuilder ib(innerLoc, inner);
              PlanArithmetic ie(ib, params);
              Value k = ie.toI64(part);
              Value begin = ie.add(first, ie.div(ie.mul(k, tiles), count));
              Value end = ie.add(
                  first, ie.div(ie.mul(ie.add(k, ie.i64(1)), tiles), count));
              Value slot = ie.toIndex(ie.add(nextSlot, k));
              Value row[4] = {sequenceI32, ie.toI32(begin), ie.toI32(end),
                              lengthI32};
              for (int64_t field = 0; field < 4; ++field)
                memref::StoreOp::create(
                    ib, row[field], workInfo,
                    ValueRange{slot,
                               arith::ConstantIndexOp::create(ib, field)});
              scf::YieldOp::create(ib);
            });
        scf::YieldOp::create(nb, ValueRange{cum, ne.add(nextSlot, count)});
      });
}

struct PaLowerPlanPass : pa::impl::PaLowerPlanBase<PaLowerPlanPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkPaOpsInTopLevelModule(module)))
      return signalPassFailure();
    if (!module.walk([](PlanOp) { return WalkResult::interrupt(); })
             .wasInterrupted())
      return;
    FailureOr<ChipInfo> chip = getTargetChip(module, getArgument());
    if (failed(chip))
      return signalPassFailure();

    lowerPlanOps(module, *chip, /*attributions=*/{},
                 [](ImplicitLocOpBuilder &body, gpu::GPUFuncOp kernel,
                    const PlanParams &params) {
                   buildPlanBody(body, kernel.getArguments(), params);
                 });
  }
};
} // namespace

SmallVector<gpu::GPUFuncOp>
mlir::pa::lowerPlanOps(ModuleOp module, const ChipInfo &chip,
                       ArrayRef<MemRefType> attributions,
                       PlanKernelBody buildBody) {
  SmallVector<PlanOp> plans;
  module.walk([&](PlanOp op) { plans.push_back(op); });
  SmallVector<gpu::GPUFuncOp> result;
  if (plans.empty())
    return result;
  gpu::GPUModuleOp kernels = getOrCreateKernelModule(module);
  OpBuilder builder(module.getContext());
  for (PlanOp op : plans) {
    PlanParams params{op.getQueryLength(), op.getSlidingWindow(),
                      op.getNumKvHeads(),
                      op.getBudget().value_or(2 * chip.computeUnits),
                      op.getMaxPartitions().value_or(chip.computeUnits)};
    SmallVector<Value> operands = {op.getContextLengths(), op.getWorkInfo(),
                                   op.getReduceInfo()};
    gpu::GPUFuncOp kernel = createKernel(builder, kernels, "pa_plan",
                                         operands, attributions, chip);
    kernel->setAttr(kPlanLimitsAttrName,
                    builder.getDenseI64ArrayAttr(
                        {params.budget, params.maxPartitions, params.kvHeads}));
    ImplicitLocOpBuilder body(op.getLoc(), builder);
    buildBody(body, kernel, params);

    builder.setInsertionPoint(op);
    Value one = arith::ConstantIndexOp::create(builder, op.getLoc(), 1);
    replaceWithLaunch(builder, op, kernel, {one, one, one}, operands, chip);
    result.push_back(kernel);
  }
  return result;
}
