// gpu.shuffle in every mode and width, with the valid flag of the ROCDL
// lowering (a source past the lane's width segment reads the lane itself).
// RUN: pa-emulate %s | FileCheck %s
// CHECK: ok

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @shuffles(%out: memref<64x8xi32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %lane = gpu.thread_id x
      %l = arith.index_cast %lane : index to i32
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %i3 = arith.constant 3 : i32
      %i5 = arith.constant 5 : i32
      %i16 = arith.constant 16 : i32
      %i32 = arith.constant 32 : i32
      %i64 = arith.constant 64 : i32
      %x, %xv = gpu.shuffle xor %l, %i5, %i64 : i32
      %d, %dv = gpu.shuffle down %l, %i3, %i16 : i32
      %u, %uv = gpu.shuffle up %l, %i3, %i32 : i32
      %n, %nv = gpu.shuffle idx %l, %i5, %i64 : i32
      memref.store %x, %out[%lane, %c0] : memref<64x8xi32>
      memref.store %d, %out[%lane, %c1] : memref<64x8xi32>
      memref.store %u, %out[%lane, %c2] : memref<64x8xi32>
      memref.store %n, %out[%lane, %c3] : memref<64x8xi32>
      %dvi = arith.extui %dv : i1 to i32
      %uvi = arith.extui %uv : i1 to i32
      memref.store %dvi, %out[%lane, %c4] : memref<64x8xi32>
      memref.store %uvi, %out[%lane, %c5] : memref<64x8xi32>
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
    %c64 = arith.constant 64 : index
    %out = memref.alloc() : memref<64x8xi32>
    gpu.launch_func @k::@shuffles blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%out : memref<64x8xi32>)
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i3 = arith.constant 3 : i32
    %i5 = arith.constant 5 : i32
    %i15 = arith.constant 15 : i32
    %i31 = arith.constant 31 : i32
    %m16 = arith.constant -16 : i32
    scf.for %lane = %c0 to %c64 step %c1 {
      %l = arith.index_cast %lane : index to i32
      %x = memref.load %out[%lane, %c0] : memref<64x8xi32>
      %xe = arith.xori %l, %i5 : i32
      %xok = arith.cmpi eq, %x, %xe : i32
      cf.assert %xok, "xor 5"
      // down 3 within 16-lane segments: lanes 13..15 of a segment keep theirs
      %d = memref.load %out[%lane, %c1] : memref<64x8xi32>
      %dv = memref.load %out[%lane, %c4] : memref<64x8xi32>
      %inSeg = arith.andi %l, %i15 : i32
      %lim = arith.subi %i15, %i3 : i32
      %past = arith.cmpi sgt, %inSeg, %lim : i32
      %l3 = arith.addi %l, %i3 : i32
      %de = arith.select %past, %l, %l3 : i32
      %dok = arith.cmpi eq, %d, %de : i32
      cf.assert %dok, "down 3 width 16"
      %dve = arith.select %past, %i0, %i1 : i32
      %dvok = arith.cmpi eq, %dv, %dve : i32
      cf.assert %dvok, "down 3 valid flag"
      // up 3 with width 32: the lowering accepts every source below the
      // segment's end, so lanes 0..2 read lane - 3 modulo 64
      %u = memref.load %out[%lane, %c2] : memref<64x8xi32>
      %um3 = arith.subi %l, %i3 : i32
      %i63 = arith.constant 63 : i32
      %ue = arith.andi %um3, %i63 : i32
      %uok = arith.cmpi eq, %u, %ue : i32
      cf.assert %uok, "up 3 width 32"
      %n = memref.load %out[%lane, %c3] : memref<64x8xi32>
      %nok = arith.cmpi eq, %n, %i5 : i32
      cf.assert %nok, "idx 5"
    }
    return
  }
}
