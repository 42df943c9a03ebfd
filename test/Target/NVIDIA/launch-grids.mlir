// pa-nvvm-launch-grids: a kernel's pa.nvvm.grid_z onto its launches' grid z
// and its pa.grid.
// RUN: pa-opt %s -split-input-file --pa-nvvm-launch-grids -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @host
// CHECK:       %[[Z:.*]] = arith.constant 3 : index
// CHECK:       gpu.launch_func @kernels::@sliced blocks in (%{{.*}}, %{{.*}}, %[[Z]])
// CHECK:       gpu.launch_func @kernels::@plain blocks in (%{{.*}}, %{{.*}}, %{{.*}})
// CHECK:       gpu.func @sliced()
// CHECK-SAME:      pa.grid = #pa.grid<x = 4, y = 2, z = 3>
// CHECK-NOT:       pa.nvvm.grid_z
// CHECK:       gpu.func @plain()
// CHECK-SAME:      pa.grid = #pa.grid<x = 4, y = 2, z = 1>
module attributes {gpu.container_module} {
  func.func @host() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    gpu.launch_func @kernels::@sliced blocks in (%c4, %c2, %c1) threads in (%c128, %c1, %c1)
    gpu.launch_func @kernels::@plain blocks in (%c4, %c2, %c1) threads in (%c128, %c1, %c1)
    return
  }
  gpu.module @kernels {
    gpu.func @sliced() kernel attributes {pa.grid = #pa.grid<x = 4, y = 2, z = 1>, pa.nvvm.grid_z = 3 : i64} {
      gpu.return
    }
    gpu.func @plain() kernel attributes {pa.grid = #pa.grid<x = 4, y = 2, z = 1>} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  func.func @host(%z: index) {
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    // expected-error @+1 {{pa-nvvm-launch-grids: kernel 'sliced' asks for grid z = 2, but its launch's grid z is not 1}}
    gpu.launch_func @kernels::@sliced blocks in (%c1, %c1, %z) threads in (%c128, %c1, %c1)
    return
  }
  gpu.module @kernels {
    gpu.func @sliced() kernel attributes {pa.grid = #pa.grid<x = 1, y = 1, z = dynamic>, pa.nvvm.grid_z = 2 : i64} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  func.func @host() {
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    gpu.launch_func @kernels::@sliced blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
    return
  }
  gpu.module @kernels {
    // expected-error @+1 {{pa-nvvm-launch-grids: the kernel's pa.grid does not have z = 1}}
    gpu.func @sliced() kernel attributes {pa.grid = #pa.grid<x = 1, y = 1, z = 2>, pa.nvvm.grid_z = 2 : i64} {
      gpu.return
    }
  }
}
