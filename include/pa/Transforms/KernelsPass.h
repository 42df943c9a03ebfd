//===- KernelsPass.h - passes that lower kernels for one vendor -*- C++ -*-===//
//
// The passes that lower gpu.module @pa_kernels for one vendor's chips
// (pa-to-mfma, pa-convert-kernels-to-rocdl, pa-to-nvvm,
// pa-convert-kernels-to-nvvm) all start from the chip of the module's
// `pa.target`; KernelsPass reads it once for them.
//
//===----------------------------------------------------------------------===//
#ifndef PA_TRANSFORMS_KERNELSPASS_H
#define PA_TRANSFORMS_KERNELSPASS_H

#include "pa/IR/Chip.h"
#include "pa/IR/PaDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::pa {

/// Between a pass and its tablegen'erated base `GeneratedBase`: runs
/// `Derived::runOnKernels(kernels, chip)` with the chip of the module's
/// `pa.target`, or fails with an error naming the pass when there is none
/// or it is not a `vendor` chip.
template <typename Derived, template <typename> class GeneratedBase,
          Vendor vendor>
struct KernelsPass : GeneratedBase<Derived> {
  using GeneratedBase<Derived>::GeneratedBase;

  void runOnOperation() final {
    gpu::GPUModuleOp kernels = this->getOperation();
    FailureOr<ChipInfo> chip =
        getTargetChip(kernels, this->getArgument(), vendor);
    if (failed(chip))
      return this->signalPassFailure();
    static_cast<Derived *>(this)->runOnKernels(kernels, *chip);
  }
};

} // namespace mlir::pa

#endif // PA_TRANSFORMS_KERNELSPASS_H
