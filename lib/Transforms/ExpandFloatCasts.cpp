//===- ExpandFloatCasts.cpp - placeholder until the pass is written -------===//
#include "pa/Transforms/Passes.h"

namespace mlir::pa {
#define GEN_PASS_DEF_PAEXPANDFLOATCASTS
#include "pa/Transforms/Passes.h.inc"
} // namespace mlir::pa

using namespace mlir;

namespace {
struct PaExpandFloatCastsPass
    : pa::impl::PaExpandFloatCastsBase<PaExpandFloatCastsPass> {
  using Base::Base;
  void runOnOperation() override {
    getOperation()->emitError("PaExpandFloatCasts: not implemented yet");
    signalPassFailure();
  }
};
} // namespace
