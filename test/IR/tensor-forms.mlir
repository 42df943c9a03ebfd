// RUN: pa-opt %s -split-input-file | FileCheck %s
// RUN: pa-opt %s -split-input-file -mlir-print-op-generic | pa-opt -split-input-file | FileCheck %s

// pa.plan, pa.decode and pa.reduce on tensors: one result per output
// (destination-passing style), of the output's type.
// CHECK-LABEL: func.func @tensors
// CHECK:         %{{.*}}:2 = pa.plan context_lengths(%{{.*}} : tensor<?xi32>) work_info(%{{.*}} : tensor<?x4xi32>) reduce_info(%{{.*}} : tensor<?x2xi32>) {num_kv_heads = 1 : i64} -> tensor<?x4xi32>, tensor<?x2xi32>
// CHECK:         %{{.*}}:3 = pa.decode
// CHECK-SAME:      -> tensor<1x?x8xf32>, tensor<1x?x8xf32>, tensor<1x?x8x128xf32>
// CHECK:         %{{.*}} = pa.reduce
// CHECK-SAME:      output(%{{.*}} : tensor<?x8x128xbf16>) -> tensor<?x8x128xbf16>
func.func @tensors(%q: tensor<?x8x128xbf16>, %k: tensor<?x1x16x16x8xbf16>,
                   %v: tensor<?x1x128x16xbf16>, %bt: tensor<?x?xi32>,
                   %lens: tensor<?xi32>, %work: tensor<?x4xi32>,
                   %red: tensor<?x2xi32>, %es: tensor<1x?x8xf32>,
                   %ml: tensor<1x?x8xf32>, %part: tensor<1x?x8x128xf32>,
                   %out: tensor<?x8x128xbf16>) -> tensor<?x8x128xbf16> {
  %w, %r = pa.plan context_lengths(%lens : tensor<?xi32>)
      work_info(%work : tensor<?x4xi32>) reduce_info(%red : tensor<?x2xi32>)
      {num_kv_heads = 1 : i64} -> tensor<?x4xi32>, tensor<?x2xi32>
  %e, %m, %p = pa.decode query(%q : tensor<?x8x128xbf16>)
      key_cache(%k : tensor<?x1x16x16x8xbf16>)
      value_cache(%v : tensor<?x1x128x16xbf16>)
      block_tables(%bt : tensor<?x?xi32>)
      context_lengths(%lens : tensor<?xi32>)
      work_info(%w : tensor<?x4xi32>)
      exp_sums(%es : tensor<1x?x8xf32>)
      max_logits(%ml : tensor<1x?x8xf32>)
      tmp_out(%part : tensor<1x?x8x128xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 8, v_layout = plain>}
      -> tensor<1x?x8xf32>, tensor<1x?x8xf32>, tensor<1x?x8x128xf32>
  %o = pa.reduce exp_sums(%e : tensor<1x?x8xf32>)
      max_logits(%m : tensor<1x?x8xf32>) tmp_out(%p : tensor<1x?x8x128xf32>)
      reduce_info(%r : tensor<?x2xi32>) output(%out : tensor<?x8x128xbf16>)
      -> tensor<?x8x128xbf16>
  return %o : tensor<?x8x128xbf16>
}

// -----

// The optional operands on tensors: ALiBi slopes read by pa.decode; the
// log-sum-exp a second destination of pa.reduce, so a second result.
// CHECK-LABEL: func.func @alibi_lse
// CHECK:         pa.decode
// CHECK-SAME:      alibi_slopes(%{{.*}} : tensor<8xf32>)
// CHECK-SAME:      -> tensor<1x?x8xf32>, tensor<1x?x8xf32>, tensor<1x?x8x128xf32>
// CHECK:         %{{.*}}:2 = pa.reduce
// CHECK-SAME:      output(%{{.*}} : tensor<?x8x128xbf16>) lse(%{{.*}} : tensor<?x8xf32>) -> tensor<?x8x128xbf16>, tensor<?x8xf32>
func.func @alibi_lse(%q: tensor<?x8x128xbf16>, %k: tensor<?x1x16x16x8xbf16>,
                     %v: tensor<?x1x128x16xbf16>, %bt: tensor<?x?xi32>,
                     %lens: tensor<?xi32>, %slopes: tensor<8xf32>,
                     %work: tensor<?x4xi32>, %red: tensor<?x2xi32>,
                     %es: tensor<1x?x8xf32>, %ml: tensor<1x?x8xf32>,
                     %part: tensor<1x?x8x128xf32>, %out: tensor<?x8x128xbf16>,
                     %lse: tensor<?x8xf32>)
    -> (tensor<?x8x128xbf16>, tensor<?x8xf32>) {
  %w, %r = pa.plan context_lengths(%lens : tensor<?xi32>)
      work_info(%work : tensor<?x4xi32>) reduce_info(%red : tensor<?x2xi32>)
      {num_kv_heads = 1 : i64} -> tensor<?x4xi32>, tensor<?x2xi32>
  %e, %m, %p = pa.decode query(%q : tensor<?x8x128xbf16>)
      key_cache(%k : tensor<?x1x16x16x8xbf16>)
      value_cache(%v : tensor<?x1x128x16xbf16>)
      block_tables(%bt : tensor<?x?xi32>)
      context_lengths(%lens : tensor<?xi32>)
      alibi_slopes(%slopes : tensor<8xf32>)
      work_info(%w : tensor<?x4xi32>)
      exp_sums(%es : tensor<1x?x8xf32>)
      max_logits(%ml : tensor<1x?x8xf32>)
      tmp_out(%part : tensor<1x?x8x128xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 8, v_layout = plain>}
      -> tensor<1x?x8xf32>, tensor<1x?x8xf32>, tensor<1x?x8x128xf32>
  %o, %l = pa.reduce exp_sums(%e : tensor<1x?x8xf32>)
      max_logits(%m : tensor<1x?x8xf32>) tmp_out(%p : tensor<1x?x8x128xf32>)
      reduce_info(%r : tensor<?x2xi32>) output(%out : tensor<?x8x128xbf16>)
      lse(%lse : tensor<?x8xf32>) -> tensor<?x8x128xbf16>, tensor<?x8xf32>
  return %o, %l : tensor<?x8x128xbf16>, tensor<?x8xf32>
}
