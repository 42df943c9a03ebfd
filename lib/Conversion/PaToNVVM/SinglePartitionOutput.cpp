//===- SinglePartitionOutput.cpp - decode writes one partition's output ---===//
//
// pa-nvvm-single-partition-output (Passes.td): gives a decode kernel the
// reduce's output operands, so that pa-to-nvvm can have it write the output
// of a sequence the plan gives one partition (StorePartialsToWarps.cpp)
// and the reduce skip that sequence (ReduceToWarps.cpp). A module pass:
// the kernels' launches change with their signatures.
//
//===----------------------------------------------------------------------===//
#include "DecodeToWarps.h"

#include "pa/Conversion/Passes.h"
#include "pa/IR/KernelAttributes.h"
#include "pa/Transforms/KernelBuilder.h"

#include "mlir/IR/SymbolTable.h"

namespace mlir::pa {
#define GEN_PASS_DEF_PANVVMSINGLEPARTITIONOUTPUT
#include "pa/Conversion/Passes.h.inc"
} // namespace mlir::pa

using namespace mlir;
using namespace mlir::pa;

namespace {

/// The reduce operands the decode takes, in this order; the first two are
/// required.
constexpr llvm::StringLiteral kDirectOperands[] = {"reduce_info", "output",
                                                   "sinks", "lse"};

gpu::GPUFuncOp kernelOf(gpu::LaunchFuncOp launch) {
  return dyn_cast_or_null<gpu::GPUFuncOp>(
      SymbolTable::lookupNearestSymbolFrom(launch, launch.getKernel()));
}

/// The launch operand of `launch` named `name` in its kernel's
/// pa.arg_names, or null.
Value operandNamed(gpu::LaunchFuncOp launch, gpu::GPUFuncOp kernel,
                   StringRef name) {
  std::optional<unsigned> index = kernelArgumentIndex(kernel, name);
  if (!index || *index >= launch.getKernelOperands().size())
    return nullptr;
  return launch.getKernelOperands()[*index];
}

struct SinglePartitionOutputPass
    : pa::impl::PaNVVMSinglePartitionOutputBase<SinglePartitionOutputPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::LaunchFuncOp> launches;
    module.walk([&](gpu::LaunchFuncOp launch) { launches.push_back(launch); });
    // Kernels launched more than once keep their signatures.
    llvm::DenseMap<Operation *, int> launchCount;
    for (gpu::LaunchFuncOp launch : launches)
      if (gpu::GPUFuncOp kernel = kernelOf(launch))
        ++launchCount[kernel];
    for (gpu::LaunchFuncOp decode : launches) {
      gpu::GPUFuncOp decodeKernel = kernelOf(decode);
      if (!decodeKernel || launchCount[decodeKernel] != 1 ||
          decodeKernel->hasAttr(kSinglePartitionOutputAttrName) ||
          !kernelArgumentIndex(decodeKernel, "work_info") ||
          kernelArgumentIndex(decodeKernel, "output"))
        continue;
      Value partials = operandNamed(decode, decodeKernel, "tmp_out");
      if (!partials)
        continue;
      // The reduce launch of these partials, later in the same block.
      gpu::LaunchFuncOp reduce;
      gpu::GPUFuncOp reduceKernel;
      for (Operation *op = decode->getNextNode(); op && !reduce;
           op = op->getNextNode()) {
        auto launch = dyn_cast<gpu::LaunchFuncOp>(op);
        gpu::GPUFuncOp kernel = launch ? kernelOf(launch) : nullptr;
        if (kernel && operandNamed(launch, kernel, "reduce_info") &&
            operandNamed(launch, kernel, "tmp_out") == partials) {
          reduce = launch;
          reduceKernel = kernel;
        }
      }
      // Both kernels must be ones pa-to-nvvm distributes over warps: the
      // decode's output and the reduce's skip are written there.
      if (!reduce || launchCount[reduceKernel] != 1 ||
          !nvvm::decodeKernelTakesWarps(decodeKernel) ||
          !nvvm::reduceKernelTakesWarps(reduceKernel))
        continue;
      giveOutput(decode, decodeKernel, reduce, reduceKernel);
    }
  }

  /// Appends the reduce's operands (kDirectOperands that it has) to the
  /// decode kernel, its launch and its pa.arg_names, and marks both.
  static void giveOutput(gpu::LaunchFuncOp decode, gpu::GPUFuncOp decodeKernel,
                         gpu::LaunchFuncOp reduce,
                         gpu::GPUFuncOp reduceKernel) {
    SmallVector<Attribute> names(
        decodeKernel->getAttrOfType<ArrayAttr>(kArgNamesAttrName).getValue());
    SmallVector<Value> operands(decode.getKernelOperands());
    for (StringRef name : kDirectOperands) {
      Value operand = operandNamed(reduce, reduceKernel, name);
      if (!operand)
        continue;
      unsigned index = decodeKernel.getNumArguments();
      if (failed(decodeKernel.insertArgument(index, operand.getType(),
                                             DictionaryAttr(),
                                             decodeKernel.getLoc())))
        llvm_unreachable("appending a kernel argument cannot fail");
      names.push_back(StringAttr::get(decodeKernel.getContext(), name));
      operands.push_back(operand);
    }
    decodeKernel->setAttr(kArgNamesAttrName,
                          ArrayAttr::get(decodeKernel.getContext(), names));
    decode.getKernelOperandsMutable().assign(operands);
    UnitAttr unit = UnitAttr::get(decodeKernel.getContext());
    decodeKernel->setAttr(kSinglePartitionOutputAttrName, unit);
    reduceKernel->setAttr(kSinglePartitionOutputAttrName, unit);
  }
};

} // namespace
