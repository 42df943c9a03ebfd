//===- WorkgroupToLane0.cpp - workgroup programs on lane 0 ----------------===//
//
// The correctness-only baseline of the AMD path: a kernel of the tiled IR is
// a sequential workgroup program, so running it on lane 0 of the workgroup
// (the other lanes skip it) computes exactly what the host executor does.
// pa-to-mfma replaces this for the decode kernel with a lane-distributed
// MFMA body; kernels that already use thread ids are left alone.
//
//===----------------------------------------------------------------------===//
#include "pa/Transforms/Passes.h"

namespace mlir::pa {
#define GEN_PASS_DEF_PAWORKGROUPTOLANE0
#include "pa/Transforms/Passes.h.inc"
} // namespace mlir::pa

using namespace mlir;

namespace {

/// True when `kernel` already distributes work over lanes (a backend such as
/// pa-to-mfma rewrote it): wrapping it would lose the other lanes' work.
bool isLaneDistributed(gpu::GPUFuncOp kernel) {
  return kernel.getBody()
      .walk([](Operation *op) {
        return isa<gpu::ThreadIdOp, gpu::LaneIdOp, gpu::SubgroupIdOp>(op)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

struct PaWorkgroupToLane0Pass
    : pa::impl::PaWorkgroupToLane0Base<PaWorkgroupToLane0Pass> {
  using Base::Base;

  void runOnOperation() override {
    for (auto kernel : getOperation().getOps<gpu::GPUFuncOp>()) {
      if (!kernel.isKernel() || isLaneDistributed(kernel))
        continue;
      if (failed(wrapInLane0(kernel)))
        return signalPassFailure();
    }
  }

  static LogicalResult wrapInLane0(gpu::GPUFuncOp kernel) {
    if (!kernel.getBody().hasOneBlock())
      return kernel.emitOpError()
             << "expected a structured body (one block) to run on lane 0";
    // One lane inside a conditional cannot take part in a workgroup barrier.
    WalkResult barrier = kernel.getBody().walk([](gpu::BarrierOp op) {
      op.emitOpError() << "a workgroup program run on lane 0 must not "
                          "contain workgroup barriers";
      return WalkResult::interrupt();
    });
    if (barrier.wasInterrupted())
      return failure();

    Block &body = kernel.getBody().front();
    Operation *terminator = body.getTerminator();
    Location loc = kernel.getLoc();
    OpBuilder b = OpBuilder::atBlockBegin(&body);
    Value lane = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value isLane0 =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, zero);
    auto ifLane0 = scf::IfOp::create(b, loc, isLane0, /*withElseRegion=*/false);
    Block &thenBlock = ifLane0.getThenRegion().front();
    thenBlock.getOperations().splice(
        thenBlock.getTerminator()->getIterator(), body.getOperations(),
        std::next(ifLane0->getIterator()), terminator->getIterator());
    return success();
  }
};
} // namespace
