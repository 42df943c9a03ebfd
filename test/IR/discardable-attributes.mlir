// RUN: pa-opt %s | pa-opt | FileCheck %s
// RUN: pa-opt --pa-list-discardable-attributes | FileCheck %s --check-prefix=TABLE --match-full-lines
// RUN: pa-opt --pa-list-discardable-attributes | count 19

// Every `pa.` attribute of the table (include/pa/IR/DiscardableAttributes.h)
// prints as it parses: pa.target on the module, the others on a kernel
// (pa.mfma_layout needs a decode kernel: mfma-layout.mlir). #pa.grid: an
// extent as a constant, an operand dim, `dynamic` or (z) a choice by x * y; #pa.distribution:
// "parallel-loops" quoted (it is no keyword), the others bare.
// The table, as pa-opt prints it: a row added there needs a case here.

// TABLE:      pa.target	a #pa.target attribute	a builtin.module
// TABLE-NEXT: pa.arg_names	an array of strings	a kernel (a function op)
// TABLE-NEXT: pa.grid	a #pa.grid attribute	a kernel (a function op)
// TABLE-NEXT: pa.distribution	a #pa.distribution attribute	a kernel (a function op)
// TABLE-NEXT: pa.thread0_reason	a string	a kernel (a function op)
// TABLE-NEXT: pa.nvvm.grid_z	an i64 integer	a kernel (a function op)
// TABLE-NEXT: pa.nvvm.grid_z_limit	an i64 integer	a kernel (a function op)
// TABLE-NEXT: pa.nvvm.grid_z_otherwise	an i64 integer	a kernel (a function op)
// TABLE-NEXT: pa.nvvm.single_partition_output	a unit attribute	a kernel (a function op)
// TABLE-NEXT: pa.kernarg_fields	an array of strings	a kernel (a function op)
// TABLE-NEXT: pa.param_fields	an array of strings	a kernel (a function op)
// TABLE-NEXT: pa.shared_bytes	an i64 integer	a kernel (a function op)
// TABLE-NEXT: pa.mfma_layout	a #pa.mfma_layout attribute	a kernel (a function op)
// TABLE-NEXT: pa.dynamic_strides	a dictionary of i64 arrays (array<i64: ...>)	a kernel (a function op)
// TABLE-NEXT: pa.static_layouts	a dictionary of strided layouts (strided<[...]>)	a kernel (a function op)
// TABLE-NEXT: pa.static_sizes	a dictionary of i64 arrays (array<i64: ...>)	a kernel (a function op)
// TABLE-NEXT: pa.access_alignments	a dictionary of i64 arrays (array<i64: ...>)	a kernel (a function op)
// TABLE-NEXT: pa.nvvm.programmatic_launch	a unit attribute	a kernel (a function op)
// TABLE-NEXT: pa.plan_limits	array<i64: budget, max_partitions, num_kv_heads>, each >= 1	a kernel (a function op)

// CHECK:       module attributes {pa.target = #pa.target<"sm_90a">}
// CHECK-LABEL: gpu.func @decode()
// CHECK-SAME:    pa.arg_names = ["query", "key_cache"]
// CHECK-SAME:    pa.distribution = #pa.distribution<warps>
// CHECK-SAME:    pa.grid = #pa.grid<x = work_info dim 0, y = 2, z = 1>
// CHECK-SAME:    pa.shared_bytes = 50176 : i64
// CHECK-SAME:    pa.thread0_reason = "a reason"
// CHECK-LABEL: gpu.func @reduce()
// CHECK-SAME:    pa.distribution = #pa.distribution<"parallel-loops">
// CHECK-SAME:    pa.grid = #pa.grid<x = reduce_info dim 0, y = 4, z = dynamic>
// CHECK-SAME:    pa.nvvm.grid_z = 2 : i64
// CHECK-SAME:    pa.nvvm.grid_z_limit = 66 : i64
// CHECK-SAME:    pa.nvvm.grid_z_otherwise = 1 : i64
// CHECK-SAME:    pa.nvvm.single_partition_output
// CHECK-LABEL: gpu.func @sliced()
// CHECK-SAME:    pa.grid = #pa.grid<x = reduce_info dim 0, y = 2, z = 4 if x * y le 66 else 1>
// CHECK-LABEL: gpu.func @plan()
// CHECK-SAME:    pa.distribution = #pa.distribution<threads>
// CHECK-SAME:    pa.plan_limits = array<i64: 256, 132, 2>
// CHECK-LABEL: llvm.func @lowered(
// CHECK-SAME:    pa.access_alignments = {query = array<i64: 16, 2>}
// CHECK-SAME:    pa.dynamic_strides = {query = array<i64: 0>}
// CHECK-SAME:    pa.kernarg_fields = ["query.aligned_ptr", "query.size[0]"]
// CHECK-SAME:    pa.nvvm.programmatic_launch
// CHECK-SAME:    pa.param_fields = ["query.aligned_ptr"]
// CHECK-SAME:    pa.static_layouts = {query = strided<[?, 64, 1], offset: 5>}
// CHECK-SAME:    pa.static_sizes = {query = array<i64: -9223372036854775808, 12, 64>}
module attributes {pa.target = #pa.target<"sm_90a">} {
  gpu.module @pa_kernels {
    gpu.func @decode() kernel attributes {
        pa.grid = #pa.grid<x = work_info dim 0, y = 2, z = 1>,
        pa.distribution = #pa.distribution<warps>,
        pa.arg_names = ["query", "key_cache"],
        pa.thread0_reason = "a reason", pa.shared_bytes = 50176 : i64} {
      gpu.return
    }
    gpu.func @reduce() kernel attributes {
        pa.grid = #pa.grid<x = reduce_info dim 0, y = 4, z = dynamic>,
        pa.distribution = #pa.distribution<"parallel-loops">,
        pa.nvvm.grid_z = 2 : i64, pa.nvvm.grid_z_limit = 66 : i64,
        pa.nvvm.grid_z_otherwise = 1 : i64, pa.nvvm.single_partition_output} {
      gpu.return
    }
    gpu.func @sliced() kernel attributes {
        pa.grid = #pa.grid<x = reduce_info dim 0, y = 2, z = 4 if x * y le 66 else 1>} {
      gpu.return
    }
    gpu.func @plan() kernel attributes {
        pa.distribution = #pa.distribution<"threads">,
        pa.plan_limits = array<i64: 256, 132, 2>} {
      gpu.return
    }
  }
  llvm.func @lowered(%arg0: !llvm.ptr) attributes {
      pa.kernarg_fields = ["query.aligned_ptr", "query.size[0]"],
      pa.param_fields = ["query.aligned_ptr"],
      pa.dynamic_strides = {query = array<i64: 0>},
      pa.static_layouts = {query = strided<[?, 64, 1], offset: 5>},
      pa.static_sizes = {query = array<i64: -9223372036854775808, 12, 64>},
      pa.access_alignments = {query = array<i64: 16, 2>},
      pa.nvvm.programmatic_launch} {
    llvm.return
  }
}
