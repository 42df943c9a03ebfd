//===- TileLowering.h - pieces of the tile-op lowering backends share -*- C++ -*-===//
//
// The reference lowering (pa-lower-tile-to-loops) and the GPU backends
// (pa-to-mfma, pa-to-nvvm) must read page ids and mask tokens by the same
// rules; these are those rules.
//
//===----------------------------------------------------------------------===//
#ifndef PA_TRANSFORMS_TILELOWERING_H
#define PA_TRANSFORMS_TILELOWERING_H

#include "pa/IR/PaOps.h"

namespace mlir::pa {

/// The tokens MTP position q of a query of Q positions sees over a context
/// of C tokens, as i64 values: [max(0, end - W), end) with
/// end = C - (Q - 1) + q, for a sliding window W > 0 (without one, from
/// token 0). These two are the one emitter of that rule for every kernel.
///
/// end of position `position` (i64), or of position 0 when it is null.
Value buildVisibleEnd(OpBuilder &builder, Location loc, Value contextLength,
                      int64_t queryLength, Value position = {});
/// begin for the range ending at `end`: with `clamp`, max(end - W, 0), or
/// the constant 0 without a window; without, end - W (for callers whose
/// bounds clamp anyway), or null without a window.
Value buildVisibleBegin(OpBuilder &builder, Location loc, Value end,
                        int64_t window, bool clamp);

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

/// `block_tables[sequence][column]` of `op` (i32) where `visible` (i1),
/// else `zero`: the entry is read only where visible (scf.if), its column
/// (index) built there by `buildColumn`.
Value buildBlockTableReadIf(
    OpBuilder &builder, Location loc, TilePageIdsOp op, Value visible,
    Value zero, function_ref<Value(OpBuilder &, Location)> buildColumn);

/// `x` (f32 or a vector of f32) where finite, NaN where +-inf or NaN:
/// x * 0 + x, one fma per element. Every target turns a non-finite score,
/// scale or partial into NaN with it, so that an infinity is never taken
/// for a masked -inf (docs/semantics.md, "Non-finite inputs"). `zeros`: a
/// zero of x's type the caller already has (else one is created here).
Value buildNaNIfNotFinite(OpBuilder &builder, Location loc, Value x,
                          Value zeros = {});

/// Which cache an element address is for.
enum class CacheOperand { key, value };

/// The one place that maps a cache element to its memref indices, for every
/// layout: element `d` (index) of the K or V row of the token in slot `slot`
/// of page `page` (index), KV head `kvHead`:
///   packed K [N, Hkv, D/x, P, x]: [page, kvHead, d / x, slot, d % x]
///   packed plain V [N, Hkv, D, P]: [page, kvHead, d, slot]
///   packed transposed V [N, Hkv, P/x, D, x]: [page, kvHead, slot / x, d, slot % x]
///   nhd [N, P, Hkv, D]: [page, slot, kvHead, d]
///   hnd [N, Hkv, P, D]: [page, kvHead, slot, d]
/// `pack` is x (unused by nhd, hnd and plain V); `vLayout` matters for packed
/// values only. Strides (views of a combined cache) are the memref's.
SmallVector<Value, 5> buildCacheElementIndices(
    OpBuilder &builder, Location loc, CacheLayout layout, CacheOperand operand,
    VLayout vLayout, int64_t pack, Value page, Value kvHead, Value slot,
    Value d, ConstantBuilder constant);

/// Replaces `op` by the loop of buildVisiblePageId reads the host executor
/// runs (checking the block-table operand first).
LogicalResult lowerTilePageIdsToLoop(TilePageIdsOp op);

} // namespace mlir::pa

#endif // PA_TRANSFORMS_TILELOWERING_H
