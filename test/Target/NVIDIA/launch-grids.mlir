// pa-nvvm-launch-grids: a kernel's pa.nvvm.grid_z (and the choice of
// pa.nvvm.grid_z_limit / _otherwise) onto its launches' grid z and its
// pa.grid.
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

// With pa.nvvm.grid_z_limit / _otherwise: z = 4 where the launch's x * y
// <= 66 workgroups, else 1, on the launch and in pa.grid.
// CHECK-LABEL: func.func @host(
// CHECK-SAME:      %[[X:.*]]: index, %[[Y:.*]]: index)
// CHECK:       %[[C4:.*]] = arith.constant 4 : index
// CHECK:       %[[XY:.*]] = arith.muli %[[X]], %[[Y]] : index
// CHECK:       %[[C66:.*]] = arith.constant 66 : index
// CHECK:       %[[FEW:.*]] = arith.cmpi ule, %[[XY]], %[[C66]] : index
// CHECK:       %[[C1:.*]] = arith.constant 1 : index
// CHECK:       %[[Z:.*]] = arith.select %[[FEW]], %[[C4]], %[[C1]] : index
// CHECK:       gpu.launch_func @kernels::@sliced blocks in (%[[X]], %[[Y]], %[[Z]])
// CHECK:       gpu.func @sliced()
// CHECK-SAME:      pa.grid = #pa.grid<x = dynamic, y = dynamic, z = 4 if x * y le 66 else 1>
// CHECK-NOT:       pa.nvvm.grid_z
// CHECK-SAME:      {
module attributes {gpu.container_module} {
  func.func @host(%x: index, %y: index) {
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    gpu.launch_func @kernels::@sliced blocks in (%x, %y, %c1) threads in (%c128, %c1, %c1)
    return
  }
  gpu.module @kernels {
    gpu.func @sliced() kernel attributes {pa.grid = #pa.grid<x = dynamic, y = dynamic, z = 1>, pa.nvvm.grid_z = 4 : i64, pa.nvvm.grid_z_limit = 66 : i64, pa.nvvm.grid_z_otherwise = 1 : i64} {
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

// -----

module attributes {gpu.container_module} {
  func.func @host() {
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    gpu.launch_func @kernels::@sliced blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
    return
  }
  gpu.module @kernels {
    // expected-error @+1 {{pa-nvvm-launch-grids: pa.nvvm.grid_z_limit and pa.nvvm.grid_z_otherwise go together, each >= 1}}
    gpu.func @sliced() kernel attributes {pa.grid = #pa.grid<x = 1, y = 1, z = 1>, pa.nvvm.grid_z = 4 : i64, pa.nvvm.grid_z_limit = 66 : i64} {
      gpu.return
    }
  }
}
