//===- LaunchGrids.cpp - kernels' own grid requests on their launches -----===//
//
// pa-nvvm-launch-grids: pa-to-nvvm works inside gpu.module @pa_kernels and
// cannot touch the host function; a kernel whose new body wants more
// workgroups on grid z (the reduce kernel's row slices, ReduceToWarps.cpp)
// carries pa.nvvm.grid_z = S. This pass sets grid z of every gpu.launch_func
// of such a kernel (z = 1 until then) to S, writes "z = S" into the kernel's
// pa.grid (which the sidecar reports and the CUDA launcher
// evaluates), and drops the attribute. With pa.nvvm.grid_z_limit = L and
// pa.nvvm.grid_z_otherwise = M beside it, z is S where the launch's
// x * y <= L, else M ("z = S if x * y le L else M").
//
//===----------------------------------------------------------------------===//
#include "NVIDIATarget.h"
#include "pa/Target/NVIDIA/Pipeline.h"
#include "pa/IR/KernelAttributes.h"
#include "pa/IR/PaDialect.h"
#include "pa/Transforms/KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/Pass.h"

namespace mlir::pa {
#define GEN_PASS_DEF_PANVVMLAUNCHGRIDS
#include "pa/Target/NVIDIA/Passes.h.inc"
} // namespace mlir::pa

using namespace mlir;
using namespace mlir::pa;

namespace {

struct LaunchGridsPass : pa::impl::PaNVVMLaunchGridsBase<LaunchGridsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::SetVector<Operation *> kernels;
    WalkResult result = module.walk([&](gpu::LaunchFuncOp launch) {
      Operation *kernel =
          SymbolTable::lookupNearestSymbolFrom(launch, launch.getKernel());
      if (!kernel)
        return WalkResult::advance();
      auto slices = kernel->getAttrOfType<IntegerAttr>(kGridZAttrName);
      if (!slices)
        return WalkResult::advance();
      if (slices.getInt() < 1 || !isConstantIntValue(launch.getGridSizeZ(), 1)) {
        launch.emitError() << "pa-nvvm-launch-grids: kernel '"
                           << launch.getKernelName().getValue()
                           << "' asks for grid z = " << slices.getInt()
                           << ", but its launch's grid z is not 1";
        return WalkResult::interrupt();
      }
      FailureOr<GridExtent> z = requestedZ(kernel, slices.getInt());
      if (failed(z))
        return WalkResult::interrupt();
      OpBuilder builder(launch);
      Location loc = launch.getLoc();
      auto index = [&](int64_t v) -> Value {
        return arith::ConstantIndexOp::create(builder, loc, v);
      };
      Value extent = index(z->value);
      if (z->isChosen()) {
        Value groups = arith::MulIOp::create(
            builder, loc, launch.getGridSizeX(), launch.getGridSizeY());
        Value few = arith::CmpIOp::create(
            builder, loc, arith::CmpIPredicate::ule, groups, index(z->limit));
        extent = arith::SelectOp::create(builder, loc, few, extent,
                                         index(z->otherwise));
      }
      launch.getGridSizeZMutable().assign(extent);
      kernels.insert(kernel);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();

    for (Operation *kernel : kernels) {
      auto slices = kernel->getAttrOfType<IntegerAttr>(kGridZAttrName);
      auto grid = kernel->getAttrOfType<GridAttr>(kGridAttrName);
      if (!grid || !(grid.getExtents()[2] == GridExtent::constant(1))) {
        kernel->emitError() << "pa-nvvm-launch-grids: the kernel's "
                            << kGridAttrName << " does not have z = 1";
        return signalPassFailure();
      }
      SmallVector<GridExtent, 3> extents(grid.getExtents());
      extents[2] = *requestedZ(kernel, slices.getInt());
      kernel->setAttr(kGridAttrName,
                      GridAttr::get(kernel->getContext(), extents));
      kernel->removeAttr(kGridZAttrName);
      kernel->removeAttr(kGridZLimitAttrName);
      kernel->removeAttr(kGridZOtherwiseAttrName);
    }
  }

  /// Grid z as `kernel` asks for it: `slices`, or the choice of
  /// pa.nvvm.grid_z_limit / _otherwise (both or neither, each >= 1).
  static FailureOr<GridExtent> requestedZ(Operation *kernel, int64_t slices) {
    auto limit = kernel->getAttrOfType<IntegerAttr>(kGridZLimitAttrName);
    auto otherwise =
        kernel->getAttrOfType<IntegerAttr>(kGridZOtherwiseAttrName);
    if (!limit && !otherwise)
      return GridExtent::constant(slices);
    if (!limit || !otherwise || limit.getInt() < 1 || otherwise.getInt() < 1)
      return kernel->emitError()
             << "pa-nvvm-launch-grids: " << kGridZLimitAttrName << " and "
             << kGridZOtherwiseAttrName << " go together, each >= 1";
    return GridExtent::chosen(slices, limit.getInt(), otherwise.getInt());
  }
};

} // namespace

