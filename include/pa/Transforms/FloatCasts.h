//===- FloatCasts.h - small-float conversions as integer bit ops -*- C++ -*-===//
//
// The conversions between f32 (or f64) and the small float types the kernels
// read and write (bf16, f16, f8E4M3FN, f8E4M3FNUZ), emitted as integer
// arithmetic on the bit patterns. pa-expand-float-casts uses them for the
// host executor; GPU backends without native conversions (NVVM for fp8)
// reuse them.
//
// Semantics (bit-exact):
//   extend:   exact for every pattern: denormals, signed zeros, infinities;
//             NaN patterns (f8E4M3FN S.1111.111, f8E4M3FNUZ 0x80, IEEE NaNs)
//             give a quiet f32 NaN.
//   truncate: round to nearest, ties to even, in one step (an f64 source is
//             not rounded through f32). bf16/f16: overflow gives infinity and
//             NaN stays a quiet NaN with the top payload bits. fp8: finite
//             overflow and infinities saturate to the largest finite value
//             with the input's sign (the hardware's saturating conversions),
//             NaN gives NaN (f8E4M3FNUZ has no -0: -0 and negative values
//             rounding to zero give 0x00).
//
//===----------------------------------------------------------------------===//
#ifndef PA_TRANSFORMS_FLOATCASTS_H
#define PA_TRANSFORMS_FLOATCASTS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

namespace mlir::pa {

/// True for the element types the helpers below convert: bf16, f16,
/// f8E4M3FN and f8E4M3FNUZ.
bool isSmallFloatType(Type elementType);

/// Extends `value` (a scalar or vector of a small float type) to f32 of the
/// same shape. Returns null (emitting nothing) for other types.
Value emitExtToF32(OpBuilder &builder, Location loc, Value value);

/// Rounds `value` (a scalar or vector of f32 or f64) to the small float
/// element type `target`, keeping the shape. Returns null (emitting nothing)
/// for other types.
Value emitTruncToSmallFloat(OpBuilder &builder, Location loc, Value value,
                            Type target);

} // namespace mlir::pa

#endif // PA_TRANSFORMS_FLOATCASTS_H
