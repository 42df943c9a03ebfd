//===- LLVMSupport.cpp - pieces both GPU targets use around LLVM ----------===//
#include "pa/Target/LLVMSupport.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/StandardInstrumentations.h"
#include "llvm/Target/TargetMachine.h"

std::unique_ptr<llvm::TargetMachine> mlir::pa::createTargetMachine(
    llvm::StringRef tripleName, llvm::StringRef chip, llvm::StringRef features,
    std::optional<llvm::Reloc::Model> relocation, llvm::StringRef targetName,
    std::string &error) {
  llvm::Triple triple(tripleName);
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, chip, features, llvm::TargetOptions(), relocation, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    error = ("LLVM cannot create an " + targetName + " target machine for " +
             chip)
                .str();
  return machine;
}

mlir::FailureOr<llvm::DataLayout>
mlir::pa::setDataLayout(Operation *kernels, const llvm::TargetMachine *machine,
                        llvm::StringRef error) {
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
