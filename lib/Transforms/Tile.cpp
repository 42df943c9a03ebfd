//===- Tile.cpp - placeholder until the pass is written ----------------===//
#include "pa/Transforms/Passes.h"

namespace mlir::pa {
#define GEN_PASS_DEF_PATILE
#include "pa/Transforms/Passes.h.inc"
} // namespace mlir::pa

using namespace mlir;

namespace {
struct PaTilePass : pa::impl::PaTileBase<PaTilePass> {
  using Base::Base;
  void runOnOperation() override {
    getOperation()->emitError("PaTile: not implemented yet");
    signalPassFailure();
  }
};
} // namespace
