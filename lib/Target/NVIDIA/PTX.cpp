//===- PTX.cpp - pa ops to PTX (and a cubin), in process ------------------===//
//
// translateModuleToLLVMIR -> O3 -> NVPTX backend -> PTX text. A cubin, and
// the register / spill figures of the metadata, come from ptxas (CUDA
// toolkit) run as a separate process when it is found; the PTX needs
// nothing but this process (the CUDA driver JIT-compiles it at load).
//
//===----------------------------------------------------------------------===//
#include "pa/Target/NVIDIA/PTX.h"
#include "NVIDIATarget.h"
#include "PTXMetadata.h"
#include "pa/Target/KernelsToLLVM.h"
#include "pa/Target/LLVMSupport.h"
#include "pa/Target/NVIDIA/NontemporalLoads.h"
#include "pa/Target/NVIDIA/Pipeline.h"
#include "pa/Transforms/KernelBuilder.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::pa;

namespace {

LogicalResult verifyOptions(Location loc, const NVIDIACompileOptions &options) {
  return resolveNVIDIAChip(loc, options.chip);
}

void buildPipeline(OpPassManager &pm, const NVIDIACompileOptions &options) {
  buildNVVMPipeline(pm, options.chip, options.warp);
}

/// ptxas: the explicit path, else PATH, else the toolkit's default place.
std::optional<std::string> findPtxas(StringRef explicitPath) {
  if (!explicitPath.empty())
    return explicitPath.str();
  if (llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName("ptxas"))
    return *found;
  if (llvm::ErrorOr<std::string> found =
          llvm::sys::findProgramByName("ptxas", {"/usr/local/cuda/bin"}))
    return *found;
  return std::nullopt;
}

struct PtxasResult {
  std::string cubin;
  std::string log; // the -v report
};

/// Assembles `ptx` for `chip` with ptxas -v; the cubin and its report.
FailureOr<PtxasResult> runPtxas(StringRef ptxas, StringRef ptx, StringRef chip,
                                Location loc) {
  TempFile input, output, log;
  if (failed(input.create("ptx", loc)) || failed(output.create("cubin", loc)) ||
      failed(log.create("log", loc)))
    return failure();
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(input.path, ec);
    if (ec)
      return emitError(loc) << "cannot write " << input.path << ": "
                            << ec.message();
    os << ptx;
  }
  std::string arch = ("-arch=" + chip).str();
  SmallVector<StringRef> args = {ptxas, arch, "-v", "-o", output.path,
                                 input.path};
  std::optional<StringRef> redirects[] = {std::nullopt, log.path, log.path};
  std::string message;
  int status = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects,
                                         /*SecondsToWait=*/0, /*Memory=*/0,
                                         &message);
  PtxasResult result;
  if (auto text = llvm::MemoryBuffer::getFile(log.path))
    result.log = (*text)->getBuffer().str();
  if (status != 0)
    return emitError(loc) << "ptxas failed (" << ptxas << ", exit " << status
                          << (message.empty() ? "" : ": " + message)
                          << "): " << result.log;
  auto cubin = llvm::MemoryBuffer::getFile(output.path, /*IsText=*/false);
  if (!cubin)
    return emitError(loc) << "cannot read the cubin ptxas wrote: "
                          << cubin.getError().message();
  result.cubin = (*cubin)->getBuffer().str();
  return result;
}

FailureOr<std::unique_ptr<llvm::Module>>
toLLVM(ModuleOp module, const NVIDIACompileOptions &options,
       llvm::TargetMachine &machine, llvm::LLVMContext &llvmContext) {
  return translateKernelsToLLVMIR(
      module, llvmContext, machine,
      [](DialectRegistry &registry) {
        registerNVVMDialectTranslation(registry);
      },
      "NVVM", llvm::PipelineTuningOptions(), [](llvm::Module &) {},
      nvidia::kLibdevice);
}

/// The PTX of `llvmModule`, the cubin if asked for, the metadata.
FailureOr<KernelImage> toImage(ModuleOp module, llvm::Module &llvmModule,
                               const NVIDIACompileOptions &options,
                               llvm::TargetMachine &machine) {
  Location loc = module.getLoc();

  nvidia::lowerNontemporalGlobalLoads(llvmModule);
  KernelImage result;
  {
    LLVMDiagnosticCollector errors(llvmModule.getContext());
    llvm::raw_string_ostream ptx(result.assembly);
    llvm::buffer_ostream buffered(ptx);
    llvm::legacy::PassManager codegen;
    if (machine.addPassesToEmitFile(codegen, buffered, nullptr,
                                    llvm::CodeGenFileType::AssemblyFile))
      return emitError(loc) << "the NVPTX backend cannot emit PTX";
    codegen.run(llvmModule);
    if (failed(errors.check(loc, "NVPTX code generation")))
      return failure();
  }

  std::optional<PtxasResult> assembled;
  std::optional<std::string> ptxas = findPtxas(options.ptxasPath);
  if (options.emitCubin && !ptxas)
    return emitError(loc) << "a cubin needs ptxas (CUDA toolkit), which is "
                             "not on PATH nor in /usr/local/cuda/bin";
  if (ptxas && (options.emitCubin || options.reportResources)) {
    FailureOr<PtxasResult> ran =
        runPtxas(*ptxas, result.assembly, options.chip, loc);
    if (failed(ran))
      return failure();
    assembled = std::move(*ran);
  }
  if (options.emitCubin)
    result.binary = assembled->cubin;

  FailureOr<std::string> metadata = nvidia::writePTXMetadata(
      module, llvmModule, result.assembly, options.chip,
      options.emitCubin ? "cubin" : "ptx",
      assembled ? StringRef(assembled->log) : StringRef());
  if (failed(metadata))
    return failure();
  result.metadataJson = std::move(*metadata);
  return result;
}

} // namespace

const Backend<NVIDIACompileOptions> &mlir::pa::nvidiaBackend() {
  static const Backend<NVIDIACompileOptions> backend{
      nvidia::kBackend, verifyOptions, buildPipeline, toLLVM, toImage};
  return backend;
}
