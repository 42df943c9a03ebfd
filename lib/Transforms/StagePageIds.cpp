//===- StagePageIds.cpp - placeholder until the pass is written ----------------===//
#include "pa/Transforms/Passes.h"

namespace mlir::pa {
#define GEN_PASS_DEF_PASTAGEPAGEIDS
#include "pa/Transforms/Passes.h.inc"
} // namespace mlir::pa

using namespace mlir;

namespace {
struct PaStagePageIdsPass : pa::impl::PaStagePageIdsBase<PaStagePageIdsPass> {
  using Base::Base;
  void runOnOperation() override {
    getOperation()->emitError("PaStagePageIds: not implemented yet");
    signalPassFailure();
  }
};
} // namespace
