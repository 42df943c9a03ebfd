//===- SCF.cpp - structured control flow as exec-mask frames --------------===//
//
// As the hardware does it: a divergent scf.if runs both regions under
// complementary masks (IfBegin / Else / EndIf), a loop keeps each lane
// until its own bound or condition ends it (ForInit / ForHead / ForStep /
// ForExit, WhileInit / Condition / Jump / WhileExit). Each frame saves the
// exec mask it restores at its end.
//
//===----------------------------------------------------------------------===//
#include "Dialects.h"

#include "../Executor.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <functional>

using namespace mlir;
using namespace mlir::pa::emulator;
using namespace mlir::pa::emulator::detail;

namespace {

//===----------------------------------------------------------------------===//
// Execution
//===----------------------------------------------------------------------===//

/// Continues at `in.imm` when no lane is left.
Step jumpIfNoLane(Wave &wave, const Instr &in) {
  if (wave.exec)
    return Step::Next;
  wave.pc = size_t(in.imm);
  return Step::Jumped;
}

/// Lanes whose condition (slot a) holds run the then region; `imm`: Else.
Step executeIfBegin(Executor &, Wave &wave, const Instr &in) {
  uint64_t taken = 0;
  forLanes(wave,
           [&](int lane, uint64_t *f) { taken |= (f[in.a] & 1) << lane; });
  wave.frames.push_back({wave.exec, wave.exec & ~taken});
  wave.exec &= taken;
  return jumpIfNoLane(wave, in);
}

/// The other lanes run the else region; `imm`: EndIf.
Step executeElse(Executor &, Wave &wave, const Instr &in) {
  wave.exec = wave.frames.back().other;
  return jumpIfNoLane(wave, in);
}

/// EndIf, ForExit, WhileExit: the lanes of before the frame.
Step executeEndFrame(Executor &, Wave &wave, const Instr &) {
  wave.exec = wave.frames.back().saved;
  wave.frames.pop_back();
  return Step::Next;
}

/// The induction variable (dst) starts at slot a.
Step executeForInit(Executor &, Wave &wave, const Instr &in) {
  wave.frames.push_back({wave.exec, 0});
  forLanes(wave, [&](int, uint64_t *f) { f[in.dst] = f[in.a]; });
  return Step::Next;
}

/// Lanes whose induction variable (a) is below the bound (b) stay; `mode`:
/// unsigned comparison; `imm`: ForExit.
Step executeForHead(Executor &, Wave &wave, const Instr &in) {
  const unsigned bits = bitWidth(in.kind);
  uint64_t staying = 0;
  if (in.mode)
    forLanes(wave, [&](int lane, uint64_t *f) {
      staying |= uint64_t(f[in.a] < f[in.b]) << lane;
    });
  else
    forLanes(wave, [&](int lane, uint64_t *f) {
      staying |= uint64_t(signExtend(f[in.a], bits) < signExtend(f[in.b], bits))
                 << lane;
    });
  wave.exec = staying;
  return jumpIfNoLane(wave, in);
}

/// The induction variable (a) advances by the step (b); back to `imm`.
Step executeForStep(Executor &, Wave &wave, const Instr &in) {
  const uint64_t mask = lowMask(bitWidth(in.kind));
  forLanes(wave,
           [&](int, uint64_t *f) { f[in.a] = (f[in.a] + f[in.b]) & mask; });
  wave.pc = size_t(in.imm);
  return Step::Jumped;
}

Step executeWhileInit(Executor &, Wave &wave, const Instr &) {
  wave.frames.push_back({wave.exec, 0});
  return Step::Next;
}

/// scf.condition: lanes whose condition is false leave with `arguments`
/// as the loop results; the others enter the after region with them.
struct ConditionInfo : Payload {
  SmallVector<uint32_t, 4> arguments, results, afterArguments, words;
};

Step executeCondition(Executor &, Wave &wave, const Instr &in) {
  const ConditionInfo &info = in.get<ConditionInfo>();
  uint64_t staying = 0;
  forLanes(wave, [&](int lane, uint64_t *f) {
    bool stay = f[in.a] & 1;
    staying |= uint64_t(stay) << lane;
    for (size_t i = 0; i < info.arguments.size(); ++i)
      std::memmove(f + (stay ? info.afterArguments[i] : info.results[i]),
                   f + info.arguments[i], size_t(info.words[i]) * 8);
  });
  wave.exec = staying;
  return jumpIfNoLane(wave, in);
}

Step executeJump(Executor &, Wave &wave, const Instr &in) {
  wave.pc = size_t(in.imm);
  return Step::Jumped;
}

//===----------------------------------------------------------------------===//
// Compilation
//===----------------------------------------------------------------------===//

LogicalResult compileIf(OpCompiler &c, Operation *operation) {
  auto op = cast<scf::IfOp>(operation);
  FailureOr<SmallVector<uint32_t>> results = c.defineAll(op.getResults(), op);
  if (failed(results))
    return failure();
  size_t begin = c.emit(executeIfBegin, op);
  c.at(begin).a = c.use(op.getCondition());
  if (failed(c.compileBlock(*op.thenBlock())))
    return failure();
  c.emitMoves(op, *results, op.thenYield().getOperands());
  size_t elseAt = c.emit(executeElse, op);
  c.at(begin).imm = int64_t(elseAt);
  if (Block *elseBlock = op.elseBlock()) {
    if (failed(c.compileBlock(*elseBlock)))
      return failure();
    c.emitMoves(op, *results, op.elseYield().getOperands());
  }
  size_t end = c.emit(executeEndFrame, op);
  c.at(elseAt).imm = int64_t(end);
  return success();
}

/// The loop head / step / exit around `body` for one induction variable
/// (scf.for and each dim of scf.parallel).
LogicalResult emitCountedLoop(OpCompiler &c, Operation *op, Value iv,
                              Value lower, Value upper, Value step,
                              bool unsignedCmp,
                              llvm::function_ref<LogicalResult()> body) {
  FailureOr<ScalarKind> kind = c.kindOf(op, iv.getType());
  if (failed(kind))
    return failure();
  FailureOr<uint32_t> ivSlot = c.define(iv, op);
  if (failed(ivSlot))
    return failure();
  size_t init = c.emit(executeForInit, op);
  c.at(init).dst = *ivSlot;
  c.at(init).a = c.use(lower);
  size_t head = c.emit(executeForHead, op);
  c.at(head).a = *ivSlot;
  c.at(head).b = c.use(upper);
  c.at(head).kind = *kind;
  c.at(head).mode = unsignedCmp;
  if (failed(body()))
    return failure();
  size_t stepAt = c.emit(executeForStep, op);
  c.at(stepAt).a = *ivSlot;
  c.at(stepAt).b = c.use(step);
  c.at(stepAt).kind = *kind;
  c.at(stepAt).imm = int64_t(head);
  size_t exit = c.emit(executeEndFrame, op);
  c.at(head).imm = int64_t(exit);
  return success();
}

LogicalResult compileFor(OpCompiler &c, Operation *operation) {
  auto op = cast<scf::ForOp>(operation);
  // The results share the iteration arguments' slots: lanes leave the
  // loop with their last values in place.
  SmallVector<uint32_t> iterSlots;
  for (auto [arg, result] :
       llvm::zip(op.getRegionIterArgs(), op.getResults())) {
    FailureOr<uint32_t> slot = c.define(arg, op);
    if (failed(slot))
      return failure();
    c.alias(result, *slot);
    iterSlots.push_back(*slot);
  }
  c.emitMoves(op, iterSlots, op.getInitArgs());
  return emitCountedLoop(
      c, op, op.getInductionVar(), op.getLowerBound(), op.getUpperBound(),
      op.getStep(), op.getUnsignedCmp(), [&]() -> LogicalResult {
        if (failed(c.compileBlock(*op.getBody())))
          return failure();
        auto yield = cast<scf::YieldOp>(op.getBody()->getTerminator());
        c.emitMoves(yield, iterSlots, yield.getOperands());
        return success();
      });
}

LogicalResult compileParallel(OpCompiler &c, Operation *operation) {
  auto op = cast<scf::ParallelOp>(operation);
  if (op.getNumResults() != 0)
    return c.fail(op, "scf.parallel with reductions is not supported");
  // Lanes run the iterations in order, one dim nested in the other.
  std::function<LogicalResult(unsigned)> nest =
      [&](unsigned dim) -> LogicalResult {
    if (dim == op.getNumLoops())
      return c.compileBlock(*op.getBody());
    return emitCountedLoop(c, op, op.getInductionVars()[dim],
                           op.getLowerBound()[dim], op.getUpperBound()[dim],
                           op.getStep()[dim], /*unsignedCmp=*/false,
                           [&] { return nest(dim + 1); });
  };
  return nest(0);
}

LogicalResult compileWhile(OpCompiler &c, Operation *operation) {
  auto op = cast<scf::WhileOp>(operation);
  Block &before = op.getBefore().front();
  Block &after = op.getAfter().front();
  FailureOr<SmallVector<uint32_t>> beforeArgs =
      c.defineAll(before.getArguments(), op);
  FailureOr<SmallVector<uint32_t>> afterArgs =
      c.defineAll(after.getArguments(), op);
  FailureOr<SmallVector<uint32_t>> results = c.defineAll(op.getResults(), op);
  if (failed(beforeArgs) || failed(afterArgs) || failed(results))
    return failure();
  c.emitMoves(op, *beforeArgs, op.getInits());
  c.emit(executeWhileInit, op);
  size_t head = c.here();
  if (failed(c.compileBlock(before)))
    return failure();
  scf::ConditionOp condition = op.getConditionOp();
  ConditionInfo info;
  for (auto [i, arg] : llvm::enumerate(condition.getArgs())) {
    info.arguments.push_back(c.use(arg));
    info.results.push_back((*results)[i]);
    info.afterArguments.push_back((*afterArgs)[i]);
    info.words.push_back(wordsOf(arg.getType()));
  }
  size_t check = c.emit(executeCondition, condition);
  c.at(check).a = c.use(condition.getCondition());
  c.attach(check, std::move(info));
  if (failed(c.compileBlock(after)))
    return failure();
  c.emitMoves(op, *beforeArgs, op.getYieldOp().getOperands());
  size_t jump = c.emit(executeJump, op);
  c.at(jump).imm = int64_t(head);
  size_t exit = c.emit(executeEndFrame, op);
  c.at(check).imm = int64_t(exit);
  return success();
}

} // namespace

void mlir::pa::emulator::detail::registerSCFHandlers(OpRegistry &r) {
  r.add<scf::IfOp>(compileIf);
  r.add<scf::ForOp>(compileFor);
  r.add<scf::WhileOp>(compileWhile);
  r.add<scf::ParallelOp>(compileParallel);
}
