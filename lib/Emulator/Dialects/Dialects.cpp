//===- Dialects.cpp - the registry of every dialect's handlers ------------===//
#include "Dialects.h"

using namespace mlir::pa::emulator::detail;

void mlir::pa::emulator::detail::registerDialectHandlers(OpRegistry &registry) {
  registerAffineHandlers(registry);
  registerAMDGPUHandlers(registry);
  registerArithHandlers(registry);
  registerControlFlowHandlers(registry);
  registerFuncHandlers(registry);
  registerGPUHandlers(registry);
  registerMathHandlers(registry);
  registerMemRefHandlers(registry);
  registerROCDLHandlers(registry);
  registerSCFHandlers(registry);
  registerUBHandlers(registry);
  registerVectorHandlers(registry);
}

mlir::LogicalResult
mlir::pa::emulator::detail::compileNoEffect(OpCompiler &, mlir::Operation *) {
  return mlir::success();
}
