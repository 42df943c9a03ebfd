//===- Output.h - what pa-compile writes and prints -------------*- C++ -*-===//
//
// Shared by the AMD (pa-compile.cpp) and NVIDIA (NVIDIA.cpp) halves of the
// tool: writing an output file, and reading the kernels of a metadata
// sidecar for --print-resources.
//
//===----------------------------------------------------------------------===//
#ifndef PA_TOOLS_PACOMPILE_OUTPUT_H
#define PA_TOOLS_PACOMPILE_OUTPUT_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

namespace mlir::pa {

/// Writes `contents` to `path` ("-": stdout); the error goes to stderr.
LogicalResult writeOutput(llvm::StringRef path, llvm::StringRef contents);

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
