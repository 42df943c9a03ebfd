//===- DistributeParallel.cpp - scf.parallel over the workgroup's lanes ---===//
//
// A workgroup program marks loops whose iterations are independent and touch
// only their own elements with scf.parallel (pa-lower-reduce's loops over
// the head dim). On the GPU lane t of the workgroup takes iterations t,
// t + 256, ...: every such loop of the kernel uses the same assignment, so
// a lane reads back only what it wrote itself and no barrier is needed. The
// rest of the program (per-row scalars) runs redundantly on every lane.
//
//===----------------------------------------------------------------------===//
#include "LaneBuilder.h"
#include "PaToMFMA.h"

using namespace mlir;
using namespace mlir::pa;
using namespace mlir::pa::mfma;

bool mfma::distributeParallelLoops(gpu::GPUFuncOp kernel,
                                   int64_t workgroupSize) {
  SmallVector<scf::ParallelOp> loops;
  kernel.walk([&](scf::ParallelOp loop) {
    // The outermost ones only: their lanes already split the iterations.
    if (loop.getNumLoops() == 1 && loop.getNumReductions() == 0 &&
        !loop->getParentOfType<scf::ParallelOp>())
      loops.push_back(loop);
  });
  if (loops.empty())
    return false;
  ImplicitLocOpBuilder b(kernel.getLoc(), kernel.getContext());
  b.setInsertionPointToStart(&kernel.getBody().front());
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  for (scf::ParallelOp loop : loops) {
    b.setInsertionPoint(loop);
    b.setLoc(loop.getLoc());
    LaneBuilder l(b);
    IndexExpr step = l.idx(loop.getStep()[0]);
    // for (iv = lb + tid * step; iv < ub; iv += 256 * step)
    Value lower = l.idx(loop.getLowerBound()[0]) + l.idx(tid) * step;
    Value stride = step * workgroupSize;
    auto strided = scf::ForOp::create(b, lower, loop.getUpperBound()[0], stride);
    Block *body = loop.getBody();
    // The parallel body's terminator (scf.reduce) has no operands here.
    body->getTerminator()->erase();
    Block *forBody = strided.getBody();
    forBody->getOperations().splice(forBody->begin(), body->getOperations());
    loop.getInductionVars()[0].replaceAllUsesWith(strided.getInductionVar());
    loop.erase();
  }
  return true;
}
