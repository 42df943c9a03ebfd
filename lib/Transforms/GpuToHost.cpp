//===- GpuToHost.cpp - placeholder until the pass is written ----------------===//
#include "pa/Transforms/Passes.h"

namespace mlir::pa {
#define GEN_PASS_DEF_PAGPUTOHOST
#include "pa/Transforms/Passes.h.inc"
} // namespace mlir::pa

using namespace mlir;

namespace {
struct PaGpuToHostPass : pa::impl::PaGpuToHostBase<PaGpuToHostPass> {
  using Base::Base;
  void runOnOperation() override {
    getOperation()->emitError("PaGpuToHost: not implemented yet");
    signalPassFailure();
  }
};
} // namespace
