// RUN: pa-opt %s -split-input-file -verify-diagnostics

// The attributes the passes put on kernels for the metadata are checked
// for their kind (include/pa/IR/KernelAttributes.h).
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
  // expected-error @+1 {{a grid has 3 axes (x, y, z), got 2}}
  gpu.func @k() kernel attributes {pa.grid = #pa.grid<x = 4, y = 1>} {
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
      pa.param_fields = ["query.aligned_ptr"], pa.thread0_reason = "why"} {
    gpu.return
  }
  gpu.func @loops() kernel attributes {
      pa.grid = #pa.grid<x = work_info dim 0, y = 2, z = dynamic>,
      pa.distribution = #pa.distribution<"parallel-loops">} {
    gpu.return
  }
}
