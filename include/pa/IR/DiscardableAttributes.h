//===- DiscardableAttributes.h - the pa. attributes on other ops -*- C++ -*-===//
//
// Every `pa.`-prefixed (discardable) attribute the project puts on ops of
// other dialects, declared once: its name (the constant passes use), the
// kind of value it holds and the op it sits on. PaDialect's
// verifyOperationAttribute checks each against this table and refuses a
// `pa.` name the table does not have; `pa-opt
// --pa-list-discardable-attributes` prints the table, which
// test/IR/discardable-attributes-known.mlir compares with every `"pa.`
// string literal of the sources.
//
// A leaf header: names and kinds only, no attribute class (the checks are
// in PaDialect.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef PA_IR_DISCARDABLEATTRIBUTES_H
#define PA_IR_DISCARDABLEATTRIBUTES_H

#include "llvm/ADT/StringRef.h"

namespace mlir::pa {

//===----------------------------------------------------------------------===//
// The names
//===----------------------------------------------------------------------===//

/// The chip every pass below pa-set-target reads (#pa.target), on the
/// top-level module (PaDialect::kTargetAttrName is this name).
inline constexpr llvm::StringLiteral kTargetAttrName = "pa.target";
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
/// i64s beside pa.nvvm.grid_z: grid z is pa.nvvm.grid_z only where the
/// launch's x * y is at most pa.nvvm.grid_z_limit workgroups, else
/// pa.nvvm.grid_z_otherwise (#pa.grid's `z = S if x * y le L else M`). Both
/// or neither.
inline constexpr llvm::StringLiteral kGridZLimitAttrName =
    "pa.nvvm.grid_z_limit";
inline constexpr llvm::StringLiteral kGridZOtherwiseAttrName =
    "pa.nvvm.grid_z_otherwise";
/// Unit, on the decode and reduce kernels of pa-nvvm-single-partition-
/// output: the decode writes the output of a sequence of one partition
/// (the reduce_info, output, sinks and lse arguments it was given) and the
/// reduce skips that sequence.
inline constexpr llvm::StringLiteral kSinglePartitionOutputAttrName =
    "pa.nvvm.single_partition_output";
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
/// A decode kernel's lane mapping (#pa.mfma_layout, PaLayoutAttrs.td),
/// attached by pa-mfma-layout and lowered with by pa-to-mfma.
inline constexpr llvm::StringLiteral kMFMALayoutAttrName = "pa.mfma_layout";
/// Set on a kernel by pa-convert-kernels-to-rocdl / -nvvm before its
/// memref arguments become descriptor fields: a DictionaryAttr from the
/// name of each memref argument with run-time strides to those dims
/// (DenseI64ArrayAttr): the `?` strides of a strided layout. Arguments
/// whose strides are all static, and those of the identity layout (row-major
/// by definition, whatever their sizes), are absent.
inline constexpr llvm::StringLiteral kDynamicStridesAttrName =
    "pa.dynamic_strides";
/// Set by recordDynamicStrides next to kDynamicStridesAttrName when some
/// memref argument has a strided, non-identity layout: a DictionaryAttr
/// from the argument's name to its StridedLayoutAttr (its static strides
/// and offset; `?` ones are dynamic). Absent: no such argument.
inline constexpr llvm::StringLiteral kStaticLayoutsAttrName =
    "pa.static_layouts";
/// Set by recordDynamicStrides next to kDynamicStridesAttrName: a
/// DictionaryAttr from the name of each memref argument with a static dim
/// to its shape (DenseI64ArrayAttr, ShapedType::kDynamic for `?`).
/// Arguments whose dims are all dynamic are absent.
inline constexpr llvm::StringLiteral kStaticSizesAttrName = "pa.static_sizes";
/// Set on an NVIDIA kernel by pa-convert-kernels-to-nvvm before its memref
/// arguments become descriptor fields: a DictionaryAttr from the name of
/// each memref argument in global memory the kernel reads or writes to
/// [the widest access at one address, in bytes; its element bytes]
/// (DenseI64ArrayAttr). A launcher refuses a view whose first element or
/// strides would not keep those accesses aligned (the sidecar's
/// "alignments").
inline constexpr llvm::StringLiteral kAccessAlignmentsAttrName =
    "pa.access_alignments";
/// Set on a plan kernel by pa-lower-plan (lowerPlanOps): the limits it
/// plans with, array<i64: budget, max_partitions, num_kv_heads> (the op's
/// or the chip's defaults), so that a launcher can refuse a workspace of
/// another capacity than the plan's (the sidecar's "plan_limits").
inline constexpr llvm::StringLiteral kPlanLimitsAttrName = "pa.plan_limits";
/// Marks a kernel that starts with `griddepcontrol.wait` (it reads nothing
/// its stream predecessor wrote before that grid has completed), so the
/// launcher may launch it with programmatic stream serialization (the
/// sidecar's "programmatic_launch"). A unit attribute.
inline constexpr llvm::StringLiteral kProgrammaticLaunchAttrName =
    "pa.nvvm.programmatic_launch";

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

/// The value a discardable attribute must hold.
enum class DiscardableKind {
  Target,           // #pa.target
  Grid,             // #pa.grid
  Distribution,     // #pa.distribution
  MFMALayout,       // #pa.mfma_layout (and a decode kernel to sit on)
  String,           // a StringAttr
  StringArray,      // an ArrayAttr of StringAttr
  I64,              // a signless 64-bit IntegerAttr
  Unit,             // a UnitAttr
  DimsByArgument,   // a DictionaryAttr of DenseI64ArrayAttr
  LayoutByArgument, // a DictionaryAttr of StridedLayoutAttr
  PlanLimits,       // a DenseI64ArrayAttr of three integers >= 1
};

/// The op a discardable attribute sits on.
enum class DiscardableHolder {
  Module,   // the top-level builtin.module
  Function, // a kernel: a function op (gpu.func, llvm.func, func.func)
};

struct DiscardableAttribute {
  llvm::StringLiteral name;
  DiscardableKind kind;
  DiscardableHolder holder;
};

/// Every `pa.` attribute the dialect accepts on another dialect's op.
inline constexpr DiscardableAttribute kDiscardableAttributes[] = {
    {kTargetAttrName, DiscardableKind::Target, DiscardableHolder::Module},
    {kArgNamesAttrName, DiscardableKind::StringArray,
     DiscardableHolder::Function},
    {kGridAttrName, DiscardableKind::Grid, DiscardableHolder::Function},
    {kDistributionAttrName, DiscardableKind::Distribution,
     DiscardableHolder::Function},
    {kThread0ReasonAttrName, DiscardableKind::String,
     DiscardableHolder::Function},
    {kGridZAttrName, DiscardableKind::I64, DiscardableHolder::Function},
    {kGridZLimitAttrName, DiscardableKind::I64, DiscardableHolder::Function},
    {kGridZOtherwiseAttrName, DiscardableKind::I64,
     DiscardableHolder::Function},
    {kSinglePartitionOutputAttrName, DiscardableKind::Unit,
     DiscardableHolder::Function},
    {kKernargFieldsAttrName, DiscardableKind::StringArray,
     DiscardableHolder::Function},
    {kParamFieldsAttrName, DiscardableKind::StringArray,
     DiscardableHolder::Function},
    {kSharedBytesAttrName, DiscardableKind::I64, DiscardableHolder::Function},
    {kMFMALayoutAttrName, DiscardableKind::MFMALayout,
     DiscardableHolder::Function},
    {kDynamicStridesAttrName, DiscardableKind::DimsByArgument,
     DiscardableHolder::Function},
    {kStaticLayoutsAttrName, DiscardableKind::LayoutByArgument,
     DiscardableHolder::Function},
    {kStaticSizesAttrName, DiscardableKind::DimsByArgument,
     DiscardableHolder::Function},
    {kAccessAlignmentsAttrName, DiscardableKind::DimsByArgument,
     DiscardableHolder::Function},
    {kProgrammaticLaunchAttrName, DiscardableKind::Unit,
     DiscardableHolder::Function},
    {kPlanLimitsAttrName, DiscardableKind::PlanLimits,
     DiscardableHolder::Function},
};

/// The table's entry for `name`, or null when the dialect defines none.
const DiscardableAttribute *lookupDiscardableAttribute(llvm::StringRef name);

/// What `kind` requires, as the diagnostics say it ("an i64 integer").
llvm::StringRef describeDiscardableKind(DiscardableKind kind);
/// Where `holder` is, as the diagnostics say it ("a builtin.module").
llvm::StringRef describeDiscardableHolder(DiscardableHolder holder);

} // namespace mlir::pa

#endif // PA_IR_DISCARDABLEATTRIBUTES_H
