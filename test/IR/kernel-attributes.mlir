// RUN: pa-opt %s | pa-opt | FileCheck %s

// #pa.grid and #pa.distribution print as they parse: a grid extent as a
// constant, an operand dim or `dynamic`; "parallel-loops" quoted (it is no
// keyword), the other distributions bare.

// CHECK-LABEL: gpu.func @decode()
// CHECK-SAME:    pa.distribution = #pa.distribution<warps>
// CHECK-SAME:    pa.grid = #pa.grid<x = work_info dim 0, y = 2, z = 1>
// CHECK-LABEL: gpu.func @reduce()
// CHECK-SAME:    pa.distribution = #pa.distribution<"parallel-loops">
// CHECK-SAME:    pa.grid = #pa.grid<x = reduce_info dim 0, y = 4, z = dynamic>
// CHECK-LABEL: gpu.func @plan()
// CHECK-SAME:    pa.distribution = #pa.distribution<threads>
gpu.module @pa_kernels {
  gpu.func @decode() kernel attributes {
      pa.grid = #pa.grid<x = work_info dim 0, y = 2, z = 1>,
      pa.distribution = #pa.distribution<warps>} {
    gpu.return
  }
  gpu.func @reduce() kernel attributes {
      pa.grid = #pa.grid<x = reduce_info dim 0, y = 4, z = dynamic>,
      pa.distribution = #pa.distribution<"parallel-loops">} {
    gpu.return
  }
  gpu.func @plan() kernel attributes {
      pa.distribution = #pa.distribution<"threads">} {
    gpu.return
  }
}
