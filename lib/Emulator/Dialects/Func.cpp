//===- Func.cpp - func.call of host functions (test drivers) --------------===//
//
// func.func bodies and func.return are compiled by the compiler itself
// (Compiler.cpp); a call runs its callee on a lane of its own.
//
//===----------------------------------------------------------------------===//
#include "Dialects.h"

#include "../Executor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace mlir::pa::emulator::detail;

namespace {

/// func.call of a host function without results.
struct CallInfo : Payload {
  uint32_t callee = 0;
  SmallVector<uint32_t, 8> arguments, argumentWords;
};

Step executeCall(Executor &ex, Wave &wave, const Instr &in) {
  const CallInfo &info = in.get<CallInfo>();
  const Function &callee = ex.program.functions[info.callee];
  Wave frame;
  frame.reset(callee.frameWords, 1);
  const uint64_t *f = wave.frame(0);
  for (auto [i, slot] : llvm::enumerate(info.arguments))
    std::memcpy(frame.frame(0) + callee.argumentSlots[i], f + slot,
                size_t(info.argumentWords[i]) * 8);
  if (ex.runWave(callee, frame) == Step::Failed)
    return Step::Failed;
  return Step::Next;
}

LogicalResult compileCall(OpCompiler &c, Operation *op) {
  auto call = cast<func::CallOp>(op);
  if (!c.host || call.getNumResults() != 0)
    return c.fail(op, "only host functions call, and only functions "
                      "without results");
  auto found = c.program.functionIndex.find(call.getCallee());
  if (found == c.program.functionIndex.end())
    return c.fail(op, "unknown function @" + call.getCallee());
  CallInfo info;
  info.callee = found->second;
  for (Value argument : call.getOperands()) {
    info.arguments.push_back(c.use(argument));
    info.argumentWords.push_back(wordsOf(argument.getType()));
  }
  c.attach(c.emit(executeCall, op), std::move(info));
  return success();
}

} // namespace

void mlir::pa::emulator::detail::registerFuncHandlers(OpRegistry &r) {
  r.add<func::CallOp>(compileCall);
}
