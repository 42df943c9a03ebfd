//===- Output.h - what pa-compile writes and prints -------------*- C++ -*-===//
//
// Shared by the AMD (pa-compile.cpp) and NVIDIA (NVIDIA.cpp) halves of the
// tool: running a backend's stages, writing an output file, and reading the
// kernels of a metadata sidecar for --print-resources.
//
//===----------------------------------------------------------------------===//
#ifndef PA_TOOLS_PACOMPILE_OUTPUT_H
#define PA_TOOLS_PACOMPILE_OUTPUT_H

#include "pa/Target/Backend.h"

#include "mlir/Parser/Parser.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::pa {

/// How far pa-compile runs a backend: to the lowered module's text
/// (--emit=mlir), to the LLVM IR's (--emit=llvm), or to the image; with
/// `throughAPI` the image by one Backend::compile call (the C API's path).
enum class StopAfter { Lowered, LLVM, Image };

/// Writes `contents` to `path` ("-": stdout); the error goes to stderr.
LogicalResult writeOutput(llvm::StringRef path, llvm::StringRef contents);

/// Parses the module in `sourceMgr` and runs `backend` on it as far as
/// `stop` says: the image, or nullopt once the text of an earlier stage is
/// written to `output`. Errors go to stderr.
template <typename Options>
FailureOr<std::optional<KernelImage>>
runBackend(MLIRContext &context, llvm::SourceMgr &sourceMgr,
           const Backend<Options> &backend, const Options &options,
           StopAfter stop, bool throughAPI, llvm::StringRef output) {
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return failure();
  if (throughAPI) {
    std::string error;
    std::optional<KernelImage> image = backend.compile(*module, options, error);
    if (!image) {
      llvm::errs() << error;
      return failure();
    }
    return image;
  }
  // The stage's text written: no image.
  auto written =
      [&](const std::string &text) -> FailureOr<std::optional<KernelImage>> {
    if (failed(writeOutput(output, text)))
      return failure();
    return std::optional<KernelImage>();
  };
  std::string text;
  llvm::raw_string_ostream os(text);
  if (failed(backend.lower(*module, options)))
    return failure();
  if (stop == StopAfter::Lowered) {
    module->print(os);
    return written(text);
  }
  llvm::LLVMContext llvmContext;
  FailureOr<std::unique_ptr<llvm::Module>> llvmModule =
      backend.translate(*module, options, llvmContext);
  if (failed(llvmModule))
    return failure();
  if (stop == StopAfter::LLVM) {
    (*llvmModule)->print(os, nullptr);
    return written(text);
  }
  FailureOr<KernelImage> image = backend.emit(*module, **llvmModule, options);
  if (failed(image))
    return failure();
  return std::optional<KernelImage>(std::move(*image));
}

/// Writes a compiled image `image` of `format` ("hsaco", "ptx", "cubin")
/// for `chip` and its sidecar: as OUT and OUT.json, or with `asProgram` as
/// the AOT program directory OUT (pa/Runtime/ProgramArtifact.h) that the
/// runtime library loads. Errors go to stderr.
LogicalResult writeImage(llvm::StringRef output, bool asProgram,
                         llvm::StringRef chip, llvm::StringRef format,
                         llvm::StringRef image, llvm::StringRef metadataJson);

/// Calls `onRoot` with the sidecar's top-level object and then `onKernel`
/// with each entry of its "kernels" array; nothing when `metadataJson` is
/// not such a sidecar.
void forEachMetadataKernel(
    llvm::StringRef metadataJson,
    llvm::function_ref<void(const llvm::json::Object &root)> onRoot,
    llvm::function_ref<void(const llvm::json::Object &kernel)> onKernel);

/// The integer field `key` of a kernel entry; -1 when absent.
int64_t metadataNumber(const llvm::json::Object &kernel, llvm::StringRef key);

} // namespace mlir::pa

#endif // PA_TOOLS_PACOMPILE_OUTPUT_H
