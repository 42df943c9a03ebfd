//===- LLVMSupport.h - pieces both GPU targets use around LLVM --*- C++ -*-===//
//
// Shared by the AMD (CodeObject.cpp) and NVIDIA (PTX.cpp) code generators:
// the O3 optimization of the kernels' LLVM IR, collecting LLVM's error
// diagnostics instead of letting them exit the process, and temporary files
// for the linker / assembler runs.
//
//===----------------------------------------------------------------------===//
#ifndef PA_TARGET_LLVMSUPPORT_H
#define PA_TARGET_LLVMSUPPORT_H

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>

namespace llvm {
class Module;
class TargetMachine;
class PipelineTuningOptions;
} // namespace llvm

namespace mlir {
class Operation;
} // namespace mlir

namespace mlir::pa {

/// What createTargetMachine needs of one LLVM backend.
struct LLVMBackend {
  /// LLVM's name of the target ("AMDGPU", "NVPTX"), in errors.
  llvm::StringRef name;
  llvm::StringRef triple;
  llvm::StringRef features;
  std::optional<llvm::Reloc::Model> relocation;
  /// The backend's LLVMInitialize* functions, run once per process.
  llvm::ArrayRef<void (*)()> initializers;
};

/// A target machine for `chip` of `backend` at O3, the backend initialized
/// on first use; null with `error` set when LLVM lacks it.
std::unique_ptr<llvm::TargetMachine>
createTargetMachine(const LLVMBackend &backend, llvm::StringRef chip,
                    std::string &error);

/// Gives `kernels` (a gpu.module) the data layout `backend` uses for
/// `chip`, and returns it, so that memref and index arithmetic agree with
/// the backend's; an error at `kernels` when LLVM lacks the target.
FailureOr<llvm::DataLayout> setDataLayout(Operation *kernels,
                                          const LLVMBackend &backend,
                                          llvm::StringRef chip);

/// Collects the MLIR diagnostics of `context` while alive as text in
/// `text`, a line each ("file:line:col: error: message", the location in its
/// MLIR form when it has no file position), each note after its
/// diagnostic: the errors of the compileTo* entry points (for the C API).
class DiagnosticText {
public:
  DiagnosticText(MLIRContext *context, std::string &text);

private:
  llvm::raw_string_ostream stream;
  ScopedDiagnosticHandler handler;
};

/// LLVM's default O3 module pipeline for `machine`, with `tuning`.
void optimizeModuleO3(llvm::Module &module, llvm::TargetMachine &machine,
                      const llvm::PipelineTuningOptions &tuning);

/// Collects the errors LLVM reports through `context` while alive (by
/// default an error diagnostic there exits the process, e.g. the AMDGPU
/// backend's "local memory exceeds limit").
class LLVMDiagnosticCollector {
public:
  explicit LLVMDiagnosticCollector(llvm::LLVMContext &context)
      : context(context), previous(context.getDiagnosticHandler()) {
    context.setDiagnosticHandler(std::make_unique<Handler>(errors));
  }
  ~LLVMDiagnosticCollector() {
    context.setDiagnosticHandler(std::move(previous));
  }
  LLVMDiagnosticCollector(const LLVMDiagnosticCollector &) = delete;
  LLVMDiagnosticCollector &operator=(const LLVMDiagnosticCollector &) = delete;

  /// Fails with the collected errors as one diagnostic at `loc`.
  LogicalResult check(Location loc, llvm::StringRef stage) const {
    if (errors.empty())
      return success();
    return emitError(loc) << stage << " failed: " << llvm::join(errors, "; ");
  }

private:
  struct Handler : llvm::DiagnosticHandler {
    explicit Handler(llvm::SmallVectorImpl<std::string> &errors)
        : errors(errors) {}
    bool handleDiagnostics(const llvm::DiagnosticInfo &info) override {
      if (info.getSeverity() != llvm::DS_Error)
        return true;
      std::string message;
      llvm::raw_string_ostream os(message);
      llvm::DiagnosticPrinterRawOStream printer(os);
      info.print(printer);
      errors.push_back(std::move(message));
      return true;
    }
    llvm::SmallVectorImpl<std::string> &errors;
  };

  llvm::LLVMContext &context;
  std::unique_ptr<llvm::DiagnosticHandler> previous;
  llvm::SmallVector<std::string> errors;
};

/// A temporary file removed when this object dies.
struct TempFile {
  llvm::SmallString<128> path;
  TempFile() = default;
  TempFile(const TempFile &) = delete;
  TempFile &operator=(const TempFile &) = delete;
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
  /// Creates the file (a name ending in `suffix`); an error at `loc`.
  LogicalResult create(llvm::StringRef suffix, Location loc) {
    if (std::error_code ec =
            llvm::sys::fs::createTemporaryFile("pa-kernels", suffix, path))
      return emitError(loc) << "cannot create a temporary file: "
                            << ec.message();
    return success();
  }
};

} // namespace mlir::pa

#endif // PA_TARGET_LLVMSUPPORT_H
