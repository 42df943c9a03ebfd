//===- TileLowering.h - pieces of the tile-op lowering backends share -*- C++ -*-===//
//
// The reference lowering (pa-lower-tile-to-loops) and the GPU backends
// (pa-to-mfma) must read page ids by the same rule; this is that rule.
//
//===----------------------------------------------------------------------===//
#ifndef PA_TRANSFORMS_TILELOWERING_H
#define PA_TRANSFORMS_TILELOWERING_H

#include "pa/IR/PaOps.h"

namespace mlir::pa {

/// Materializes a constant (callers cache them ahead of their loops).
using ConstantBuilder = function_ref<Value(TypedAttr)>;

/// Where the block-table entries of tile `tile` (index) of `op`'s sequence
/// start: the tile's first page (index) and first token (i64).
struct TilePageRange {
  Value firstPage, firstToken;
};
TilePageRange buildTilePageRange(OpBuilder &builder, Location loc,
                                 TilePageIdsOp op, Value tile,
                                 ConstantBuilder constant);

/// Element `k` (index) of `op`'s page ids for the tile at `range`:
/// `block_tables[sequence][firstPage + k]` (i32) when page k holds a token
/// of op's visible range, else 0; the entry of a page without a visible
/// token is not read (scf.if).
Value buildVisiblePageId(OpBuilder &builder, Location loc, TilePageIdsOp op,
                         TilePageRange range, Value k,
                         ConstantBuilder constant);

/// Replaces `op` by the loop of buildVisiblePageId reads the host executor
/// runs (checking the block-table operand first).
LogicalResult lowerTilePageIdsToLoop(TilePageIdsOp op);

} // namespace mlir::pa

#endif // PA_TRANSFORMS_TILELOWERING_H
