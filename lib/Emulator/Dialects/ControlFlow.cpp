//===- ControlFlow.cpp - cf.assert (test drivers) -------------------------===//
//
// Unstructured control flow (cf.br) is not executed: functions are one
// block of structured control flow (SCF.cpp).
//
//===----------------------------------------------------------------------===//
#include "Dialects.h"

#include "../Executor.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"

using namespace mlir;
using namespace mlir::pa::emulator::detail;

namespace {

struct Message : Payload {
  std::string text;
};

Step executeAssert(Executor &ex, Wave &wave, const Instr &in) {
  int lane = firstFailingLane(
      wave, [&](int, uint64_t *f) { return (f[in.a] & 1) != 0; });
  if (lane >= 0)
    return ex.fail(&wave, in, lane,
                   "assertion failed: " + in.get<Message>().text);
  return Step::Next;
}

} // namespace

void mlir::pa::emulator::detail::registerControlFlowHandlers(OpRegistry &r) {
  r.add<cf::AssertOp>([](OpCompiler &c, Operation *op) {
    auto assertion = cast<cf::AssertOp>(op);
    size_t instr = c.emit(executeAssert, op);
    c.at(instr).a = c.use(assertion.getArg());
    Message message;
    message.text = assertion.getMsg().str();
    c.attach(instr, std::move(message));
    return success();
  });
}
