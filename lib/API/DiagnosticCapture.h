//===- DiagnosticCapture.h - diagnostics as an error string -----*- C++ -*-===//
//
// The runtime reports every failure (verifier, pass pipeline, JIT) as text to
// its caller instead of printing it; this collects a context's diagnostics
// while it is alive.
//
//===----------------------------------------------------------------------===//
#ifndef PA_LIB_API_DIAGNOSTICCAPTURE_H
#define PA_LIB_API_DIAGNOSTICCAPTURE_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <string>

namespace mlir::pa {

class DiagnosticCapture {
public:
  explicit DiagnosticCapture(MLIRContext &context)
      : context(context), printedOp(context.shouldPrintOpOnDiagnostic()),
        handler(&context, [this](Diagnostic &diag) {
          append(diag);
          return success();
        }) {
    // The messages name the op; a dump of it (and of a whole kernel, for
    // pass failures) would bury them.
    context.printOpOnDiagnostic(false);
  }
  ~DiagnosticCapture() { context.printOpOnDiagnostic(printedOp); }
  DiagnosticCapture(const DiagnosticCapture &) = delete;
  DiagnosticCapture &operator=(const DiagnosticCapture &) = delete;

  /// Everything reported so far, one "error: ..." / "note: ..." per line.
  const std::string &text() const { return collected; }

  /// The collected text, or `fallback` when nothing was reported.
  std::string textOr(llvm::StringRef fallback) const {
    return collected.empty() ? fallback.str() : collected;
  }

private:
  void append(Diagnostic &diag) {
    appendLine(diag.getLocation(), diag.getSeverity(), diag.str());
    for (Diagnostic &note : diag.getNotes())
      appendLine(note.getLocation(), note.getSeverity(), note.str());
  }

  /// "file:line:col: error: message"; built modules have no file locations,
  /// parsed text does.
  void appendLine(Location loc, DiagnosticSeverity severity,
                  const std::string &message) {
    if (!collected.empty())
      collected += '\n';
    if (auto fileLoc = loc->findInstanceOf<FileLineColLoc>())
      collected += (fileLoc.getFilename().getValue() + ":" +
                    llvm::Twine(fileLoc.getLine()) + ":" +
                    llvm::Twine(fileLoc.getColumn()) + ": ")
                       .str();
    switch (severity) {
    case DiagnosticSeverity::Error:
      collected += "error: ";
      break;
    case DiagnosticSeverity::Warning:
      collected += "warning: ";
      break;
    case DiagnosticSeverity::Note:
      collected += "note: ";
      break;
    case DiagnosticSeverity::Remark:
      collected += "remark: ";
      break;
    }
    collected += message;
  }

  MLIRContext &context;
  bool printedOp;
  std::string collected;
  ScopedDiagnosticHandler handler;
};

} // namespace mlir::pa

#endif // PA_LIB_API_DIAGNOSTICCAPTURE_H
