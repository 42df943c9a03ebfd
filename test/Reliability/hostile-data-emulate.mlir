// RUN: pa-opt %s --pass-pipeline="builtin.module(pa-set-target{chip=gfx950},pa-lower-plan, pa-tile, pa-lower-reduce, gpu.module(pa-stage-page-ids{max-staged=4096}, pa-to-mfma, pa-workgroup-to-lane0))" \
// RUN:   | pa-emulate - | FileCheck %s
// RUN: pa-opt %s --pass-pipeline="builtin.module(pa-set-target{chip=gfx942},pa-lower-plan, pa-tile, pa-lower-reduce, gpu.module(pa-stage-page-ids{max-staged=2048}, pa-to-mfma, pa-workgroup-to-lane0))" \
// RUN:   | pa-emulate --chip=gfx942 - | FileCheck %s
// CHECK: ok

// The hostile data of hostile-data-exec.mlir, through the AMD kernels
// (pa-to-mfma) run by the emulator, which checks every access, buffer
// loads included, against the buffers' bounds and fails on any outside
// (docs/reliability.md): page ids outside the pool read page 0, table
// entries past the table's width are never read, negative lengths are 0, an
// empty pool is never read, a work_info below the plan's capacity keeps the
// plan and the reducer inside the buffers. The outputs must equal the host
// executor's (cf.assert in @run).
//
// Every case: Hq = Hkv = 1, D = 64, P = 16, bf16 caches, K = 0 (uniform
// attention), V of page p is p + 1; the output is the mean of the values of
// the tokens read. One plan slot per sequence (budget = max_partitions = 1).

!q = memref<?x1x64xbf16>
!k = memref<?x1x8x16x8xbf16>
!v = memref<?x1x64x16xbf16>
!bt = memref<?x?xi32>
!lens = memref<?xi32>
!work = memref<?x4xi32>
!red = memref<?x2xi32>
!part = memref<1x?x1xf32>
!tmp = memref<1x?x1x64xf32>

func.func @decode(%q: !q, %k: !k, %v: !v, %bt: !bt, %lens: !lens, %work: !work,
                  %red: !red, %es: !part, %ml: !part, %tmp: !tmp, %out: !q) {
  pa.plan context_lengths(%lens : !lens) work_info(%work : !work)
          reduce_info(%red : !red)
          {num_kv_heads = 1 : i64, budget = 1 : i64, max_partitions = 1 : i64}
  pa.decode query(%q : !q) key_cache(%k : !k) value_cache(%v : !v)
            block_tables(%bt : !bt) context_lengths(%lens : !lens)
            work_info(%work : !work) exp_sums(%es : !part)
            max_logits(%ml : !part) tmp_out(%tmp : !tmp)
            {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 8, v_layout = plain>}
  pa.reduce exp_sums(%es : !part) max_logits(%ml : !part) tmp_out(%tmp : !tmp)
            reduce_info(%red : !red) output(%out : !q)
  return
}

// One decode of `batch` sequences of length `len` over `pages` pages (K = 0,
// V of page p = p + 1), every table row holding `id0`, `id1`, with `slots`
// plan slots; asserts that output[b][0][0] is `expected` for sequence 0 and
// `rest` for the others.
func.func @run(%batch: index, %len: i32, %id0: i32, %id1: i32, %pages: index,
               %slots: index, %expected: f32, %rest: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1.0 : bf16
  %two = arith.constant 2.0 : bf16
  %zero = arith.constant 0.0 : bf16
  %q = memref.alloc(%batch) : !q
  %out = memref.alloc(%batch) : !q
  %bt = memref.alloc(%batch, %c2) : !bt
  %lens = memref.alloc(%batch) : !lens
  scf.for %b = %c0 to %batch step %c1 {
    memref.store %len, %lens[%b] : !lens
    memref.store %id0, %bt[%b, %c0] : !bt
    memref.store %id1, %bt[%b, %c1] : !bt
    scf.for %d = %c0 to %c64 step %c1 {
      memref.store %one, %q[%b, %c0, %d] : !q
    }
  }
  %k = memref.alloc(%pages) : !k
  %v = memref.alloc(%pages) : !v
  scf.for %p = %c0 to %pages step %c1 {
    %first = arith.cmpi eq, %p, %c0 : index
    %value = arith.select %first, %one, %two : bf16
    scf.for %d = %c0 to %c64 step %c1 {
      scf.for %s = %c0 to %c16 step %c1 {
        memref.store %value, %v[%p, %c0, %d, %s] : !v
      }
    }
    scf.for %a = %c0 to %c8 step %c1 {
      scf.for %s = %c0 to %c16 step %c1 {
        scf.for %x = %c0 to %c8 step %c1 {
          memref.store %zero, %k[%p, %c0, %a, %s, %x] : !k
        }
      }
    }
  }
  %work = memref.alloc(%slots) : !work
  %red = memref.alloc(%batch) : !red
  %es = memref.alloc(%slots) : !part
  %ml = memref.alloc(%slots) : !part
  %tmp = memref.alloc(%slots) : !tmp
  call @decode(%q, %k, %v, %bt, %lens, %work, %red, %es, %ml, %tmp, %out)
      : (!q, !k, !v, !bt, !lens, !work, !red, !part, !part, !tmp, !q) -> ()
  scf.for %b = %c0 to %batch step %c1 {
    %got = memref.load %out[%b, %c0, %c0] : !q
    %wide = arith.extf %got : bf16 to f32
    %is_first = arith.cmpi eq, %b, %c0 : index
    %want = arith.select %is_first, %expected, %rest : f32
    %ok = arith.cmpf oeq, %wide, %want : f32
    cf.assert %ok, "unexpected output"
  }
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %i0 = arith.constant 0 : i32
  %i1 = arith.constant 1 : i32
  %i7 = arith.constant 7 : i32
  %im3 = arith.constant -3 : i32
  %len20 = arith.constant 20 : i32
  %len1000 = arith.constant 1000 : i32
  %lenneg = arith.constant -5 : i32
  %valid = arith.constant 1.203125 : f32
  %page0 = arith.constant 1.0 : f32
  %table = arith.constant 1.015625 : f32
  %zero = arith.constant 0.0 : f32
  // valid: (16 * 1 + 4 * 2) / 20
  call @run(%c1, %len20, %i0, %i1, %c2, %c1, %valid, %zero) : (index, i32, i32, i32, index, index, f32, f32) -> ()
  // ids 7 and -3 of a 2-page pool read page 0
  call @run(%c1, %len20, %i7, %im3, %c2, %c1, %page0, %zero) : (index, i32, i32, i32, index, index, f32, f32) -> ()
  // 1000 tokens, a 2-page table: (1000 + 16) / 1000
  call @run(%c1, %len1000, %i0, %i1, %c2, %c1, %table, %zero) : (index, i32, i32, i32, index, index, f32, f32) -> ()
  // negative length
  call @run(%c1, %lenneg, %i0, %i1, %c2, %c1, %zero, %zero) : (index, i32, i32, i32, index, index, f32, f32) -> ()
  // empty pool
  call @run(%c1, %len20, %i0, %i1, %c0, %c1, %zero, %zero) : (index, i32, i32, i32, index, index, f32, f32) -> ()
  // two sequences, one plan slot: the second gets no partition
  call @run(%c2, %len20, %i0, %i1, %c2, %c1, %valid, %zero) : (index, i32, i32, i32, index, index, f32, f32) -> ()
  return
}
