//===- NVIDIA.h - pa-compile for NVIDIA chips -------------------*- C++ -*-===//
#ifndef PA_TOOLS_PACOMPILE_NVIDIA_H
#define PA_TOOLS_PACOMPILE_NVIDIA_H

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/SourceMgr.h"

#include <string>

namespace mlir::pa {

/// True for the chips pa-compile builds PTX for (sm_90a).
bool isNVIDIAChipName(llvm::StringRef chip);

struct NVIDIARequest {
  enum class Emit { Binary, PTX, LLVM, MLIR };
  std::string chip;
  Emit emit = Emit::Binary;
  /// The binary's format: "ptx" (default) or "cubin" (runs ptxas).
  std::string format = "ptx";
  std::string output;
  /// With Emit::Binary: write the AOT program directory OUT instead of OUT
  /// and OUT.json.
  bool program = false;
  bool printResources = false;
  bool printTime = false;
  /// One Backend::compile call (the C API's path) instead of stage by
  /// stage.
  bool throughAPI = false;
};

/// Parses the module in `sourceMgr` and writes what `request` asks for:
/// OUT (PTX or cubin) and OUT.json, or PTX / LLVM IR / MLIR text.
LogicalResult compileForNVIDIA(MLIRContext &context, llvm::SourceMgr &sourceMgr,
                               const NVIDIARequest &request);

} // namespace mlir::pa

#endif // PA_TOOLS_PACOMPILE_NVIDIA_H
