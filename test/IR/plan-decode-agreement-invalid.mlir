// RUN: pa-opt %s -split-input-file -verify-diagnostics

// A pa.decode that reads the work plan written by a pa.plan in the IR must
// agree with it on num_kv_heads, query_length and sliding_window (the spec's
// "plan and decode must agree"). Before, a window-100 plan with a no-window
// decode verified and gave wrong output (the plan skips tiles the decode
// must read).

func.func @window_mismatch(
    %q: memref<?x16x256xbf16>, %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>, %bt: memref<?x?xi32>,
    %lens: memref<?xi32>, %work: memref<?x4xi32>, %red: memref<?x2xi32>,
    %es: memref<2x?x8xf32>, %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-note @+1 {{the pa.plan writing work_info}}
  pa.plan context_lengths(%lens : memref<?xi32>) work_info(%work : memref<?x4xi32>)
          reduce_info(%red : memref<?x2xi32>)
          {num_kv_heads = 2 : i64, sliding_window = 100 : i64}
  // expected-error @+1 {{reads the work plan of a pa.plan with sliding_window = 100, but the decode has sliding_window = 0 (plan and decode must agree on num_kv_heads, query_length and sliding_window)}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}
  return
}

// -----

// R = 16 rows with G = 8: the decode's query length is 2.
func.func @query_length_mismatch(
    %q: memref<?x16x256xbf16>, %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>, %bt: memref<?x?xi32>,
    %lens: memref<?xi32>, %work: memref<?x4xi32>, %red: memref<?x2xi32>,
    %es: memref<2x?x16xf32>, %ml: memref<2x?x16xf32>,
    %part: memref<2x?x16x256xf32>) {
  // expected-note @+1 {{the pa.plan writing work_info}}
  pa.plan context_lengths(%lens : memref<?xi32>) work_info(%work : memref<?x4xi32>)
          reduce_info(%red : memref<?x2xi32>)
          {num_kv_heads = 2 : i64, query_length = 3 : i64, sliding_window = 257 : i64}
  // expected-error @+1 {{reads the work plan of a pa.plan with query_length = 3, but the decode has query_length = 2}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x16xf32>)
      max_logits(%ml : memref<2x?x16xf32>)
      tmp_out(%part : memref<2x?x16x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>,
       sliding_window = 257 : i64}
  return
}

// -----

// The plan writes the buffer through a cast, the decode reads it through a
// subview: still the same plan.
func.func @kv_heads_mismatch_through_views(
    %q: memref<?x16x256xbf16>, %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>, %bt: memref<?x?xi32>,
    %lens: memref<?xi32>, %work: memref<64x4xi32>, %red: memref<?x2xi32>,
    %es: memref<2x?x8xf32>, %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  %all = memref.cast %work : memref<64x4xi32> to memref<?x4xi32>
  // expected-note @+1 {{the pa.plan writing work_info}}
  pa.plan context_lengths(%lens : memref<?xi32>) work_info(%all : memref<?x4xi32>)
          reduce_info(%red : memref<?x2xi32>) {num_kv_heads = 4 : i64}
  %first = memref.subview %work[0, 0] [32, 4] [1, 1]
      : memref<64x4xi32> to memref<32x4xi32, strided<[4, 1]>>
  %plain = memref.alloc() : memref<32x4xi32>
  memref.copy %first, %plain : memref<32x4xi32, strided<[4, 1]>> to memref<32x4xi32>
  %read = memref.cast %work : memref<64x4xi32> to memref<?x4xi32>
  // expected-error @+1 {{reads the work plan of a pa.plan with num_kv_heads = 4, but the decode has num_kv_heads = 2}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%read : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}
  return
}

// -----

// Agreement: -1 and 0 both mean no window; a plan writing another buffer is
// not this decode's plan.
func.func @agreeing(
    %q: memref<?x16x256xbf16>, %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>, %bt: memref<?x?xi32>,
    %lens: memref<?xi32>, %work: memref<?x4xi32>, %other: memref<?x4xi32>,
    %red: memref<?x2xi32>,
    %es: memref<2x?x8xf32>, %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  pa.plan context_lengths(%lens : memref<?xi32>) work_info(%work : memref<?x4xi32>)
          reduce_info(%red : memref<?x2xi32>)
          {num_kv_heads = 2 : i64, sliding_window = -1 : i64}
  pa.plan context_lengths(%lens : memref<?xi32>) work_info(%other : memref<?x4xi32>)
          reduce_info(%red : memref<?x2xi32>)
          {num_kv_heads = 8 : i64, query_length = 5 : i64, sliding_window = 9 : i64}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}
  return
}
