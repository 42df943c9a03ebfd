//===- KernelBuilder.cpp - shared pieces of the op-to-kernel passes -------===//
#include "pa/Transforms/KernelBuilder.h"

#include "pa/IR/PaOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::pa;

namespace {
using NamedOperands = SmallVector<std::pair<StringRef, Value>>;

/// The operands of a pa op under the keywords of its assembly format, in
/// operand order (absent optional operands left out).
NamedOperands namedOperands(Operation *op) {
  NamedOperands named =
      llvm::TypeSwitch<Operation *, NamedOperands>(op)
          .Case([](PlanOp plan) -> NamedOperands {
            return {{"context_lengths", plan.getContextLengths()},
                    {"work_info", plan.getWorkInfo()},
                    {"reduce_info", plan.getReduceInfo()}};
          })
          .Case([](DecodeOp decode) -> NamedOperands {
            return {{"query", decode.getQuery()},
                    {"key_cache", decode.getKeyCache()},
                    {"value_cache", decode.getValueCache()},
                    {"block_tables", decode.getBlockTables()},
                    {"context_lengths", decode.getContextLengths()},
                    {"k_scale", decode.getKScale()},
                    {"v_scale", decode.getVScale()},
                    {"alibi_slopes", decode.getAlibiSlopes()},
                    {"work_info", decode.getWorkInfo()},
                    {"exp_sums", decode.getExpSums()},
                    {"max_logits", decode.getMaxLogits()},
                    {"tmp_out", decode.getTmpOut()}};
          })
          .Case([](ReduceOp reduce) -> NamedOperands {
            return {{"exp_sums", reduce.getExpSums()},
                    {"max_logits", reduce.getMaxLogits()},
                    {"tmp_out", reduce.getTmpOut()},
                    {"reduce_info", reduce.getReduceInfo()},
                    {"sinks", reduce.getSinks()},
                    {"output", reduce.getOutput()},
                    {"lse", reduce.getLse()}};
          })
          .Default([](Operation *) { return NamedOperands(); });
  llvm::erase_if(named, [](const auto &entry) { return !entry.second; });
  return named;
}

/// The name of each of `operands` (a subsequence of `op`'s operands, in
/// order) in `op`; "arg<i>" where none is known.
SmallVector<std::string> kernelArgNames(Operation *op, ValueRange operands) {
  NamedOperands named = namedOperands(op);
  SmallVector<std::string> names;
  auto next = named.begin();
  for (auto [index, operand] : llvm::enumerate(operands)) {
    Value value = operand;
    auto match = std::find_if(next, named.end(), [&](const auto &entry) {
      return entry.second == value;
    });
    if (match == named.end()) {
      names.push_back("arg" + std::to_string(index));
      continue;
    }
    names.push_back(match->first.str());
    next = std::next(match);
  }
  return names;
}

/// The launch grid as a #pa.grid: each extent a constant or the dimension
/// of a kernel operand it was read from.
GridAttr describeGrid(std::array<Value, 3> grid, ValueRange operands,
                      ArrayRef<std::string> argNames) {
  MLIRContext *context = operands.empty() ? grid[0].getContext()
                                          : operands.front().getContext();
  SmallVector<GridExtent, 3> extents;
  for (Value extent : grid) {
    if (std::optional<int64_t> constant = getConstantIntValue(extent)) {
      extents.push_back(GridExtent::constant(*constant));
      continue;
    }
    auto dim = extent.getDefiningOp<memref::DimOp>();
    std::optional<int64_t> index =
        dim ? dim.getConstantIndex() : std::optional<int64_t>();
    auto source = dim ? llvm::find(operands, dim.getSource()) : operands.end();
    if (index && source != operands.end())
      extents.push_back(GridExtent::dimOf(
          StringAttr::get(context,
                          argNames[std::distance(operands.begin(), source)]),
          *index));
    else
      extents.push_back(GridExtent::dynamic());
  }
  return GridAttr::get(context, extents);
}
} // namespace

LogicalResult mlir::pa::checkPaOpsInTopLevelModule(ModuleOp module) {
  bool nested = false, onTensors = false;
  module.walk([&](Operation *op) {
    if (!isa<PlanOp, DecodeOp, ReduceOp>(op))
      return;
    // The lowerings read and write the ops' buffers.
    if (cast<DestinationStyleOpInterface>(op).hasPureTensorSemantics()) {
      onTensors = true;
      op->emitOpError() << "takes tensors: bufferize it first "
                           "(one-shot-bufferize) to lower it";
      return;
    }
    auto parent = op->getParentOfType<ModuleOp>();
    if (parent == module)
      return;
    nested = true;
    InFlightDiagnostic diag = op->emitOpError()
                              << "is inside a nested module";
    if (std::optional<StringRef> name = parent.getSymName())
      diag << " (@" << *name << ")";
    diag << "; pa ops are compiled from the functions of the top-level "
            "module only";
  });
  return failure(nested || onTensors);
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

int64_t mlir::pa::workgroupMemoryBytes(gpu::GPUFuncOp kernel) {
  int64_t bytes = 0;
  for (BlockArgument buffer : kernel.getWorkgroupAttributions()) {
    auto type = cast<MemRefType>(buffer.getType());
    if (type.hasStaticShape())
      bytes += type.getNumElements() *
               llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  }
  return bytes;
}

std::optional<unsigned> mlir::pa::kernelArgumentIndex(Operation *kernel,
                                                      StringRef name) {
  auto names = kernel->getAttrOfType<ArrayAttr>(kArgNamesAttrName);
  if (!names)
    return std::nullopt;
  for (auto [index, entry] : llvm::enumerate(names))
    if (auto text = dyn_cast<StringAttr>(entry); text && text == name)
      return unsigned(index);
  return std::nullopt;
}

Value mlir::pa::kernelArgumentNamed(gpu::GPUFuncOp kernel, StringRef name) {
  std::optional<unsigned> index = kernelArgumentIndex(kernel, name);
  if (!index || *index >= kernel.getNumArguments())
    return nullptr;
  return kernel.getArgument(*index);
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
  SmallVector<std::string> argNames = kernelArgNames(op, operands);
  kernel->setAttr(kArgNamesAttrName,
                  builder.getStrArrayAttr(SmallVector<StringRef>(
                      argNames.begin(), argNames.end())));
  kernel->setAttr(kGridAttrName, describeGrid(grid, operands, argNames));
  gpu::LaunchFuncOp::create(builder, loc, kernel,
                            gpu::KernelDim3{grid[0], grid[1], grid[2]},
                            gpu::KernelDim3{threads, one, one},
                            /*dynamicSharedMemorySize=*/Value(), operands);
  op->erase();
}
