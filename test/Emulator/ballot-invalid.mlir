// rocdl.ballot returning i32 in a 64-lane wave would drop lanes 32-63: a
// compile error naming the op and its location, before anything runs.
// RUN: not pa-emulate %s 2>&1 | FileCheck %s
// CHECK: emulator: cannot compile 'rocdl.ballot' at loc("{{.*}}ballot-invalid.mlir":[[@LINE+9]]:{{[0-9]+}}): rocdl.ballot of a 64-lane wave must return i64
// CHECK-NOT: ok

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @narrow(%out: memref<64xi32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %lane = gpu.thread_id x
      %l = arith.index_cast %lane : index to i32
      %true = arith.constant true
      %mask = rocdl.ballot %true : i32
      memref.store %mask, %out[%lane] : memref<64xi32>
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %out = memref.alloc() : memref<64xi32>
    gpu.launch_func @k::@narrow blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%out : memref<64xi32>)
    return
  }
}
