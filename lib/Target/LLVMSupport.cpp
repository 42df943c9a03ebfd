//===- LLVMSupport.cpp - pieces both GPU targets use around LLVM ----------===//
#include "pa/Target/LLVMSupport.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/StandardInstrumentations.h"
#include "llvm/Target/TargetMachine.h"

#include <mutex>

std::unique_ptr<llvm::TargetMachine>
mlir::pa::createTargetMachine(const LLVMBackend &backend, llvm::StringRef chip,
                              std::string &error) {
  {
    // Compiles may run on several threads; each backend registers once.
    static std::mutex mutex;
    static llvm::StringSet<> initialized;
    std::lock_guard<std::mutex> lock(mutex);
    if (initialized.insert(backend.name).second)
      for (void (*initialize)() : backend.initializers)
        initialize();
  }
  llvm::Triple triple(backend.triple);
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, chip, backend.features, llvm::TargetOptions(), backend.relocation,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    error = ("LLVM cannot create an " + backend.name + " target machine for " +
             chip)
                .str();
  return machine;
}

mlir::FailureOr<llvm::DataLayout>
mlir::pa::setDataLayout(Operation *kernels, const LLVMBackend &backend,
                        llvm::StringRef chip) {
  std::string error;
  std::unique_ptr<llvm::TargetMachine> machine =
      createTargetMachine(backend, chip, error);
  if (!machine)
    return kernels->emitError() << error;
  llvm::DataLayout dataLayout = machine->createDataLayout();
  kernels->setAttr(LLVM::LLVMDialect::getDataLayoutAttrName(),
                   StringAttr::get(kernels->getContext(),
                                   dataLayout.getStringRepresentation()));
  return dataLayout;
}

void mlir::pa::optimizeModuleO3(llvm::Module &module,
                                llvm::TargetMachine &machine,
                                const llvm::PipelineTuningOptions &tuning) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgsccs;
  llvm::ModuleAnalysisManager modules;
  // LLVM's instrumentation, so that -time-passes (pa-compile's command line)
  // reports the optimizer's passes too, not only code generation's.
  llvm::PassInstrumentationCallbacks callbacks;
  llvm::StandardInstrumentations instrumentations(module.getContext(),
                                                  /*DebugLogging=*/false);
  instrumentations.registerCallbacks(callbacks, &modules);
  llvm::PassBuilder builder(&machine, tuning, std::nullopt, &callbacks);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(cgsccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, cgsccs, modules);
  builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3)
      .run(module, modules);
}

namespace {
/// "file:line:col" for a location with a file position, else its MLIR form.
void printLocation(llvm::raw_ostream &os, mlir::Location loc) {
  if (auto file = loc->findInstanceOf<mlir::FileLineColLoc>())
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
  else
    os << loc;
}

const char *severityLabel(mlir::DiagnosticSeverity severity) {
  switch (severity) {
  case mlir::DiagnosticSeverity::Error:
    return "error: ";
  case mlir::DiagnosticSeverity::Warning:
    return "warning: ";
  case mlir::DiagnosticSeverity::Note:
    return "note: ";
  case mlir::DiagnosticSeverity::Remark:
    return "remark: ";
  }
  return "";
}
} // namespace

mlir::pa::DiagnosticText::DiagnosticText(MLIRContext *context,
                                         std::string &text)
    : stream(text), handler(context, [this](Diagnostic &diag) {
        printLocation(stream, diag.getLocation());
        stream << ": " << severityLabel(diag.getSeverity()) << diag << "\n";
        for (Diagnostic &note : diag.getNotes()) {
          printLocation(stream, note.getLocation());
          stream << ": note: " << note << "\n";
        }
        return success();
      }) {}
