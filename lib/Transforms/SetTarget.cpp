//===- SetTarget.cpp - state the chip a module is compiled for ------------===//
//
// pa-set-target writes the module's `pa.target` attribute, the one place
// the chip lives in the IR; every chip-dependent pass reads it from there.
//
//===----------------------------------------------------------------------===//
#include "pa/IR/PaDialect.h"
#include "pa/Transforms/Passes.h"

namespace mlir::pa {
#define GEN_PASS_DEF_PASETTARGET
#include "pa/Transforms/Passes.h.inc"
} // namespace mlir::pa

using namespace mlir;
using namespace mlir::pa;

namespace {
struct PaSetTargetPass : pa::impl::PaSetTargetBase<PaSetTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto stated = module->getAttrOfType<TargetAttr>(PaDialect::kTargetAttrName);
    StringRef wanted = chip.empty() && !stated ? StringRef(defaultChip)
                                               : StringRef(chip);
    if (wanted.empty()) {
      if (stated)
        return;
      module.emitError() << "pa-set-target: no chip: pass chip=... (one of "
                         << knownChipNames() << ")";
      return signalPassFailure();
    }
    if (!lookupChip(wanted)) {
      module.emitError() << "pa-set-target: unknown chip '" << wanted
                         << "'; expected one of " << knownChipNames();
      return signalPassFailure();
    }
    if (stated && stated.getChip() != wanted) {
      module.emitError() << "pa-set-target: the module is compiled for "
                         << stated.getChip() << " (its pa.target), not "
                         << wanted;
      return signalPassFailure();
    }
    module->setAttr(PaDialect::kTargetAttrName,
                    TargetAttr::get(&getContext(), wanted));
  }
};
} // namespace
