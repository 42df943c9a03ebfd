//===- Registration.cpp - the pa dialects and passes for embedders --------===//
#include "pa/API/Builders.h"

#include "pa/Conversion/Passes.h"
#include "pa/IR/PaBufferization.h"
#include "pa/IR/PaDialect.h"
#include "pa/Target/AMD/Pipeline.h"
#include "pa/Target/NVIDIA/Pipeline.h"
#include "pa/Transforms/Passes.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"

#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;

void mlir::pa::registerPaDialects(DialectRegistry &registry) {
  registry.insert<PaDialect, affine::AffineDialect, amdgpu::AMDGPUDialect,
                  arith::ArithDialect, cf::ControlFlowDialect,
                  func::FuncDialect, gpu::GPUDialect, index::IndexDialect,
                  LLVM::LLVMDialect, math::MathDialect, memref::MemRefDialect,
                  NVVM::NVVMDialect, ROCDL::ROCDLDialect, scf::SCFDialect,
                  ub::UBDialect, vector::VectorDialect>();
  // The tensor form (addBufferizeToMemRefForm): pa ops and functions.
  pa::registerBufferizableOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  registerROCDLDialectTranslation(registry);
}

void mlir::pa::registerPaPasses() {
  // The registry is global and process-wide: register once.
  static std::once_flag once;
  std::call_once(once, [] {
    registerPaPassesAndPipelines();
    registerPaConversionPasses();
    registerAMDPipelines();
    registerNVIDIAPipelines();
  });
}

void mlir::pa::registerPaDialectsAndPasses(DialectRegistry &registry) {
  registerPaDialects(registry);
  registerPaPasses();
}

void mlir::pa::addBufferizeToMemRefForm(OpPassManager &pm) {
  bufferization::OneShotBufferizePassOptions options;
  options.bufferizeFunctionBoundaries = true;
  // The pa ops take row-major operands (the query may be strided, but a
  // tensor has no strides to give it).
  options.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(options));
  pm.addPass(bufferization::createDropEquivalentBufferResultsPass());
}

LogicalResult mlir::pa::addPaPipeline(OpPassManager &pm, llvm::StringRef name,
                                      llvm::StringRef chip,
                                      std::string &error) {
  registerPaPasses();
  const PassPipelineInfo *pipeline = PassPipelineInfo::lookup(name);
  if (!pipeline) {
    error = ("no pass pipeline named '" + name + "' is registered").str();
    return failure();
  }
  llvm::raw_string_ostream errors(error);
  std::string options = ("chip=" + chip).str();
  return pipeline->addToPipeline(pm, options, [&](const Twine &message) {
    errors << message;
    return failure();
  });
}
