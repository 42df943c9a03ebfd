// Lanes take different paths: per-lane trip counts of scf.for (with an
// scf.if yielding inside), per-lane exits of scf.while. Each lane must end
// with what a lone thread computes: the host runs the same loops on one
// lane and compares, and checks known values.
// RUN: pa-emulate %s | FileCheck %s
// CHECK: ok

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @diverge(%out: memref<128x2xi32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %tid = gpu.thread_id x
      %t = arith.index_cast %tid : index to i32
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %i0 = arith.constant 0 : i32
      %i1 = arith.constant 1 : i32
      %i2 = arith.constant 2 : i32
      %i3 = arith.constant 3 : i32
      %i7 = arith.constant 7 : i32
      // sum over j < t % 7 of (j odd ? 2j : j)
      %n = arith.remui %t, %i7 : i32
      %sum = scf.for %j = %i0 to %n step %i1 iter_args(%acc = %i0) -> (i32) : i32 {
        %odd = arith.andi %j, %i1 : i32
        %isOdd = arith.cmpi ne, %odd, %i0 : i32
        %term = scf.if %isOdd -> (i32) {
          %twice = arith.muli %j, %i2 : i32
          scf.yield %twice : i32
        } else {
          scf.yield %j : i32
        }
        %next = arith.addi %acc, %term : i32
        scf.yield %next : i32
      }
      // Collatz steps of t + 1
      %start = arith.addi %t, %i1 : i32
      %final:2 = scf.while (%x = %start, %count = %i0) : (i32, i32) -> (i32, i32) {
        %more = arith.cmpi ne, %x, %i1 : i32
        scf.condition(%more) %x, %count : i32, i32
      } do {
      ^bb0(%x: i32, %count: i32):
        %low = arith.andi %x, %i1 : i32
        %even = arith.cmpi eq, %low, %i0 : i32
        %half = arith.divui %x, %i2 : i32
        %x3 = arith.muli %x, %i3 : i32
        %up = arith.addi %x3, %i1 : i32
        %nx = arith.select %even, %half, %up : i32
        %nc = arith.addi %count, %i1 : i32
        scf.yield %nx, %nc : i32, i32
      }
      memref.store %sum, %out[%tid, %c0] : memref<128x2xi32>
      memref.store %final#1, %out[%tid, %c1] : memref<128x2xi32>
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c26 = arith.constant 26 : index
    %c128 = arith.constant 128 : index
    %out = memref.alloc() : memref<128x2xi32>
    gpu.launch_func @k::@diverge blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1) args(%out : memref<128x2xi32>)
    %i0 = arith.constant 0 : i32
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i3 = arith.constant 3 : i32
    %i7 = arith.constant 7 : i32
    scf.for %tid = %c0 to %c128 step %c1 {
      %t = arith.index_cast %tid : index to i32
      %n = arith.remui %t, %i7 : i32
      %sum = scf.for %j = %i0 to %n step %i1 iter_args(%acc = %i0) -> (i32) : i32 {
        %odd = arith.andi %j, %i1 : i32
        %isOdd = arith.cmpi ne, %odd, %i0 : i32
        %twice = arith.muli %j, %i2 : i32
        %term = arith.select %isOdd, %twice, %j : i32
        %next = arith.addi %acc, %term : i32
        scf.yield %next : i32
      }
      %got = memref.load %out[%tid, %c0] : memref<128x2xi32>
      %ok = arith.cmpi eq, %got, %sum : i32
      cf.assert %ok, "divergent scf.for / scf.if"
      %x0 = arith.addi %t, %i1 : i32
      %steps:2 = scf.for %k = %c0 to %c128 step %c1 iter_args(%x = %x0, %count = %i0) -> (i32, i32) {
        %done = arith.cmpi eq, %x, %i1 : i32
        %low = arith.andi %x, %i1 : i32
        %even = arith.cmpi eq, %low, %i0 : i32
        %half = arith.divui %x, %i2 : i32
        %x3 = arith.muli %x, %i3 : i32
        %up = arith.addi %x3, %i1 : i32
        %step = arith.select %even, %half, %up : i32
        %nx = arith.select %done, %x, %step : i32
        %inc = arith.addi %count, %i1 : i32
        %nc = arith.select %done, %count, %inc : i32
        scf.yield %nx, %nc : i32, i32
      }
      %gotSteps = memref.load %out[%tid, %c1] : memref<128x2xi32>
      %okSteps = arith.cmpi eq, %gotSteps, %steps#1 : i32
      cf.assert %okSteps, "divergent scf.while"
    }
    // Collatz(27) takes 111 steps (thread 26).
    %s27 = memref.load %out[%c26, %c1] : memref<128x2xi32>
    %i111 = arith.constant 111 : i32
    %ok27 = arith.cmpi eq, %s27, %i111 : i32
    cf.assert %ok27, "collatz 27"
    return
  }
}
