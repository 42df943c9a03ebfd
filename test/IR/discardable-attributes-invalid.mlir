// RUN: pa-opt %s -split-input-file -verify-diagnostics

// The `pa.` attributes on other dialects' ops are those of the table in
// include/pa/IR/DiscardableAttributes.h: each is checked for its kind and
// the op it sits on, and any other `pa.` name is refused (a misspelt
// pa.grid would otherwise be dropped silently by the metadata writer).
// One case per refused form; the kinds of pa.target and pa.mfma_layout
// are in target-invalid.mlir and mfma-layout-invalid.mlir.

// A name the table does not have.
gpu.module @pa_kernels {
  // expected-error @+1 {{unknown attribute 'pa.gird': the pa dialect defines pa.target, pa.arg_names, pa.grid, pa.distribution, pa.thread0_reason, pa.nvvm.grid_z, pa.nvvm.grid_z_limit, pa.nvvm.grid_z_otherwise, pa.nvvm.single_partition_output, pa.kernarg_fields, pa.param_fields, pa.shared_bytes, pa.mfma_layout, pa.dynamic_strides, pa.static_layouts, pa.static_sizes, pa.access_alignments, pa.nvvm.programmatic_launch, pa.plan_limits}}
  gpu.func @k() kernel attributes {pa.gird = #pa.grid<x = 1, y = 1, z = 1>} {
    gpu.return
  }
}

// -----

// A dotted name is looked up whole: pa.nvvm alone is not pa.nvvm.grid_z.
// expected-error @+1 {{unknown attribute 'pa.nvvm': the pa dialect defines}}
module attributes {pa.nvvm = 1 : i64} {
}

// -----

// A kernel attribute belongs on a function op, not on its module.
// expected-error @+1 {{'pa.grid' belongs on a kernel (a function op), not on 'gpu.module'}}
gpu.module @pa_kernels attributes {pa.grid = #pa.grid<x = 1, y = 1, z = 1>} {
}

// -----

func.func @f() {
  // expected-error @+1 {{'pa.shared_bytes' belongs on a kernel (a function op), not on 'arith.constant'}}
  %c = arith.constant {pa.shared_bytes = 1024 : i64} 0 : index
  return
}

// -----
gpu.module @pa_kernels {
  // expected-error @+1 {{'pa.grid' must be a #pa.grid attribute, got "x = 1, y = 1, z = 1"}}
  gpu.func @k() kernel attributes {pa.grid = "x = 1, y = 1, z = 1"} {
    gpu.return
  }
}

// -----

gpu.module @pa_kernels {
  // expected-error @+1 {{'pa.arg_names' must be an array of strings, got [1]}}
  gpu.func @k() kernel attributes {pa.arg_names = [1]} {
    gpu.return
  }
}

// -----

gpu.module @pa_kernels {
  // expected-error @+1 {{'pa.distribution' must be a #pa.distribution attribute, got "warps"}}
  gpu.func @k() kernel attributes {pa.distribution = "warps"} {
    gpu.return
  }
}

// -----

gpu.module @pa_kernels {
  // expected-error @+1 {{'pa.nvvm.grid_z' must be an i64 integer, got 2 : i32}}
  gpu.func @k() kernel attributes {pa.nvvm.grid_z = 2 : i32} {
    gpu.return
  }
}

// -----

gpu.module @pa_kernels {
  // expected-error @+1 {{'pa.shared_bytes' must be an i64 integer, got "1024"}}
  gpu.func @k() kernel attributes {pa.shared_bytes = "1024"} {
    gpu.return
  }
}

// -----

gpu.module @pa_kernels {
  // expected-error @+1 {{expected one of thread0, warps, "parallel-loops", threads, got 'lanes'}}
  gpu.func @k() kernel attributes {pa.distribution = #pa.distribution<lanes>} {
    gpu.return
  }
}

// -----

gpu.module @pa_kernels {
  // expected-error @+1 {{grid axis y: a constant extent must be >= 1, got 0}}
  gpu.func @k() kernel attributes {pa.grid = #pa.grid<x = 4, y = 0, z = 1>} {
    gpu.return
  }
}

// -----

gpu.module @pa_kernels {
  // expected-error @+1 {{grid axis x: a dim is a kernel operand name ([A-Za-z_][A-Za-z0-9_]*) and a dim index >= 0, got 'work.info' dim 0}}
  gpu.func @k() kernel attributes {pa.grid = #pa.grid<x = work.info dim 0, y = 1, z = 1>} {
    gpu.return
  }
}

// -----

gpu.module @pa_kernels {
  // expected-error @+1 {{grid axis x: only axis z can be chosen by x * y}}
  gpu.func @k() kernel attributes {pa.grid = #pa.grid<x = 4 if x * y le 8 else 1, y = 1, z = 1>} {
    gpu.return
  }
}

// -----

gpu.module @pa_kernels {
  // expected-error @+1 {{grid axis z: a choice's limit must be >= 1, got 0}}
  gpu.func @k() kernel attributes {pa.grid = #pa.grid<x = 4, y = 1, z = 4 if x * y le 0 else 1>} {
    gpu.return
  }
}

// -----

gpu.module @pa_kernels {
  // expected-error @+1 {{grid axis z: a choice 'N if x * y le L else M' needs N, L, M >= 1, got L = 8, M = 0}}
  gpu.func @k() kernel attributes {pa.grid = #pa.grid<x = 4, y = 1, z = 4 if x * y le 8 else 0>} {
    gpu.return
  }
}

// -----

gpu.module @pa_kernels {
  // expected-error @+1 {{expected 'le'}}
  gpu.func @k() kernel attributes {pa.grid = #pa.grid<x = 4, y = 1, z = 4 if x * y ge 8 else 1>} {
    gpu.return
  }
}

// -----

gpu.module @pa_kernels {
  // expected-error @+1 {{a grid has 3 axes (x, y, z), got 2}}
  gpu.func @k() kernel attributes {pa.grid = #pa.grid<x = 4, y = 1>} {
    gpu.return
  }
}

// -----

gpu.module @pa_kernels {
  // expected-error @+1 {{'pa.thread0_reason' must be a string, got ["why"]}}
  gpu.func @k() kernel attributes {pa.thread0_reason = ["why"]} {
    gpu.return
  }
}

// -----

gpu.module @pa_kernels {
  // expected-error @+1 {{'pa.kernarg_fields' must be an array of strings, got "query.aligned_ptr"}}
  gpu.func @k() kernel attributes {pa.kernarg_fields = "query.aligned_ptr"} {
    gpu.return
  }
}

// -----

gpu.module @pa_kernels {
  // expected-error @+1 {{'pa.param_fields' must be an array of strings, got ["query.aligned_ptr", 0]}}
  gpu.func @k() kernel attributes {pa.param_fields = ["query.aligned_ptr", 0 : i64]} {
    gpu.return
  }
}

// -----

gpu.module @pa_kernels {
  // expected-error @+1 {{'pa.plan_limits' must be array<i64: budget, max_partitions, num_kv_heads>, each >= 1, got array<i64: 256, 0, 2>}}
  gpu.func @k() kernel attributes {pa.plan_limits = array<i64: 256, 0, 2>} {
    gpu.return
  }
}

// -----

gpu.module @pa_kernels {
  // expected-error @+1 {{'pa.plan_limits' must be array<i64: budget, max_partitions, num_kv_heads>, each >= 1, got array<i64: 256, 132>}}
  gpu.func @k() kernel attributes {pa.plan_limits = array<i64: 256, 132>} {
    gpu.return
  }
}

// -----

gpu.module @pa_kernels {
  // expected-error @+1 {{'pa.nvvm.programmatic_launch' must be a unit attribute, got true}}
  gpu.func @k() kernel attributes {pa.nvvm.programmatic_launch = true} {
    gpu.return
  }
}

// -----

gpu.module @pa_kernels {
  // expected-error @+1 {{'pa.dynamic_strides' must be a dictionary of i64 arrays (array<i64: ...>), got {query = [0]}}
  gpu.func @k() kernel attributes {pa.dynamic_strides = {query = [0]}} {
    gpu.return
  }
}

// -----

gpu.module @pa_kernels {
  // expected-error @+1 {{'pa.static_sizes' must be a dictionary of i64 arrays (array<i64: ...>), got [16, 8]}}
  gpu.func @k() kernel attributes {pa.static_sizes = [16, 8]} {
    gpu.return
  }
}

// -----

gpu.module @pa_kernels {
  // expected-error @+1 {{'pa.access_alignments' must be a dictionary of i64 arrays (array<i64: ...>), got {key_cache = 16 : i64}}}
  gpu.func @k() kernel attributes {pa.access_alignments = {key_cache = 16}} {
    gpu.return
  }
}

// -----

gpu.module @pa_kernels {
  // expected-error @+1 {{'pa.static_layouts' must be a dictionary of strided layouts (strided<[...]>), got {query = array<i64: 768, 64, 1>}}
  gpu.func @k() kernel attributes {pa.static_layouts = {query = array<i64: 768, 64, 1>}} {
    gpu.return
  }
}

// -----

// Well-formed ones verify.
gpu.module @pa_kernels {
  gpu.func @k() kernel attributes {pa.grid = #pa.grid<x = 1, y = 1, z = 1>,
      pa.arg_names = ["query"], pa.distribution = #pa.distribution<warps>,
      pa.nvvm.grid_z = 2 : i64, pa.shared_bytes = 1024 : i64,
      pa.kernarg_fields = ["query.aligned_ptr"],
      pa.param_fields = ["query.aligned_ptr"], pa.thread0_reason = "why",
      pa.dynamic_strides = {query = array<i64: 0>}, pa.static_sizes = {},
      pa.static_layouts = {query = strided<[?, 64, 1], offset: 5>},
      pa.nvvm.programmatic_launch} {
    gpu.return
  }
  gpu.func @loops() kernel attributes {
      pa.grid = #pa.grid<x = work_info dim 0, y = 2, z = dynamic>,
      pa.distribution = #pa.distribution<"parallel-loops">} {
    gpu.return
  }
}
