//===- KernelStrides.h - the strides a kernel reads at run time -*- C++ -*-===//
//
// A memref kernel argument's descriptor carries every stride, but the
// kernel reads only those its type leaves dynamic (`strided<[?, D, 1]>`:
// the query's rows, the pages of an nhd / hnd cache); the others are
// compiled in. The sidecar of a code object says which are read, per
// kernel and operand ("dynamic_strides": {"key_cache": [0], ...}), so a
// launcher can refuse a view whose other strides the kernel would ignore.
// Those others are row-major for an identity layout; a strided layout
// fixes them in its type, and the sidecar lists them per operand with the
// offset the type fixes ("static_strides": {"query": {"0": 768, "1": 64,
// "2": 1}}, "static_offsets": {"query": 0}), so the launcher compares a
// view with the compiled values, not with row-major ones. The sizes a
// memref type fixes are compiled in alike (an nhd cache's P, Hkv and D):
// the sidecar lists them per operand ("static_sizes": {"key_cache": {"1":
// 16, "2": 8, "3": 128}}), so a launcher refuses a view of other sizes,
// which passes the stride checks with its own row-major strides but is
// read at the compiled shape.
// Shared by the AMD and NVIDIA targets.
//
//===----------------------------------------------------------------------===//
#ifndef PA_TARGET_KERNELSTRIDES_H
#define PA_TARGET_KERNELSTRIDES_H

#include "pa/IR/DiscardableAttributes.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/TypeRange.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace llvm::json {
class OStream;
} // namespace llvm::json

namespace mlir::pa {

// The attributes recordDynamicStrides sets, kDynamicStridesAttrName,
// kStaticLayoutsAttrName and kStaticSizesAttrName, are declared in
// pa/IR/DiscardableAttributes.h.

/// The name of argument `index` of `kernel`: its pa.arg_names entry, else
/// "argINDEX".
std::string kernelArgumentName(Operation *kernel, unsigned index);

/// Records kDynamicStridesAttrName and kStaticSizesAttrName (and
/// kStaticLayoutsAttrName when some argument's layout is strided) on
/// `kernel` (a gpu.func whose arguments have `argumentTypes`).
void recordDynamicStrides(Operation *kernel, TypeRange argumentTypes);

/// Writes the sidecar fields of `kernel` (lowered or not):
/// "dynamic_strides": {"NAME": [dims], ...}, {} when it reads no stride at
/// run time; "static_strides": {"NAME": {"DIM": stride, ...}, ...}, the
/// strides a non-identity layout fixes, and "static_offsets": {"NAME":
/// offset, ...}, the offsets it fixes ({} when no layout is strided).
/// Operands of an identity layout are in none of them: row-major, offset 0.
/// "static_sizes": {"NAME": {"DIM": size, ...}, ...}, the sizes each
/// memref argument's type fixes, whatever its layout ({} when none).
void writeDynamicStrides(llvm::json::OStream &json, Operation *kernel);

/// Writes "alignments": {"NAME": {"bytes": B, "element_bytes": E}, ...}
/// from `kernel`'s kAccessAlignmentsAttrName ({} without it).
void writeAccessAlignments(llvm::json::OStream &json, Operation *kernel);

/// Writes "plan_limits": {"budget": b, "max_partitions": m, "kv_heads": h}
/// from a plan kernel's kPlanLimitsAttrName (nothing without it).
void writePlanLimits(llvm::json::OStream &json, Operation *kernel);

} // namespace mlir::pa

#endif // PA_TARGET_KERNELSTRIDES_H
