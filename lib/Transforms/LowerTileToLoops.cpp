//===- LowerTileToLoops.cpp - placeholder until the pass is written ----------------===//
#include "pa/Transforms/Passes.h"

namespace mlir::pa {
#define GEN_PASS_DEF_PALOWERTILETOLOOPS
#include "pa/Transforms/Passes.h.inc"
} // namespace mlir::pa

using namespace mlir;

namespace {
struct PaLowerTileToLoopsPass : pa::impl::PaLowerTileToLoopsBase<PaLowerTileToLoopsPass> {
  using Base::Base;
  void runOnOperation() override {
    getOperation()->emitError("PaLowerTileToLoops: not implemented yet");
    signalPassFailure();
  }
};
} // namespace
