//===- PipelineOptions.h - options of the pa-lower-to-* pipelines -*- C++ -*-===//
//
// The chip option that both vendors' pipelines (pa-lower-to-rocdl,
// pa-lower-to-nvvm) start from; each adds its own options beside it.
//
//===----------------------------------------------------------------------===//
#ifndef PA_TARGET_PIPELINEOPTIONS_H
#define PA_TARGET_PIPELINEOPTIONS_H

#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir::pa {

/// `Derived::kChipHelp` names the vendor's chips and its default.
template <typename Derived>
struct ChipPipelineOptions : PassPipelineOptions<Derived> {
  detail::PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc(Derived::kChipHelp)};
};

} // namespace mlir::pa

#endif // PA_TARGET_PIPELINEOPTIONS_H
