//===- NVIDIA.cpp - pa-compile for NVIDIA chips ---------------------------===//
//
//   pa-compile INPUT --chip=sm_90a -o OUT.ptx [--format=ptx|cubin]
//              [--emit=isa|llvm|mlir] [--print-resources] [--print-time]
//
// Writes OUT (PTX, or a cubin assembled by ptxas) and OUT.json (the kernels'
// launch metadata). --emit=isa writes the PTX text.
//
//===----------------------------------------------------------------------===//
#include "NVIDIA.h"
#include "Output.h"

#include "pa/IR/Chip.h"
#include "pa/Target/NVIDIA/PTX.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

#include <chrono>

using namespace mlir;
using namespace mlir::pa;

bool mlir::pa::isNVIDIAChipName(StringRef chip) {
  std::optional<ChipInfo> info = lookupChip(chip);
  return info && info->vendor == Vendor::NVIDIA;
}

namespace {

/// One line per kernel of the metadata JSON.
void printResourceTable(StringRef metadataJson) {
  forEachMetadataKernel(
      metadataJson,
      [](const llvm::json::Object &root) {
        llvm::outs() << root.getString("target").value_or("") << " (PTX "
                     << root.getString("ptx_version").value_or("") << ")\n";
      },
      [](const llvm::json::Object &kernel) {
        const llvm::json::Array *block = kernel.getArray("block_size");
        llvm::outs() << llvm::formatv(
            "  {0,-12} grid [{1}] block {2} | shared {3} B, registers {4}, "
            "stack {5} B, spills {6}/{7} B, params {8} B\n",
            kernel.getString("name").value_or(""),
            kernel.getString("grid").value_or(""),
            block && !block->empty() ? (*block)[0].getAsInteger().value_or(-1)
                                     : -1,
            metadataNumber(kernel, "shared_bytes"),
            metadataNumber(kernel, "registers"),
            metadataNumber(kernel, "stack_bytes"),
            metadataNumber(kernel, "spill_store_bytes"),
            metadataNumber(kernel, "spill_load_bytes"),
            metadataNumber(kernel, "param_bytes"));
      });
}

LogicalResult writeBinary(const KernelImage &compiled,
                          const NVIDIARequest &request,
                          std::chrono::steady_clock::time_point start) {
  if (request.printTime)
    llvm::errs() << llvm::formatv(
        "pa-compile: {0} {1} in {2:F3} s\n", request.chip, request.format,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
  if (request.printResources)
    printResourceTable(compiled.metadataJson);
  if (request.emit == NVIDIARequest::Emit::PTX)
    return writeOutput(request.output, compiled.assembly);
  StringRef binary = request.format == "cubin" ? StringRef(compiled.binary)
                                               : compiled.assembly;
  return writeImage(request.output, request.program, request.chip,
                    request.format, binary, compiled.metadataJson);
}

} // namespace

LogicalResult mlir::pa::compileForNVIDIA(MLIRContext &context,
                                         llvm::SourceMgr &sourceMgr,
                                         const NVIDIARequest &request) {
  auto start = std::chrono::steady_clock::now();
  if (request.format != "ptx" && request.format != "cubin") {
    llvm::errs() << "pa-compile: --format must be ptx or cubin, got '"
                 << request.format << "'\n";
    return failure();
  }
  if (request.emit == NVIDIARequest::Emit::Binary && request.output == "-") {
    if (request.program)
      llvm::errs() << "pa-compile: --emit=program needs an output directory "
                      "(-o OUT.paprog)\n";
    else
      llvm::errs() << "pa-compile: the " << request.format
                   << " needs an output file (-o OUT." << request.format
                   << ")\n";
    return failure();
  }
  if (request.throughAPI && request.emit != NVIDIARequest::Emit::Binary) {
    llvm::errs() << "pa-compile: --through-api writes the binary only\n";
    return failure();
  }
  NVIDIACompileOptions options;
  options.chip = request.chip;
  options.emitCubin = request.format == "cubin";

  StopAfter stop =
      request.emit == NVIDIARequest::Emit::MLIR   ? StopAfter::Lowered
      : request.emit == NVIDIARequest::Emit::LLVM ? StopAfter::LLVM
                                                  : StopAfter::Image;
  FailureOr<std::optional<KernelImage>> compiled =
      runBackend(context, sourceMgr, nvidiaBackend(), options, stop,
                 request.throughAPI, request.output);
  if (failed(compiled))
    return failure();
  if (!*compiled)
    return success();
  return writeBinary(**compiled, request, start);
}
