//===- pa-compile.cpp - pa ops to an AMD code object ----------------------===//
//
//   pa-compile INPUT --chip=gfx942|gfx950 -o OUT.hsaco
//              [--code-object-version=5|6]
//              [--emit=hsaco|program|isa|llvm|mlir]
//
// Writes OUT.hsaco (the plan, decode and reduce kernels of INPUT) and
// OUT.hsaco.json (their metadata), or with --emit=program the AOT program
// directory OUT (program.json, code object, metadata) that the runtime
// library loads. No ROCm, no GPU: everything runs in this
// process. Every failure is a diagnostic and a non-zero exit status.
// --chip=sm_90a writes PTX (or, with --format=cubin, a cubin) instead: see
// NVIDIA.cpp.
//
//===----------------------------------------------------------------------===//
#include "NVIDIA.h"
#include "Output.h"
#include "pa/IR/NestingDepth.h"
#include "pa/IR/PaDialect.h"
#include "pa/Target/AMD/CodeObject.h"
#include "pa/Target/AMD/Pipeline.h"

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
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <chrono>
#include <functional>

using namespace mlir;
namespace cl = llvm::cl;

namespace {
enum class EmitKind { Hsaco, Program, Isa, LLVM, MLIR };

cl::opt<std::string> inputFilename(cl::Positional, cl::desc("<input .mlir>"),
                                   cl::init("-"));
cl::opt<std::string> outputFilename("o", cl::desc("output file"),
                                    cl::value_desc("path"), cl::init("-"));
cl::opt<std::string> chip("chip",
                          cl::desc("chip: gfx942, gfx950 (AMD) or sm_90a (NVIDIA)"),
                          cl::init(std::string(mlir::pa::kDefaultChip)));
cl::opt<int> codeObjectVersion("code-object-version",
                               cl::desc("AMDHSA code object version (5 or 6)"),
                               cl::init(5));
cl::opt<pa::Fp8Residual> fp8Residual(
    "fp8-residual",
    cl::desc("AMD chips, fp8 compute: the products whose operand's fp8 "
             "residual is multiplied too (pa-to-mfma)"),
    cl::init(pa::kDefaultFp8Residual), pa::fp8ResidualValues());
cl::opt<pa::CacheOffsets> cacheOffsets(
    "cache-offsets",
    cl::desc("AMD chips: how the decode kernel addresses K, V and per-token "
             "scales (pa-to-mfma)"),
    cl::init(pa::CacheOffsets::automatic), pa::cacheOffsetsValues());
cl::opt<pa::KeyPrefetch> keyPrefetch(
    "key-prefetch",
    cl::desc("AMD chips: whether the decode loop loads the next tile's K "
             "during the current tile (pa-to-mfma)"),
    cl::init(pa::KeyPrefetch::automatic), pa::keyPrefetchValues());
cl::opt<EmitKind> emit(
    "emit", cl::desc("what to write"), cl::init(EmitKind::Hsaco),
    cl::values(clEnumValN(EmitKind::Hsaco, "hsaco",
                          "the code object, and its metadata as OUTPUT.json"),
               clEnumValN(EmitKind::Program, "program",
                          "an AOT program: the directory OUTPUT with "
                          "program.json, the code object (or PTX / cubin) "
                          "and its metadata, which libPARuntimeCAPI.so "
                          "loads"),
               clEnumValN(EmitKind::Isa, "isa", "AMDGPU assembly"),
               clEnumValN(EmitKind::LLVM, "llvm",
                          "the kernels' optimized LLVM IR"),
               clEnumValN(EmitKind::MLIR, "mlir",
                          "the module after pa-lower-to-rocdl")));
cl::opt<std::string> nvidiaFormat(
    "format", cl::desc("NVIDIA chips: the binary to write, ptx or cubin"),
    cl::init("ptx"));
cl::opt<bool> printResources(
    "print-resources",
    cl::desc("print each kernel's grid and resource figures to stdout"));
cl::opt<bool> printTime("print-time",
                        cl::desc("print the compile time to stderr"));
cl::opt<bool> throughAPI(
    "through-api",
    cl::desc("compile with the single call amdBackend().compile (the C API's "
             "entry point; errors come back as text) instead of stage by "
             "stage; --emit=hsaco only"));

/// One line per kernel of the metadata JSON: what `make demo` shows.
void printResourceTable(StringRef metadataJson) {
  pa::forEachMetadataKernel(
      metadataJson,
      [](const llvm::json::Object &root) {
        if (std::optional<StringRef> target = root.getString("target"))
          llvm::outs() << *target << "\n";
      },
      [](const llvm::json::Object &kernel) {
        llvm::outs() << llvm::formatv(
            "  {0,-12} grid [{1}] workgroup {2} | LDS {3} B, VGPR {4}, AGPR "
            "{5}, SGPR {6}, scratch {7} B, kernarg {8} B\n",
            kernel.getString("name").value_or(""),
            kernel.getString("grid").value_or(""),
            pa::metadataNumber(kernel, "max_flat_workgroup_size"),
            pa::metadataNumber(kernel, "lds_bytes"),
            pa::metadataNumber(kernel, "vgpr_count"),
            pa::metadataNumber(kernel, "agpr_count"),
            pa::metadataNumber(kernel, "sgpr_count"),
            pa::metadataNumber(kernel, "scratch_bytes"),
            pa::metadataNumber(kernel, "kernarg_segment_size"));
      });
}

/// The command line, copied out of the cl::opts: lld's driver resets every
/// registered option to its default when it parses its own (-mllvm)
/// options, which happens during the link.
struct Request {
  pa::AMDCompileOptions options;
  EmitKind emit;
  std::string output;
  bool printResources;
  bool printTime;
  bool throughAPI;
};

/// Writes OUT and OUT.json, and the figures asked for.
LogicalResult writeCodeObject(const pa::KernelImage &codeObject,
                              const Request &request, double seconds) {
  if (request.printTime)
    llvm::errs() << llvm::formatv("pa-compile: {0} code object in {1:F3} s\n",
                                  request.options.chip, seconds);
  if (request.printResources)
    printResourceTable(codeObject.metadataJson);
  if (request.emit == EmitKind::Isa)
    return pa::writeOutput(request.output, codeObject.assembly);
  return pa::writeImage(request.output, request.emit == EmitKind::Program,
                        request.options.chip, "hsaco", codeObject.binary,
                        codeObject.metadataJson);
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

LogicalResult compile(MLIRContext &context, llvm::SourceMgr &sourceMgr,
                      const Request &request) {
  auto start = std::chrono::steady_clock::now();
  const pa::AMDCompileOptions &options = request.options;
  StringRef outputFilename = request.output;
  if (request.emit == EmitKind::Hsaco && outputFilename == "-") {
    llvm::errs() << "pa-compile: --emit=hsaco needs an output file (-o "
                    "OUT.hsaco)\n";
    return failure();
  }
  if (request.emit == EmitKind::Program && outputFilename == "-") {
    llvm::errs() << "pa-compile: --emit=program needs an output directory "
                    "(-o OUT.paprog)\n";
    return failure();
  }
  pa::StopAfter stop = request.emit == EmitKind::MLIR   ? pa::StopAfter::Lowered
                       : request.emit == EmitKind::LLVM ? pa::StopAfter::LLVM
                                                        : pa::StopAfter::Image;
  FailureOr<std::optional<pa::KernelImage>> codeObject =
      pa::runBackend(context, sourceMgr, pa::amdBackend(), options, stop,
                     request.throughAPI, outputFilename);
  if (failed(codeObject))
    return failure();
  if (!*codeObject)
    return success();
  return writeCodeObject(**codeObject, request, secondsSince(start));
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  cl::ParseCommandLineOptions(
      argc, argv,
      "pa-compile: pa ops to an AMD code object (.hsaco) and its metadata\n");
  pa::registerAMDPipelines();
  Request request;
  request.options.chip = chip;
  request.options.codeObjectVersion = codeObjectVersion;
  request.options.fp8Residual = fp8Residual;
  request.options.cacheOffsets = cacheOffsets;
  request.options.keyPrefetch = keyPrefetch;
  request.options.keepIsa = emit == EmitKind::Isa;
  request.emit = emit;
  request.output = outputFilename;
  request.printResources = printResources;
  request.printTime = printTime;
  request.throughAPI = throughAPI;
  if (throughAPI && emit != EmitKind::Hsaco && emit != EmitKind::Program) {
    llvm::errs() << "pa-compile: --through-api writes code objects only "
                    "(--emit=hsaco or program)\n";
    return 1;
  }

  DialectRegistry registry;
  registry
      .insert<pa::PaDialect, affine::AffineDialect, amdgpu::AMDGPUDialect,
              arith::ArithDialect, cf::ControlFlowDialect, func::FuncDialect,
              gpu::GPUDialect, index::IndexDialect, LLVM::LLVMDialect,
              math::MathDialect, memref::MemRefDialect, ROCDL::ROCDLDialect,
              scf::SCFDialect, ub::UBDialect, vector::VectorDialect>();
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << "pa-compile: " << error << "\n";
    return 1;
  }
  // Deeper text would overflow even the compiler's stack
  // (docs/reliability.md).
  if (std::string tooDeep = pa::checkNestingDepth(input->getBuffer());
      !tooDeep.empty()) {
    llvm::errs() << input->getBufferIdentifier() << ":" << tooDeep << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  LogicalResult result = failure();
  std::function<LogicalResult()> work = [&] {
    return compile(context, sourceMgr, request);
  };
  if (pa::isNVIDIAChipName(chip)) {
    pa::NVIDIARequest nvidia;
    nvidia.chip = chip;
    nvidia.emit = emit == EmitKind::Isa    ? pa::NVIDIARequest::Emit::PTX
                  : emit == EmitKind::LLVM ? pa::NVIDIARequest::Emit::LLVM
                  : emit == EmitKind::MLIR ? pa::NVIDIARequest::Emit::MLIR
                                           : pa::NVIDIARequest::Emit::Binary;
    nvidia.format = nvidiaFormat;
    nvidia.program = emit == EmitKind::Program;
    nvidia.output = outputFilename;
    nvidia.printResources = printResources;
    nvidia.printTime = printTime;
    nvidia.throughAPI = throughAPI;
    work = [&, nvidia] {
      return pa::compileForNVIDIA(context, sourceMgr, nvidia);
    };
  }
  // Parsing, verifying and the pipelines recurse with the input's depth.
  if (!pa::runOnCompilerStack([&] { result = work(); })) {
    llvm::errs() << "pa-compile: " << pa::compilerStackError() << "\n";
    return 1;
  }
  return failed(result) ? 1 : 0;
}
