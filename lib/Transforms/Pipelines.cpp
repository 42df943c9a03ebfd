//===- Pipelines.cpp - pass registration and named pipelines --------------===//
#include "pa/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

void mlir::pa::registerPaPassesAndPipelines() {
  registerPaTransformsPasses();
}
