// rocdl.ballot: every active lane gets the mask of the active lanes whose
// predicate holds (pa-to-mfma skips the accumulators' rescale when no
// lane's factor differs from 1); inactive lanes are not in the mask.
// A 32-bit mask of a 64-lane wave is refused (ballot-invalid.mlir).
// RUN: pa-emulate %s | FileCheck %s
// CHECK: ok

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @ballots(%out: memref<64x2xi64>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %lane = gpu.thread_id x
      %l = arith.index_cast %lane : index to i32
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : i32
      %c40 = arith.constant 40 : i32
      // Lanes 0, 3, 6, ..., 63: every third lane.
      %rem = arith.remui %l, %c3 : i32
      %zero = arith.constant 0 : i32
      %third = arith.cmpi eq, %rem, %zero : i32
      %all = rocdl.ballot %third : i64
      memref.store %all, %out[%lane, %c0] : memref<64x2xi64>
      // Only lanes below 40 are active here: lanes 40.. drop out of the mask.
      %low = arith.cmpi ult, %l, %c40 : i32
      scf.if %low {
        %some = rocdl.ballot %third : i64
        memref.store %some, %out[%lane, %c1] : memref<64x2xi64>
      }
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c40 = arith.constant 40 : index
    %c64 = arith.constant 64 : index
    %out = memref.alloc() : memref<64x2xi64>
    gpu.launch_func @k::@ballots blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%out : memref<64x2xi64>)
    // 0x9249249249249249: bits 0, 3, ..., 63. Below lane 40: 0x9249249249.
    %all_lanes = arith.constant -7905747460161236407 : i64
    %low_lanes = arith.constant 628292358729 : i64
    scf.for %lane = %c0 to %c64 step %c1 {
      %all = memref.load %out[%lane, %c0] : memref<64x2xi64>
      %ok_all = arith.cmpi eq, %all, %all_lanes : i64
      cf.assert %ok_all, "ballot over all lanes"
    }
    scf.for %lane = %c0 to %c40 step %c1 {
      %some = memref.load %out[%lane, %c1] : memref<64x2xi64>
      %ok_some = arith.cmpi eq, %some, %low_lanes : i64
      cf.assert %ok_some, "ballot over the active lanes"
    }
    return
  }
}
