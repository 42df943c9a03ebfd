//===- Passes.h - pa lowering passes ----------------------------*- C++ -*-===//
#ifndef PA_TRANSFORMS_PASSES_H
#define PA_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::pa {

#define GEN_PASS_DECL
#include "pa/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "pa/Transforms/Passes.h.inc"

/// Registers the pa passes and the named pipelines (`pa-lower-to-host`).
void registerPaPassesAndPipelines();

} // namespace mlir::pa

#endif // PA_TRANSFORMS_PASSES_H
