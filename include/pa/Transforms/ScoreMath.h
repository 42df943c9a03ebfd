//===- ScoreMath.h - score transforms shared by every backend ---*- C++ -*-===//
//
// The score transforms of pa.tile.qk that every lowering (host loops, AMD
// lanes, NVIDIA warps) emits the same way, so that the executors agree by
// construction: the logits soft-cap.
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

} // namespace mlir::pa

#endif // PA_TRANSFORMS_SCOREMATH_H
