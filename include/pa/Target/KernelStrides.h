//===- KernelStrides.h - the strides a kernel reads at run time -*- C++ -*-===//
//
// A memref kernel argument's descriptor carries every stride, but the
// kernel reads only those its type leaves dynamic (`strided<[?, D, 1]>`:
// the query's rows, the pages of an nhd / hnd cache); the others are
// compiled in. The sidecar of a code object says which are read, per
// kernel and operand ("dynamic_strides": {"key_cache": [0], ...}), so a
// launcher can refuse a view whose other strides the kernel would ignore.
// Shared by the AMD and NVIDIA targets.
//
//===----------------------------------------------------------------------===//
#ifndef PA_TARGET_KERNELSTRIDES_H
#define PA_TARGET_KERNELSTRIDES_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/TypeRange.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace llvm::json {
class OStream;
} // namespace llvm::json

namespace mlir::pa {

/// Set on a kernel by pa-convert-kernels-to-rocdl / -nvvm before its
/// memref arguments become descriptor fields: a DictionaryAttr from the
/// name of each memref argument with run-time strides to those dims
/// (DenseI64ArrayAttr): the `?` strides of a strided layout. Arguments
/// whose strides are all static, and those of the identity layout (row-major
/// by definition, whatever their sizes), are absent.
inline constexpr llvm::StringLiteral kDynamicStridesAttrName =
    "pa.dynamic_strides";

/// The name of argument `index` of `kernel`: its pa.arg_names entry, else
/// "argINDEX".
std::string kernelArgumentName(Operation *kernel, unsigned index);

/// Records kDynamicStridesAttrName on `kernel` (a gpu.func whose arguments
/// have `argumentTypes`).
void recordDynamicStrides(Operation *kernel, TypeRange argumentTypes);

/// Writes the sidecar field "dynamic_strides" of `kernel` (lowered or
/// not): {"NAME": [dims], ...}, {} when it reads no stride at run time.
void writeDynamicStrides(llvm::json::OStream &json, Operation *kernel);

} // namespace mlir::pa

#endif // PA_TARGET_KERNELSTRIDES_H
