//===- Compile.cpp - pa programs to GPU code objects, with stages ---------===//
//
// The stages of the AMD (CodeObject.h) and NVIDIA (PTX.h) backends
// (Backend.h), run here with our own pass manager so that an
// instrumentation can keep the IR between stages; errors are collected as
// text.
//
//===----------------------------------------------------------------------===//
#include "pa/API/Compile.h"

#include "DiagnosticCapture.h"
#include "pa/API/Builders.h"
#include "pa/IR/Chip.h"
#include "pa/IR/NestingDepth.h"
#include "pa/Target/AMD/CodeObject.h"
#include "pa/Target/NVIDIA/PTX.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::pa;

namespace {

/// Collects stage texts when asked to; does nothing otherwise, so the
/// printing costs nothing in a normal compile.
class StageRecorder {
public:
  explicit StageRecorder(bool enabled) : enabled(enabled) {}

  void record(llvm::StringRef name, Operation *op) {
    if (!enabled)
      return;
    std::string text;
    llvm::raw_string_ostream os(text);
    op->print(os);
    stages.push_back({name.str(), std::move(text)});
  }
  void record(llvm::StringRef name, const llvm::Module &module) {
    if (!enabled)
      return;
    std::string text;
    llvm::raw_string_ostream os(text);
    module.print(os, nullptr);
    stages.push_back({name.str(), std::move(text)});
  }
  void record(llvm::StringRef name, std::string text) {
    if (enabled)
      stages.push_back({name.str(), std::move(text)});
  }

  /// Keeps the whole module after the pass that ends the tiled IR
  /// (pa-stage-page-ids runs on gpu.module @pa_kernels, inside it).
  void attach(PassManager &pm) {
    if (enabled)
      pm.addInstrumentation(std::make_unique<TiledStage>(*this));
  }

  std::vector<CompileStage> take() { return std::move(stages); }

private:
  struct TiledStage : PassInstrumentation {
    explicit TiledStage(StageRecorder &recorder) : recorder(recorder) {}
    void runAfterPass(Pass *pass, Operation *op) override {
      if (pass->getArgument() != "pa-stage-page-ids")
        return;
      Operation *root = op;
      while (Operation *parent = root->getParentOp())
        root = parent;
      recorder.record("tiled", root);
    }
    StageRecorder &recorder;
  };

  bool enabled;
  std::vector<CompileStage> stages;
};

/// The stages' names (CompiledKernels::stages) and the image a vendor loads.
struct StageNames {
  llvm::StringLiteral lowered;  // the module after the vendor's pipeline
  llvm::StringLiteral assembly; // KernelImage::assembly
  llvm::StringLiteral format;   // CompiledKernels::format
  bool loadsAssembly;           // the runtime loads the assembly (PTX)
};

/// `module` through `backend`'s stages, recording them.
template <typename Options>
FailureOr<CompiledKernels>
compileStages(ModuleOp module, const Backend<Options> &backend,
              const Options &options, const StageNames &names,
              StageRecorder &stages) {
  if (failed(backend.lower(module, options,
                           [&](PassManager &pm) { stages.attach(pm); })))
    return failure();
  stages.record(names.lowered, module.getOperation());
  llvm::LLVMContext llvmContext;
  FailureOr<std::unique_ptr<llvm::Module>> llvmModule =
      backend.translate(module, options, llvmContext);
  if (failed(llvmModule))
    return failure();
  // Before code generation, which may rewrite the module.
  stages.record("llvm", **llvmModule);
  FailureOr<KernelImage> image = backend.emit(module, **llvmModule, options);
  if (failed(image))
    return failure();
  CompiledKernels result;
  result.format = names.format.str();
  result.codeObject =
      names.loadsAssembly ? image->assembly : std::move(image->binary);
  result.metadataJson = std::move(image->metadataJson);
  stages.record(names.assembly, std::move(image->assembly));
  return result;
}

FailureOr<CompiledKernels> compileForAMD(ModuleOp module, llvm::StringRef chip,
                                         const CompileOptions &options,
                                         StageRecorder &stages) {
  AMDCompileOptions amd;
  amd.chip = chip.str();
  amd.codeObjectVersion = options.codeObjectVersion;
  amd.fp8Residual = options.fp8Residual;
  amd.cacheOffsets = options.cacheOffsets;
  amd.keyPrefetch = options.keyPrefetch;
  amd.keepIsa = options.keepStages;
  return compileStages(module, amdBackend(), amd,
                       {"rocdl", "isa", "hsaco", false}, stages);
}

FailureOr<CompiledKernels> compileForNVIDIA(ModuleOp module,
                                            llvm::StringRef chip,
                                            const CompileOptions &options,
                                            StageRecorder &stages) {
  NVIDIACompileOptions nvidia;
  nvidia.chip = chip.str();
  nvidia.warp = nvidiaWarpOptions(options);
  return compileStages(module, nvidiaBackend(), nvidia,
                       {"nvvm", "ptx", "ptx", true}, stages);
}

/// The module through the chip's backend, diagnostics in `error`.
FailureOr<CompiledKernels> compileRecorded(ModuleOp module,
                                           llvm::StringRef chip,
                                           const CompileOptions &options,
                                           StageRecorder &stages,
                                           std::string &error) {
  DiagnosticCapture diagnostics(*module.getContext());
  std::optional<ChipInfo> info = lookupChip(chip);
  if (!info) {
    error = ("unknown chip '" + chip + "'; known chips: " + knownChipNames())
                .str();
    return failure();
  }
  stages.record("pa", module.getOperation());
  FailureOr<CompiledKernels> result =
      info->vendor == Vendor::AMD
          ? compileForAMD(module, chip, options, stages)
          : compileForNVIDIA(module, chip, options, stages);
  if (failed(result)) {
    error = diagnostics.textOr("the compilation for " + chip.str() +
                               " failed");
    return failure();
  }
  result->chip = chip.str();
  result->stages = stages.take();
  return result;
}

/// A context with every dialect the pipelines use. No thread pool: one
/// small module gains nothing from it, and callers may compile from many
/// threads.
std::unique_ptr<MLIRContext> makeCompileContext() {
  DialectRegistry registry;
  registerPaDialects(registry);
  return std::make_unique<MLIRContext>(registry,
                                       MLIRContext::Threading::DISABLED);
}
} // namespace

const std::string *CompiledKernels::stage(llvm::StringRef name) const {
  for (const CompileStage &stage : stages)
    if (stage.name == name)
      return &stage.text;
  return nullptr;
}

CompileOptions mlir::pa::withTunedKernelOptions(CompileOptions options,
                                                const DecodeConfig &config) {
  std::optional<TunedPlan> tuned = config.tunedPlan();
  return tuned ? withTunedKernelOptions(std::move(options), *tuned) : options;
}

CompileOptions mlir::pa::withTunedKernelOptions(CompileOptions options,
                                                const TunedPlan &tuned) {
  for (auto [given, saved] :
       {std::pair{&options.keyAhead, tuned.keyAhead},
        std::pair{&options.valueStage, tuned.valueStage},
        std::pair{&options.valueAhead, tuned.valueAhead}})
    if (!*given)
      *given = saved;
  // Registers or bulk copies: one choice of where key-ahead's chunks go, so
  // either given replaces the table's choice whole (a table's registers
  // beside a given bulk would ask for both).
  if (!options.keyAheadInRegisters && !options.keyAheadBulk) {
    options.keyAheadInRegisters = tuned.keyAheadInRegisters;
    options.keyAheadBulk = tuned.keyAheadBulk;
  }
  // The prefetch and the partitions that do it: one choice too (a table's
  // minimum beside a given "no prefetch" would ask for a minimum of none).
  if (!options.l2Prefetch && !options.l2PrefetchMinTiles) {
    options.l2Prefetch = tuned.l2Prefetch;
    options.l2PrefetchMinTiles = tuned.l2PrefetchMinTiles;
  }
  return options;
}

WarpOptions mlir::pa::nvidiaWarpOptions(const CompileOptions &options) {
  WarpOptions warp;
  warp.keyAheadBlocks = options.keyAhead.value_or(warp.keyAheadBlocks);
  warp.valueStageBlocks = options.valueStage.value_or(warp.valueStageBlocks);
  warp.valueAheadBlocks = options.valueAhead.value_or(warp.valueAheadBlocks);
  warp.keyAheadInRegisters =
      options.keyAheadInRegisters.value_or(warp.keyAheadInRegisters);
  warp.keyAheadBulk = options.keyAheadBulk.value_or(warp.keyAheadBulk);
  warp.l2Prefetch = options.l2Prefetch.value_or(warp.l2Prefetch);
  warp.l2PrefetchMinTiles =
      options.l2PrefetchMinTiles.value_or(warp.l2PrefetchMinTiles);
  return warp;
}

FailureOr<CompiledKernels>
mlir::pa::compileModule(ModuleOp module, llvm::StringRef chip,
                        const CompileOptions &options, std::string &error) {
  StageRecorder stages(options.keepStages);
  return compileRecorded(module, chip, options, stages, error);
}

FailureOr<CompiledKernels>
mlir::pa::compileDecode(const DecodeConfig &config,
                        const CompileOptions &options, std::string &error) {
  std::unique_ptr<MLIRContext> context = makeCompileContext();
  OwningOpRef<ModuleOp> module = buildDecodeModule(*context, config, error);
  if (!module)
    return failure();
  return compileModule(*module, config.chip,
                       withTunedKernelOptions(options, config), error);
}

FailureOr<CompiledKernels>
mlir::pa::compileModuleText(llvm::StringRef text, llvm::StringRef chip,
                            const CompileOptions &options, std::string &error,
                            llvm::StringRef bufferName) {
  // Deeper text would overflow even the compiler's stack
  // (docs/reliability.md).
  if (std::string tooDeep = checkNestingDepth(text); !tooDeep.empty()) {
    error = bufferName.str() + ":" + tooDeep;
    return failure();
  }
  FailureOr<CompiledKernels> result = failure();
  // Parsing, verifying and the pipelines recurse with the input's depth:
  // not on the caller's stack.
  if (!runOnCompilerStack([&] {
        std::unique_ptr<MLIRContext> context = makeCompileContext();
        OwningOpRef<ModuleOp> module;
        {
          DiagnosticCapture diagnostics(*context);
          // A NUL-terminated copy: MLIR's lexer reads its terminator.
          const std::string terminated = text.str();
          module = parseSourceString<ModuleOp>(terminated, context.get(),
                                               bufferName);
          if (!module) {
            error = diagnostics.textOr("the module could not be parsed");
            return;
          }
        }
        result = compileModule(*module, chip, options, error);
      }))
    error = compilerStackError();
  return result;
}
