//===- ROCDL.cpp - rocdl intrinsics: cross-lane reads, barriers -----------===//
#include "Dialects.h"

#include "../Executor.h"

#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

using namespace mlir;
using namespace mlir::pa::emulator::detail;

namespace {

/// ds_bpermute: the value (b) of the lane whose byte address is a.
Step executeBpermute(Executor &ex, Wave &wave, const Instr &in) {
  int lane = firstFailingLane(wave, [&](int, uint64_t *f) {
    int from = int(uint32_t(f[in.a]) >> 2) & (kLanes - 1);
    if (!(wave.exec >> from & 1))
      return false;
    f[in.dst] = wave.frame(from)[in.b];
    return true;
  });
  if (lane >= 0)
    return ex.fail(&wave, in, lane,
                   "ds_bpermute reads a lane that is "
                   "not active");
  return Step::Next;
}

Step executeReadFirstLane(Executor &, Wave &wave, const Instr &in) {
  int first = llvm::countr_zero(wave.exec);
  const uint64_t *source = wave.frame(first);
  forLanes(wave, [&](int, uint64_t *f) {
    for (uint32_t e = 0; e < in.count; ++e)
      f[in.dst + e] = source[in.a + e];
  });
  return Step::Next;
}

/// The value (a) of lane b.
Step executeReadLane(Executor &, Wave &wave, const Instr &in) {
  forLanes(wave, [&](int, uint64_t *f) {
    const uint64_t *source = wave.frame(int(f[in.b] & (kLanes - 1)));
    for (uint32_t e = 0; e < in.count; ++e)
      f[in.dst + e] = source[in.a + e];
  });
  return Step::Next;
}

/// mbcnt_lo / mbcnt_hi (`mode`): set bits of mask a below the lane (in
/// the low / high half), plus b.
Step executeMbcnt(Executor &, Wave &wave, const Instr &in) {
  const bool high = in.mode;
  forLanes(wave, [&](int lane, uint64_t *f) {
    uint64_t below = lane >= 64 ? kAllLanes : (uint64_t(1) << lane) - 1;
    uint32_t part = high ? uint32_t(below >> 32) : uint32_t(below);
    f[in.dst] =
        uint32_t(llvm::popcount(uint32_t(f[in.a]) & part) + uint32_t(f[in.b]));
  });
  return Step::Next;
}

/// The wave's active lanes whose predicate (a) is true, as a bit mask.
Step executeBallot(Executor &, Wave &wave, const Instr &in) {
  uint64_t lanes = 0;
  forLanes(wave, [&](int lane, uint64_t *f) {
    if (f[in.a] & 1)
      lanes |= uint64_t(1) << lane;
  });
  forLanes(wave, [&](int, uint64_t *f) { f[in.dst] = lanes; });
  return Step::Next;
}

/// rocdl.ballot: a wave64's mask is an i64 (an i32 would drop lanes).
LogicalResult compileBallot(OpCompiler &c, Operation *operation) {
  auto op = cast<ROCDL::BallotOp>(operation);
  if (!op.getType().isInteger(64))
    return c.fail(op, "rocdl.ballot of a 64-lane wave must return i64");
  if (failed(c.kernelOnly(op)))
    return failure();
  return failure(failed(c.emitResult(op, executeBallot, op->getOperands())));
}

template <ExecuteFn Execute, uint8_t Mode = 0>
LogicalResult compileLaneOp(OpCompiler &c, Operation *op) {
  if (failed(c.kernelOnly(op)))
    return failure();
  FailureOr<size_t> instr = c.emitResult(op, Execute, op->getOperands());
  if (failed(instr))
    return failure();
  c.at(*instr).mode = Mode;
  return success();
}

} // namespace

void mlir::pa::emulator::detail::registerROCDLHandlers(OpRegistry &r) {
  using namespace ROCDL;
  r.add<DsBpermuteOp>(compileLaneOp<executeBpermute>);
  r.add<ReadfirstlaneOp>(compileLaneOp<executeReadFirstLane>);
  r.add<ReadlaneOp>(compileLaneOp<executeReadLane>);
  r.add<BallotOp>(compileBallot);
  r.add<MbcntLoOp>(compileLaneOp<executeMbcnt, 0>);
  r.add<MbcntHiOp>(compileLaneOp<executeMbcnt, 1>);
  r.add<SBarrierOp, BarrierOp>(compileBarrier);
  r.add<SchedBarrier, SWaitcntOp>(compileNoEffect);
}
