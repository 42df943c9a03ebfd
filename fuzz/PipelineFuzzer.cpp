//===- PipelineFuzzer.cpp - libFuzzer over parse -> verify -> pipelines ---===//
//
// One input is the text of an MLIR module, as a front end would hand it to
// pa-opt or pa-compile. Each input is
//   0. refused when it nests deeper than pa-compile and the C API accept
//      (pa/IR/NestingDepth.h); the rest runs, as there, on a thread with
//      the compiler's large stack;
//   1. parsed (which runs every verifier, the pa dialect's included);
//   2. when it parsed and uses only the dialects a front end writes (builtin,
//      func, arith, memref, pa), lowered by the host pipeline
//      (pa-lower-to-host, up to the LLVM dialect: what HostProgram JITs) and,
//      on a fresh copy, compiled all the way to an AMD code object
//      (amdBackend().compile: pa-lower-to-rocdl, LLVM O3, AMDGPU codegen,
//      assembler, lld, metadata) for gfx942 when the input mentions its fp8
//      flavour (f8E4M3FNUZ) and gfx950 otherwise.
// Every failure must be a diagnostic; a crash, a sanitizer report, a hang or
// an unbounded allocation is a finding (docs/reliability.md).
//
// Each input gets a fresh MLIRContext: uniqued types and attributes would
// otherwise accumulate over millions of inputs, and a finding replays
// exactly from its input alone.
//
//===----------------------------------------------------------------------===//
#include "pa/IR/NestingDepth.h"
#include "pa/IR/PaDialect.h"
#include "pa/Target/AMD/CodeObject.h"
#include "pa/Transforms/Passes.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/StringSet.h"

#include <cstddef>
#include <cstdint>
#include <string>

using namespace mlir;

namespace {

/// The dialects pa-compile registers: everything the pipelines create.
DialectRegistry makeRegistry() {
  DialectRegistry registry;
  registry
      .insert<pa::PaDialect, affine::AffineDialect, amdgpu::AMDGPUDialect,
              arith::ArithDialect, cf::ControlFlowDialect, func::FuncDialect,
              gpu::GPUDialect, index::IndexDialect, LLVM::LLVMDialect,
              math::MathDialect, memref::MemRefDialect, ROCDL::ROCDLDialect,
              scf::SCFDialect, ub::UBDialect, vector::VectorDialect>();
  return registry;
}

/// Whether every op of `module` is one a front end writes around pa ops.
/// Other dialects are still parsed and verified, but their lowerings are
/// upstream MLIR's, not this project's, so the pipelines are not run on
/// them.
bool usesFrontEndDialectsOnly(ModuleOp module) {
  static const llvm::StringSet<> allowed = {"builtin", "func", "arith",
                                            "memref", "pa"};
  WalkResult walk = module.walk([](Operation *op) {
    return allowed.contains(op->getName().getDialectNamespace())
               ? WalkResult::advance()
               : WalkResult::interrupt();
  });
  return !walk.wasInterrupted();
}

void runHostPipeline(ModuleOp module) {
  PassManager pm(module.getContext());
  pa::buildHostPipeline(pm, "gfx950");
  (void)pm.run(module);
}

void compileCodeObject(ModuleOp module, llvm::StringRef chip) {
  pa::AMDCompileOptions options;
  options.chip = chip.str();
  std::string error;
  (void)pa::amdBackend().compile(module, options, error);
}

/// Parse, verify, lower and compile one input.
void processInput(llvm::StringRef input) {
  static const DialectRegistry registry = makeRegistry();
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  // Diagnostics are the expected outcome of most inputs: swallow them.
  ScopedDiagnosticHandler quiet(&context, [](Diagnostic &) {
    return success();
  });

  // NUL-terminated, like the files and C strings of the real entry points:
  // MLIR's lexer reads the terminator past the end of its buffer.
  const std::string text = input.str();
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(text, &context, "fuzz-input");
  if (!module || !usesFrontEndDialectsOnly(*module))
    return;

  OwningOpRef<ModuleOp> forHost = module->clone();
  runHostPipeline(*forHost);
  bool fnuz = input.contains("f8E4M3FNUZ");
  compileCodeObject(*module, fnuz ? "gfx942" : "gfx950");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef input(reinterpret_cast<const char *>(data), size);
  // As every entry point: text too deep is refused before parsing, the rest
  // runs on the compiler's large stack (docs/reliability.md).
  if (!pa::checkNestingDepth(input).empty())
    return 0;
  if (!pa::runOnCompilerStack([&] { processInput(input); }))
    __builtin_trap(); // no thread: the run's environment, not an input
  return 0;
}
