// rocdl.update.dpp with DPP_ROW_NEWBCAST (0x150 + n): every lane of a row of
// 16 reads lane n of its row (pa-to-mfma spreads per-token scales with it);
// other controls are refused (dpp-row-broadcast-invalid.mlir).
// RUN: pa-emulate %s | FileCheck %s
// CHECK: ok

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @broadcasts(%out: memref<64x2xi32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %lane = gpu.thread_id x
      %l = arith.index_cast %lane : index to i32
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %b5 = rocdl.update.dpp %l, %l with 341, 15, 15, true : i32
      %b15 = rocdl.update.dpp %l, %l with 351, 15, 15, false : i32
      memref.store %b5, %out[%lane, %c0] : memref<64x2xi32>
      memref.store %b15, %out[%lane, %c1] : memref<64x2xi32>
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %out = memref.alloc() : memref<64x2xi32>
    gpu.launch_func @k::@broadcasts blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%out : memref<64x2xi32>)
    %i5 = arith.constant 5 : i32
    %i15 = arith.constant 15 : i32
    %m16 = arith.constant -16 : i32
    scf.for %lane = %c0 to %c64 step %c1 {
      %l = arith.index_cast %lane : index to i32
      %row = arith.andi %l, %m16 : i32
      %b5 = memref.load %out[%lane, %c0] : memref<64x2xi32>
      %e5 = arith.addi %row, %i5 : i32
      %ok5 = arith.cmpi eq, %b5, %e5 : i32
      cf.assert %ok5, "row_newbcast:5"
      %b15 = memref.load %out[%lane, %c1] : memref<64x2xi32>
      %e15 = arith.addi %row, %i15 : i32
      %ok15 = arith.cmpi eq, %b15, %e15 : i32
      cf.assert %ok15, "row_newbcast:15"
    }
    return
  }
}
