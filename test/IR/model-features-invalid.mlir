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

// -----

func.func @lse_shape(%es: memref<1x?x4xf32>, %ml: memref<1x?x4xf32>,
                     %tmp: memref<1x?x4x64xf32>, %red: memref<?x2xi32>,
                     %out: memref<?x4x64xbf16>, %lse: memref<?x8xf32>) {
  // expected-error @+1 {{'lse' must have shape [B*Q, Hq] = [?, 4], got 'memref<?x8xf32>'}}
  pa.reduce exp_sums(%es : memref<1x?x4xf32>) max_logits(%ml : memref<1x?x4xf32>)
            tmp_out(%tmp : memref<1x?x4x64xf32>) reduce_info(%red : memref<?x2xi32>)
            output(%out : memref<?x4x64xbf16>) lse(%lse : memref<?x8xf32>)
  return
}

// -----

func.func @lse_type(%es: memref<1x?x4xf32>, %ml: memref<1x?x4xf32>,
                    %tmp: memref<1x?x4x64xf32>, %red: memref<?x2xi32>,
                    %out: memref<?x4x64xbf16>, %lse: memref<?x4xbf16>) {
  // expected-error @+1 {{operand #5 must be 2-D log-sum-exp [B*Q, Hq] of f32 (a ranked tensor without an encoding, or a row-major memref in the default memory space), but got 'memref<?x4xbf16>'}}
  pa.reduce exp_sums(%es : memref<1x?x4xf32>) max_logits(%ml : memref<1x?x4xf32>)
            tmp_out(%tmp : memref<1x?x4x64xf32>) reduce_info(%red : memref<?x2xi32>)
            output(%out : memref<?x4x64xbf16>) lse(%lse : memref<?x4xbf16>)
  return
}

// -----

func.func @lse_batch(%es: memref<1x?x4xf32>, %ml: memref<1x?x4xf32>,
                     %tmp: memref<1x?x4x64xf32>, %red: memref<3x2xi32>,
                     %out: memref<3x4x64xbf16>, %lse: memref<6x4xf32>) {
  // expected-error @+1 {{batch size B disagrees between operands: 'reduce_info' gives 3, 'lse' gives 6}}
  pa.reduce exp_sums(%es : memref<1x?x4xf32>) max_logits(%ml : memref<1x?x4xf32>)
            tmp_out(%tmp : memref<1x?x4x64xf32>) reduce_info(%red : memref<3x2xi32>)
            output(%out : memref<3x4x64xbf16>) lse(%lse : memref<6x4xf32>)
  return
}

// ALiBi slopes: [Hq] (static), f32, the caller's memory.

// -----

func.func @alibi_shape(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %slopes: memref<8xf32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{'alibi_slopes' must have shape [Hq] = [16], got 'memref<8xf32>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      alibi_slopes(%slopes : memref<8xf32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}
  return
}

// -----

func.func @alibi_dynamic(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %slopes: memref<?xf32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{'alibi_slopes' must have shape [Hq] = [16], got 'memref<?xf32>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      alibi_slopes(%slopes : memref<?xf32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}
  return
}

// -----

func.func @alibi_rank(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %slopes: memref<1x16xf32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{operand #5 must be 1-D ALiBi slopes [Hq] of f32 (a ranked tensor without an encoding, or a row-major memref in the default memory space), but got 'memref<1x16xf32>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      alibi_slopes(%slopes : memref<1x16xf32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}
  return
}

// -----

func.func @alibi_type(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %slopes: memref<16xbf16>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{operand #5 must be 1-D ALiBi slopes [Hq] of f32 (a ranked tensor without an encoding, or a row-major memref in the default memory space), but got 'memref<16xbf16>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      alibi_slopes(%slopes : memref<16xbf16>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}
  return
}

// -----

func.func @alibi_space(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %slopes: memref<16xf32, 3>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{operand #5 must be 1-D ALiBi slopes [Hq] of f32 (a ranked tensor without an encoding, or a row-major memref in the default memory space), but got 'memref<16xf32, 3>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      alibi_slopes(%slopes : memref<16xf32, 3>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}
  return
}

// -----

func.func @tile_alibi_slopes_type(%scores: memref<16x256xf32, 3>,
                                  %slopes: memref<16xf16>, %h: index,
                                  %ctx: i64, %t0: i64, %r0: index) {
  // expected-error @+1 {{operand #1 must be 1D memref of 32-bit float values, but got 'memref<16xf16>'}}
  pa.tile.alibi %scores, %slopes[%h] context %ctx tile_start %t0 row_base %r0
      {query_length = 2 : i64, group_size = 8 : i64}
      : memref<16x256xf32, 3>, memref<16xf16>
  return
}

// -----

func.func @tile_alibi_group(%scores: memref<16x256xf32, 3>,
                            %slopes: memref<16xf32>, %h: index,
                            %ctx: i64, %t0: i64, %r0: index) {
  // expected-error @+1 {{query_length and group_size must be positive}}
  pa.tile.alibi %scores, %slopes[%h] context %ctx tile_start %t0 row_base %r0
      {query_length = 2 : i64, group_size = 0 : i64}
      : memref<16x256xf32, 3>, memref<16xf32>
  return
}
