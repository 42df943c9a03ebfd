//===- GpuToHost.cpp - run the kernels' workgroups on the CPU -------------===//
//
// A kernel of the tiled IR is a workgroup program: sequential code that only
// asks which workgroup it is. Running every workgroup of a launch one after
// the other, with its workgroup memory on the stack, is therefore exact, and
// barriers have nothing to order.
//
//===----------------------------------------------------------------------===//
#include "pa/IR/PaDialect.h"
#include "pa/Transforms/KernelBuilder.h"
#include "pa/Transforms/Passes.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::pa {
#define GEN_PASS_DEF_PAGPUTOHOST
#include "pa/Transforms/Passes.h.inc"
} // namespace mlir::pa

using namespace mlir;
using mlir::pa::kKernelModuleName;

namespace {

/// Stack buffers get a cache-line alignment, like LDS, so vector accesses
/// to them are aligned.
constexpr int64_t kWorkgroupBufferAlignment = 64;

/// The host function a kernel became.
struct HostKernel {
  func::FuncOp func;
  /// The function takes the grid size after the workgroup id (the kernel
  /// reads gpu.grid_dim).
  bool takesGridSize;
};

bool isGpuDialectOp(Operation *op) {
  return op->getName().getDialectNamespace() ==
         gpu::GPUDialect::getDialectNamespace();
}

/// Replaces gpu address spaces (workgroup, private, global) in memref types
/// with the default one: on the host all memory is one.
AttrTypeReplacer makeAddressSpaceStripper() {
  AttrTypeReplacer stripper;
  stripper.addReplacement([](BaseMemRefType type) -> std::optional<Type> {
    if (!isa_and_present<gpu::AddressSpaceAttr>(type.getMemorySpace()))
      return std::nullopt;
    if (auto ranked = dyn_cast<MemRefType>(type))
      return MemRefType::get(ranked.getShape(), ranked.getElementType(),
                             ranked.getLayout(), Attribute());
    return UnrankedMemRefType::get(type.getElementType(), Attribute());
  });
  return stripper;
}

/// Diagnoses what a workgroup program run on the host cannot contain.
LogicalResult checkKernel(gpu::GPUFuncOp kernel) {
  for (BlockArgument attribution : llvm::concat<const BlockArgument>(
           kernel.getWorkgroupAttributions(), kernel.getPrivateAttributions())) {
    auto type = dyn_cast<MemRefType>(attribution.getType());
    if (!type || !type.hasStaticShape())
      return kernel.emitOpError()
             << "memory attribution of type " << attribution.getType()
             << " cannot become a stack buffer (needs a static memref)";
  }
  // Launch operands are host memrefs; a parameter in a gpu address space
  // would need a cast at every call.
  for (auto [index, type] : llvm::enumerate(kernel.getArgumentTypes()))
    if (auto memref = dyn_cast<BaseMemRefType>(type);
        memref && isa_and_present<gpu::AddressSpaceAttr>(memref.getMemorySpace()))
      return kernel.emitOpError()
             << "argument #" << index << " of type " << type
             << " is in a gpu address space, which the host executor does "
                "not support for kernel arguments";
  WalkResult walk = kernel.getBody().walk([](Operation *op) {
    if (!isGpuDialectOp(op) ||
        isa<gpu::BlockIdOp, gpu::GridDimOp, gpu::BarrierOp, gpu::ReturnOp>(op))
      return WalkResult::advance();
    if (isa<gpu::DynamicSharedMemoryOp>(op))
      op->emitOpError("dynamic shared memory is not supported by the host "
                      "executor; use a workgroup attribution");
    else
      op->emitOpError("cannot run on the host executor: a kernel must be a "
                      "workgroup program (gpu.block_id, gpu.grid_dim and "
                      "gpu.barrier only, no thread ids)");
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

LogicalResult checkLaunch(gpu::LaunchFuncOp launch,
                          gpu::GPUModuleOp kernels) {
  if (launch.getKernelModuleName() != kKernelModuleName)
    return launch.emitOpError()
           << "launches a kernel outside gpu.module @" << kKernelModuleName
           << ", which pa-gpu-to-host cannot run";
  if (!kernels || !kernels.lookupSymbol<gpu::GPUFuncOp>(launch.getKernelName()))
    return launch.emitOpError() << "kernel " << launch.getKernel()
                                << " not found";
  if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty() ||
      launch.getAsyncObject())
    return launch.emitOpError("asynchronous launches are not supported by the "
                              "host executor");
  if (launch.hasClusterSize())
    return launch.emitOpError("cluster launches are not supported by the host "
                              "executor");
  if (Value dynamicShared = launch.getDynamicSharedMemorySize();
      dynamicShared && !isConstantIntValue(dynamicShared, 0))
    return launch.emitOpError("dynamic shared memory is not supported by the "
                              "host executor");
  return success();
}

/// Checks everything before changing anything, so that a module the pass
/// rejects is left as it was.
LogicalResult checkModule(ModuleOp module, gpu::GPUModuleOp kernels) {
  bool ok = true;
  if (kernels) {
    for (Operation &op : kernels.getOps()) {
      auto kernel = dyn_cast<gpu::GPUFuncOp>(op);
      if (!kernel || !kernel.isKernel()) {
        op.emitOpError() << "in gpu.module @" << kKernelModuleName
                         << " is not supported by pa-gpu-to-host (only kernel "
                            "gpu.func ops)";
        ok = false;
      } else if (failed(checkKernel(kernel))) {
        ok = false;
      }
    }
  }
  module->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == kernels)
      return WalkResult::skip();
    if (auto gpuModule = dyn_cast<gpu::GPUModuleOp>(op)) {
      gpuModule.emitOpError() << "holds kernels outside gpu.module @"
                              << kKernelModuleName
                              << ", which pa-gpu-to-host cannot run";
      ok = false;
      return WalkResult::skip();
    }
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
      ok &= succeeded(checkLaunch(launch, kernels));
    } else if (isGpuDialectOp(op)) {
      op->emitOpError("cannot run on the host executor");
      ok = false;
    }
    return WalkResult::advance();
  });
  return success(ok);
}

/// Moves `kernel` into a private func.func of `module` (placed before the
/// gpu.module) taking the kernel's arguments, then the workgroup id x, y, z
/// and, when the kernel reads it, the grid size x, y, z.
HostKernel convertKernel(gpu::GPUFuncOp kernel, SymbolTable &symbols,
                         AttrTypeReplacer &stripper) {
  Location loc = kernel.getLoc();
  OpBuilder builder(kernel->getParentOp());
  bool takesGridSize = false;
  kernel.walk([&](gpu::GridDimOp) { takesGridSize = true; });

  const unsigned numKernelArgs = kernel.getFunctionType().getNumInputs();
  SmallVector<Type> inputs;
  for (Type type : kernel.getArgumentTypes())
    inputs.push_back(stripper.replace(type));
  inputs.append(takesGridSize ? 6 : 3, builder.getIndexType());
  auto func = func::FuncOp::create(builder, loc, kernel.getName(),
                                   builder.getFunctionType(inputs, {}));
  func.setPrivate();
  symbols.insert(func); // renames it if a host symbol has the kernel's name

  func.getBody().takeBody(kernel.getBody());
  Block &entry = func.getBody().front();
  builder.setInsertionPointToStart(&entry);
  // Workgroup (and private) attributions follow the arguments.
  for (BlockArgument attribution : entry.getArguments().drop_front(numKernelArgs)) {
    auto type = cast<MemRefType>(stripper.replace(attribution.getType()));
    Value buffer = memref::AllocaOp::create(
        builder, attribution.getLoc(), type,
        builder.getI64IntegerAttr(kWorkgroupBufferAlignment));
    attribution.replaceAllUsesWith(buffer);
  }
  entry.eraseArguments(numKernelArgs, entry.getNumArguments() - numKernelArgs);
  SmallVector<Value> workgroupId, gridSize;
  for (int i = 0; i < 3; ++i)
    workgroupId.push_back(entry.addArgument(builder.getIndexType(), loc));
  for (int i = 0; takesGridSize && i < 3; ++i)
    gridSize.push_back(entry.addArgument(builder.getIndexType(), loc));

  SmallVector<Operation *> gpuOps;
  func.walk([&](Operation *op) {
    if (isGpuDialectOp(op))
      gpuOps.push_back(op);
  });
  for (Operation *op : gpuOps) {
    if (auto blockId = dyn_cast<gpu::BlockIdOp>(op)) {
      blockId.replaceAllUsesWith(
          workgroupId[static_cast<unsigned>(blockId.getDimension())]);
    } else if (auto gridDim = dyn_cast<gpu::GridDimOp>(op)) {
      gridDim.replaceAllUsesWith(
          gridSize[static_cast<unsigned>(gridDim.getDimension())]);
    } else if (auto ret = dyn_cast<gpu::ReturnOp>(op)) {
      builder.setInsertionPoint(ret);
      func::ReturnOp::create(builder, ret.getLoc(), ret.getOperands());
    }
    // gpu.barrier: one workgroup runs sequentially, nothing to order.
    op->erase();
  }
  stripper.recursivelyReplaceElementsIn(func, /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/true);
  return {func, takesGridSize};
}

/// Replaces `launch` with loops over the grid (z outermost, x innermost)
/// calling the kernel's host function once per workgroup.
void replaceLaunch(gpu::LaunchFuncOp launch, const HostKernel &host) {
  OpBuilder builder(launch);
  Location loc = launch.getLoc();
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  SmallVector<Value> arguments(launch.getKernelOperands());
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  scf::buildLoopNest(
      builder, loc, {zero, zero, zero}, {grid.z, grid.y, grid.x},
      {one, one, one}, [&](OpBuilder &body, Location loc, ValueRange zyx) {
        SmallVector<Value> callArguments(arguments);
        callArguments.append({zyx[2], zyx[1], zyx[0]});
        if (host.takesGridSize)
          callArguments.append({grid.x, grid.y, grid.z});
        func::CallOp::create(body, loc, host.func, callArguments);
      });
  launch.erase();
}

struct PaGpuToHostPass : pa::impl::PaGpuToHostBase<PaGpuToHostPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto kernels = module.lookupSymbol<gpu::GPUModuleOp>(kKernelModuleName);
    if (failed(checkModule(module, kernels)))
      return signalPassFailure();

    llvm::StringMap<HostKernel> hostKernels;
    if (kernels) {
      SymbolTable symbols(module);
      AttrTypeReplacer stripper = makeAddressSpaceStripper();
      for (auto kernel :
           llvm::make_early_inc_range(kernels.getOps<gpu::GPUFuncOp>()))
        hostKernels[kernel.getName()] =
            convertKernel(kernel, symbols, stripper);
    }
    SmallVector<gpu::LaunchFuncOp> launches;
    module.walk([&](gpu::LaunchFuncOp launch) { launches.push_back(launch); });
    for (gpu::LaunchFuncOp launch : launches)
      replaceLaunch(launch, hostKernels.at(launch.getKernelName().strref()));

    if (kernels)
      kernels.erase();
    module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
    // The kernels are host functions now: the module targets no GPU, and
    // its LLVM-dialect form must parse without the pa dialect (mlir-runner).
    module->removeAttr(pa::PaDialect::kTargetAttrName);
  }
};

} // namespace
