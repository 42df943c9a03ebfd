// rocdl.update.dpp with a control other than row_newbcast (here row_shr:1)
// is a compile error naming the op and its location, before anything runs.
// RUN: not pa-emulate %s 2>&1 | FileCheck %s
// CHECK: emulator: cannot compile 'rocdl.update.dpp' at loc("{{.*}}dpp-row-broadcast-invalid.mlir":[[@LINE+8]]:{{[0-9]+}}): unsupported rocdl.update.dpp (only row_newbcast of 32-bit values with full row and bank masks)
// CHECK-NOT: ok

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @row_shr(%out: memref<64xi32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %lane = gpu.thread_id x
      %l = arith.index_cast %lane : index to i32
      %s = rocdl.update.dpp %l, %l with 273, 15, 15, false : i32
      memref.store %s, %out[%lane] : memref<64xi32>
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %out = memref.alloc() : memref<64xi32>
    gpu.launch_func @k::@row_shr blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%out : memref<64xi32>)
    return
  }
}
