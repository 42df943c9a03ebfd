//===- pa-opt.cpp - the pa dialect's optimizer driver ---------------------===//
//
// mlir-opt with the pa dialect and passes, the upstream dialects and passes
// the pipeline uses, and the LLVM IR translations that gpu-module-to-binary
// needs. Unlike mlir-opt, deep input is a diagnostic, never a stack
// overflow: text nested past pa::kMaxNestingDepth is refused, and the rest
// runs on a thread with a large stack (pa/IR/NestingDepth.h).
// --pa-list-discardable-attributes prints the `pa.` attributes the dialect
// accepts on other dialects' ops (pa/IR/DiscardableAttributes.h), one a
// line: name, kind, holder.
//
//===----------------------------------------------------------------------===//
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

#include "pa/Conversion/Passes.h"
#include "pa/IR/DiscardableAttributes.h"
#include "pa/IR/NestingDepth.h"
#include "pa/IR/PaBufferization.h"
#include "pa/IR/PaDialect.h"
#include "pa/Target/AMD/Pipeline.h"
#include "pa/Target/NVIDIA/Pipeline.h"
#include "pa/Transforms/Passes.h"

static llvm::cl::opt<bool> listDiscardableAttributes(
    "pa-list-discardable-attributes",
    llvm::cl::desc("Print the pa. attributes the pa dialect accepts on other "
                   "dialects' ops (name, kind, holder) and exit"),
    llvm::cl::init(false));

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  mlir::registerAllPasses();
  mlir::pa::registerPaPassesAndPipelines();
  mlir::pa::registerPaConversionPasses();
  mlir::pa::registerAMDPipelines();
  mlir::pa::registerNVIDIAPipelines();

  mlir::DialectRegistry registry;
  registry.insert<mlir::pa::PaDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::pa::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::registerAllToLLVMIRTranslations(registry);

  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "pa-mlir optimizer driver\n", registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  if (listDiscardableAttributes) {
    for (const mlir::pa::DiscardableAttribute &attribute :
         mlir::pa::kDiscardableAttributes)
      llvm::outs() << attribute.name << "\t"
                   << mlir::pa::describeDiscardableKind(attribute.kind)
                   << "\t"
                   << mlir::pa::describeDiscardableHolder(attribute.holder)
                   << "\n";
    return 0;
  }
  // Listings read no input.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(mlir::MlirOptMain(
        argc, argv, inputFilename, outputFilename, registry));

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << "pa-opt: " << error << "\n";
    return 1;
  }
  // Deeper text would overflow even the large stack below.
  if (std::string tooDeep = mlir::pa::checkNestingDepth(input->getBuffer());
      !tooDeep.empty()) {
    llvm::errs() << input->getBufferIdentifier() << ":" << tooDeep << "\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << "pa-opt: " << error << "\n";
    return 1;
  }
  mlir::LogicalResult result = mlir::failure();
  // Parsing, verifying, the passes and the printer recurse with the input's
  // depth: on a stack of our own, not the main thread's 8 MiB.
  if (!mlir::pa::runOnCompilerStack([&] {
        result = mlir::MlirOptMain(output->os(), std::move(input), registry,
                                   config);
      })) {
    llvm::errs() << "pa-opt: " << mlir::pa::compilerStackError() << "\n";
    return 1;
  }
  if (mlir::succeeded(result))
    output->keep();
  return mlir::asMainReturnCode(result);
}
