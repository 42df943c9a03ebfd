// RUN: pa-opt %s -split-input-file -verify-diagnostics

// The model features of pa.decode and pa.reduce (logits soft-cap, ALiBi
// slopes, log-sum-exp output): every rule of the verifier.

func.func @soft_cap_negative(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{logits_soft_cap must be 0 (none) or a finite positive number, got -3.000000e+01}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>, logits_soft_cap = -30.0 : f64}
  return
}

// -----

func.func @soft_cap_inf(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{logits_soft_cap must be 0 (none) or a finite positive number, got INF}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>, logits_soft_cap = 0x7FF0000000000000 : f64}
  return
}

// -----

func.func @soft_cap_nan(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{logits_soft_cap must be 0 (none) or a finite positive number, got nan}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>, logits_soft_cap = 0x7FF8000000000000 : f64}
  return
}

// -----

func.func @soft_cap_below_f32(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{logits_soft_cap must lie in [1.175494e-38, 2.358657e+38] (scores are f32), got 1.000000e-40}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>, logits_soft_cap = 1.0e-40 : f64}
  return
}

// -----

func.func @soft_cap_above_f32(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{logits_soft_cap must lie in [1.175494e-38, 2.358657e+38] (scores are f32), got 1.000000e+39}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>, logits_soft_cap = 1.0e39 : f64}
  return
}

// -----

func.func @tile_qk_soft_cap_zero(%qt: memref<16x256xf32, 3>,
    %k: memref<?x2x16x16x16xf8E4M3FN>, %ids: vector<16xi32>, %h: index,
    %t0: i64, %scores: memref<16x256xf32, 3>) {
  // expected-error @+1 {{soft_cap must be finite and positive, got 0}}
  pa.tile.qk %qt, %k[%ids, %h] tile_start %t0 valid [%t0, %t0] into %scores
      {page_size = 16 : i64, score_scale = 1.0 : f32, scale = #pa.scale<none>,
       compute = #pa.compute<fp8>, soft_cap = 0.0 : f32}
      : memref<16x256xf32, 3>, memref<?x2x16x16x16xf8E4M3FN>, vector<16xi32>,
        memref<16x256xf32, 3>
  return
}
