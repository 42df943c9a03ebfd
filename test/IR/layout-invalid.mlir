// RUN: pa-opt %s -split-input-file -verify-diagnostics

// Operands of pa.plan, pa.decode and pa.reduce are row-major, except the
// query: a strided layout with a unit innermost stride (a view of a fused
// qkv tensor) is read at the memref's strides. Any other layout would be
// read as row-major by kernels that index it without the strides.

func.func @query_inner_stride(
    %q: memref<?x16x256xbf16, strided<[?, 512, 2]>>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{operand #0 must be 3-D query [B*Q, Hq, D] of bf16 or f16 (a ranked tensor without an encoding, or a row-major or strided (unit innermost stride) memref in the default memory space), but got 'memref<?x16x256xbf16, strided<[?, 512, 2]>>'}}
  pa.decode query(%q : memref<?x16x256xbf16, strided<[?, 512, 2]>>)
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

func.func @query_permuted(
    %q: memref<?x16x256xbf16, affine_map<(r, h, d) -> (h, r, d)>>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{operand #0 must be 3-D query [B*Q, Hq, D] of bf16 or f16 (a ranked tensor without an encoding, or a row-major or strided (unit innermost stride) memref in the default memory space), but got 'memref<?x16x256xbf16, affine_map<(d0, d1, d2) -> (d1, d0, d2)>>'}}
  pa.decode query(%q : memref<?x16x256xbf16, affine_map<(r, h, d) -> (h, r, d)>>)
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

func.func @key_cache_strided(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN, strided<[?, 4096, 256, 16, 1]>>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{'key_cache' must be row-major (the identity layout) for the packed layout, got 'memref<?x2x16x16x16xf8E4M3FN, strided<[?, 4096, 256, 16, 1]>>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN, strided<[?, 4096, 256, 16, 1]>>)
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

func.func @plan_work_info_strided(%lens: memref<?xi32>,
                                  %w: memref<?x4xi32, strided<[8, 1]>>,
                                  %r: memref<?x2xi32>) {
  // expected-error @+1 {{operand #1 must be 2-D work plan [capacity, 4] of i32 (a ranked tensor without an encoding, or a row-major memref in the default memory space), but got 'memref<?x4xi32, strided<[8, 1]>>'}}
  pa.plan context_lengths(%lens : memref<?xi32>)
          work_info(%w : memref<?x4xi32, strided<[8, 1]>>)
          reduce_info(%r : memref<?x2xi32>) {num_kv_heads = 1 : i64}
  return
}

// -----

func.func @reduce_output_strided(%es: memref<2x?x8xf32>,
                                 %ml: memref<2x?x8xf32>,
                                 %part: memref<2x?x8x256xf32>,
                                 %red: memref<?x2xi32>,
                                 %out: memref<?x16x256xbf16, strided<[?, 256, 1]>>) {
  // expected-error @+1 {{operand #4 must be 3-D output [B*Q, Hq, D] of bf16 or f16 (a ranked tensor without an encoding, or a row-major memref in the default memory space), but got 'memref<?x16x256xbf16, strided<[?, 256, 1]>>'}}
  pa.reduce exp_sums(%es : memref<2x?x8xf32>) max_logits(%ml : memref<2x?x8xf32>)
            tmp_out(%part : memref<2x?x8x256xf32>) reduce_info(%red : memref<?x2xi32>)
            output(%out : memref<?x16x256xbf16, strided<[?, 256, 1]>>)
  return
}
