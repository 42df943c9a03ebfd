// An out-of-bounds page id is caught. @gather reads, for each visible token
// t of a sequence, the 16 key bytes of page block_tables[seq][t / 16], slot
// t % 16, through an AMD buffer descriptor (amdgpu.fat_raw_buffer_cast). The
// sequences hold 48 and 20 tokens; the block tables' unused entries hold
// 9999, which is not a page of the 6-page pool (the spec: such ids are never
// read). @gather_past_last_page computes the table column as (t + 16) / 16,
// one page too far: tokens 32..47 of sequence 0 and 16..19 of sequence 1
// read id 9999.
// On hardware the buffer load returns zeros (--lenient-buffers shows the
// 320 masked element reads); the emulator reports the first.
// RUN: pa-emulate %s | FileCheck %s --check-prefix=CORRECT
// RUN: not pa-emulate %s --entry=past_last_page 2>&1 | FileCheck %s --check-prefix=OOB
// RUN: pa-emulate %s --entry=past_last_page --lenient-buffers --print-stats | FileCheck %s --check-prefix=LENIENT
// CORRECT: ok
// OOB: emulator: out-of-bounds buffer load from 'memref.alloc #3'[9999, 0, 0] (16 elements) of a memref with sizes [6, 16, 16] (dim 0)
// OOB-NEXT: at 'vector.load'
// OOB-NEXT: in kernel @gather_past_last_page, workgroup (0, 0, 0), wave 0, lane 32 (thread 32)
// LENIENT: masked buffer accesses 320

module attributes {gpu.container_module} {
  gpu.module @k {
    // Token t lives in page column t / 16.
    gpu.func @gather(%tables: memref<2x4xi32>, %lengths: memref<2xi32>, %cache: memref<?x16x16xf8E4M3FN>, %out: memref<2x64xf32>)
        kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %seq = gpu.block_id x
      %t = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c16 = arith.constant 16 : index
      %len32 = memref.load %lengths[%seq] : memref<2xi32>
      %len = arith.index_cast %len32 : i32 to index
      %keys = amdgpu.fat_raw_buffer_cast %cache : memref<?x16x16xf8E4M3FN> to memref<?x16x16xf8E4M3FN, #amdgpu.address_space<fat_raw_buffer>>
      %visible = arith.cmpi ult, %t, %len : index
      scf.if %visible {
        %column = arith.divui %t, %c16 : index
        %id = memref.load %tables[%seq, %column] : memref<2x4xi32>
        %page = arith.index_cast %id : i32 to index
        %slot = arith.remui %t, %c16 : index
        %row = vector.load %keys[%page, %slot, %c0] : memref<?x16x16xf8E4M3FN, #amdgpu.address_space<fat_raw_buffer>>, vector<16xf8E4M3FN>
        %wide = arith.extf %row : vector<16xf8E4M3FN> to vector<16xf32>
        %sum = vector.reduction <add>, %wide : vector<16xf32> into f32
        memref.store %sum, %out[%seq, %t] : memref<2x64xf32>
      }
      gpu.return
    }
    // The injected bug: one page column too far.
    gpu.func @gather_past_last_page(%tables: memref<2x4xi32>, %lengths: memref<2xi32>, %cache: memref<?x16x16xf8E4M3FN>, %out: memref<2x64xf32>)
        kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %seq = gpu.block_id x
      %t = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c16 = arith.constant 16 : index
      %len32 = memref.load %lengths[%seq] : memref<2xi32>
      %len = arith.index_cast %len32 : i32 to index
      %keys = amdgpu.fat_raw_buffer_cast %cache : memref<?x16x16xf8E4M3FN> to memref<?x16x16xf8E4M3FN, #amdgpu.address_space<fat_raw_buffer>>
      %visible = arith.cmpi ult, %t, %len : index
      scf.if %visible {
        %next = arith.addi %t, %c16 : index
        %column = arith.divui %next, %c16 : index
        %id = memref.load %tables[%seq, %column] : memref<2x4xi32>
        %page = arith.index_cast %id : i32 to index
        %slot = arith.remui %t, %c16 : index
        %row = vector.load %keys[%page, %slot, %c0] : memref<?x16x16xf8E4M3FN, #amdgpu.address_space<fat_raw_buffer>>, vector<16xf8E4M3FN>
        %wide = arith.extf %row : vector<16xf8E4M3FN> to vector<16xf32>
        %sum = vector.reduction <add>, %wide : vector<16xf32> into f32
        memref.store %sum, %out[%seq, %t] : memref<2x64xf32>
      }
      gpu.return
    }
  }

  func.func @fill(%tables: memref<2x4xi32>, %lengths: memref<2xi32>, %cache: memref<6x16x16xf8E4M3FN>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c6 = arith.constant 6 : index
    %c16 = arith.constant 16 : index
    %i48 = arith.constant 48 : i32
    %i20 = arith.constant 20 : i32
    memref.store %i48, %lengths[%c0] : memref<2xi32>
    memref.store %i20, %lengths[%c1] : memref<2xi32>
    // sequence 0: pages 5, 0, 3; sequence 1: pages 1, 4; the rest 9999
    %unused = arith.constant 9999 : i32
    scf.for %s = %c0 to %c2 step %c1 {
      scf.for %p = %c0 to %c4 step %c1 {
        memref.store %unused, %tables[%s, %p] : memref<2x4xi32>
      }
    }
    %p0 = arith.constant 5 : i32
    %p1 = arith.constant 0 : i32
    %p2 = arith.constant 3 : i32
    %p3 = arith.constant 1 : i32
    %p4 = arith.constant 4 : i32
    memref.store %p0, %tables[%c0, %c0] : memref<2x4xi32>
    memref.store %p1, %tables[%c0, %c1] : memref<2x4xi32>
    memref.store %p2, %tables[%c0, %c2] : memref<2x4xi32>
    memref.store %p3, %tables[%c1, %c0] : memref<2x4xi32>
    memref.store %p4, %tables[%c1, %c1] : memref<2x4xi32>
    // key byte [page][slot][x] = (page + slot + x) % 8 / 8
    %i8 = arith.constant 8 : i64
    %eighth = arith.constant 0.125 : f32
    scf.for %n = %c0 to %c6 step %c1 {
      scf.for %slot = %c0 to %c16 step %c1 {
        scf.for %x = %c0 to %c16 step %c1 {
          %a = arith.addi %n, %slot : index
          %b = arith.addi %a, %x : index
          %bi = arith.index_cast %b : index to i64
          %m = arith.remsi %bi, %i8 : i64
          %f = arith.sitofp %m : i64 to f32
          %v = arith.mulf %f, %eighth : f32
          %e = arith.truncf %v : f32 to f8E4M3FN
          memref.store %e, %cache[%n, %slot, %x] : memref<6x16x16xf8E4M3FN>
        }
      }
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %tables = memref.alloc() : memref<2x4xi32>
    %lengths = memref.alloc() : memref<2xi32>
    %pool = memref.alloc() : memref<6x16x16xf8E4M3FN>
    %out = memref.alloc() : memref<2x64xf32>
    func.call @fill(%tables, %lengths, %pool) : (memref<2x4xi32>, memref<2xi32>, memref<6x16x16xf8E4M3FN>) -> ()
    %cache = memref.cast %pool : memref<6x16x16xf8E4M3FN> to memref<?x16x16xf8E4M3FN>
    gpu.launch_func @k::@gather blocks in (%c2, %c1, %c1) threads in (%c64, %c1, %c1) args(%tables : memref<2x4xi32>, %lengths : memref<2xi32>, %cache : memref<?x16x16xf8E4M3FN>, %out : memref<2x64xf32>)
    // token t of a sequence: sum over x of ((page + t % 16 + x) % 8) / 8
    %i8 = arith.constant 8 : i64
    %eighth = arith.constant 0.125 : f32
    %zero = arith.constant 0.0 : f32
    scf.for %s = %c0 to %c2 step %c1 {
      %len32 = memref.load %lengths[%s] : memref<2xi32>
      %len = arith.index_cast %len32 : i32 to index
      scf.for %t = %c0 to %len step %c1 {
        %column = arith.divui %t, %c16 : index
        %id = memref.load %tables[%s, %column] : memref<2x4xi32>
        %page = arith.index_cast %id : i32 to index
        %slot = arith.remui %t, %c16 : index
        %want = scf.for %x = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (f32) {
          %a = arith.addi %page, %slot : index
          %b = arith.addi %a, %x : index
          %bi = arith.index_cast %b : index to i64
          %m = arith.remsi %bi, %i8 : i64
          %f = arith.sitofp %m : i64 to f32
          %v = arith.mulf %f, %eighth : f32
          %n = arith.addf %acc, %v : f32
          scf.yield %n : f32
        }
        %got = memref.load %out[%s, %t] : memref<2x64xf32>
        %ok = arith.cmpf oeq, %got, %want : f32
        cf.assert %ok, "gathered keys"
      }
    }
    return
  }

  func.func @past_last_page() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %tables = memref.alloc() : memref<2x4xi32>
    %lengths = memref.alloc() : memref<2xi32>
    %pool = memref.alloc() : memref<6x16x16xf8E4M3FN>
    %out = memref.alloc() : memref<2x64xf32>
    func.call @fill(%tables, %lengths, %pool) : (memref<2x4xi32>, memref<2xi32>, memref<6x16x16xf8E4M3FN>) -> ()
    %cache = memref.cast %pool : memref<6x16x16xf8E4M3FN> to memref<?x16x16xf8E4M3FN>
    gpu.launch_func @k::@gather_past_last_page blocks in (%c2, %c1, %c1) threads in (%c64, %c1, %c1) args(%tables : memref<2x4xi32>, %lengths : memref<2xi32>, %cache : memref<?x16x16xf8E4M3FN>, %out : memref<2x64xf32>)
    return
  }
}
