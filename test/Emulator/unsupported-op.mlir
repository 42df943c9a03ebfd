// An op the emulator does not execute is a compile error naming the op and
// its location, before anything runs.
// RUN: not pa-emulate %s 2>&1 | FileCheck %s
// CHECK: emulator: cannot compile 'math.sin' at loc("{{.*}}unsupported-op.mlir":[[@LINE+8]]:{{[0-9]+}}): the emulator does not implement this op
// CHECK-NOT: ok

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @sine(%out: memref<64xf32>)
        kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %x = arith.constant 1.0 : f32
      %s = math.sin %x : f32
      %tid = gpu.thread_id x
      memref.store %s, %out[%tid] : memref<64xf32>
      gpu.return
    }
  }

  func.func @main() {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %out = memref.alloc() : memref<64xf32>
    gpu.launch_func @k::@sine blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%out : memref<64xf32>)
    return
  }
}
