// RUN: pa-opt %s -split-input-file -verify-diagnostics

// The nhd / hnd KV-cache layouts: one case per verifier rule.

// An nhd-shaped cache under the packed attribute is a layout mix-up: the
// diagnostic names the layouts, not the page size (1 is not a packed one).
func.func @nhd_cache_with_packed_attribute(
    %q: memref<?x16x256xbf16>, %k: memref<?x1x2x256xf8E4M3FN>,
    %v: memref<?x1x2x256xf8E4M3FN>, %bt: memref<?x?xi32>,
    %lens: memref<?xi32>, %work: memref<?x4xi32>, %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>, %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{non-packed 4-D key cache 'memref<?x1x2x256xf8E4M3FN>' does not match the packed layout (keys [N, Hkv, D/x, P, x]); a [N, P, Hkv, D] cache is `layout = nhd` and a [N, Hkv, P, D] cache is `layout = hnd` in #pa.kv_layout}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x1x2x256xf8E4M3FN>)
      value_cache(%v : memref<?x1x2x256xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>) context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>) exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>) tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 1, k_pack = 16>}
  return
}

// -----

func.func @nhd_page_size_not_power_of_two(
    %q: memref<?x16x256xbf16>, %k: memref<?x24x2x256xf8E4M3FN>,
    %v: memref<?x24x2x256xf8E4M3FN>, %bt: memref<?x?xi32>,
    %lens: memref<?xi32>, %work: memref<?x4xi32>, %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>, %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{page size must be a power of two from 1 to 1024 for layout nhd, got 24}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x24x2x256xf8E4M3FN>)
      value_cache(%v : memref<?x24x2x256xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>) context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>) exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>) tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 24, layout = nhd>}
  return
}

// -----

func.func @hnd_page_size_above_1024(
    %q: memref<?x16x256xbf16>, %k: memref<?x2x2048x256xf8E4M3FN>,
    %v: memref<?x2x2048x256xf8E4M3FN>, %bt: memref<?x?xi32>,
    %lens: memref<?xi32>, %work: memref<?x4xi32>, %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>, %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{page size must be a power of two from 1 to 1024 for layout hnd, got 2048}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x2048x256xf8E4M3FN>)
      value_cache(%v : memref<?x2x2048x256xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>) context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>) exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>) tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 2048, layout = hnd>}
  return
}

// -----

func.func @hnd_page_size_zero(
    %q: memref<?x16x256xbf16>, %k: memref<?x2x1x256xf8E4M3FN>,
    %v: memref<?x2x1x256xf8E4M3FN>, %bt: memref<?x?xi32>,
    %lens: memref<?xi32>, %work: memref<?x4xi32>, %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>, %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{page size must be a power of two from 1 to 1024 for layout hnd, got 0}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x1x256xf8E4M3FN>)
      value_cache(%v : memref<?x2x1x256xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>) context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>) exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>) tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 0, layout = hnd>}
  return
}

// -----

func.func @nhd_with_k_pack(
    %q: memref<?x16x256xbf16>, %k: memref<?x16x2x256xf8E4M3FN>,
    %v: memref<?x16x2x256xf8E4M3FN>, %bt: memref<?x?xi32>,
    %lens: memref<?xi32>, %work: memref<?x4xi32>, %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>, %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{k_pack and v_layout describe the packed layout; leave them out of #pa.kv_layout with layout nhd}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x16x2x256xf8E4M3FN>)
      value_cache(%v : memref<?x16x2x256xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>) context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>) exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>) tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, layout = nhd>}
  return
}

// -----

func.func @hnd_with_transposed_v(
    %q: memref<?x16x256xbf16>, %k: memref<?x2x16x256xf8E4M3FN>,
    %v: memref<?x2x16x256xf8E4M3FN>, %bt: memref<?x?xi32>,
    %lens: memref<?xi32>, %work: memref<?x4xi32>, %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>, %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{k_pack and v_layout describe the packed layout; leave them out of #pa.kv_layout with layout hnd}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x256xf8E4M3FN>)
      value_cache(%v : memref<?x2x16x256xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>) context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>) exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>) tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, v_layout = transposed, layout = hnd>}
  return
}

// -----

// An hnd-shaped key under `layout = nhd`: Hkv is dim 2 (16 here), so the
// key's own shape is what disagrees.
func.func @hnd_key_under_nhd(
    %q: memref<?x16x256xbf16>, %k: memref<?x2x16x256xf8E4M3FN>,
    %v: memref<?x16x2x256xf8E4M3FN>, %bt: memref<?x?xi32>,
    %lens: memref<?xi32>, %work: memref<?x4xi32>, %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>, %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{'key_cache' must have shape nhd [N, P, Hkv, D] = [?, 16, 16, 256], got 'memref<?x2x16x256xf8E4M3FN>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x256xf8E4M3FN>)
      value_cache(%v : memref<?x16x2x256xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>) context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>) exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>) tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, layout = nhd>}
  return
}

// -----

func.func @nhd_value_rank_5(
    %q: memref<?x16x256xbf16>, %k: memref<?x16x2x256xf8E4M3FN>,
    %v: memref<?x2x1x256x16xf8E4M3FN>, %bt: memref<?x?xi32>,
    %lens: memref<?xi32>, %work: memref<?x4xi32>, %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>, %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{'value_cache' must be 4-D nhd [N, P, Hkv, D], got 'memref<?x2x1x256x16xf8E4M3FN>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x16x2x256xf8E4M3FN>)
      value_cache(%v : memref<?x2x1x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>) context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>) exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>) tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, layout = nhd>}
  return
}

// -----

// Strided views are fine on the outer dims; the head-dim axis must be
// contiguous.
func.func @nhd_head_dim_strided(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x16x2x256xf8E4M3FN, strided<[?, 1024, 512, 2]>>,
    %v: memref<?x16x2x256xf8E4M3FN>, %bt: memref<?x?xi32>,
    %lens: memref<?xi32>, %work: memref<?x4xi32>, %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>, %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{operand #1 must be 4-D (nhd, hnd) or 5-D (packed) KV cache of f8E4M3FN, f8E4M3FNUZ or bf16 (a ranked tensor without an encoding, or a row-major or strided (unit innermost stride) memref in the default memory space), but got 'memref<?x16x2x256xf8E4M3FN, strided<[?, 1024, 512, 2]>>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x16x2x256xf8E4M3FN, strided<[?, 1024, 512, 2]>>)
      value_cache(%v : memref<?x16x2x256xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>) context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>) exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>) tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, layout = nhd>}
  return
}

// -----

func.func @hnd_value_head_dim_dynamic_stride(
    %q: memref<?x16x256xbf16>, %k: memref<?x2x16x256xf8E4M3FN>,
    %v: memref<?x2x16x256xf8E4M3FN, strided<[?, ?, ?, ?], offset: ?>>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>, %work: memref<?x4xi32>, %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>, %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{operand #2 must be 4-D (nhd, hnd) or 5-D (packed) KV cache of f8E4M3FN, f8E4M3FNUZ or bf16 (a ranked tensor without an encoding, or a row-major or strided (unit innermost stride) memref in the default memory space), but got 'memref<?x2x16x256xf8E4M3FN, strided<[?, ?, ?, ?], offset: ?>>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x256xf8E4M3FN>)
      value_cache(%v : memref<?x2x16x256xf8E4M3FN, strided<[?, ?, ?, ?], offset: ?>>)
      block_tables(%bt : memref<?x?xi32>) context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>) exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>) tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, layout = hnd>}
  return
}

// -----

// Per-token scales keep [N, Hkv, P] under nhd.
func.func @nhd_per_token_scale_shape(
    %q: memref<?x16x256xbf16>, %k: memref<?x16x2x256xf8E4M3FN>,
    %v: memref<?x16x2x256xf8E4M3FN>, %bt: memref<?x?xi32>,
    %lens: memref<?xi32>, %ks: memref<?x16x2xf32>, %vs: memref<?x2x16xf32>,
    %work: memref<?x4xi32>, %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>, %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{'k_scale' must have shape per-token [N, Hkv, P] = [?, 2, 16], got 'memref<?x16x2xf32>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x16x2x256xf8E4M3FN>)
      value_cache(%v : memref<?x16x2x256xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>) context_lengths(%lens : memref<?xi32>)
      k_scale(%ks : memref<?x16x2xf32>) v_scale(%vs : memref<?x2x16xf32>)
      work_info(%work : memref<?x4xi32>) exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>) tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, layout = nhd>,
       scale = #pa.scale<per_token>}
  return
}

// -----

func.func @page_ids_page_size_2048(%bt: memref<?x?xi32>, %seq: index,
                                   %tile: index, %lo: i64, %hi: i64) {
  // expected-error @+1 {{page size must be a power of two from 1 to 1024, got 2048}}
  %ids = pa.tile.page_ids %bt[%seq] tile %tile visible [%lo, %hi]
      {page_size = 2048 : i64} : memref<?x?xi32> -> vector<1xi32>
  return
}

// -----

func.func @page_ids_page_size_1024_count(%bt: memref<?x?xi32>, %seq: index,
                                         %tile: index, %lo: i64, %hi: i64) {
  // expected-error @+1 {{a 256-token tile of page size 1024 needs 1 page ids, got 'vector<4xi32>'}}
  %ids = pa.tile.page_ids %bt[%seq] tile %tile visible [%lo, %hi]
      {page_size = 1024 : i64} : memref<?x?xi32> -> vector<4xi32>
  return
}
