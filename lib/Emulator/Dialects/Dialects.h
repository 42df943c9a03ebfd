//===- Dialects.h - the op handlers of each dialect ------------*- C++ -*-===//
//
// One file per dialect compiles and executes its ops: it registers a
// CompileFn per op type, which emits instructions pointing at that file's
// execute functions. Adding an op is an edit of its dialect's file; adding
// a dialect adds a file and a line in Dialects.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef PA_LIB_EMULATOR_DIALECTS_DIALECTS_H
#define PA_LIB_EMULATOR_DIALECTS_DIALECTS_H

#include "../Compiler.h"

namespace mlir::pa::emulator::detail {

/// Every dialect's handlers (Dialects.cpp).
void registerDialectHandlers(OpRegistry &registry);

void registerAffineHandlers(OpRegistry &registry);
void registerAMDGPUHandlers(OpRegistry &registry);
void registerArithHandlers(OpRegistry &registry);
void registerControlFlowHandlers(OpRegistry &registry);
void registerFuncHandlers(OpRegistry &registry);
void registerGPUHandlers(OpRegistry &registry);
void registerMathHandlers(OpRegistry &registry);
void registerMemRefHandlers(OpRegistry &registry);
void registerROCDLHandlers(OpRegistry &registry);
void registerSCFHandlers(OpRegistry &registry);
void registerUBHandlers(OpRegistry &registry);
void registerVectorHandlers(OpRegistry &registry);

/// Shared between dialects: a workgroup barrier (gpu.barrier and the AMD
/// barriers, GPU.cpp), an op without effect on the emulated state.
LogicalResult compileBarrier(OpCompiler &compiler, Operation *op);
LogicalResult compileNoEffect(OpCompiler &compiler, Operation *op);
/// The fused multiply-add of math.fma and vector.fma (Math.cpp).
LogicalResult compileFma(OpCompiler &compiler, Operation *op);

} // namespace mlir::pa::emulator::detail

#endif // PA_LIB_EMULATOR_DIALECTS_DIALECTS_H
