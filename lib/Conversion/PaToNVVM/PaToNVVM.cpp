//===- PaToNVVM.cpp - placeholder until the pass is written -----------------===//
#include "pa/Conversion/Passes.h"

namespace mlir::pa {
#define GEN_PASS_DEF_PATONVVM
#include "pa/Conversion/Passes.h.inc"
} // namespace mlir::pa

using namespace mlir;

namespace {
struct PaToNVVMPass : pa::impl::PaToNVVMBase<PaToNVVMPass> {
  using Base::Base;
  void runOnOperation() override {
    getOperation()->emitError("PaToNVVM: not implemented yet");
    signalPassFailure();
  }
};
} // namespace
