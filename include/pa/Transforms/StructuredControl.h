//===- StructuredControl.h - scf.if one-liners of the emitters --*- C++ -*-===//
//
// The branches that the lowerings' emitters build (the tile ops' loop
// lowering, NVIDIA's warp code and plan kernel): an scf.if at the builder's
// insertion point whose regions the callbacks fill, each with its own yield.
//
//===----------------------------------------------------------------------===//
#ifndef PA_TRANSFORMS_STRUCTUREDCONTROL_H
#define PA_TRANSFORMS_STRUCTUREDCONTROL_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::pa {

/// if (cond) { thenBody() } else { elseBody() } (no else when null).
inline void buildIf(ImplicitLocOpBuilder &b, Value cond,
                    function_ref<void()> thenBody,
                    function_ref<void()> elseBody = nullptr) {
  auto terminated = [&b](function_ref<void()> body) {
    return [body, &b](OpBuilder &, Location) {
      body();
      scf::YieldOp::create(b);
    };
  };
  if (elseBody)
    scf::IfOp::create(b, cond, terminated(thenBody), terminated(elseBody));
  else
    scf::IfOp::create(b, cond, terminated(thenBody));
}

/// cond ? thenValue() : elseValue(), building only the chosen side's ops
/// in its branch.
inline Value buildIfValue(ImplicitLocOpBuilder &b, Value cond,
                          function_ref<Value()> thenValue,
                          function_ref<Value()> elseValue) {
  auto yielding = [&b](function_ref<Value()> value) {
    return [value, &b](OpBuilder &, Location) {
      scf::YieldOp::create(b, ValueRange{value()});
    };
  };
  return scf::IfOp::create(b, cond, yielding(thenValue), yielding(elseValue))
      .getResult(0);
}

} // namespace mlir::pa

#endif // PA_TRANSFORMS_STRUCTUREDCONTROL_H
