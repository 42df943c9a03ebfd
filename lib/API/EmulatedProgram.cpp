//===- EmulatedProgram.cpp - decode on the wave64 emulator ----------------===//
#include "pa/API/EmulatedProgram.h"

#include "DiagnosticCapture.h"

#include "pa/API/Builders.h"
#include "pa/Target/AMD/Pipeline.h"
#include "pa/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::pa;

namespace {

/// Keeps a copy of every gpu.module as the first pass of the lowering tail
/// (convert-scf-to-cf) is about to run on it.
class CaptureBeforeLoweringTail : public PassInstrumentation {
public:
  explicit CaptureBeforeLoweringTail(
      llvm::StringMap<OwningOpRef<gpu::GPUModuleOp>> &captured)
      : captured(captured) {}

  void runBeforePass(Pass *pass, Operation *op) override {
    auto kernels = dyn_cast<gpu::GPUModuleOp>(op);
    if (!kernels || pass->getArgument() != "convert-scf-to-cf" ||
        captured.count(kernels.getName()))
      return;
    captured[kernels.getName()] = cast<gpu::GPUModuleOp>(op->clone());
  }

private:
  llvm::StringMap<OwningOpRef<gpu::GPUModuleOp>> &captured;
};

/// The lane-0 baseline: the tiled IR's workgroup programs on lane 0.
void buildLane0Pipeline(OpPassManager &pm, StringRef chip) {
  OpPassManager &kernels = addPaToTiledIR(pm, chip);
  kernels.addPass(createPaLowerTileToLoops());
  kernels.addPass(createPaWorkgroupToLane0());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
}

std::unique_ptr<MLIRContext> makeContext() {
  DialectRegistry registry;
  registerPaDialects(registry);
  auto context = std::make_unique<MLIRContext>(
      registry, MLIRContext::Threading::DISABLED);
  context->loadAllAvailableDialects();
  return context;
}
} // namespace

LogicalResult mlir::pa::lowerForEmulator(ModuleOp module, StringRef chip,
                                         const EmulationOptions &options,
                                         std::string &error) {
  const EmulatedKernels kernels = options.kernels;
  MLIRContext &context = *module.getContext();
  DiagnosticCapture diagnostics(context);
  if (failed(resolveAMDChip(module.getLoc(), chip))) {
    error = diagnostics.text();
    return failure();
  }
  PassManager pm(&context);
  llvm::StringMap<OwningOpRef<gpu::GPUModuleOp>> captured;
  if (kernels == EmulatedKernels::lane0Baseline) {
    buildLane0Pipeline(pm, chip);
  } else {
    buildROCDLPipeline(pm, chip, mfmaOptionsOf(options));
    pm.addInstrumentation(
        std::make_unique<CaptureBeforeLoweringTail>(captured));
  }
  if (failed(pm.run(module))) {
    error = diagnostics.textOr("the AMD pipeline failed");
    return failure();
  }
  if (kernels == EmulatedKernels::lane0Baseline)
    return success();
  // Put the captured kernels back in place of their LLVM/ROCDL form.
  for (auto converted :
       llvm::make_early_inc_range(module.getOps<gpu::GPUModuleOp>())) {
    auto found = captured.find(converted.getName());
    if (found == captured.end()) {
      error = ("the AMD pipeline never lowered gpu.module @" +
               converted.getName() + " through convert-scf-to-cf")
                  .str();
      return failure();
    }
    module.getBody()->getOperations().insert(converted->getIterator(),
                                             found->second.release());
    converted.erase();
  }
  return success();
}

EmulatedProgram::EmulatedProgram() = default;
EmulatedProgram::~EmulatedProgram() = default;

FailureOr<std::unique_ptr<EmulatedProgram>>
EmulatedProgram::compile(const DecodeConfig &config, std::string &error,
                         const EmulationOptions &options) {
  std::unique_ptr<EmulatedProgram> result(new EmulatedProgram());
  result->decodeConfig = config;
  result->context = makeContext();
  result->module = buildDecodeModule(*result->context, config, error);
  if (!result->module ||
      failed(lowerForEmulator(*result->module, config.chip, options,
                              error)))
    return failure();
  emulator::Options emulatorOptions;
  emulatorOptions.chip = config.chip;
  emulatorOptions.strictBufferBounds = options.strictBufferBounds;
  FailureOr<std::unique_ptr<emulator::Program>> program =
      emulator::Program::compile(*result->module, emulatorOptions, error);
  if (failed(program))
    return failure();
  result->program = std::move(*program);
  return result;
}

LogicalResult EmulatedProgram::run(const HostBuffers &buffers,
                                   std::string &error,
                                   emulator::Stats *stats) const {
  if (std::string problem = checkHostBuffers(decodeConfig, buffers);
      !problem.empty()) {
    error = std::move(problem);
    return failure();
  }
  return program->run(kDecodeFunctionName,
                      emulatorBindings(decodeConfig, buffers), error, stats);
}

SmallVector<emulator::MemRefBinding, 16>
mlir::pa::emulatorBindings(const DecodeConfig &config,
                           const HostBuffers &buffers) {
  SmallVector<emulator::MemRefBinding, 16> bindings;
  for (const DecodeOperand &operand : decodeOperands(config, buffers)) {
    emulator::MemRefBinding binding = emulator::MemRefBinding::rowMajor(
        const_cast<void *>(operand.data), operand.sizes,
        operand.elementBytes, operand.name, operand.readOnly);
    // A strided query: its strides, and the memory up to its last element.
    binding.strides = operand.effectiveStrides();
    binding.bytes = operand.spanElements() * operand.elementBytes;
    bindings.push_back(std::move(binding));
  }
  return bindings;
}

std::string EmulatedProgram::moduleText() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.get().print(os);
  return text;
}
