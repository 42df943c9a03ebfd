// RUN: pa-opt %s --pass-pipeline="builtin.module(pa-set-target{chip=gfx950}, pa-lower-plan, pa-tile, pa-lower-reduce, gpu.module(pa-stage-page-ids, pa-lower-tile-to-loops), pa-gpu-to-host, generate-runtime-verification, pa-lower-tiled-to-host)" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | FileCheck %s

// The nhd / hnd layouts through the whole host pipeline, with K and V as
// strided views of one combined cache (vLLM v1), under MLIR's runtime
// verification (an access outside a buffer aborts).
//
// Hq = Hkv = 1, D = 64, bf16, query all 1. The combined cache holds K = 0
// (uniform attention) and V of page p = p + 1 in every element, so the
// output is the mean of (page + 1) over the tokens read. A view read with
// the wrong strides shows: K read from the V half gives page-dependent
// scores, V read from the K half gives 0.
//
// nhd, page size 1 (one token per page), combined [N, 2, P, Hkv, D] with
// N = 20, block table [19, 18, ..., 0], 20 tokens: (1 + ... + 20) / 20 =
// 10.5.
// hnd, page size 1024 (a page spans four 256-token tiles), combined
// [2, N, Hkv, P, D] with N = 2, block table [1, 0], 1500 tokens: 1024 of
// page 1 (V = 2) and 476 of page 0 (V = 1): 2524 / 1500 = 1.6827, bf16
// 1.67969.

func.func private @printMemrefBF16(memref<*xbf16>) attributes {llvm.emit_c_interface}

!q = memref<?x1x64xbf16>
!nhd = memref<?x1x1x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
!hnd = memref<?x1x1024x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
!bt = memref<?x?xi32>
!lens = memref<?xi32>
!work = memref<?x4xi32>
!red = memref<?x2xi32>
!part = memref<1x?x1xf32>
!tmp = memref<1x?x1x64xf32>

func.func @decode_nhd(%q: !q, %k: !nhd, %v: !nhd, %bt: !bt, %lens: !lens,
                      %work: !work, %red: !red, %es: !part, %ml: !part,
                      %tmp: !tmp, %out: !q) {
  pa.plan context_lengths(%lens : !lens) work_info(%work : !work)
          reduce_info(%red : !red)
          {num_kv_heads = 1 : i64, budget = 1 : i64, max_partitions = 1 : i64}
  pa.decode query(%q : !q) key_cache(%k : !nhd) value_cache(%v : !nhd)
            block_tables(%bt : !bt) context_lengths(%lens : !lens)
            work_info(%work : !work) exp_sums(%es : !part)
            max_logits(%ml : !part) tmp_out(%tmp : !tmp)
            {kv_layout = #pa.kv_layout<page_size = 1, layout = nhd>}
  pa.reduce exp_sums(%es : !part) max_logits(%ml : !part) tmp_out(%tmp : !tmp)
            reduce_info(%red : !red) output(%out : !q)
  return
}

func.func @decode_hnd(%q: !q, %k: !hnd, %v: !hnd, %bt: !bt, %lens: !lens,
                      %work: !work, %red: !red, %es: !part, %ml: !part,
                      %tmp: !tmp, %out: !q) {
  pa.plan context_lengths(%lens : !lens) work_info(%work : !work)
          reduce_info(%red : !red)
          {num_kv_heads = 1 : i64, budget = 1 : i64, max_partitions = 1 : i64}
  pa.decode query(%q : !q) key_cache(%k : !hnd) value_cache(%v : !hnd)
            block_tables(%bt : !bt) context_lengths(%lens : !lens)
            work_info(%work : !work) exp_sums(%es : !part)
            max_logits(%ml : !part) tmp_out(%tmp : !tmp)
            {kv_layout = #pa.kv_layout<page_size = 1024, layout = hnd>}
  pa.reduce exp_sums(%es : !part) max_logits(%ml : !part) tmp_out(%tmp : !tmp)
            reduce_info(%red : !red) output(%out : !q)
  return
}

/// A flat combined cache of `count` elements: element i is K (0) when
/// (i / half_block) % 2 == 0, else V = page + 1 with page = (i / page_block)
/// % pages.
func.func @combined(%count: index, %half_block: index, %page_block: index,
                    %pages: index) -> memref<?xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : bf16
  %flat = memref.alloc(%count) : memref<?xbf16>
  scf.for %i = %c0 to %count step %c1 {
    %block = arith.divui %i, %half_block : index
    %is_v = arith.remui %block, %c2 : index
    %page_all = arith.divui %i, %page_block : index
    %page = arith.remui %page_all, %pages : index
    %next = arith.addi %page, %c1 : index
    %next_i32 = arith.index_cast %next : index to i32
    %value_f = arith.sitofp %next_i32 : i32 to bf16
    %v = arith.cmpi eq, %is_v, %c1 : index
    %value = arith.select %v, %value_f, %zero : bf16
    memref.store %value, %flat[%i] : memref<?xbf16>
  }
  return %flat : memref<?xbf16>
}

func.func @print_first(%out: !q) {
  %first_d = memref.subview %out[0, 0, 0] [1, 1, 1] [1, 1, 1]
      : !q to memref<1x1x1xbf16, strided<[64, 64, 1]>>
  %print = memref.cast %first_d : memref<1x1x1xbf16, strided<[64, 64, 1]>> to memref<*xbf16>
  call @printMemrefBF16(%print) : (memref<*xbf16>) -> ()
  return
}

memref.global "private" constant @bt_nhd : memref<1x20xi32> =
    dense<[[19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]]>
memref.global "private" constant @len20 : memref<1xi32> = dense<[20]>
memref.global "private" constant @bt_hnd : memref<1x2xi32> = dense<[[1, 0]]>
memref.global "private" constant @len1500 : memref<1xi32> = dense<[1500]>

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c20 = arith.constant 20 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1.0 : bf16
  %q = memref.alloc(%c1) : !q
  scf.for %d = %c0 to %c64 step %c1 {
    memref.store %one, %q[%c0, %c0, %d] : !q
  }
  %work = memref.alloc(%c1) : !work
  %red = memref.alloc(%c1) : !red
  %es = memref.alloc(%c1) : !part
  %ml = memref.alloc(%c1) : !part
  %tmp = memref.alloc(%c1) : !tmp

  // nhd: combined [20, 2, 1, 1, 64]; K and V alternate every 64 elements,
  // a page is 128 of them.
  %c2560 = arith.constant 2560 : index
  %c128 = arith.constant 128 : index
  %flat_a = call @combined(%c2560, %c64, %c128, %c20)
      : (index, index, index, index) -> memref<?xbf16>
  %static_a = memref.cast %flat_a : memref<?xbf16> to memref<2560xbf16>
  %comb_a = memref.expand_shape %static_a [[0, 1, 2, 3, 4]] output_shape [20, 2, 1, 1, 64]
      : memref<2560xbf16> into memref<20x2x1x1x64xbf16>
  %k_a = memref.subview %comb_a[0, 0, 0, 0, 0] [20, 1, 1, 1, 64] [1, 1, 1, 1, 1]
      : memref<20x2x1x1x64xbf16> to memref<20x1x1x64xbf16, strided<[128, 64, 64, 1]>>
  %v_a = memref.subview %comb_a[0, 1, 0, 0, 0] [20, 1, 1, 1, 64] [1, 1, 1, 1, 1]
      : memref<20x2x1x1x64xbf16> to memref<20x1x1x64xbf16, strided<[128, 64, 64, 1], offset: 64>>
  %k_nhd = memref.cast %k_a : memref<20x1x1x64xbf16, strided<[128, 64, 64, 1]>> to !nhd
  %v_nhd = memref.cast %v_a : memref<20x1x1x64xbf16, strided<[128, 64, 64, 1], offset: 64>> to !nhd
  %bt_nhd_s = memref.get_global @bt_nhd : memref<1x20xi32>
  %bt_nhd = memref.cast %bt_nhd_s : memref<1x20xi32> to !bt
  %len20_s = memref.get_global @len20 : memref<1xi32>
  %len20 = memref.cast %len20_s : memref<1xi32> to !lens
  %out_a = memref.alloc(%c1) : !q
  call @decode_nhd(%q, %k_nhd, %v_nhd, %bt_nhd, %len20, %work, %red, %es, %ml,
                   %tmp, %out_a)
      : (!q, !nhd, !nhd, !bt, !lens, !work, !red, !part, !part, !tmp, !q) -> ()
  vector.print str "nhd\n"
  call @print_first(%out_a) : (!q) -> ()

  // hnd: combined [2, 2, 1, 1024, 64]; the K half is the first 131072
  // elements, a page is 65536 of them.
  %c262144 = arith.constant 262144 : index
  %c131072 = arith.constant 131072 : index
  %c65536 = arith.constant 65536 : index
  %flat_b = call @combined(%c262144, %c131072, %c65536, %c2)
      : (index, index, index, index) -> memref<?xbf16>
  %static_b = memref.cast %flat_b : memref<?xbf16> to memref<262144xbf16>
  %comb_b = memref.expand_shape %static_b [[0, 1, 2, 3, 4]] output_shape [2, 2, 1, 1024, 64]
      : memref<262144xbf16> into memref<2x2x1x1024x64xbf16>
  %k_b = memref.subview %comb_b[0, 0, 0, 0, 0] [1, 2, 1, 1024, 64] [1, 1, 1, 1, 1]
      : memref<2x2x1x1024x64xbf16> to memref<2x1x1024x64xbf16, strided<[65536, 65536, 64, 1]>>
  %v_b = memref.subview %comb_b[1, 0, 0, 0, 0] [1, 2, 1, 1024, 64] [1, 1, 1, 1, 1]
      : memref<2x2x1x1024x64xbf16> to memref<2x1x1024x64xbf16, strided<[65536, 65536, 64, 1], offset: 131072>>
  %k_hnd = memref.cast %k_b : memref<2x1x1024x64xbf16, strided<[65536, 65536, 64, 1]>> to !hnd
  %v_hnd = memref.cast %v_b : memref<2x1x1024x64xbf16, strided<[65536, 65536, 64, 1], offset: 131072>> to !hnd
  %bt_hnd_s = memref.get_global @bt_hnd : memref<1x2xi32>
  %bt_hnd = memref.cast %bt_hnd_s : memref<1x2xi32> to !bt
  %len1500_s = memref.get_global @len1500 : memref<1xi32>
  %len1500 = memref.cast %len1500_s : memref<1xi32> to !lens
  %out_b = memref.alloc(%c1) : !q
  call @decode_hnd(%q, %k_hnd, %v_hnd, %bt_hnd, %len1500, %work, %red, %es,
                   %ml, %tmp, %out_b)
      : (!q, !hnd, !hnd, !bt, !lens, !work, !red, !part, !part, !tmp, !q) -> ()
  vector.print str "hnd\n"
  call @print_first(%out_b) : (!q) -> ()
  return
}

// CHECK-LABEL: nhd
// CHECK: [10.5]
// CHECK-LABEL: hnd
// CHECK: [1.67969]
// CHECK-NOT: out-of-bounds
