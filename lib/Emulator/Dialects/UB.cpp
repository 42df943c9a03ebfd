//===- UB.cpp - ub.poison -------------------------------------------------===//
#include "Dialects.h"

#include "mlir/Dialect/UB/IR/UBOps.h"

using namespace mlir;
using namespace mlir::pa::emulator::detail;

void mlir::pa::emulator::detail::registerUBHandlers(OpRegistry &r) {
  r.add<ub::PoisonOp>([](OpCompiler &c, Operation *op) {
    uint32_t words = wordsOf(op->getResult(0).getType());
    if (words == 0)
      return c.fail(op, "unsupported poison type");
    // A recognisable pattern (a NaN for f32) where poison is read.
    return c.emitConstant(op, std::vector<uint64_t>(words, 0x7FBADBADu));
  });
}
