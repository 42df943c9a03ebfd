//===- CodeObject.cpp - pa ops to an AMDHSA code object, in process -------===//
//
// translateModuleToLLVMIR -> O3 -> AMDGPU object (the backend's MC object
// streamer) -> lld (ELF driver, linked in as a library) -> .hsaco; the
// AMDGPU assembly on request. Nothing here runs a process or needs ROCm.
//
//===----------------------------------------------------------------------===//
#include "pa/Target/AMD/CodeObject.h"
#include "AMDTarget.h"
#include "pa/Target/AMD/Pipeline.h"
#include "pa/Target/KernelsToLLVM.h"
#include "pa/Target/LLVMSupport.h"
#include "pa/Transforms/KernelBuilder.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"

#include "lld/Common/Driver.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/Endian.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <mutex>

LLD_HAS_DRIVER(elf)

using namespace mlir;
using namespace mlir::pa;

namespace {
LogicalResult verifyOptions(Location loc, const AMDCompileOptions &options) {
  if (failed(resolveAMDChip(loc, options.chip)))
    return failure();
  if (options.codeObjectVersion != 5 && options.codeObjectVersion != 6)
    return emitError(loc) << "unsupported code object version "
                          << options.codeObjectVersion << "; expected 5 or 6";
  return success();
}

void buildPipeline(OpPassManager &pm, const AMDCompileOptions &options) {
  buildROCDLPipeline(pm, options.chip, mfmaOptionsOf(options));
}

/// Links the relocatable `object` into a shared-object code object with
/// lld's ELF driver in this process.
FailureOr<std::string> linkCodeObject(ArrayRef<char> object, Location loc) {
  TempFile input, output;
  if (failed(input.create("o", loc)) || failed(output.create("hsaco", loc)))
    return failure();
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(input.path, ec);
    if (ec)
      return emitError(loc)
             << "cannot write " << input.path << ": " << ec.message();
    os.write(object.data(), object.size());
  }

  const char *args[] = {"ld.lld", "-shared", input.path.c_str(), "-o",
                        output.path.c_str()};
  std::string messages;
  llvm::raw_string_ostream messageStream(messages);
  // lld keeps global state per link: serialize links in this process, and
  // stop linking once lld reports (after a crash it recovered from) that it
  // cannot run again. Note that each link also resets every LLVM cl::opt of
  // the process to its default (lld parses its -mllvm options).
  static std::mutex linkMutex;
  static bool lldUnusable = false;
  lld::Result result;
  {
    std::lock_guard<std::mutex> lock(linkMutex);
    if (lldUnusable)
      return emitError(loc) << "lld cannot link again in this process after "
                               "an earlier crash";
    result = lld::lldMain(args, messageStream, messageStream,
                          {{lld::Gnu, &lld::elf::link}});
    lldUnusable = !result.canRunAgain;
  }
  if (result.retCode != 0)
    return emitError(loc) << "lld failed to link the code object: " << messages;

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> linked =
      llvm::MemoryBuffer::getFile(output.path, /*IsText=*/false);
  if (!linked)
    return emitError(loc) << "cannot read the linked code object: "
                          << linked.getError().message();
  return (*linked)->getBuffer().str();
}

/// O3 for the kernels, with the code object version flag.
FailureOr<std::unique_ptr<llvm::Module>>
toLLVM(ModuleOp module, const AMDCompileOptions &options,
       llvm::TargetMachine &machine, llvm::LLVMContext &llvmContext) {
  // No loop unrolling: the kernels' loops over LDS tiles have constant trip
  // counts, and the AMDGPU unroll thresholds for LDS loops unroll them into
  // blocks of thousands of stores, on which the post-RA scheduler spends
  // seconds (quadratic in block size). The lane-0 baseline gains nothing
  // from it; pa-to-mfma emits its own unrolled MFMA code.
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = false;
  return translateKernelsToLLVMIR(
      module, llvmContext, machine,
      [](DialectRegistry &registry) {
        registerROCDLDialectTranslation(registry);
      },
      "ROCDL", tuning,
      [&](llvm::Module &llvmModule) {
        llvmModule.addModuleFlag(llvm::Module::Error,
                                 "amdhsa_code_object_version",
                                 options.codeObjectVersion * 100);
      },
      amd::kDeviceLibraries);
}

/// The occupancy request pa-to-mfma puts on the decode kernel.
constexpr llvm::StringLiteral kWavesPerEu = "amdgpu-waves-per-eu";

/// The scratch bytes per lane of kernel `name` in the relocatable `object`:
/// private_segment_fixed_size, the second 32-bit word of its kernel
/// descriptor (symbol `name.kd`); 0 when the kernel is not there.
int64_t privateSegmentBytes(ArrayRef<char> object, llvm::StringRef name) {
  std::optional<std::unique_ptr<llvm::object::ObjectFile>> file =
      llvm::expectedToOptional(llvm::object::ObjectFile::createObjectFile(
          llvm::MemoryBufferRef(llvm::StringRef(object.data(), object.size()),
                                "decode")));
  if (!file)
    return 0;
  std::string descriptor = (name + ".kd").str();
  for (const llvm::object::SymbolRef &symbol : (**file).symbols()) {
    std::optional<llvm::StringRef> symbolName =
        llvm::expectedToOptional(symbol.getName());
    if (!symbolName || *symbolName != descriptor)
      continue;
    std::optional<uint64_t> offset =
        llvm::expectedToOptional(symbol.getValue());
    std::optional<llvm::object::section_iterator> section =
        llvm::expectedToOptional(symbol.getSection());
    if (!offset || !section || *section == (**file).section_end())
      return 0;
    std::optional<llvm::StringRef> contents =
        llvm::expectedToOptional((*section)->getContents());
    constexpr uint64_t kPrivateSegmentWord = 4;
    if (!contents || *offset + kPrivateSegmentWord + 4 > contents->size())
      return 0;
    return llvm::support::endian::read32le(contents->data() + *offset +
                                           kPrivateSegmentWord);
  }
  return 0;
}

/// Object code of `llvmModule` linked into a code object (and with keepIsa
/// the assembly), the metadata read back from it.
FailureOr<KernelImage> toImage(ModuleOp module, llvm::Module &llvmModule,
                               const AMDCompileOptions &options,
                               llvm::TargetMachine &machine) {
  Location loc = module.getLoc();

  // Code generation straight to an object (no assembly text to print and
  // parse again); the assembly only when asked for, from the same module.
  auto generate = [&](llvm::Module &input, llvm::CodeGenFileType type,
                      SmallVectorImpl<char> &output) -> LogicalResult {
    output.clear();
    LLVMDiagnosticCollector diagnostics(input.getContext());
    llvm::raw_svector_ostream stream(output);
    llvm::legacy::PassManager codegen;
    if (machine.addPassesToEmitFile(codegen, stream, nullptr, type))
      return emitError(loc) << "the AMDGPU backend cannot emit "
                            << (type == llvm::CodeGenFileType::ObjectFile
                                    ? "an object"
                                    : "assembly");
    codegen.run(input);
    return diagnostics.check(loc, "AMDGPU code generation");
  };
  // Kernels asking for an occupancy (amdgpu-waves-per-eu, pa-to-mfma) are
  // generated again asking one wave fewer (below 2, nothing) while meeting
  // it makes them spill: the request is a register budget, never worth
  // scratch. Code generation may rewrite the module, hence the copy taken
  // before.
  bool requestsOccupancy =
      llvm::any_of(llvmModule, [](const llvm::Function &function) {
        return function.hasFnAttribute(kWavesPerEu);
      });
  std::unique_ptr<llvm::Module> pristine;
  if (requestsOccupancy || options.keepIsa)
    pristine = llvm::CloneModule(llvmModule);
  SmallVector<char, 0> object;
  if (failed(generate(llvmModule, llvm::CodeGenFileType::ObjectFile, object)))
    return failure();
  while (requestsOccupancy) {
    bool retry = false;
    for (llvm::Function &function : *pristine) {
      if (!function.hasFnAttribute(kWavesPerEu) ||
          privateSegmentBytes(object, function.getName()) == 0)
        continue;
      retry = true;
      unsigned waves = 0;
      function.getFnAttribute(kWavesPerEu)
          .getValueAsString()
          .split(',')
          .first.getAsInteger(10, waves);
      // "n,n": at most n as well. A minimum alone lets the scheduler aim
      // above it (up to what the LDS allows: the request that spilled), and
      // it then serialized loads it had kept in flight (gfx950's 16-row
      // kernels, asked for 3 after 4 spilled: one K load in flight per
      // wave).
      if (waves > 2)
        function.addFnAttr(kWavesPerEu, std::to_string(waves - 1) + "," +
                                            std::to_string(waves - 1));
      else
        function.removeFnAttr(kWavesPerEu);
    }
    if (!retry)
      break;
    if (failed(generate(*llvm::CloneModule(*pristine),
                        llvm::CodeGenFileType::ObjectFile, object)))
      return failure();
  }

  SmallVector<char, 0> isa;
  if (options.keepIsa &&
      failed(generate(*pristine, llvm::CodeGenFileType::AssemblyFile, isa)))
    return failure();
  FailureOr<std::string> hsaco = linkCodeObject(object, loc);
  if (failed(hsaco))
    return failure();
  // The kernels' figures as the linked code object states them.
  FailureOr<std::string> metadata = readCodeObjectMetadata(module, *hsaco);
  if (failed(metadata))
    return failure();
  return KernelImage{std::move(*hsaco), std::string(isa.begin(), isa.end()),
                     std::move(*metadata)};
}

} // namespace

const Backend<AMDCompileOptions> &mlir::pa::amdBackend() {
  static const Backend<AMDCompileOptions> backend{
      amd::kBackend, verifyOptions, buildPipeline, toLLVM, toImage};
  return backend;
}
