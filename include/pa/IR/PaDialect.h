//===- PaDialect.h - the pa dialect, its enums and attributes ---*- C++ -*-===//
#ifndef PA_IR_PADIALECT_H
#define PA_IR_PADIALECT_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Operation.h"
#include "pa/IR/Chip.h"
#include "pa/IR/DiscardableAttributes.h"
#include "pa/IR/KernelAttributes.h"

#include "pa/IR/PaDialect.h.inc"
#include "pa/IR/PaEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "pa/IR/PaAttrs.h.inc"

namespace mlir::pa {
/// The chip of the `pa.target` attribute on the nearest module enclosing
/// `op` (or `op` itself), if any.
std::optional<ChipInfo> findTargetChip(Operation *op);

/// The chip of the `pa.target` attribute on the nearest module enclosing
/// `op` (or `op` itself); an error at `op` when there is none, or when
/// `vendor` is given and the chip is another vendor's (`pass` names the
/// asking pass in the diagnostic).
FailureOr<ChipInfo> getTargetChip(Operation *op, llvm::StringRef pass,
                                  std::optional<Vendor> vendor = {});

/// The fp8 element type of `chip`'s matrix units.
FloatType getFp8Type(MLIRContext *context, const ChipInfo &chip);
} // namespace mlir::pa

#endif // PA_IR_PADIALECT_H
