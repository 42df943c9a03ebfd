//===- KernelBuilder.h - shared pieces of the op-to-kernel passes -*- C++ -*-===//
//
// pa-tile, pa-lower-plan and pa-lower-reduce each replace a pa op with a
// gpu.launch_func of a kernel they build; this is the one place that knows
// where kernels live and how they are launched.
//
//===----------------------------------------------------------------------===//
#ifndef PA_TRANSFORMS_KERNELBUILDER_H
#define PA_TRANSFORMS_KERNELBUILDER_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "pa/IR/Chip.h"
#include "pa/IR/KernelAttributes.h"

namespace mlir::pa {

/// Name of the gpu.module that holds every kernel pa-mlir generates.
inline constexpr llvm::StringLiteral kKernelModuleName = "pa_kernels";

/// Fails with an error on each pa.plan / pa.decode / pa.reduce that is
/// inside a module nested in `module`: the lowerings put kernels in
/// `module`'s gpu.module and launch them from where the ops are, which must
/// be `module` itself (the C API and pa-compile compile the top-level
/// module's functions). Fails as well on each op on tensors: the lowerings
/// take the memref form that one-shot-bufferize makes of it.
LogicalResult checkPaOpsInTopLevelModule(ModuleOp module);

/// The module's `gpu.module @pa_kernels`, created (and the module marked
/// `gpu.container_module`) on first use.
gpu::GPUModuleOp getOrCreateKernelModule(ModuleOp module);

/// A new kernel `gpu.func` in `kernels` named `baseName` (uniqued with a
/// numeric suffix) whose arguments have the types of `operands`, with
/// `workgroupBuffers` as workgroup-memory attributions and the known
/// workgroup size attached. The builder is left at the start of its body,
/// which ends in gpu.return.
gpu::GPUFuncOp createKernel(OpBuilder &builder, gpu::GPUModuleOp kernels,
                            llvm::StringRef baseName, ValueRange operands,
                            ArrayRef<MemRefType> workgroupBuffers,
                            const ChipInfo &chip);

/// A memref type in workgroup memory (LDS / shared memory).
MemRefType workgroupMemRef(ArrayRef<int64_t> shape, Type elementType);

/// Bytes of workgroup memory (LDS / shared) the static-shaped workgroup
/// attributions of `kernel` take, before any alignment padding.
int64_t workgroupMemoryBytes(gpu::GPUFuncOp kernel);

/// The index of the argument of `kernel` whose pa.arg_names entry is
/// `name`, if any.
std::optional<unsigned> kernelArgumentIndex(Operation *kernel, StringRef name);

/// The argument of `kernel` named `name` in its pa.arg_names, or null.
Value kernelArgumentNamed(gpu::GPUFuncOp kernel, StringRef name);

/// Replaces `op` with a gpu.launch_func of `kernel` over `grid` (x, y, z
/// as index values) with the chip's workgroup size, passing `operands`.
/// Records the operands' names in `op` as the kernel's `pa.arg_names` and
/// what each grid extent counts as its `pa.grid`.
void replaceWithLaunch(OpBuilder &builder, Operation *op,
                       gpu::GPUFuncOp kernel, std::array<Value, 3> grid,
                       ValueRange operands, const ChipInfo &chip);

} // namespace mlir::pa

#endif // PA_TRANSFORMS_KERNELBUILDER_H
