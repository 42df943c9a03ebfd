//===- ScoreMath.h - score transforms shared by every backend ---*- C++ -*-===//
//
// The score transforms of pa.tile.qk that every lowering (host loops, AMD
// lanes, NVIDIA warps) emits the same way, so that the executors agree by
// construction: the logits soft-cap, the ALiBi bias and the reducer's
// log-sum-exp.
//
//===----------------------------------------------------------------------===//
#ifndef PA_TRANSFORMS_SCOREMATH_H
#define PA_TRANSFORMS_SCOREMATH_H

#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/Value.h"

namespace mlir::pa {

/// `cap * tanh(scores / cap)` for f32 scores (a scalar or a vector) in the
/// exp2 domain with `cap` in the same domain, as
/// `cap - 2 cap / (exp2(scores * 2 log2(e) / cap) + 1)`: exp2 and one
/// reciprocal, no tanh library. It saturates to +-cap for large |scores|
/// (exp2 gives inf or 0) and keeps NaN. `fastReciprocal` lets a GPU backend
/// use its 1-ulp reciprocal instruction (arcp, afn) for the division.
Value emitSoftCap(ImplicitLocOpBuilder &b, Value scores, float cap,
                  bool fastReciprocal);

/// An ALiBi slope (f32 scalar or vector, natural-log units) in the exp2
/// domain of the scores: `slope * log2(e)` in f32.
Value emitAlibiSlopeExp2(ImplicitLocOpBuilder &b, Value slope);

/// `scores + slopeExp2 * f32(distance)`: the ALiBi bias of a token
/// `distance = t - (C - Q + q)` tokens from the row's own position (a signed
/// integer scalar or vector of scores' shape; exact in f32 below 2^24), with
/// `slopeExp2` from emitAlibiSlopeExp2. A multiply and an add (no fma), the
/// same on every target.
Value emitAlibiBias(ImplicitLocOpBuilder &b, Value scores, Value slopeExp2,
                    Value distance);

/// A row's log-sum-exp from the reducer's maximum `rowMax` (natural-log
/// units) and denominator `den` (f32 scalars): rowMax + log(den), and -inf
/// for den == 0 (nothing, sink included, has weight; log(0) would give
/// +inf + -inf = NaN for rowMax = +inf).
Value emitLogSumExp(ImplicitLocOpBuilder &b, Value rowMax, Value den);

} // namespace mlir::pa

#endif // PA_TRANSFORMS_SCOREMATH_H
