// RUN: pa-opt %s -split-input-file -verify-diagnostics

// Attributes past what the kernels' arithmetic holds are the verifier's
// errors, not silent overflow: the plan stores counts in i32 fields and the
// windows reach 2^31-1 (the spec), and softmax_scale * log2(e) is one f32
// constant.

func.func @plan_window(%lens: memref<?xi32>, %w: memref<?x4xi32>, %r: memref<?x2xi32>) {
  // expected-error @+1 {{sliding_window must be at most 2^31-1 = 2147483647, got 2147483648}}
  pa.plan context_lengths(%lens : memref<?xi32>) work_info(%w : memref<?x4xi32>)
          reduce_info(%r : memref<?x2xi32>)
          {num_kv_heads = 1 : i64, sliding_window = 2147483648 : i64}
  return
}

// -----

func.func @plan_query_length(%lens: memref<?xi32>, %w: memref<?x4xi32>, %r: memref<?x2xi32>) {
  // expected-error @+1 {{query_length must be at most 2^31-1 = 2147483647, got 9223372036854775807}}
  pa.plan context_lengths(%lens : memref<?xi32>) work_info(%w : memref<?x4xi32>)
          reduce_info(%r : memref<?x2xi32>)
          {num_kv_heads = 1 : i64, query_length = 9223372036854775807 : i64,
           sliding_window = 2147483647 : i64}
  return
}

// -----

func.func @plan_kv_heads(%lens: memref<?xi32>, %w: memref<?x4xi32>, %r: memref<?x2xi32>) {
  // expected-error @+1 {{num_kv_heads must be at most 2^31-1 = 2147483647, got 4294967296}}
  pa.plan context_lengths(%lens : memref<?xi32>) work_info(%w : memref<?x4xi32>)
          reduce_info(%r : memref<?x2xi32>) {num_kv_heads = 4294967296 : i64}
  return
}

// -----

func.func @plan_budget(%lens: memref<?xi32>, %w: memref<?x4xi32>, %r: memref<?x2xi32>) {
  // expected-error @+1 {{budget must be at most 2^31-1 = 2147483647, got 9223372036854775807}}
  pa.plan context_lengths(%lens : memref<?xi32>) work_info(%w : memref<?x4xi32>)
          reduce_info(%r : memref<?x2xi32>)
          {num_kv_heads = 1 : i64, budget = 9223372036854775807 : i64}
  return
}

// -----

func.func @plan_max_partitions(%lens: memref<?xi32>, %w: memref<?x4xi32>, %r: memref<?x2xi32>) {
  // expected-error @+1 {{max_partitions must be at most 2^31-1 = 2147483647, got 2147483648}}
  pa.plan context_lengths(%lens : memref<?xi32>) work_info(%w : memref<?x4xi32>)
          reduce_info(%r : memref<?x2xi32>)
          {num_kv_heads = 1 : i64, max_partitions = 2147483648 : i64}
  return
}

// -----

// The largest static batch and plan parameters: the capacity check
// (min(B * max_partitions, ...)) saturates instead of overflowing.
func.func @plan_capacity_saturates(%lens: memref<4611686018427387904xi32>, %w: memref<8x4xi32>,
                                   %r: memref<4611686018427387904x2xi32>) {
  // expected-error @+1 {{work_info holds 8 slots but the plan needs capacity 4611686018427387904}}
  pa.plan context_lengths(%lens : memref<4611686018427387904xi32>) work_info(%w : memref<8x4xi32>)
          reduce_info(%r : memref<4611686018427387904x2xi32>)
          {num_kv_heads = 1 : i64, budget = 2147483647 : i64, max_partitions = 2147483647 : i64}
  return
}

// -----

!q = memref<?x8x128xbf16>
!k = memref<?x1x8x16x16xf8E4M3FN>
!v = memref<?x1x128x16xf8E4M3FN>
!p = memref<1x?x8xf32>
!t = memref<1x?x8x128xf32>
func.func @decode_window(%q: !q, %k: !k, %v: !v, %bt: memref<?x?xi32>, %lens: memref<?xi32>,
                         %w: memref<?x4xi32>, %es: !p, %tmp: !t) {
  // expected-error @+1 {{sliding_window must be at most 2^31-1 = 2147483647, got 9223372036854775807}}
  pa.decode query(%q : !q) key_cache(%k : !k) value_cache(%v : !v)
      block_tables(%bt : memref<?x?xi32>) context_lengths(%lens : memref<?xi32>)
      work_info(%w : memref<?x4xi32>) exp_sums(%es : !p) max_logits(%es : !p) tmp_out(%tmp : !t)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>,
       sliding_window = 9223372036854775807 : i64}
  return
}

// -----

!q = memref<?x8x128xbf16>
!k = memref<?x1x8x16x16xf8E4M3FN>
!v = memref<?x1x128x16xf8E4M3FN>
!p = memref<1x?x8xf32>
!t = memref<1x?x8x128xf32>
func.func @decode_softmax_scale(%q: !q, %k: !k, %v: !v, %bt: memref<?x?xi32>, %lens: memref<?xi32>,
                                %w: memref<?x4xi32>, %es: !p, %tmp: !t) {
  // expected-error @+1 {{softmax_scale must be at most 2.358}}
  pa.decode query(%q : !q) key_cache(%k : !k) value_cache(%v : !v)
      block_tables(%bt : memref<?x?xi32>) context_lengths(%lens : memref<?xi32>)
      work_info(%w : memref<?x4xi32>) exp_sums(%es : !p) max_logits(%es : !p) tmp_out(%tmp : !t)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>,
       softmax_scale = -1.0e300 : f64}
  return
}
