// memref.extract_strided_metadata in a kernel: every lane reads the view's
// offset, sizes and run-time strides (pa-to-mfma's 32-bit range check of
// a cache with a run-time page stride: an interleaved combined cache).
// Until 2026-12-05 only the wave's first active lane got them and the
// others kept stale values, so a branch on them split the wave: the
// large-pool emulator failures of the interleaved combined caches
// (docs/emulator.md).
// RUN: pa-emulate %s | FileCheck %s
// CHECK: ok

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @metadata(%view: memref<?x?xf32, strided<[?, 1], offset: ?>>,
                       %out: memref<128x3xindex>)
        kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %base, %offset, %sizes:2, %strides:2 = memref.extract_strided_metadata %view : memref<?x?xf32, strided<[?, 1], offset: ?>> -> memref<f32>, index, index, index, index, index
      memref.store %offset, %out[%tid, %c0] : memref<128x3xindex>
      memref.store %sizes#0, %out[%tid, %c1] : memref<128x3xindex>
      memref.store %strides#0, %out[%tid, %c2] : memref<128x3xindex>
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c10 = arith.constant 10 : index
    %c128 = arith.constant 128 : index
    %m = memref.alloc() : memref<6x10xf32>
    // Rows 1, 3, 5 (stride 20) from column 2: offset 12, 3 x 4.
    %s = memref.subview %m[1, 2] [3, 4] [2, 1] : memref<6x10xf32> to memref<3x4xf32, strided<[20, 1], offset: 12>>
    %v = memref.cast %s : memref<3x4xf32, strided<[20, 1], offset: 12>> to memref<?x?xf32, strided<[?, 1], offset: ?>>
    %out = memref.alloc() : memref<128x3xindex>
    gpu.launch_func @k::@metadata blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1) args(%v : memref<?x?xf32, strided<[?, 1], offset: ?>>, %out : memref<128x3xindex>)
    %c12 = arith.constant 12 : index
    %c20 = arith.constant 20 : index
    scf.for %tid = %c0 to %c128 step %c1 {
      %offset = memref.load %out[%tid, %c0] : memref<128x3xindex>
      %ok0 = arith.cmpi eq, %offset, %c12 : index
      cf.assert %ok0, "every lane reads the offset, 12"
      %size = memref.load %out[%tid, %c1] : memref<128x3xindex>
      %ok1 = arith.cmpi eq, %size, %c3 : index
      cf.assert %ok1, "every lane reads size 0, 3"
      %stride = memref.load %out[%tid, %c2] : memref<128x3xindex>
      %ok2 = arith.cmpi eq, %stride, %c20 : index
      cf.assert %ok2, "every lane reads stride 0, 20"
    }
    return
  }
}
