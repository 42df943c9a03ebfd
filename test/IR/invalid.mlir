// RUN: pa-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

// One case per verifier rule of pa.plan, pa.decode and pa.reduce.

func.func @page_size_32(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{page size must be 16, 64 or 128, got 32}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 32, k_pack = 16, v_layout = plain>}
  return
}

// -----

func.func @non_packed_k(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x256xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{non-packed 4-D key cache 'memref<?x2x16x256xf8E4M3FN>' does not match the packed layout (keys [N, Hkv, D/x, P, x]); a [N, P, Hkv, D] cache is `layout = nhd`}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x256xf8E4M3FN>)
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

func.func @k_rank_3(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x4096xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{operand #1 must be 4-D (nhd, hnd) or 5-D (packed) KV cache of f8E4M3FN, f8E4M3FNUZ or bf16 (a ranked tensor without an encoding, or a row-major or strided (unit innermost stride) memref in the default memory space), but got 'memref<?x2x4096xf8E4M3FN>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x4096xf8E4M3FN>)
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

func.func @kv_f16(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x32x16x8xf16>,
    %v: memref<?x2x256x16xf16>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{operand #1 must be 4-D (nhd, hnd) or 5-D (packed) KV cache of f8E4M3FN, f8E4M3FNUZ or bf16 (a ranked tensor without an encoding, or a row-major or strided (unit innermost stride) memref in the default memory space), but got 'memref<?x2x32x16x8xf16>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x32x16x8xf16>)
      value_cache(%v : memref<?x2x256x16xf16>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 8, v_layout = plain>}
  return
}

// -----

func.func @kv_mismatch(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FNUZ>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{failed to verify that all of {key_cache, value_cache} have same element type}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FNUZ>)
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

func.func @k_pack_fp8(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{k_pack must be 16 for 'f8E4M3FN' (16 bytes per token), got 8}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 8, v_layout = plain>}
  return
}

// -----

func.func @k_pack_bf16(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xbf16>,
    %v: memref<?x2x256x16xbf16>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{k_pack must be 8 for 'bf16' (16 bytes per token), got 16}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xbf16>)
      value_cache(%v : memref<?x2x256x16xbf16>)
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

func.func @query_f32(
    %q: memref<?x16x256xf32>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{operand #0 must be 3-D query [B*Q, Hq, D] of bf16 or f16 (a ranked tensor without an encoding, or a row-major or strided (unit innermost stride) memref in the default memory space), but got 'memref<?x16x256xf32>'}}
  pa.decode query(%q : memref<?x16x256xf32>)
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

func.func @query_rank(
    %q: memref<?x4096xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{operand #0 must be 3-D query [B*Q, Hq, D] of bf16 or f16 (a ranked tensor without an encoding, or a row-major or strided (unit innermost stride) memref in the default memory space), but got 'memref<?x4096xbf16>'}}
  pa.decode query(%q : memref<?x4096xbf16>)
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

func.func @query_heads_dynamic(
    %q: memref<?x?x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{query heads Hq (dim 1 of 'query') must be a positive static size, got 'memref<?x?x256xbf16>'}}
  pa.decode query(%q : memref<?x?x256xbf16>)
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

func.func @kv_heads_dynamic(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x?x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{KV heads Hkv (dim 1 of 'key_cache') must be a positive static size, got 'memref<?x?x16x16x16xf8E4M3FN>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x?x16x16x16xf8E4M3FN>)
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

func.func @gqa_not_divisible(
    %q: memref<?x15x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{query heads (15) must be a multiple of KV heads (2)}}
  pa.decode query(%q : memref<?x15x256xbf16>)
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

func.func @fp8_compute_bf16_kv(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x32x16x8xbf16>,
    %v: memref<?x2x256x16xbf16>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{fp8 compute needs an fp8 KV cache, got 'bf16'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x32x16x8xbf16>)
      value_cache(%v : memref<?x2x256x16xbf16>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 8, v_layout = plain>, compute = #pa.compute<fp8>}
  return
}

// -----

// Head dims: multiples of 16 from 64 to 512 (fp8 and bf16).
func.func @fp8_head_dim_72(
    %q: memref<?x16x72xbf16>,
    %k: memref<?x2x4x16x16xf8E4M3FN>,
    %v: memref<?x2x72x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x72xf32>) {
  // expected-error @+1 {{head dim 72 is not supported (a multiple of 16 from 64 to 512)}}
  pa.decode query(%q : memref<?x16x72xbf16>)
      key_cache(%k : memref<?x2x4x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x72x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x72xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}
  return
}

// -----

func.func @bf16_head_dim_48(
    %q: memref<?x16x48xbf16>,
    %k: memref<?x2x6x16x8xbf16>,
    %v: memref<?x2x48x16xbf16>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x48xf32>) {
  // expected-error @+1 {{head dim 48 is not supported (a multiple of 16 from 64 to 512)}}
  pa.decode query(%q : memref<?x16x48xbf16>)
      key_cache(%k : memref<?x2x6x16x8xbf16>)
      value_cache(%v : memref<?x2x48x16xbf16>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x48xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 8, v_layout = plain>}
  return
}

// -----

func.func @bf16_head_dim_528(
    %q: memref<?x16x528xbf16>,
    %k: memref<?x2x66x16x8xbf16>,
    %v: memref<?x2x528x16xbf16>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x528xf32>) {
  // expected-error @+1 {{head dim 528 is not supported (a multiple of 16 from 64 to 512)}}
  pa.decode query(%q : memref<?x16x528xbf16>)
      key_cache(%k : memref<?x2x66x16x8xbf16>)
      value_cache(%v : memref<?x2x528x16xbf16>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x528xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 8, v_layout = plain>}
  return
}

// -----

func.func @k_page_mismatch(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x64x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{'key_cache' must have shape [N, Hkv, D/x, P, x] = [?, 2, 16, 16, 16], got 'memref<?x2x16x64x16xf8E4M3FN>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x64x16xf8E4M3FN>)
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

func.func @v_plain_shape(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x16x256xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{'value_cache' must have shape plain [N, Hkv, D, P] = [?, 2, 256, 16], got 'memref<?x2x16x256xf8E4M3FN>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x16x256xf8E4M3FN>)
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

func.func @v_transposed_shape(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x1x128x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{'value_cache' must have shape transposed [N, Hkv, P/x, D, x] = [?, 2, 1, 256, 16], got 'memref<?x2x1x128x16xf8E4M3FN>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x1x128x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = transposed>}
  return
}

// -----

func.func @v_transposed_rank(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{'value_cache' must be 5-D transposed [N, Hkv, P/x, D, x], got 'memref<?x2x256x16xf8E4M3FN>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = transposed>}
  return
}

// -----

func.func @block_tables_i64(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi64>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{operand #3 must be 2-D block tables [B, max_pages] of i32 (a ranked tensor without an encoding, or a row-major memref in the default memory space), but got 'memref<?x?xi64>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi64>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}
  return
}

// -----

func.func @block_tables_rank(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{operand #3 must be 2-D block tables [B, max_pages] of i32 (a ranked tensor without an encoding, or a row-major memref in the default memory space), but got 'memref<?xi32>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}
  return
}

// -----

func.func @context_lengths_rank(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?x1xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{operand #4 must be 1-D context lengths [B] of i32 (a ranked tensor without an encoding, or a row-major memref in the default memory space), but got 'memref<?x1xi32>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?x1xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}
  return
}

// -----

func.func @context_lengths_f32(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xf32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{operand #4 must be 1-D context lengths [B] of i32 (a ranked tensor without an encoding, or a row-major memref in the default memory space), but got 'memref<?xf32>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xf32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}
  return
}

// -----

func.func @work_info_shape(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x3xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{'work_info' must have shape [capacity, 4] = [?, 4], got 'memref<?x3xi32>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x3xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}
  return
}

// -----

func.func @work_info_i64(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi64>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{operand #5 must be 2-D work plan [capacity, 4] of i32 (a ranked tensor without an encoding, or a row-major memref in the default memory space), but got 'memref<?x4xi64>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi64>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}
  return
}

// -----

func.func @scale_given_for_none(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %ks: memref<1xf32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{'k_scale' is given but the scale mode is none}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      k_scale(%ks : memref<1xf32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}
  return
}

// -----

func.func @per_tensor_missing_v(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %ks: memref<1xf32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{scale mode per_tensor needs 'v_scale'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      k_scale(%ks : memref<1xf32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>, scale = #pa.scale<per_tensor>}
  return
}

// -----

func.func @per_token_missing_k(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %vs: memref<?x2x16xf32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{scale mode per_token needs 'k_scale'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      v_scale(%vs : memref<?x2x16xf32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>, scale = #pa.scale<per_token>}
  return
}

// -----

func.func @per_tensor_shape(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %ks: memref<2xf32>,
    %vs: memref<1xf32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{'k_scale' must have shape per-tensor [1] = [1], got 'memref<2xf32>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      k_scale(%ks : memref<2xf32>)
      v_scale(%vs : memref<1xf32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>, scale = #pa.scale<per_tensor>}
  return
}

// -----

func.func @per_tensor_f16(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %ks: memref<1xf32>,
    %vs: memref<1xf16>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{operand #6 must be 1-D per-tensor [1] or 3-D per-token [N, Hkv, P] scales of f32 (a ranked tensor without an encoding, or a row-major memref in the default memory space), but got 'memref<1xf16>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      k_scale(%ks : memref<1xf32>)
      v_scale(%vs : memref<1xf16>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>, scale = #pa.scale<per_tensor>}
  return
}

// -----

func.func @per_token_shape(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %ks: memref<?x2x64xf32>,
    %vs: memref<?x2x16xf32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{'k_scale' must have shape per-token [N, Hkv, P] = [?, 2, 16], got 'memref<?x2x64xf32>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      k_scale(%ks : memref<?x2x64xf32>)
      v_scale(%vs : memref<?x2x16xf32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>, scale = #pa.scale<per_token>}
  return
}

// -----

func.func @per_token_rank(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %ks: memref<?x2x16xf32>,
    %vs: memref<1xf32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{'v_scale' must be 3-D per-token [N, Hkv, P], got 'memref<1xf32>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      k_scale(%ks : memref<?x2x16xf32>)
      v_scale(%vs : memref<1xf32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>, scale = #pa.scale<per_token>}
  return
}

// -----

func.func @per_token_pool_mismatch(
    %q: memref<?x16x256xbf16>,
    %k: memref<12x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %ks: memref<10x2x16xf32>,
    %vs: memref<10x2x16xf32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{page pool size N disagrees between operands: 'k_scale' gives 10, 'key_cache' gives 12}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<12x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      k_scale(%ks : memref<10x2x16xf32>)
      v_scale(%vs : memref<10x2x16xf32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>, scale = #pa.scale<per_token>}
  return
}

// -----

func.func @window_minus_2(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{sliding_window must be >= -1 (0 and -1 mean no window), got -2}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>, sliding_window = -2 : i64}
  return
}

// -----

func.func @exp_sums_kv_heads(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<4x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{'exp_sums' must have shape [Hkv, capacity, Q*G] = [2, ?, ?], got 'memref<4x?x8xf32>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<4x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}
  return
}

// -----

func.func @rows_dynamic(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x?xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{query rows per KV head Q*G (dim 2 of 'exp_sums') must be a positive static size, got 'memref<2x?x?xf32>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x?xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}
  return
}

// -----

func.func @rows_not_multiple_of_group(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x12xf32>,
    %ml: memref<2x?x12xf32>,
    %part: memref<2x?x12x256xf32>) {
  // expected-error @+1 {{partial buffers hold 12 rows per KV head, which must be Q * G with query length Q >= 1 and group size G = 8}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x12xf32>)
      max_logits(%ml : memref<2x?x12xf32>)
      tmp_out(%part : memref<2x?x12x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}
  return
}

// -----

func.func @query_length_zero(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x4xf32>,
    %ml: memref<2x?x4xf32>,
    %part: memref<2x?x4x256xf32>) {
  // expected-error @+1 {{partial buffers hold 4 rows per KV head, which must be Q * G with query length Q >= 1 and group size G = 8}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x4xf32>)
      max_logits(%ml : memref<2x?x4xf32>)
      tmp_out(%part : memref<2x?x4x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}
  return
}

// -----

func.func @max_logits_rows(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x16xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{'max_logits' must have shape [Hkv, capacity, Q*G] = [2, ?, 8], got 'memref<2x?x16xf32>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x16xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}
  return
}

// -----

func.func @tmp_out_head_dim(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x128xf32>) {
  // expected-error @+1 {{'tmp_out' must have shape [Hkv, capacity, Q*G, D] = [2, ?, 8, 256], got 'memref<2x?x8x128xf32>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x128xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}
  return
}

// -----

func.func @tmp_out_bf16(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xbf16>) {
  // expected-error @+1 {{operand #8 must be 4-D partial outputs [Hkv, capacity, Q*G, D] of f32 (a ranked tensor without an encoding, or a row-major memref in the default memory space), but got 'memref<2x?x8x256xbf16>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xbf16>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}
  return
}

// -----

func.func @exp_sums_f16(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf16>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{operand #6 must be 3-D partial row statistics [Hkv, capacity, Q*G] of f32 (a ranked tensor without an encoding, or a row-major memref in the default memory space), but got 'memref<2x?x8xf16>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf16>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}
  return
}

// -----

func.func @capacity_mismatch(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<8x4xi32>,
    %es: memref<2x16x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{plan capacity disagrees between operands: 'work_info' gives 8, 'exp_sums' gives 16}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<8x4xi32>)
      exp_sums(%es : memref<2x16x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}
  return
}

// -----

func.func @pool_mismatch(
    %q: memref<?x16x256xbf16>,
    %k: memref<12x2x16x16x16xf8E4M3FN>,
    %v: memref<10x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{page pool size N disagrees between operands: 'key_cache' gives 12, 'value_cache' gives 10}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<12x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<10x2x256x16xf8E4M3FN>)
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

func.func @batch_mismatch(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<4x?xi32>,
    %lens: memref<3xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{batch size B disagrees between operands: 'block_tables' gives 4, 'context_lengths' gives 3}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<4x?xi32>)
      context_lengths(%lens : memref<3xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}
  return
}

// -----

func.func @query_batch_mismatch(
    %q: memref<4x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<3xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{batch size B disagrees between operands: 'context_lengths' gives 3, 'query' gives 4}}
  pa.decode query(%q : memref<4x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<3xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}
  return
}

// -----

func.func @query_not_multiple_of_q(
    %q: memref<5x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x16xf32>,
    %ml: memref<2x?x16xf32>,
    %part: memref<2x?x16x256xf32>) {
  // expected-error @+1 {{dim 0 of 'query' (5) must be a multiple of 2}}
  pa.decode query(%q : memref<5x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x16xf32>)
      max_logits(%ml : memref<2x?x16xf32>)
      tmp_out(%part : memref<2x?x16x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}
  return
}

// -----

func.func @plan_kv_heads(%lens: memref<?xi32>, %work: memref<?x4xi32>, %red: memref<?x2xi32>) {
  // expected-error @+1 {{num_kv_heads must be >= 1, got 0}}
  pa.plan context_lengths(%lens : memref<?xi32>) work_info(%work : memref<?x4xi32>)
          reduce_info(%red : memref<?x2xi32>) {num_kv_heads = 0 : i64}
  return
}

// -----

func.func @plan_query_length(%lens: memref<?xi32>, %work: memref<?x4xi32>, %red: memref<?x2xi32>) {
  // expected-error @+1 {{query_length must be >= 1, got 0}}
  pa.plan context_lengths(%lens : memref<?xi32>) work_info(%work : memref<?x4xi32>)
          reduce_info(%red : memref<?x2xi32>) {num_kv_heads = 1 : i64, query_length = 0 : i64}
  return
}

// -----

func.func @plan_window(%lens: memref<?xi32>, %work: memref<?x4xi32>, %red: memref<?x2xi32>) {
  // expected-error @+1 {{sliding_window must be >= -1 (0 and -1 mean no window), got -7}}
  pa.plan context_lengths(%lens : memref<?xi32>) work_info(%work : memref<?x4xi32>)
          reduce_info(%red : memref<?x2xi32>) {num_kv_heads = 1 : i64, sliding_window = -7 : i64}
  return
}

// -----

func.func @plan_budget(%lens: memref<?xi32>, %work: memref<?x4xi32>, %red: memref<?x2xi32>) {
  // expected-error @+1 {{budget must be >= 1, got 0}}
  pa.plan context_lengths(%lens : memref<?xi32>) work_info(%work : memref<?x4xi32>)
          reduce_info(%red : memref<?x2xi32>) {num_kv_heads = 1 : i64, budget = 0 : i64}
  return
}

// -----

func.func @plan_max_partitions(%lens: memref<?xi32>, %work: memref<?x4xi32>, %red: memref<?x2xi32>) {
  // expected-error @+1 {{max_partitions must be >= 1, got -1}}
  pa.plan context_lengths(%lens : memref<?xi32>) work_info(%work : memref<?x4xi32>)
          reduce_info(%red : memref<?x2xi32>) {num_kv_heads = 1 : i64, max_partitions = -1 : i64}
  return
}

// -----

func.func @plan_lengths_rank(%lens: memref<?x?xi32>, %work: memref<?x4xi32>, %red: memref<?x2xi32>) {
  // expected-error @+1 {{operand #0 must be 1-D context lengths [B] of i32 (a ranked tensor without an encoding, or a row-major memref in the default memory space), but got 'memref<?x?xi32>'}}
  pa.plan context_lengths(%lens : memref<?x?xi32>) work_info(%work : memref<?x4xi32>)
          reduce_info(%red : memref<?x2xi32>) {num_kv_heads = 2 : i64}
  return
}

// -----

func.func @plan_lengths_i64(%lens: memref<?xi64>, %work: memref<?x4xi32>, %red: memref<?x2xi32>) {
  // expected-error @+1 {{operand #0 must be 1-D context lengths [B] of i32 (a ranked tensor without an encoding, or a row-major memref in the default memory space), but got 'memref<?xi64>'}}
  pa.plan context_lengths(%lens : memref<?xi64>) work_info(%work : memref<?x4xi32>)
          reduce_info(%red : memref<?x2xi32>) {num_kv_heads = 2 : i64}
  return
}

// -----

func.func @plan_work_shape(%lens: memref<?xi32>, %work: memref<?x2xi32>, %red: memref<?x2xi32>) {
  // expected-error @+1 {{'work_info' must have shape [capacity, 4] = [?, 4], got 'memref<?x2xi32>'}}
  pa.plan context_lengths(%lens : memref<?xi32>) work_info(%work : memref<?x2xi32>)
          reduce_info(%red : memref<?x2xi32>) {num_kv_heads = 2 : i64}
  return
}

// -----

func.func @plan_work_i16(%lens: memref<?xi32>, %work: memref<?x4xi16>, %red: memref<?x2xi32>) {
  // expected-error @+1 {{operand #1 must be 2-D work plan [capacity, 4] of i32 (a ranked tensor without an encoding, or a row-major memref in the default memory space), but got 'memref<?x4xi16>'}}
  pa.plan context_lengths(%lens : memref<?xi32>) work_info(%work : memref<?x4xi16>)
          reduce_info(%red : memref<?x2xi32>) {num_kv_heads = 2 : i64}
  return
}

// -----

func.func @plan_reduce_shape(%lens: memref<?xi32>, %work: memref<?x4xi32>, %red: memref<?x4xi32>) {
  // expected-error @+1 {{'reduce_info' must have shape [B, 2] = [?, 2], got 'memref<?x4xi32>'}}
  pa.plan context_lengths(%lens : memref<?xi32>) work_info(%work : memref<?x4xi32>)
          reduce_info(%red : memref<?x4xi32>) {num_kv_heads = 2 : i64}
  return
}

// -----

func.func @plan_reduce_f32(%lens: memref<?xi32>, %work: memref<?x4xi32>, %red: memref<?x2xf32>) {
  // expected-error @+1 {{operand #2 must be 2-D reducer index [B, 2] of i32 (a ranked tensor without an encoding, or a row-major memref in the default memory space), but got 'memref<?x2xf32>'}}
  pa.plan context_lengths(%lens : memref<?xi32>) work_info(%work : memref<?x4xi32>)
          reduce_info(%red : memref<?x2xf32>) {num_kv_heads = 2 : i64}
  return
}

// -----

func.func @plan_batch(%lens: memref<4xi32>, %work: memref<?x4xi32>, %red: memref<5x2xi32>) {
  // expected-error @+1 {{batch size B disagrees between operands: 'context_lengths' gives 4, 'reduce_info' gives 5}}
  pa.plan context_lengths(%lens : memref<4xi32>) work_info(%work : memref<?x4xi32>)
          reduce_info(%red : memref<5x2xi32>) {num_kv_heads = 2 : i64}
  return
}

// -----

func.func @plan_capacity(%lens: memref<4xi32>, %work: memref<31x4xi32>, %red: memref<4x2xi32>) {
  // expected-error @+1 {{work_info holds 31 slots but the plan needs capacity 32 = min(B * max_partitions, max(B, ceil(budget / Hkv)))}}
  pa.plan context_lengths(%lens : memref<4xi32>) work_info(%work : memref<31x4xi32>)
          reduce_info(%red : memref<4x2xi32>) {num_kv_heads = 2 : i64, budget = 63 : i64, max_partitions = 64 : i64}
  return
}

// -----

func.func @reduce_output_f32(
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>,
    %red: memref<?x2xi32>,
    %out: memref<?x16x256xf32>) {
  // expected-error @+1 {{operand #4 must be 3-D output [B*Q, Hq, D] of bf16 or f16 (a ranked tensor without an encoding, or a row-major memref in the default memory space), but got 'memref<?x16x256xf32>'}}
  pa.reduce exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      reduce_info(%red : memref<?x2xi32>)
      output(%out : memref<?x16x256xf32>)
  return
}

// -----

func.func @reduce_output_rank(
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>,
    %red: memref<?x2xi32>,
    %out: memref<?x4096xbf16>) {
  // expected-error @+1 {{operand #4 must be 3-D output [B*Q, Hq, D] of bf16 or f16 (a ranked tensor without an encoding, or a row-major memref in the default memory space), but got 'memref<?x4096xbf16>'}}
  pa.reduce exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      reduce_info(%red : memref<?x2xi32>)
      output(%out : memref<?x4096xbf16>)
  return
}

// -----

func.func @reduce_tmp_out_rank(
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8xf32>,
    %red: memref<?x2xi32>,
    %out: memref<?x16x256xbf16>) {
  // expected-error @+1 {{operand #2 must be 4-D partial outputs [Hkv, capacity, Q*G, D] of f32 (a ranked tensor without an encoding, or a row-major memref in the default memory space), but got 'memref<2x?x8xf32>'}}
  pa.reduce exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8xf32>)
      reduce_info(%red : memref<?x2xi32>)
      output(%out : memref<?x16x256xbf16>)
  return
}

// -----

func.func @reduce_heads_dynamic(
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>,
    %red: memref<?x2xi32>,
    %out: memref<?x?x256xbf16>) {
  // expected-error @+1 {{query heads Hq (dim 1 of 'output') must be a positive static size, got 'memref<?x?x256xbf16>'}}
  pa.reduce exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      reduce_info(%red : memref<?x2xi32>)
      output(%out : memref<?x?x256xbf16>)
  return
}

// -----

func.func @reduce_kv_heads_dynamic(
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<?x?x8x256xf32>,
    %red: memref<?x2xi32>,
    %out: memref<?x16x256xbf16>) {
  // expected-error @+1 {{KV heads Hkv (dim 0 of 'tmp_out') must be a positive static size, got 'memref<?x?x8x256xf32>'}}
  pa.reduce exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<?x?x8x256xf32>)
      reduce_info(%red : memref<?x2xi32>)
      output(%out : memref<?x16x256xbf16>)
  return
}

// -----

func.func @reduce_gqa(
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<8x?x8x256xf32>,
    %red: memref<?x2xi32>,
    %out: memref<?x12x256xbf16>) {
  // expected-error @+1 {{query heads (12) must be a multiple of KV heads (8)}}
  pa.reduce exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<8x?x8x256xf32>)
      reduce_info(%red : memref<?x2xi32>)
      output(%out : memref<?x12x256xbf16>)
  return
}

// -----

func.func @reduce_rows(
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>,
    %red: memref<?x2xi32>,
    %out: memref<?x32x256xbf16>) {
  // expected-error @+1 {{partial buffers hold 8 rows per KV head, which must be Q * G with query length Q >= 1 and group size G = 16}}
  pa.reduce exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      reduce_info(%red : memref<?x2xi32>)
      output(%out : memref<?x32x256xbf16>)
  return
}

// -----

func.func @reduce_head_dim(
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>,
    %red: memref<?x2xi32>,
    %out: memref<?x16x128xbf16>) {
  // expected-error @+1 {{'tmp_out' must have shape [Hkv, capacity, Q*G, D] = [2, ?, 8, 128], got 'memref<2x?x8x256xf32>'}}
  pa.reduce exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      reduce_info(%red : memref<?x2xi32>)
      output(%out : memref<?x16x128xbf16>)
  return
}

// -----

func.func @reduce_exp_sums(
    %es: memref<2x?x9xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>,
    %red: memref<?x2xi32>,
    %out: memref<?x16x256xbf16>) {
  // expected-error @+1 {{'exp_sums' must have shape [Hkv, capacity, Q*G] = [2, ?, 8], got 'memref<2x?x9xf32>'}}
  pa.reduce exp_sums(%es : memref<2x?x9xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      reduce_info(%red : memref<?x2xi32>)
      output(%out : memref<?x16x256xbf16>)
  return
}

// -----

func.func @reduce_capacity(
    %es: memref<2x4x8xf32>,
    %ml: memref<2x5x8xf32>,
    %part: memref<2x?x8x256xf32>,
    %red: memref<?x2xi32>,
    %out: memref<?x16x256xbf16>) {
  // expected-error @+1 {{plan capacity disagrees between operands: 'exp_sums' gives 4, 'max_logits' gives 5}}
  pa.reduce exp_sums(%es : memref<2x4x8xf32>)
      max_logits(%ml : memref<2x5x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      reduce_info(%red : memref<?x2xi32>)
      output(%out : memref<?x16x256xbf16>)
  return
}

// -----

func.func @reduce_info_shape(
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>,
    %red: memref<?x3xi32>,
    %out: memref<?x16x256xbf16>) {
  // expected-error @+1 {{'reduce_info' must have shape [B, 2] = [?, 2], got 'memref<?x3xi32>'}}
  pa.reduce exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      reduce_info(%red : memref<?x3xi32>)
      output(%out : memref<?x16x256xbf16>)
  return
}

// -----

func.func @reduce_info_i64(
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>,
    %red: memref<?x2xi64>,
    %out: memref<?x16x256xbf16>) {
  // expected-error @+1 {{operand #3 must be 2-D reducer index [B, 2] of i32 (a ranked tensor without an encoding, or a row-major memref in the default memory space), but got 'memref<?x2xi64>'}}
  pa.reduce exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      reduce_info(%red : memref<?x2xi64>)
      output(%out : memref<?x16x256xbf16>)
  return
}

// -----

func.func @reduce_batch(
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>,
    %red: memref<3x2xi32>,
    %out: memref<4x16x256xbf16>) {
  // expected-error @+1 {{batch size B disagrees between operands: 'reduce_info' gives 3, 'output' gives 4}}
  pa.reduce exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      reduce_info(%red : memref<3x2xi32>)
      output(%out : memref<4x16x256xbf16>)
  return
}

// -----

func.func @reduce_sinks_shape(
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>,
    %red: memref<?x2xi32>,
    %sinks: memref<8xf32>,
    %out: memref<?x16x256xbf16>) {
  // expected-error @+1 {{'sinks' must have shape [Hq] = [16], got 'memref<8xf32>'}}
  pa.reduce exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      reduce_info(%red : memref<?x2xi32>)
      sinks(%sinks : memref<8xf32>)
      output(%out : memref<?x16x256xbf16>)
  return
}

// -----

func.func @reduce_sinks_i32(
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>,
    %red: memref<?x2xi32>,
    %sinks: memref<16xi32>,
    %out: memref<?x16x256xbf16>) {
  // expected-error @+1 {{operand #4 must be 1-D sink logits [Hq] of f32, bf16 or f16 (a ranked tensor without an encoding, or a row-major memref in the default memory space), but got 'memref<16xi32>'}}
  pa.reduce exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      reduce_info(%red : memref<?x2xi32>)
      sinks(%sinks : memref<16xi32>)
      output(%out : memref<?x16x256xbf16>)
  return
}

// -----

func.func @bad_scale_mode() {
  // expected-error @+2 {{expected ::mlir::pa::ScaleMode to be one of: none, per_tensor, per_token}}
  // expected-error @+1 {{failed to parse Pa_ScaleModeAttr parameter 'value'}}
  "test.op"() {scale = #pa.scale<per_page>} : () -> ()
  return
}

// -----

func.func @kv_layout_missing_param() {
  // The generated struct parser names the missing parameter.
  // expected-error @+1 {{struct is missing required parameter: page_size}}
  "test.op"() {layout = #pa.kv_layout<k_pack = 16, v_layout = plain>} : () -> ()
  return
}

// -----

// Tile buffers (PaTileOps.td): row statistics are static 1-D f32 tiles.
gpu.module @k {
  gpu.func @row_tile_2d(%m: memref<16x1xf32>, %acc: memref<16x64xf32>) kernel {
    // expected-error @+1 {{operand #0 must be static 1-D f32 tile [M], but got 'memref<16x1xf32>'}}
    pa.tile.init_softmax %m, %m, %acc : memref<16x1xf32>, memref<16x1xf32>, memref<16x64xf32>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @row_tile_dynamic(%m: memref<?xf32>, %acc: memref<16x64xf32>) kernel {
    // expected-error @+1 {{operand #0 must be static 1-D f32 tile [M], but got 'memref<?xf32>'}}
    pa.tile.init_softmax %m, %m, %acc : memref<?xf32>, memref<?xf32>, memref<16x64xf32>
    gpu.return
  }
}

// -----

// The query of pa.tile.load_query is [B*Q, Hq, D].
gpu.module @k {
  gpu.func @load_query_rank(%q: memref<?x1024xbf16>, %i: index,
                            %tile: memref<16x64xf32>) kernel {
    // expected-error @+1 {{operand #0 must be 3-D query [B*Q, Hq, D] of bf16, f16 or f32 (a row-major or strided (unit innermost stride) memref in the default memory space), but got 'memref<?x1024xbf16>'}}
    pa.tile.load_query %q[%i, %i, %i] into %tile
        {query_length = 1 : i64, group_size = 16 : i64}
        : memref<?x1024xbf16>, memref<16x64xf32>
    gpu.return
  }
}

// -----

// Tile buffers of one op agree on their sizes (the verifier).
gpu.module @k {
  gpu.func @row_tile_mismatch(%m: memref<16xf32>, %s: memref<8xf32>,
                              %acc: memref<16x64xf32>) kernel {
    // expected-error @+1 {{'row_sum' must be a tile of shape [16], got 'memref<8xf32>'}}
    pa.tile.init_softmax %m, %s, %acc : memref<16xf32>, memref<8xf32>, memref<16x64xf32>
    gpu.return
  }
}
