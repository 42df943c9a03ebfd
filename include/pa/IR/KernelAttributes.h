//===- KernelAttributes.h - the extents of #pa.grid -------------*- C++ -*-===//
//
// The `pa.`-prefixed attributes the passes put on kernels (gpu.func, and
// the llvm.func it becomes) for the later passes and the code-object / PTX
// metadata: their names and kinds are declared in DiscardableAttributes.h
// (the one table, verified by PaDialect::verifyOperationAttribute); here
// the storage of #pa.grid.
//
//===----------------------------------------------------------------------===//
#ifndef PA_IR_KERNELATTRIBUTES_H
#define PA_IR_KERNELATTRIBUTES_H

#include "pa/IR/DiscardableAttributes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::pa {

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
