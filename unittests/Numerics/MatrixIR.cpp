//===- MatrixIR.cpp - the AMD decode kernels of the matrix as IR ----------===//
//
// Writes, for every program of the numerics matrix (MatrixDriver.h) on each
// chip, the module right after pa-to-mfma, with cache-offsets=auto and 64,
// one file each: DIR/NNNN-<program>-<chip>[-o64].mlir. Two builds lower
// the programs the ISA and emulator CI subsets run to the same IR when
// `diff -r` finds no difference between their directories (docs/pipeline.md,
// "Proving a refactoring preserves the code"). Nothing is run.
//
//   PAMatrixIR DIR [--chips gfx942,gfx950] [--filter TEXT] [--programs N]
//
//===----------------------------------------------------------------------===//
#include "MatrixDriver.h"

#include "pa/API/Builders.h"
#include "pa/Target/AMD/Pipeline.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cctype>
#include <cstdio>
#include <fstream>

using namespace pa::numerics;

namespace {

/// Keeps the text of the whole module after pa-to-mfma.
struct AfterPaToMFMA : mlir::PassInstrumentation {
  explicit AfterPaToMFMA(std::string &text) : text(text) {}
  void runAfterPass(mlir::Pass *pass, mlir::Operation *op) override {
    if (pass->getArgument() != "pa-to-mfma")
      return;
    while (mlir::Operation *parent = op->getParentOp())
      op = parent;
    llvm::raw_string_ostream os(text);
    op->print(os);
  }
  std::string &text;
};

/// The AMD pipeline of `chip` up to pa-to-mfma: buildROCDLPipeline's
/// passes, printed and cut after that pass.
mlir::FailureOr<std::string> pipelineToPaToMFMA(mlir::MLIRContext &context,
                                          const std::string &chip,
                                          mlir::pa::CacheOffsets offsets) {
  mlir::PassManager full(&context);
  mlir::pa::buildROCDLPipeline(full, chip,
                               {mlir::pa::kDefaultFp8Residual, offsets});
  std::string text;
  llvm::raw_string_ostream os(text);
  full.printAsTextualPipeline(os);
  // any(..., gpu.module(..., pa-to-mfma{...}, ...), ...): the elements
  // inside any(), through pa-to-mfma's options, closing gpu.module(.
  size_t open = text.find('('), at = text.find("pa-to-mfma");
  if (open == std::string::npos || at == std::string::npos)
    return mlir::failure();
  size_t close = text.find('}', at);
  return text.substr(open + 1, close - open) + ")";
}

std::string fileNamePart(std::string text) {
  for (char &c : text)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.')
      c = '_';
  return text;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || argv[1][0] == '-') {
    std::printf("usage: PAMatrixIR DIR %s\n", kMatrixUsage);
    return 2;
  }
  std::string dir = argv[1];
  if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
    std::printf("PAMatrixIR: cannot create %s: %s\n", dir.c_str(),
                ec.message().c_str());
    return 2;
  }
  MatrixOptions options;
  for (int i = 2; i < argc; ++i)
    if (parseMatrixOption(argc, argv, i, options) <= 0) {
      std::printf("usage: PAMatrixIR DIR %s\n", kMatrixUsage);
      return 2;
    }
  {
    // The passes the printed pipeline names.
    mlir::DialectRegistry registry;
    mlir::pa::registerPaDialectsAndPasses(registry);
    mlir::arith::registerArithPasses();
  }
  int job = 0, written = 0;
  MatrixHooks hooks;
  hooks.compile = [&](const ProgramSpec &spec, MatrixProgram &program,
                      std::string &error) {
    ++job;
    for (mlir::pa::CacheOffsets offsets :
         {mlir::pa::CacheOffsets::automatic,
          mlir::pa::CacheOffsets::only64Bit}) {
      mlir::DialectRegistry registry;
      mlir::pa::registerPaDialects(registry);
      mlir::MLIRContext context(registry,
                                mlir::MLIRContext::Threading::DISABLED);
      mlir::OwningOpRef<mlir::ModuleOp> module =
          mlir::pa::buildDecodeModule(context, program.config, error);
      mlir::FailureOr<std::string> pipeline =
          pipelineToPaToMFMA(context, program.config.chip, offsets);
      mlir::PassManager pm(&context);
      if (!module || failed(pipeline) ||
          failed(mlir::parsePassPipeline(*pipeline, pm))) {
        error += "no module or pipeline";
        return false;
      }
      std::string text;
      pm.addInstrumentation(std::make_unique<AfterPaToMFMA>(text));
      if (failed(pm.run(*module))) {
        error = "the pipeline failed";
        return false;
      }
      char number[16];
      std::snprintf(number, sizeof number, "%04d-", job);
      std::ofstream(dir + "/" + number + fileNamePart(describe(spec)) + "-" +
                    program.config.chip +
                    (offsets == mlir::pa::CacheOffsets::only64Bit ? "-o64"
                                                                  : "") +
                    ".mlir")
          << text;
      ++written;
    }
    return true;
  };
  int status = runMatrix(options, "written", hooks);
  std::printf("%d modules written to %s\n", written, dir.c_str());
  return status;
}
