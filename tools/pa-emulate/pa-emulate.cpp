//===- pa-emulate.cpp - run a module on the wave64 emulator ---------------===//
//
// The driver of the emulator's lit tests (test/Emulator): parses a module,
// compiles it for the emulator and runs its entry function (no arguments;
// test drivers allocate with memref.alloc, launch kernels with
// gpu.launch_func and check results with cf.assert). Prints "ok" (and the
// run's statistics with --print-stats) or the emulator's error, exit code 1.
//
//   pa-emulate FILE [--chip=gfx950] [--entry=main] [--lenient-buffers]
//              [--allow-uninitialized-lds] [--print-stats]
//
//===----------------------------------------------------------------------===//
#include "pa/API/Builders.h"
#include "pa/Emulator/Emulator.h"
#include "pa/IR/Chip.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace {
llvm::cl::opt<std::string> inputFile(llvm::cl::Positional,
                                     llvm::cl::desc("<input .mlir>"),
                                     llvm::cl::Required);
llvm::cl::opt<std::string>
    chip("chip", llvm::cl::desc("gfx942 or gfx950"),
         llvm::cl::init(std::string(mlir::pa::kDefaultChip)));
llvm::cl::opt<std::string> entry("entry",
                                 llvm::cl::desc("host function to run"),
                                 llvm::cl::init("main"));
llvm::cl::opt<bool> lenientBuffers(
    "lenient-buffers",
    llvm::cl::desc("out-of-range AMD buffer accesses read 0 / drop the "
                   "store, as on the hardware, instead of failing"));
llvm::cl::opt<bool> allowUninitializedLds(
    "allow-uninitialized-lds",
    llvm::cl::desc("allow reads of workgroup memory no wave wrote"));
llvm::cl::opt<bool> printStats("print-stats",
                               llvm::cl::desc("print what the run executed"));
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::ParseCommandLineOptions(argc, argv, "wave64 emulator driver\n");

  DialectRegistry registry;
  pa::registerPaDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  llvm::SourceMgr sources;
  SourceMgrDiagnosticHandler handler(sources, &context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(inputFile, sources, &context);
  if (!module)
    return 1;

  pa::emulator::Options options;
  options.chip = chip;
  options.strictBufferBounds = !lenientBuffers;
  options.checkUninitializedLds = !allowUninitializedLds;
  std::string error;
  FailureOr<std::unique_ptr<pa::emulator::Program>> program =
      pa::emulator::Program::compile(*module, options, error);
  if (failed(program)) {
    llvm::errs() << error << "\n";
    return 1;
  }
  pa::emulator::Stats stats;
  if (failed((*program)->run(entry, {}, error, &stats))) {
    llvm::errs() << error << "\n";
    return 1;
  }
  llvm::outs() << "ok\n";
  if (printStats)
    llvm::outs() << "launches " << stats.launches << ", workgroups "
                 << stats.workgroups << ", barriers " << stats.barriers
                 << ", mfmas " << stats.mfmas << ", wave instructions "
                 << stats.waveInstructions << ", lane instructions "
                 << stats.laneInstructions << ", masked buffer accesses "
                 << stats.maskedBufferAccesses << "\n";
  return 0;
}
