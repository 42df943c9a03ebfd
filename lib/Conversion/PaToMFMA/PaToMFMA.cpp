//===- PaToMFMA.cpp - placeholder until the pass is written -----------------===//
#include "pa/Conversion/Passes.h"

namespace mlir::pa {
#define GEN_PASS_DEF_PATOMFMA
#include "pa/Conversion/Passes.h.inc"
} // namespace mlir::pa

using namespace mlir;

namespace {
struct PaToMFMAPass : pa::impl::PaToMFMABase<PaToMFMAPass> {
  using Base::Base;
  void runOnOperation() override {
    getOperation()->emitError("PaToMFMA: not implemented yet");
    signalPassFailure();
  }
};
} // namespace
