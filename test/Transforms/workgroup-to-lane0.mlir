// RUN: pa-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(pa-workgroup-to-lane0))' | FileCheck %s

// The whole workgroup program moves under `thread_id x == 0`; the
// workgroup memory stays an attribution and gpu.return stays outside.
// CHECK-LABEL: gpu.func @program
// CHECK-SAME:      workgroup(%[[LDS:.*]] : memref<4xf32, #gpu.address_space<workgroup>>)
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK:         %[[IS0:.*]] = arith.cmpi eq, %[[TID]], %c0
// CHECK:         scf.if %[[IS0]] {
// CHECK:           %[[WG:.*]] = gpu.block_id x
// CHECK:           memref.store %{{.*}}, %[[LDS]][%{{.*}}]
// CHECK:           scf.for
// CHECK:           memref.store %{{.*}}, %arg0[%[[WG]]]
// CHECK:         }
// CHECK-NEXT:    gpu.return
// A non-kernel function is not a workgroup program: untouched.
// CHECK-LABEL: gpu.func @helper
// CHECK-NOT:     gpu.thread_id
// CHECK:         gpu.return
gpu.module @pa_kernels {
  gpu.func @program(%out: memref<?xf32>)
      workgroup(%lds : memref<4xf32, #gpu.address_space<workgroup>>)
      kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %wg = gpu.block_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %one = arith.constant 1.0 : f32
    memref.store %one, %lds[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
    %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %one) -> f32 {
      %v = memref.load %lds[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
      %s = arith.addf %acc, %v : f32
      scf.yield %s : f32
    }
    memref.store %sum, %out[%wg] : memref<?xf32>
    gpu.return
  }
  gpu.func @helper(%x: memref<?xf32>) {
    gpu.return
  }
}

// -----

// A kernel that already distributes its work over lanes (what pa-to-mfma
// produces for decode) keeps all its lanes.
// CHECK-LABEL: gpu.func @lane_distributed
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK-NOT:     scf.if
// CHECK:         memref.store %{{.*}}, %arg0[%[[TID]]]
gpu.module @pa_kernels {
  gpu.func @lane_distributed(%out: memref<?xf32>) kernel {
    %tid = gpu.thread_id x
    %zero = arith.constant 0.0 : f32
    memref.store %zero, %out[%tid] : memref<?xf32>
    gpu.return
  }
}
