// A missing barrier is caught. @staged is the page-id staging pattern:
// wave 0 copies ids from global memory into LDS, a barrier, then all four
// waves read them. @staged_missing_barrier is the same kernel without the
// barrier: wave 1 reads LDS that wave 0 wrote in the same barrier interval,
// an LDS race (on hardware, a stale read whenever wave 1 runs ahead).
// RUN: pa-emulate %s | FileCheck %s --check-prefix=CORRECT
// RUN: not pa-emulate %s --entry=missing 2>&1 | FileCheck %s --check-prefix=MISSING
// CORRECT: ok
// MISSING: emulator: LDS race: wave 1 reads byte 0 of workgroup memory (workgroup attribution #0, element [0]), which wave 0 wrote since the last barrier (missing barrier?)
// MISSING-NEXT: at 'memref.load'
// MISSING-NEXT: in kernel @staged_missing_barrier, workgroup (0, 0, 0), wave 1, lane 0 (thread 64)

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @staged(%ids: memref<64xi32>, %out: memref<256xi32>)
        workgroup(%lds: memref<64xi32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %tid = gpu.thread_id x
      %c64 = arith.constant 64 : index
      %first = arith.cmpi ult, %tid, %c64 : index
      scf.if %first {
        %id = memref.load %ids[%tid] : memref<64xi32>
        memref.store %id, %lds[%tid] : memref<64xi32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %slot = arith.remui %tid, %c64 : index
      %v = memref.load %lds[%slot] : memref<64xi32, #gpu.address_space<workgroup>>
      memref.store %v, %out[%tid] : memref<256xi32>
      gpu.return
    }
    gpu.func @staged_missing_barrier(%ids: memref<64xi32>, %out: memref<256xi32>)
        workgroup(%lds: memref<64xi32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %tid = gpu.thread_id x
      %c64 = arith.constant 64 : index
      %first = arith.cmpi ult, %tid, %c64 : index
      scf.if %first {
        %id = memref.load %ids[%tid] : memref<64xi32>
        memref.store %id, %lds[%tid] : memref<64xi32, #gpu.address_space<workgroup>>
      }
      %slot = arith.remui %tid, %c64 : index
      %v = memref.load %lds[%slot] : memref<64xi32, #gpu.address_space<workgroup>>
      memref.store %v, %out[%tid] : memref<256xi32>
      gpu.return
    }
  }

  func.func @fill(%ids: memref<64xi32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %i7 = arith.constant 7 : i32
    scf.for %i = %c0 to %c64 step %c1 {
      %v = arith.index_cast %i : index to i32
      %id = arith.muli %v, %i7 : i32
      memref.store %id, %ids[%i] : memref<64xi32>
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    %ids = memref.alloc() : memref<64xi32>
    %out = memref.alloc() : memref<256xi32>
    func.call @fill(%ids) : (memref<64xi32>) -> ()
    gpu.launch_func @k::@staged blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%ids : memref<64xi32>, %out : memref<256xi32>)
    scf.for %t = %c0 to %c256 step %c1 {
      %slot = arith.remui %t, %c64 : index
      %want = memref.load %ids[%slot] : memref<64xi32>
      %got = memref.load %out[%t] : memref<256xi32>
      %ok = arith.cmpi eq, %got, %want : i32
      cf.assert %ok, "staged ids"
    }
    return
  }

  func.func @missing() {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %ids = memref.alloc() : memref<64xi32>
    %out = memref.alloc() : memref<256xi32>
    func.call @fill(%ids) : (memref<64xi32>) -> ()
    gpu.launch_func @k::@staged_missing_barrier blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%ids : memref<64xi32>, %out : memref<256xi32>)
    return
  }
}
