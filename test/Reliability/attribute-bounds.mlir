// RUN: pa-opt %s -pa-lower-to-host | FileCheck %s
// RUN: pa-compile %s --chip=gfx950 -o %t.hsaco && test -s %t.hsaco

// The largest accepted attributes lower and compile: W = 2^31-1 (the spec's
// largest window), budget and max_partitions 2^31-1, a softmax scale just
// inside f32.

// CHECK: llvm.func @_mlir_ciface_largest
!q = memref<?x8x128xbf16>
!k = memref<?x1x8x16x16xf8E4M3FN>
!v = memref<?x1x128x16xf8E4M3FN>
!p = memref<1x?x8xf32>
!t = memref<1x?x8x128xf32>
func.func @largest(%q: !q, %k: !k, %v: !v, %bt: memref<?x?xi32>, %lens: memref<?xi32>,
                   %w: memref<?x4xi32>, %r: memref<?x2xi32>, %es: !p, %ml: !p, %tmp: !t,
                   %out: !q) {
  pa.plan context_lengths(%lens : memref<?xi32>) work_info(%w : memref<?x4xi32>)
          reduce_info(%r : memref<?x2xi32>)
          {num_kv_heads = 1 : i64, query_length = 1 : i64, sliding_window = 2147483647 : i64,
           budget = 2147483647 : i64, max_partitions = 2147483647 : i64}
  pa.decode query(%q : !q) key_cache(%k : !k) value_cache(%v : !v)
      block_tables(%bt : memref<?x?xi32>) context_lengths(%lens : memref<?xi32>)
      work_info(%w : memref<?x4xi32>) exp_sums(%es : !p) max_logits(%ml : !p) tmp_out(%tmp : !t)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>,
       sliding_window = 2147483647 : i64, softmax_scale = 2.3e38 : f64}
  pa.reduce exp_sums(%es : !p) max_logits(%ml : !p) tmp_out(%tmp : !t)
      reduce_info(%r : memref<?x2xi32>) output(%out : !q)
  return
}
