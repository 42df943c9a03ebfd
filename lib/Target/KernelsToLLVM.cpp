//===- KernelsToLLVM.cpp - the kernels' way to LLVM, both targets ---------===//
#include "pa/Target/KernelsToLLVM.h"
#include "pa/IR/PaDialect.h"
#include "pa/Target/KernelStrides.h"
#include "pa/Target/LLVMSupport.h"
#include "pa/Transforms/KernelBuilder.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Target/TargetMachine.h"

using namespace mlir;
using namespace mlir::pa;

void mlir::pa::addKernelsToLLVMPreparation(OpPassManager &kernels) {
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(createConvertMathToLLVMPass());
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
}

void mlir::pa::addKernelsToLLVM(OpPassManager &kernels,
                                std::unique_ptr<Pass> toVendorDialects) {
  addKernelsToLLVMPreparation(kernels);
  kernels.addPass(std::move(toVendorDialects));
  kernels.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::pa::recordKernelArguments(gpu::GPUFuncOp kernel,
                                     StringRef fieldsAttrName) {
  SmallVector<std::string> fields;
  for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes())) {
    std::string name = kernelArgumentName(kernel, i);
    auto memref = dyn_cast<MemRefType>(type);
    if (!memref) {
      fields.push_back(name);
      continue;
    }
    // The unpacked descriptor, in the order the LLVM lowering passes it.
    fields.push_back(name + ".allocated_ptr");
    fields.push_back(name + ".aligned_ptr");
    fields.push_back(name + ".offset");
    for (int64_t d = 0; d < memref.getRank(); ++d)
      fields.push_back(name + ".size[" + std::to_string(d) + "]");
    for (int64_t d = 0; d < memref.getRank(); ++d)
      fields.push_back(name + ".stride[" + std::to_string(d) + "]");
  }
  kernel->setAttr(fieldsAttrName,
                  Builder(kernel.getContext())
                      .getStrArrayAttr(SmallVector<StringRef>(fields.begin(),
                                                              fields.end())));
  recordDynamicStrides(kernel, kernel.getArgumentTypes());
}

SmallVector<std::string>
mlir::pa::readKernelArguments(Operation *kernel, StringRef fieldsAttrName) {
  SmallVector<std::string> fields;
  if (auto names = kernel->getAttrOfType<ArrayAttr>(fieldsAttrName))
    for (Attribute name : names)
      if (auto text = dyn_cast<StringAttr>(name))
        fields.push_back(text.str());
  return fields;
}

llvm::StringMap<KernelInterface>
mlir::pa::collectKernelInterfaces(ModuleOp module, StringRef fieldsAttrName) {
  llvm::StringMap<KernelInterface> kernels;
  auto kernelModule = module.lookupSymbol<gpu::GPUModuleOp>(kKernelModuleName);
  if (!kernelModule)
    return kernels;
  for (auto function : kernelModule.getOps<FunctionOpInterface>()) {
    KernelInterface &info = kernels[function.getName()];
    info.kernel = function;
    if (auto grid = function->getAttrOfType<GridAttr>(kGridAttrName))
      info.grid = grid.getFormula();
    info.argumentFields = readKernelArguments(function, fieldsAttrName);
  }
  return kernels;
}

const KernelInterface *
mlir::pa::lookupKernelInterface(const llvm::StringMap<KernelInterface> &kernels,
                                StringRef name) {
  auto found = kernels.find(name);
  return found == kernels.end() ? nullptr : &found->second;
}

LogicalResult mlir::pa::convertKernelsToLLVM(gpu::GPUModuleOp kernels,
                                             const llvm::DataLayout &dataLayout,
                                             const DeviceToLLVM &device) {
  MLIRContext *ctx = kernels.getContext();
  {
    RewritePatternSet patterns(ctx);
    populateGpuRewritePatterns(patterns);
    if (device.addRewrites)
      device.addRewrites(patterns);
    if (failed(applyPatternsGreedily(kernels, std::move(patterns))))
      return failure();
  }

  LowerToLLVMOptions options(ctx, DataLayout(kernels));
  options.dataLayout = dataLayout;
  // Window and plan arithmetic is i64 (windows reach 2^31 - 1).
  options.overrideIndexBitwidth(64);
  LLVMTypeConverter converter(ctx, options);
  device.configureTypes(converter);

  RewritePatternSet patterns(ctx);
  arith::populateArithToLLVMConversionPatterns(converter, patterns);
  cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
  populateFinalizeMemRefToLLVMConversionPatterns(converter, patterns);
  populateVectorToLLVMConversionPatterns(converter, patterns);
  index::populateIndexToLLVMConversionPatterns(converter, patterns);
  ub::populateUBToLLVMConversionPatterns(converter, patterns);
  device.addPatterns(converter, patterns);

  // Everything must end up in LLVM and the vendor dialect; LLVM's math
  // intrinsics stay (upstream marks some illegal to route them to
  // device-library calls).
  LLVMConversionTarget conversionTarget(*ctx);
  conversionTarget.addLegalDialect(device.dialect);
  conversionTarget.addLegalOp<gpu::GPUModuleOp>();
  return applyFullConversion(kernels, conversionTarget, std::move(patterns));
}

namespace {
bool isLibraryFunction(StringRef name, const UnlinkedLibrary &library) {
  return llvm::any_of(library.prefixes, [&](StringRef prefix) {
    return name.starts_with(prefix);
  });
}
} // namespace

LogicalResult
mlir::pa::checkNoExternalFunctions(gpu::GPUModuleOp kernels,
                                   const UnlinkedLibrary &library) {
  bool clean = true;
  for (auto func : kernels.getOps<LLVM::LLVMFuncOp>()) {
    if (!func.isExternal())
      continue;
    clean = false;
    StringRef name = func.getName();
    InFlightDiagnostic diag = func.emitError()
                              << "kernels call external function '" << name
                              << "', which " << library.linker;
    if (isLibraryFunction(name, library))
      diag << " (a " << library.name << " function: " << library.advice
           << ")";
  }
  return success(clean);
}

FailureOr<std::unique_ptr<llvm::Module>> mlir::pa::translateKernelsToLLVMIR(
    ModuleOp module, llvm::LLVMContext &llvmContext,
    llvm::TargetMachine &machine,
    function_ref<void(DialectRegistry &)> registerDeviceTranslation,
    StringRef deviceDialectName, const llvm::PipelineTuningOptions &tuning,
    function_ref<void(llvm::Module &)> prepare,
    const UnlinkedLibrary &library) {
  Location loc = module.getLoc();
  auto kernels = module.lookupSymbol<gpu::GPUModuleOp>(kKernelModuleName);
  if (!kernels)
    return emitError(loc) << "no gpu.module @" << kKernelModuleName
                          << " to compile (the module has no pa ops?)";

  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerDeviceTranslation(registry);
  module.getContext()->appendDialectRegistry(registry);
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(kernels, llvmContext, kKernelModuleName);
  if (!llvmModule)
    return kernels.emitError()
           << "cannot translate the kernels to LLVM IR (are they lowered "
              "to the LLVM/"
           << deviceDialectName << " dialects?)";

  llvmModule->setTargetTriple(machine.getTargetTriple());
  llvmModule->setDataLayout(machine.createDataLayout());
  prepare(*llvmModule);
  {
    LLVMDiagnosticCollector diagnostics(llvmContext);
    optimizeModuleO3(*llvmModule, machine, tuning);
    if (failed(diagnostics.check(kernels.getLoc(), "LLVM optimization")))
      return failure();
  }

  SmallVector<std::string> external;
  for (llvm::Function &function : *llvmModule)
    if (function.isDeclaration() && !function.isIntrinsic())
      external.push_back(function.getName().str());
  if (external.empty())
    return llvmModule;
  InFlightDiagnostic diag = emitError(kernels.getLoc())
                            << "the kernels' LLVM IR calls external functions "
                               "that "
                            << library.linker << ": "
                            << llvm::join(external, ", ");
  if (llvm::any_of(external, [&](StringRef name) {
        return isLibraryFunction(name, library);
      }))
    diag << " (" << library.name << " functions are not available)";
  return failure();
}
