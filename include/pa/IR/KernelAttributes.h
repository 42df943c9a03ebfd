//===- KernelAttributes.h - pa's discardable attributes on kernels -*- C++ -*-===//
//
// The `pa.`-prefixed attributes the passes put on kernels (gpu.func, and
// the llvm.func it becomes) for the later passes and the code-object / PTX
// metadata. One name each, here; PaDialect::verifyOperationAttribute
// checks the kind of every one (and `pa.target`, PaBase.td).
//
//===----------------------------------------------------------------------===//
#ifndef PA_IR_KERNELATTRIBUTES_H
#define PA_IR_KERNELATTRIBUTES_H

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::pa {

/// The pa op operand name of each kernel argument (ArrayAttr of
/// StringAttr), for the metadata.
inline constexpr llvm::StringLiteral kArgNamesAttrName = "pa.arg_names";
/// The launch grid (#pa.grid, GridAttr), for the metadata.
inline constexpr llvm::StringLiteral kGridAttrName = "pa.grid";
/// How pa-to-nvvm spread the kernel over its threads (#pa.distribution,
/// DistributionAttr); a kernel that has one is left alone by later passes.
inline constexpr llvm::StringLiteral kDistributionAttrName = "pa.distribution";
/// Why pa-to-nvvm left a decode kernel on thread 0 (StringAttr).
inline constexpr llvm::StringLiteral kThread0ReasonAttrName =
    "pa.thread0_reason";
/// An i64 on a kernel: launch it with this many workgroups on grid z (its
/// launch has z = 1). The NVIDIA reduce kernel takes slice z of its rows
/// in workgroup z: a launch with z = 1 would compute only the first slice,
/// so pa-nvvm-launch-grids must run after pa-to-nvvm (pa-lower-to-nvvm
/// does).
inline constexpr llvm::StringLiteral kGridZAttrName = "pa.nvvm.grid_z";
/// Set on each kernel by pa-convert-kernels-to-rocdl before its memref
/// arguments become descriptor fields: one StringAttr per LLVM-level kernel
/// argument ("query.aligned_ptr", "query.size[0]", ...). The metadata
/// reader pairs them with the code object's explicit arguments.
inline constexpr llvm::StringLiteral kKernargFieldsAttrName =
    "pa.kernarg_fields";
/// Set on each kernel by pa-convert-kernels-to-nvvm (like the AMD path's
/// pa.kernarg_fields): one StringAttr per PTX-level kernel parameter
/// ("query.aligned_ptr", "query.size[0]", ...).
inline constexpr llvm::StringLiteral kParamFieldsAttrName = "pa.param_fields";
/// Bytes of dynamic shared memory the kernel's workgroup buffers take (an
/// i64 attribute): the launch must pass it, and above 48 KiB first raise
/// the function's limit.
inline constexpr llvm::StringLiteral kSharedBytesAttrName = "pa.shared_bytes";

/// One axis of a kernel's launch grid (#pa.grid): a constant number of
/// workgroups (`operand` null, `value` >= 1), the size of dim `value` of the
/// kernel buffer named `operand`, or unknown (`operand` null, `value` =
/// kDynamic).
struct GridExtent {
  static constexpr int64_t kDynamic = -1;
  StringAttr operand;
  int64_t value = kDynamic;

  static GridExtent constant(int64_t size) { return {StringAttr(), size}; }
  static GridExtent dimOf(StringAttr operand, int64_t dim) {
    return {operand, dim};
  }
  static GridExtent dynamic() { return {}; }
  bool isConstant() const { return !operand && value != kDynamic; }
  bool isDim() const { return static_cast<bool>(operand); }
  bool operator==(const GridExtent &other) const {
    return operand == other.operand && value == other.value;
  }
};
inline llvm::hash_code hash_value(const GridExtent &extent) {
  return llvm::hash_combine(extent.operand, extent.value);
}

} // namespace mlir::pa

#endif // PA_IR_KERNELATTRIBUTES_H
