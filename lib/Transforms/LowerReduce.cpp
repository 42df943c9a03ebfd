//===- LowerReduce.cpp - placeholder until the pass is written ----------------===//
#include "pa/Transforms/Passes.h"

namespace mlir::pa {
#define GEN_PASS_DEF_PALOWERREDUCE
#include "pa/Transforms/Passes.h.inc"
} // namespace mlir::pa

using namespace mlir;

namespace {
struct PaLowerReducePass : pa::impl::PaLowerReduceBase<PaLowerReducePass> {
  using Base::Base;
  void runOnOperation() override {
    getOperation()->emitError("PaLowerReduce: not implemented yet");
    signalPassFailure();
  }
};
} // namespace
