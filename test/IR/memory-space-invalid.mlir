// RUN: pa-opt %s -split-input-file -verify-diagnostics

// Operands of pa.plan, pa.decode and pa.reduce live in the default memory
// space (the caller's global memory). Before, a query in space 3 became an
// LDS pointer in the gfx950 kernel and space 257 crashed the host JIT.

func.func @query_lds(
    %q: memref<?x16x256xbf16, 3>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{operand #0 must be 3-D query [B*Q, Hq, D] of bf16 or f16 (a ranked tensor without an encoding, or a row-major or strided (unit innermost stride) memref in the default memory space), but got 'memref<?x16x256xbf16, 3>'}}
  pa.decode query(%q : memref<?x16x256xbf16, 3>)
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

func.func @query_257(
    %q: memref<?x16x256xbf16, 257>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{operand #0 must be 3-D query [B*Q, Hq, D] of bf16 or f16 (a ranked tensor without an encoding, or a row-major or strided (unit innermost stride) memref in the default memory space), but got 'memref<?x16x256xbf16, 257>'}}
  pa.decode query(%q : memref<?x16x256xbf16, 257>)
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

// Even the GPU dialect's name for global memory: the lowerings assign the
// address spaces themselves.
func.func @tmp_out_gpu_global(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32, #gpu.address_space<global>>) {
  // expected-error @+1 {{operand #8 must be 4-D partial outputs [Hkv, capacity, Q*G, D] of f32 (a ranked tensor without an encoding, or a row-major memref in the default memory space), but got 'memref<2x?x8x256xf32, #gpu.address_space<global>>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32, #gpu.address_space<global>>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}
  return
}

// -----

func.func @key_cache_lds(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN, 3>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %ks: memref<1xf32, 5>,
    %vs: memref<1xf32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{operand #1 must be 4-D (nhd, hnd) or 5-D (packed) KV cache of f8E4M3FN, f8E4M3FNUZ or bf16 (a ranked tensor without an encoding, or a row-major or strided (unit innermost stride) memref in the default memory space), but got 'memref<?x2x16x16x16xf8E4M3FN, 3>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN, 3>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      k_scale(%ks : memref<1xf32, 5>)
      v_scale(%vs : memref<1xf32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>,
       scale = #pa.scale<per_tensor>}
  return
}

// -----

func.func @k_scale_private(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %ks: memref<1xf32, 5>,
    %vs: memref<1xf32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{operand #5 must be 1-D per-tensor [1] or 3-D per-token [N, Hkv, P] scales of f32 (a ranked tensor without an encoding, or a row-major memref in the default memory space), but got 'memref<1xf32, 5>'}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      k_scale(%ks : memref<1xf32, 5>)
      v_scale(%vs : memref<1xf32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>,
       scale = #pa.scale<per_tensor>}
  return
}

// -----

func.func @plan_work_info_lds(%lens: memref<?xi32>, %w: memref<?x4xi32, 3>, %r: memref<?x2xi32>) {
  // expected-error @+1 {{operand #1 must be 2-D work plan [capacity, 4] of i32 (a ranked tensor without an encoding, or a row-major memref in the default memory space), but got 'memref<?x4xi32, 3>'}}
  pa.plan context_lengths(%lens : memref<?xi32>) work_info(%w : memref<?x4xi32, 3>)
          reduce_info(%r : memref<?x2xi32>) {num_kv_heads = 1 : i64}
  return
}

// -----

func.func @reduce_sinks_lds(%es: memref<2x?x8xf32>, %ml: memref<2x?x8xf32>,
                            %part: memref<2x?x8x256xf32>, %red: memref<?x2xi32>,
                            %sinks: memref<16xf32, 3>,
                            %out: memref<?x16x256xbf16>) {
  // expected-error @+1 {{operand #4 must be 1-D sink logits [Hq] of f32, bf16 or f16 (a ranked tensor without an encoding, or a row-major memref in the default memory space), but got 'memref<16xf32, 3>'}}
  pa.reduce exp_sums(%es : memref<2x?x8xf32>) max_logits(%ml : memref<2x?x8xf32>)
            tmp_out(%part : memref<2x?x8x256xf32>) reduce_info(%red : memref<?x2xi32>)
            sinks(%sinks : memref<16xf32, 3>)
            output(%out : memref<?x16x256xbf16>)
  return
}

// -----

func.func @reduce_output_lds(%es: memref<2x?x8xf32>, %ml: memref<2x?x8xf32>,
                             %part: memref<2x?x8x256xf32>, %red: memref<?x2xi32>,
                             %out: memref<?x16x256xbf16, 3>) {
  // expected-error @+1 {{operand #4 must be 3-D output [B*Q, Hq, D] of bf16 or f16 (a ranked tensor without an encoding, or a row-major memref in the default memory space), but got 'memref<?x16x256xbf16, 3>'}}
  pa.reduce exp_sums(%es : memref<2x?x8xf32>) max_logits(%ml : memref<2x?x8xf32>)
            tmp_out(%part : memref<2x?x8x256xf32>) reduce_info(%red : memref<?x2xi32>)
            output(%out : memref<?x16x256xbf16, 3>)
  return
}
