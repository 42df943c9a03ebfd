//===- KernelBuilder.cpp - shared pieces of the op-to-kernel passes -------===//
#include "pa/Transforms/KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::pa;

FailureOr<ChipInfo> mlir::pa::resolveChip(ModuleOp module,
                                          llvm::StringRef chipName) {
  if (std::optional<ChipInfo> chip = lookupChip(chipName))
    return *chip;
  return module.emitError() << "unknown chip '" << chipName
                            << "'; expected one of " << knownChipNames();
}

gpu::GPUModuleOp mlir::pa::getOrCreateKernelModule(ModuleOp module) {
  if (auto existing = module.lookupSymbol<gpu::GPUModuleOp>(kKernelModuleName))
    return existing;
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(module.getContext()));
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  return gpu::GPUModuleOp::create(builder, module.getLoc(), kKernelModuleName);
}

MemRefType mlir::pa::workgroupMemRef(ArrayRef<int64_t> shape,
                                     Type elementType) {
  MLIRContext *ctx = elementType.getContext();
  auto space = gpu::AddressSpaceAttr::get(
      ctx, gpu::GPUDialect::getWorkgroupAddressSpace());
  return MemRefType::get(shape, elementType, MemRefLayoutAttrInterface(),
                         space);
}

gpu::GPUFuncOp mlir::pa::createKernel(OpBuilder &builder,
                                      gpu::GPUModuleOp kernels,
                                      llvm::StringRef baseName,
                                      ValueRange operands,
                                      ArrayRef<MemRefType> workgroupBuffers,
                                      const ChipInfo &chip) {
  builder.setInsertionPointToEnd(kernels.getBody());
  auto type = builder.getFunctionType(TypeRange(operands), {});
  SmallVector<Type> buffers(workgroupBuffers.begin(), workgroupBuffers.end());
  auto kernel = gpu::GPUFuncOp::create(builder, kernels.getLoc(), baseName,
                                       type, buffers);
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                  builder.getUnitAttr());
  kernel.setKnownBlockSizeAttr(builder.getDenseI32ArrayAttr(
      {static_cast<int32_t>(chip.workgroupSize), 1, 1}));
  // Unique the name within the gpu.module.
  SymbolTable symbols(kernels);
  symbols.insert(kernel);
  builder.setInsertionPointToStart(&kernel.getBody().front());
  auto ret = gpu::ReturnOp::create(builder, kernel.getLoc());
  builder.setInsertionPoint(ret);
  return kernel;
}

void mlir::pa::replaceWithLaunch(OpBuilder &builder, Operation *op,
                                 gpu::GPUFuncOp kernel,
                                 std::array<Value, 3> grid,
                                 ValueRange operands, const ChipInfo &chip) {
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(op);
  Location loc = op->getLoc();
  Value threads =
      arith::ConstantIndexOp::create(builder, loc, chip.workgroupSize);
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  gpu::LaunchFuncOp::create(builder, loc, kernel,
                            gpu::KernelDim3{grid[0], grid[1], grid[2]},
                            gpu::KernelDim3{threads, one, one},
                            /*dynamicSharedMemorySize=*/Value(), operands);
  op->erase();
}
