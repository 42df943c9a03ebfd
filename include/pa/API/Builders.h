//===- Builders.h - embedding the pa dialect in a compiler ------*- C++ -*-===//
//
// What a frontend (a compiler or a serving engine with its own MLIR context)
// needs to use pa-mlir inside its own pipeline:
//
//   DialectRegistry registry;
//   pa::registerPaDialectsAndPasses(registry);  // dialects + global passes
//   MLIRContext context(registry);
//   ... OpBuilder b; func with memref arguments ...
//   pa::DecodeConfig config;  config.numQueryHeads = 16; ...
//   pa::DecodeOperands operands;  operands.query = %q; ...
//   pa::buildDecodeSequence(b, loc, config, operands);  // plan, decode, reduce
//   // (on tensors: pa::addBufferizeToMemRefForm(pm) first, below)
//   PassManager pm(&context);
//   pa::addPaPipeline(pm, "pa-lower-to-rocdl", config.chip, error);
//   // or pa::compileModule (Compile.h) for the whole way to a code object.
//
// The attributes of the ops come from the plain DecodeConfig struct
// (DecodeConfig.h); the op verifiers stay the one place that says which
// configurations are supported.
//
//===----------------------------------------------------------------------===//
#ifndef PA_API_BUILDERS_H
#define PA_API_BUILDERS_H

#include "pa/API/DecodeConfig.h"
#include "pa/IR/PaOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"

#include <string>

namespace mlir::pa {

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

/// Inserts the pa dialect and every dialect the pa pipelines create (func,
/// memref, arith, scf, cf, math, vector, affine, index, gpu, amdgpu, rocdl,
/// nvvm, llvm, ub), and the LLVM IR translations of those that have one,
/// into `registry`.
void registerPaDialects(DialectRegistry &registry);

/// Registers the pa passes and the named pipelines (pa-lower-to-host,
/// pa-lower-to-rocdl, ...) in MLIR's global pass registry, so that textual
/// pipelines (`parsePassPipeline`, `mlir-opt`-style tools) find them. Safe
/// to call more than once and from several threads.
void registerPaPasses();

/// Both of the above.
void registerPaDialectsAndPasses(DialectRegistry &registry);

//===----------------------------------------------------------------------===//
// Ops from a configuration
//===----------------------------------------------------------------------===//

/// The operands of one decode (memref values); the optional ones stay null
/// when the configuration has none. Their types must be those of
/// decodeOperandTypes (the verifier reports any other). Or all ranked
/// tensors of those shapes (the tensor form): then each builder gives its op
/// one tensor result per destination (destination-passing style), and
/// addBufferizeToMemRefForm makes the memref form of it.
struct DecodeOperands {
  Value query, keyCache, valueCache, blockTables, contextLengths;
  Value kScale, vScale, sinks;
  Value alibiSlopes; // with DecodeConfig::hasAlibi
  Value workInfo, reduceInfo, expSums, maxLogits, tmpOut, output;
  Value lse; // with DecodeConfig::returnLse

  /// The field of the pa operand `name` ("query", "k_scale", ...), or null
  /// for a name no pa op has.
  Value *lookup(llvm::StringRef name);
};

/// The memref types of the operands of `config` in argument order, under
/// their pa operand names (absent scales and sinks left out): static head
/// counts, head dim, page size and rows; dynamic batch, page pool,
/// block-table width and plan capacity.
SmallVector<std::pair<llvm::StringRef, MemRefType>>
decodeOperandTypes(MLIRContext &context, const DecodeConfig &config);

/// `pa.plan` with the budget and partition bound of `config` made explicit,
/// so that the IR and a runtime sizing buffers with
/// DecodeConfig::planCapacity agree.
PlanOp buildPlanOp(OpBuilder &builder, Location loc, const DecodeConfig &config,
                   const DecodeOperands &operands);

/// `pa.decode` with kv_layout, scale, sliding_window, softmax_scale,
/// compute and logits_soft_cap from `config`.
DecodeOp buildDecodeOp(OpBuilder &builder, Location loc,
                       const DecodeConfig &config,
                       const DecodeOperands &operands);

/// `pa.reduce` (sinks when `operands.sinks` is set, lse when `operands.lse`
/// is).
ReduceOp buildReduceOp(OpBuilder &builder, Location loc,
                       const DecodeOperands &operands);

/// pa.plan -> pa.decode -> pa.reduce at the builder's insertion point.
/// Returns `operands` with each destination replaced by the value written
/// to it: on tensors the op's result (the decode reads the plan's work_info
/// result, the reduce the decode's partials), on memrefs the same buffer.
DecodeOperands buildDecodeSequence(OpBuilder &builder, Location loc,
                                   const DecodeConfig &config,
                                   const DecodeOperands &operands);

//===----------------------------------------------------------------------===//
// Pipelines
//===----------------------------------------------------------------------===//

/// Adds what turns pa ops on tensors, in functions on tensors, into the
/// memref form the pipelines lower: one-shot-bufferize over function
/// boundaries with row-major memrefs there (the pa ops write in place into
/// the buffers of their destinations), then drop-equivalent-buffer-results
/// (a private function returning its own argument buffers then returns
/// nothing; upstream leaves public signatures alone). The context needs
/// registerPaDialects' bufferization models.
void addBufferizeToMemRefForm(OpPassManager &pm);

/// Adds the registered pipeline `name` (pa-lower-to-host, pa-lower-to-rocdl,
/// or any other registered one that takes a `chip` option) for `chip` to
/// `pm`; false with `error` when no such pipeline is registered or it
/// rejects the options. Calls registerPaPasses first.
LogicalResult addPaPipeline(OpPassManager &pm, llvm::StringRef name,
                            llvm::StringRef chip, std::string &error);

} // namespace mlir::pa

#endif // PA_API_BUILDERS_H
