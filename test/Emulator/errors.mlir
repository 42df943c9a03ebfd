// Every other error the emulator raises, one entry function each, and a
// barrier-heavy kernel that must pass (@main). Kernels run 256 threads
// (4 waves) unless stated.
// RUN: pa-emulate %s | FileCheck %s --check-prefix=MAIN
// MAIN: ok
// RUN: not pa-emulate %s --entry=divergent_barrier 2>&1 | FileCheck %s --check-prefix=DIVERGENT-BARRIER
// DIVERGENT-BARRIER: emulator: barrier in divergent control flow: lanes 0xFFFFFFFF00000000 of the wave do not reach it
// DIVERGENT-BARRIER-NEXT: at 'gpu.barrier'
// DIVERGENT-BARRIER-NEXT: in kernel @divergent_barrier, workgroup (0, 0, 0), wave 0, lane 32 (thread 32)
// RUN: not pa-emulate %s --entry=barrier_not_reached 2>&1 | FileCheck %s --check-prefix=BARRIER-NOT-REACHED
// BARRIER-NOT-REACHED: emulator: barrier not reached by all waves: wave 1 returned while wave 0 waits at this barrier
// BARRIER-NOT-REACHED-NEXT: at 'gpu.barrier'
// BARRIER-NOT-REACHED-NEXT: in kernel @barrier_not_reached, workgroup (0, 0, 0), wave 0
// RUN: not pa-emulate %s --entry=different_barriers 2>&1 | FileCheck %s --check-prefix=DIFFERENT-BARRIERS
// DIFFERENT-BARRIERS: emulator: waves wait at different barriers: wave 1 waits at loc(
// DIFFERENT-BARRIERS-NEXT: at 'gpu.barrier'
// DIFFERENT-BARRIERS-NEXT: in kernel @different_barriers, workgroup (0, 0, 0), wave 0
// RUN: not pa-emulate %s --entry=write_after_read 2>&1 | FileCheck %s --check-prefix=WRITE-AFTER-READ
// WRITE-AFTER-READ: emulator: LDS race: wave 1 writes byte 0 of workgroup memory (workgroup attribution #0, element [0]), which wave 0 read since the last barrier
// WRITE-AFTER-READ-NEXT: at 'memref.store'
// WRITE-AFTER-READ-NEXT: in kernel @write_after_read, workgroup (0, 0, 0), wave 1, lane 0 (thread 64)
// RUN: not pa-emulate %s --entry=write_after_write 2>&1 | FileCheck %s --check-prefix=WRITE-AFTER-WRITE
// WRITE-AFTER-WRITE: emulator: LDS race: wave 1 writes byte 0 of workgroup memory (workgroup attribution #0, element [0]), which wave 0 wrote since the last barrier
// WRITE-AFTER-WRITE-NEXT: at 'memref.store'
// WRITE-AFTER-WRITE-NEXT: in kernel @write_after_write, workgroup (0, 0, 0), wave 1, lane 0 (thread 64)
// RUN: not pa-emulate %s --entry=uninitialized 2>&1 | FileCheck %s --check-prefix=UNINITIALIZED
// UNINITIALIZED: emulator: read of byte 0 of workgroup memory (workgroup attribution #0, element [0]), which no wave of this workgroup has written
// UNINITIALIZED-NEXT: at 'memref.load'
// UNINITIALIZED-NEXT: in kernel @uninitialized, workgroup (0, 0, 0), wave 0, lane 0 (thread 0)
// RUN: not pa-emulate %s --entry=shuffle_inactive_lane 2>&1 | FileCheck %s --check-prefix=SHUFFLE-INACTIVE-LANE
// SHUFFLE-INACTIVE-LANE: emulator: gpu.shuffle reads lane 32, which is not active
// SHUFFLE-INACTIVE-LANE-NEXT: at 'gpu.shuffle'
// SHUFFLE-INACTIVE-LANE-NEXT: in kernel @shuffle_inactive_lane, workgroup (0, 0, 0), wave 0, lane 0 (thread 0)
// RUN: not pa-emulate %s --entry=divergent_mfma 2>&1 | FileCheck %s --check-prefix=DIVERGENT-MFMA
// DIVERGENT-MFMA: emulator: amdgpu.mfma needs all 64 lanes of the wave active (exec mask 0xFFFFFFFF)
// DIVERGENT-MFMA-NEXT: at 'amdgpu.mfma'
// DIVERGENT-MFMA-NEXT: in kernel @divergent_mfma, workgroup (0, 0, 0), wave 0
// RUN: not pa-emulate %s --entry=division_by_zero 2>&1 | FileCheck %s --check-prefix=DIVISION-BY-ZERO
// DIVISION-BY-ZERO: emulator: unsigned division by zero
// DIVISION-BY-ZERO-NEXT: at 'arith.divui'
// DIVISION-BY-ZERO-NEXT: in kernel @division_by_zero, workgroup (0, 0, 0), wave 0, lane 0 (thread 0)
// RUN: not pa-emulate %s --entry=store_out_of_bounds 2>&1 | FileCheck %s --check-prefix=STORE-OUT-OF-BOUNDS
// STORE-OUT-OF-BOUNDS: emulator: out-of-bounds store to 'memref.alloc #1'[256] of a memref with sizes [256] (dim 0)
// STORE-OUT-OF-BOUNDS-NEXT: at 'memref.store'
// STORE-OUT-OF-BOUNDS-NEXT: in kernel @store_out_of_bounds, workgroup (0, 0, 0), wave 3, lane 63 (thread 255)
// RUN: not pa-emulate %s --entry=too_much_lds --chip=gfx942 2>&1 | FileCheck %s --check-prefix=TOO-MUCH-LDS
// TOO-MUCH-LDS: emulator: kernel @too_much_lds uses 68000 bytes of workgroup memory; gfx942 has 65536
// TOO-MUCH-LDS-NEXT: at 'gpu.launch_func'
// TOO-MUCH-LDS-NEXT: in host function @too_much_lds
// RUN: not pa-emulate %s --entry=workgroups_write_one_byte 2>&1 | FileCheck %s --check-prefix=GLOBAL-RACE
// GLOBAL-RACE: emulator: global memory race: this store to 'memref.alloc #1'[0] of a memref with sizes [256] touches byte 0 of 'memref.alloc #1', which workgroup (0, 0, 0) wrote during the same launch
// GLOBAL-RACE-NEXT: at 'memref.store'
// GLOBAL-RACE-NEXT: in kernel @workgroups_write_one_byte, workgroup (1, 0, 0), wave 0, lane 0 (thread 0)

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @barriers_in_loop(%out: memref<256xi32>)
        workgroup(%lds: memref<256xi32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %tid = gpu.thread_id x
      %t32 = arith.index_cast %tid : index to i32
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c256 = arith.constant 256 : index
      %c255 = arith.constant 255 : index
      %zero = arith.constant 0 : i32
      memref.store %zero, %lds[%tid] : memref<256xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      // 8 rounds: each thread adds its right neighbour's value plus one
      scf.for %round = %c0 to %c8 step %c1 {
        %right = arith.addi %tid, %c1 : index
        %r = arith.andi %right, %c255 : index
        %v = memref.load %lds[%r] : memref<256xi32, #gpu.address_space<workgroup>>
        gpu.barrier
        %one = arith.constant 1 : i32
        %n = arith.addi %v, %one : i32
        memref.store %n, %lds[%tid] : memref<256xi32, #gpu.address_space<workgroup>>
        amdgpu.lds_barrier
      }
      %final = memref.load %lds[%tid] : memref<256xi32, #gpu.address_space<workgroup>>
      memref.store %final, %out[%tid] : memref<256xi32>
      gpu.return
    }
    gpu.func @divergent_barrier(%out: memref<256xi32>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %tid = gpu.thread_id x
      %t32 = arith.index_cast %tid : index to i32
      %c32 = arith.constant 32 : index
      %low = arith.cmpi ult, %tid, %c32 : index
      scf.if %low {
        gpu.barrier
      }
      gpu.return
    }
    gpu.func @barrier_not_reached(%out: memref<256xi32>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %tid = gpu.thread_id x
      %t32 = arith.index_cast %tid : index to i32
      %c64 = arith.constant 64 : index
      %wave0 = arith.cmpi ult, %tid, %c64 : index
      scf.if %wave0 {
        gpu.barrier
      }
      gpu.return
    }
    gpu.func @different_barriers(%out: memref<256xi32>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %tid = gpu.thread_id x
      %t32 = arith.index_cast %tid : index to i32
      %c64 = arith.constant 64 : index
      %wave0 = arith.cmpi ult, %tid, %c64 : index
      scf.if %wave0 {
        gpu.barrier
      } else {
        gpu.barrier
      }
      gpu.return
    }
    gpu.func @write_after_read(%out: memref<256xi32>)
        workgroup(%lds: memref<256xi32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %tid = gpu.thread_id x
      %t32 = arith.index_cast %tid : index to i32
      %c0 = arith.constant 0 : index
      %c64 = arith.constant 64 : index
      memref.store %t32, %lds[%tid] : memref<256xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      %v = memref.load %lds[%c0] : memref<256xi32, #gpu.address_space<workgroup>>
      %wave1 = arith.cmpi uge, %tid, %c64 : index
      scf.if %wave1 {
        memref.store %v, %lds[%c0] : memref<256xi32, #gpu.address_space<workgroup>>
      }
      gpu.return
    }
    gpu.func @write_after_write(%out: memref<256xi32>)
        workgroup(%lds: memref<256xi32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %tid = gpu.thread_id x
      %t32 = arith.index_cast %tid : index to i32
      %c64 = arith.constant 64 : index
      %slot = arith.remui %tid, %c64 : index
      memref.store %t32, %lds[%slot] : memref<256xi32, #gpu.address_space<workgroup>>
      gpu.return
    }
    gpu.func @uninitialized(%out: memref<256xi32>)
        workgroup(%lds: memref<256xi32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %tid = gpu.thread_id x
      %t32 = arith.index_cast %tid : index to i32
      %v = memref.load %lds[%tid] : memref<256xi32, #gpu.address_space<workgroup>>
      memref.store %v, %out[%tid] : memref<256xi32>
      gpu.return
    }
    gpu.func @shuffle_inactive_lane(%out: memref<256xi32>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %tid = gpu.thread_id x
      %t32 = arith.index_cast %tid : index to i32
      %c32 = arith.constant 32 : index
      %low = arith.cmpi ult, %tid, %c32 : index
      scf.if %low {
        %i32 = arith.constant 32 : i32
        %i64 = arith.constant 64 : i32
        %x, %valid = gpu.shuffle xor %t32, %i32, %i64 : i32
        memref.store %x, %out[%tid] : memref<256xi32>
      }
      gpu.return
    }
    gpu.func @divergent_mfma(%out: memref<256xi32>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %tid = gpu.thread_id x
      %t32 = arith.index_cast %tid : index to i32
      %c32 = arith.constant 32 : index
      %low = arith.cmpi ult, %tid, %c32 : index
      scf.if %low {
        %a = arith.constant dense<1.0> : vector<4xbf16>
        %c = arith.constant dense<0.0> : vector<4xf32>
        %d = amdgpu.mfma 16x16x16 %a * %a + %c blgp = none : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
      }
      gpu.return
    }
    gpu.func @division_by_zero(%out: memref<256xi32>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %tid = gpu.thread_id x
      %t32 = arith.index_cast %tid : index to i32
      %c3 = arith.constant 3 : index
      %r = arith.remui %tid, %c3 : index
      %q = arith.divui %tid, %r : index
      gpu.return
    }
    gpu.func @store_out_of_bounds(%out: memref<256xi32>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %tid = gpu.thread_id x
      %t32 = arith.index_cast %tid : index to i32
      %c1 = arith.constant 1 : index
      %next = arith.addi %tid, %c1 : index
      memref.store %t32, %out[%next] : memref<256xi32>
      gpu.return
    }
    gpu.func @too_much_lds(%out: memref<256xi32>)
        workgroup(%lds: memref<17000xi32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %tid = gpu.thread_id x
      %t32 = arith.index_cast %tid : index to i32
      %c0 = arith.constant 0 : index
      memref.store %t32, %lds[%c0] : memref<17000xi32, #gpu.address_space<workgroup>>
      gpu.return
    }
    // Every workgroup writes element 0: workgroups are not ordered.
    gpu.func @workgroups_write_one_byte(%out: memref<256xi32>)
        kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        %block = gpu.block_id x
        %b32 = arith.index_cast %block : index to i32
        memref.store %b32, %out[%c0] : memref<256xi32>
      }
      gpu.return
    }
  }

  func.func @main() {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %out = memref.alloc() : memref<256xi32>
    gpu.launch_func @k::@barriers_in_loop blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%out : memref<256xi32>)
    // after 8 rounds every slot holds 8
    %c0 = arith.constant 0 : index
    %i8 = arith.constant 8 : i32
    scf.for %t = %c0 to %c256 step %c1 {
      %v = memref.load %out[%t] : memref<256xi32>
      %ok = arith.cmpi eq, %v, %i8 : i32
      cf.assert %ok, "8 rounds"
    }
    return
  }

  func.func @divergent_barrier() {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %out = memref.alloc() : memref<256xi32>
    gpu.launch_func @k::@divergent_barrier blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%out : memref<256xi32>)
    return
  }

  func.func @barrier_not_reached() {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %out = memref.alloc() : memref<256xi32>
    gpu.launch_func @k::@barrier_not_reached blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%out : memref<256xi32>)
    return
  }

  func.func @different_barriers() {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %out = memref.alloc() : memref<256xi32>
    gpu.launch_func @k::@different_barriers blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%out : memref<256xi32>)
    return
  }

  func.func @write_after_read() {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %out = memref.alloc() : memref<256xi32>
    gpu.launch_func @k::@write_after_read blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%out : memref<256xi32>)
    return
  }

  func.func @write_after_write() {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %out = memref.alloc() : memref<256xi32>
    gpu.launch_func @k::@write_after_write blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%out : memref<256xi32>)
    return
  }

  func.func @uninitialized() {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %out = memref.alloc() : memref<256xi32>
    gpu.launch_func @k::@uninitialized blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%out : memref<256xi32>)
    return
  }

  func.func @shuffle_inactive_lane() {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %out = memref.alloc() : memref<256xi32>
    gpu.launch_func @k::@shuffle_inactive_lane blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%out : memref<256xi32>)
    return
  }

  func.func @divergent_mfma() {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %out = memref.alloc() : memref<256xi32>
    gpu.launch_func @k::@divergent_mfma blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%out : memref<256xi32>)
    return
  }

  func.func @division_by_zero() {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %out = memref.alloc() : memref<256xi32>
    gpu.launch_func @k::@division_by_zero blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%out : memref<256xi32>)
    return
  }

  func.func @store_out_of_bounds() {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %out = memref.alloc() : memref<256xi32>
    gpu.launch_func @k::@store_out_of_bounds blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%out : memref<256xi32>)
    return
  }

  func.func @too_much_lds() {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %out = memref.alloc() : memref<256xi32>
    gpu.launch_func @k::@too_much_lds blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%out : memref<256xi32>)
    return
  }

  func.func @workgroups_write_one_byte() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %out = memref.alloc() : memref<256xi32>
    gpu.launch_func @k::@workgroups_write_one_byte blocks in (%c2, %c1, %c1) threads in (%c64, %c1, %c1) args(%out : memref<256xi32>)
    return
  }
}
