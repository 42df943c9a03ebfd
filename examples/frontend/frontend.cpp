//===- frontend.cpp - embedding pa-mlir the way a compiler frontend does --===//
//
//   pa-frontend-example [--chip=gfx950] [-o OUT.hsaco]
//
// A frontend with its own MLIR context and pass manager:
//   1. registers the pa dialect, the dialects its pipelines need and the pa
//      passes into its own registry;
//   2. builds its own function (one layer of a model's decode step) and
//      emits pa.plan / pa.decode / pa.reduce into it with the OpBuilder
//      helpers, the attributes coming from a plain DecodeConfig;
//   3. adds the named pipeline `pa-lower-to-rocdl` to its own PassManager,
//      after its own cleanup pass, and runs it;
//   4. turns the kernels into a code object with the target's stage
//      functions and writes OUT.hsaco and OUT.hsaco.json;
//   5. reads the sidecar back the way the HIP launcher does, and loads the
//      code object with HIP when this machine has an AMD GPU.
//
//===----------------------------------------------------------------------===//
#include "pa/API/Builders.h"
#include "pa/Runtime/HipLauncher.h"
#include "pa/Runtime/LauncherCore.h"
#include "pa/Target/AMD/CodeObject.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <fstream>

// The compiler API is mlir::pa, the launcher (plain C++) ::pa::runtime.
using namespace mlir;
namespace cl = llvm::cl;

namespace {
cl::opt<std::string> chip("chip", cl::desc("AMD chip (gfx942, gfx950)"),
                          cl::init("gfx950"));
cl::opt<std::string> output("o", cl::desc("code object to write"),
                            cl::init("frontend-decode.hsaco"));

/// Step 2: the frontend's function for one decode layer, its operands the
/// memrefs of the configuration, its body the three pa ops.
func::FuncOp buildDecodeLayer(OpBuilder &builder, ModuleOp module,
                              const mlir::pa::DecodeConfig &config) {
  Location loc = builder.getUnknownLoc();
  builder.setInsertionPointToEnd(module.getBody());
  auto operandTypes =
      mlir::pa::decodeOperandTypes(*builder.getContext(), config);
  SmallVector<Type> types;
  for (const auto &[name, type] : operandTypes)
    types.push_back(type);
  auto func = func::FuncOp::create(builder, loc, "layer0_attention_decode",
                                   builder.getFunctionType(types, {}));
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToStart(body);

  mlir::pa::DecodeOperands operands;
  for (auto [operand, argument] :
       llvm::zip_equal(operandTypes, body->getArguments()))
    *operands.lookup(operand.first) = argument;
  mlir::pa::buildDecodeSequence(builder, loc, config, operands);
  func::ReturnOp::create(builder, loc);
  return func;
}

bool writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream file(path, std::ios::binary);
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return bool(file);
}

int fail(const std::string &message) {
  llvm::errs() << "pa-frontend-example: " << message << "\n";
  return 1;
}
} // namespace

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv, "pa-mlir embedding example\n");
  // lld (step 4) resets the cl::opts: keep what they said.
  const std::string chipName = chip, outputPath = output;

  // 1. Registration into the frontend's own registry and context.
  DialectRegistry registry;
  mlir::pa::registerPaDialectsAndPasses(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  // 2. The ops, from a plain configuration: a GQA-8 model with D = 128,
  //    fp8 KV with per-token scales and a 4096-token sliding window.
  mlir::pa::DecodeConfig config;
  config.numQueryHeads = 32;
  config.numKVHeads = 4;
  config.headDim = 128;
  config.pageSize = 16;
  config.kvType = chipName == "gfx942" ? mlir::pa::KVCacheType::e4m3fnuz
                                       : mlir::pa::KVCacheType::e4m3fn;
  config.scaleMode = mlir::pa::ScaleMode::per_token;
  config.slidingWindow = 4096;
  config.chip = chipName;
  if (std::string problem = config.validate(); !problem.empty())
    return fail(problem);

  OpBuilder builder(&context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(builder.getUnknownLoc());
  buildDecodeLayer(builder, *module, config);
  if (failed(verify(*module)))
    return fail("the built module does not verify");

  // 3. The frontend's pass manager: its own pass, then pa's pipeline.
  PassManager pm(&context);
  pm.addPass(createCanonicalizerPass());
  std::string error;
  if (failed(mlir::pa::addPaPipeline(pm, "pa-lower-to-rocdl", chipName, error)))
    return fail(error);
  if (failed(pm.run(*module)))
    return fail("pa-lower-to-rocdl failed");

  // 4. Kernels (now LLVM/ROCDL) to a code object and its sidecar.
  //    The AMD backend's last two stages (pa/Target/Backend.h).
  mlir::pa::AMDCompileOptions options;
  options.chip = chipName;
  const mlir::pa::Backend<mlir::pa::AMDCompileOptions> &amd =
      mlir::pa::amdBackend();
  llvm::LLVMContext llvmContext;
  auto llvmModule = amd.translate(*module, options, llvmContext);
  if (failed(llvmModule))
    return fail("cannot translate the kernels to LLVM IR");
  FailureOr<mlir::pa::KernelImage> codeObject =
      amd.emit(*module, **llvmModule, options);
  if (failed(codeObject))
    return fail("code generation failed");
  if (!writeFile(outputPath, codeObject->binary) ||
      !writeFile(outputPath + ".json", codeObject->metadataJson))
    return fail("cannot write " + outputPath);

  // 5. What a launcher sees: kernels in launch order with their grids.
  ::pa::runtime::ModuleManifest manifest;
  if (!::pa::runtime::parseAMDManifest(codeObject->metadataJson, manifest,
                                     error) ||
      !::pa::runtime::checkDecodeSequence(manifest, error))
    return fail(error);
  llvm::outs() << "wrote " << outputPath << " (" << codeObject->binary.size()
               << " bytes) and " << outputPath << ".json for "
               << manifest.target << "\n";
  for (const ::pa::runtime::KernelInfo &kernel : manifest.kernels)
    llvm::outs() << "  launch " << kernel.name << ": grid "
                 << kernel.gridFormula
                 << ", " << kernel.blockSize[0] << " threads, "
                 << kernel.params.size() << " arguments ("
                 << kernel.paramBytes << " bytes)\n";

  const ::pa::runtime::HipRuntime *hip = ::pa::runtime::HipRuntime::get(error);
  if (!hip) {
    llvm::outs() << "HIP: not loaded here (" << error << ")\n";
    return 0;
  }
  auto program = ::pa::runtime::HipProgram::load(
      *hip, codeObject->binary, codeObject->metadataJson, error);
  if (!program)
    return fail(error);
  llvm::outs() << "HIP: loaded with " << hip->libraryPath() << "\n";
  return 0;
}
