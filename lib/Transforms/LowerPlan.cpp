//===- LowerPlan.cpp - placeholder until the pass is written ----------------===//
#include "pa/Transforms/Passes.h"

namespace mlir::pa {
#define GEN_PASS_DEF_PALOWERPLAN
#include "pa/Transforms/Passes.h.inc"
} // namespace mlir::pa

using namespace mlir;

namespace {
struct PaLowerPlanPass : pa::impl::PaLowerPlanBase<PaLowerPlanPass> {
  using Base::Base;
  void runOnOperation() override {
    getOperation()->emitError("PaLowerPlan: not implemented yet");
    signalPassFailure();
  }
};
} // namespace
