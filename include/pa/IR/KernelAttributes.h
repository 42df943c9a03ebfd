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
/// kernel buffer named `operand`, unknown (`operand` null, `value` =
/// kDynamic), or, on axis z only, a choice by the workgroups of axes x and
/// y: `value` where x * y <= `limit`, else `otherwise` (the NVIDIA reduce
/// kernel's row slices, which pay only where workgroups are few).
struct GridExtent {
  static constexpr int64_t kDynamic = -1;
  StringAttr operand;
  int64_t value = kDynamic;
  int64_t limit = 0;     // > 0: a choice (see above)
  int64_t otherwise = 0; // the choice's extent above `limit`

  static GridExtent constant(int64_t size) { return {StringAttr(), size}; }
  static GridExtent dimOf(StringAttr operand, int64_t dim) {
    return {operand, dim};
  }
  static GridExtent dynamic() { return {}; }
  static GridExtent chosen(int64_t few, int64_t limit, int64_t otherwise) {
    return {StringAttr(), few, limit, otherwise};
  }
  bool isChosen() const { return limit > 0; }
  bool isConstant() const {
    return !operand && value != kDynamic && !isChosen();
  }
  bool isDim() const { return static_cast<bool>(operand); }
  bool operator==(const GridExtent &other) const {
    return operand == other.operand && value == other.value &&
           limit == other.limit && otherwise == other.otherwise;
  }
};
inline llvm::hash_code hash_value(const GridExtent &extent) {
  return llvm::hash_combine(extent.operand, extent.value, extent.limit,
                            extent.otherwise);
}

} // namespace mlir::pa

#endif // PA_IR_KERNELATTRIBUTES_H
