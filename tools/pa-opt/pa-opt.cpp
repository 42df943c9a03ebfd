//===- pa-opt.cpp - the pa dialect's optimizer driver ---------------------===//
//
// mlir-opt with the pa dialect and passes, the upstream dialects and passes
// the pipeline uses, and the LLVM IR translations that gpu-module-to-binary
// needs.
//
//===----------------------------------------------------------------------===//
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "pa/Conversion/Passes.h"
#include "pa/IR/PaDialect.h"
#include "pa/Target/AMD/Pipeline.h"
#include "pa/Target/NVIDIA/Pipeline.h"
#include "pa/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::pa::registerPaPassesAndPipelines();
  mlir::pa::registerPaConversionPasses();
  mlir::pa::registerAMDPipelines();
  mlir::pa::registerNVIDIAPipelines();

  mlir::DialectRegistry registry;
  registry.insert<mlir::pa::PaDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "pa-mlir optimizer driver\n", registry));
}
