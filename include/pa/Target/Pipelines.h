//===- Pipelines.h - what the pa-lower-to-* pipelines share ----*- C++ -*-===//
//
// Both vendors' pipelines (pa-lower-to-rocdl, pa-lower-to-nvvm) start from
// the same passes (pa ops to tiled IR, the canonicalizer and CSE, the
// kernels' way to LLVM) and the same chip option; each adds its own
// lowering and options.
//
//===----------------------------------------------------------------------===//
#ifndef PA_TARGET_PIPELINES_H
#define PA_TARGET_PIPELINES_H

#include "pa/Conversion/Passes.h"
#include "pa/Transforms/Passes.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include <string>

namespace mlir::pa {

/// `Derived::kChipHelp` names the vendor's chips and its default.
template <typename Derived>
struct ChipPipelineOptions : PassPipelineOptions<Derived> {
  detail::PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc(Derived::kChipHelp)};
};

} // namespace mlir::pa

#endif // PA_TARGET_PIPELINES_H
