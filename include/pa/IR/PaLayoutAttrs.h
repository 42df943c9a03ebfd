//===- PaLayoutAttrs.h - lane mappings of the GPU backends ------*- C++ -*-===//
//
// #pa.mfma_layout (PaLayoutAttrs.td): the lane mapping pa-to-mfma lowers a
// decode kernel with, attached by pa-mfma-layout.
//
//===----------------------------------------------------------------------===//
#ifndef PA_IR_PALAYOUTATTRS_H
#define PA_IR_PALAYOUTATTRS_H

#include "pa/IR/PaDialect.h"

namespace mlir::pa {
// A decode kernel holds its #pa.mfma_layout as kMFMALayoutAttrName
// (DiscardableAttributes.h).

/// An MFMA shape as written in #pa.mfma_layout: `16x16xK`.
ParseResult parseMFMAShape(AsmParser &parser, int64_t &k);
void printMFMAShape(AsmPrinter &printer, int64_t k);
} // namespace mlir::pa

#define GET_ATTRDEF_CLASSES
#include "pa/IR/PaLayoutAttrs.h.inc"

namespace mlir::pa {
class TileQKOp;

/// Checks `layout` on `kernel` against the module's chip (pa.target, where
/// it has one) and that the kernel is a decode kernel (it has
/// pa.tile.load_query and pa.tile.qk); reports the first mismatch at
/// `kernel`. It reads no tile op's operands: the kernel's attributes are
/// verified before the ops inside it, which may be malformed.
LogicalResult verifyMFMALayoutOn(Operation *kernel, MFMALayoutAttr layout);

/// Checks the #pa.mfma_layout of the kernel around `qk` (if it has one)
/// against `qk`'s rows, head dim, compute and cache types; reports the
/// first mismatch at `qk`. Called by qk's verifier, after its own checks.
LogicalResult verifyEnclosingMFMALayout(TileQKOp qk);
} // namespace mlir::pa

#endif // PA_IR_PALAYOUTATTRS_H
