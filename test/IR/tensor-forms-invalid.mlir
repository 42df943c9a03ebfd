// RUN: pa-opt %s -split-input-file -verify-diagnostics

// The tensor form's rules: all operands tensors or all memrefs, one result
// per output of the output's type, none on memrefs; the plan agreement
// follows the plan's work_info result.

func.func @mixed(%lens: tensor<?xi32>, %work: memref<?x4xi32>,
                 %red: memref<?x2xi32>) {
  // expected-error @+1 {{takes tensors (before bufferization) or memrefs, not both: got 'tensor<?xi32>' and 'memref<?x4xi32>'}}
  pa.plan context_lengths(%lens : tensor<?xi32>)
      work_info(%work : memref<?x4xi32>) reduce_info(%red : memref<?x2xi32>)
      {num_kv_heads = 1 : i64}
  return
}

// -----

func.func @missing_result(%lens: tensor<?xi32>, %work: tensor<?x4xi32>,
                          %red: tensor<?x2xi32>) {
  // expected-error @+1 {{expected the number of tensor results (1) to be equal to the number of output tensors (2)}}
  %w = pa.plan context_lengths(%lens : tensor<?xi32>)
      work_info(%work : tensor<?x4xi32>) reduce_info(%red : tensor<?x2xi32>)
      {num_kv_heads = 1 : i64} -> tensor<?x4xi32>
  return
}

// -----

func.func @result_type(%lens: tensor<?xi32>, %work: tensor<?x4xi32>,
                       %red: tensor<?x2xi32>) {
  // expected-error @+1 {{expected type of operand #2 ('tensor<?x2xi32>') to match type of corresponding result ('tensor<4x2xi32>')}}
  %w, %r = pa.plan context_lengths(%lens : tensor<?xi32>)
      work_info(%work : tensor<?x4xi32>) reduce_info(%red : tensor<?x2xi32>)
      {num_kv_heads = 1 : i64} -> tensor<?x4xi32>, tensor<4x2xi32>
  return
}

// -----

func.func @results_on_memrefs(%lens: memref<?xi32>, %work: memref<?x4xi32>,
                              %red: memref<?x2xi32>) {
  // expected-error @+1 {{expected the number of tensor results (2) to be equal to the number of output tensors (0)}}
  %w, %r = pa.plan context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>) reduce_info(%red : memref<?x2xi32>)
      {num_kv_heads = 1 : i64} -> tensor<?x4xi32>, tensor<?x2xi32>
  return
}

// -----

// The shape rules hold on tensors as on memrefs.
func.func @shape(%lens: tensor<?xi32>, %work: tensor<?x3xi32>,
                 %red: tensor<?x2xi32>) {
  // expected-error @+1 {{'work_info' must have shape [capacity, 4] = [?, 4], got 'tensor<?x3xi32>'}}
  %w, %r = pa.plan context_lengths(%lens : tensor<?xi32>)
      work_info(%work : tensor<?x3xi32>) reduce_info(%red : tensor<?x2xi32>)
      {num_kv_heads = 1 : i64} -> tensor<?x3xi32>, tensor<?x2xi32>
  return
}

// -----

func.func @window_mismatch(
    %q: tensor<?x8x128xbf16>, %k: tensor<?x1x16x16x8xbf16>,
    %v: tensor<?x1x128x16xbf16>, %bt: tensor<?x?xi32>, %lens: tensor<?xi32>,
    %work: tensor<?x4xi32>, %red: tensor<?x2xi32>, %es: tensor<1x?x8xf32>,
    %ml: tensor<1x?x8xf32>, %part: tensor<1x?x8x128xf32>) {
  // expected-note @+1 {{the pa.plan writing work_info}}
  %w, %r = pa.plan context_lengths(%lens : tensor<?xi32>)
      work_info(%work : tensor<?x4xi32>) reduce_info(%red : tensor<?x2xi32>)
      {num_kv_heads = 1 : i64, sliding_window = 100 : i64}
      -> tensor<?x4xi32>, tensor<?x2xi32>
  // expected-error @+1 {{reads the work plan of a pa.plan with sliding_window = 100, but the decode has sliding_window = 0}}
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
  return
}

// -----

// pa.reduce with lse has two destinations, so two results on tensors.
func.func @lse_without_result(%es: tensor<1x?x8xf32>, %ml: tensor<1x?x8xf32>,
                              %part: tensor<1x?x8x128xf32>,
                              %red: tensor<?x2xi32>,
                              %out: tensor<?x8x128xbf16>,
                              %lse: tensor<?x8xf32>) {
  // expected-error @+1 {{expected the number of tensor results (1) to be equal to the number of output tensors (2)}}
  %o = pa.reduce exp_sums(%es : tensor<1x?x8xf32>)
      max_logits(%ml : tensor<1x?x8xf32>) tmp_out(%part : tensor<1x?x8x128xf32>)
      reduce_info(%red : tensor<?x2xi32>) output(%out : tensor<?x8x128xbf16>)
      lse(%lse : tensor<?x8xf32>) -> tensor<?x8x128xbf16>
  return
}

// -----

func.func @lse_result_type(%es: tensor<1x?x8xf32>, %ml: tensor<1x?x8xf32>,
                           %part: tensor<1x?x8x128xf32>, %red: tensor<?x2xi32>,
                           %out: tensor<?x8x128xbf16>, %lse: tensor<?x8xf32>) {
  // expected-error @+1 {{expected type of operand #5 ('tensor<?x8xf32>') to match type of corresponding result ('tensor<?x8xf16>')}}
  %o, %l = pa.reduce exp_sums(%es : tensor<1x?x8xf32>)
      max_logits(%ml : tensor<1x?x8xf32>) tmp_out(%part : tensor<1x?x8x128xf32>)
      reduce_info(%red : tensor<?x2xi32>) output(%out : tensor<?x8x128xbf16>)
      lse(%lse : tensor<?x8xf32>) -> tensor<?x8x128xbf16>, tensor<?x8xf16>
  return
}

// -----

// The lse rules hold on tensors: f32 [B*Q, Hq].
func.func @lse_shape(%es: tensor<1x?x8xf32>, %ml: tensor<1x?x8xf32>,
                     %part: tensor<1x?x8x128xf32>, %red: tensor<?x2xi32>,
                     %out: tensor<?x8x128xbf16>, %lse: tensor<?x4xf32>) {
  // expected-error @+1 {{'lse' must have shape [B*Q, Hq] = [?, 8], got 'tensor<?x4xf32>'}}
  %o, %l = pa.reduce exp_sums(%es : tensor<1x?x8xf32>)
      max_logits(%ml : tensor<1x?x8xf32>) tmp_out(%part : tensor<1x?x8x128xf32>)
      reduce_info(%red : tensor<?x2xi32>) output(%out : tensor<?x8x128xbf16>)
      lse(%lse : tensor<?x4xf32>) -> tensor<?x8x128xbf16>, tensor<?x4xf32>
  return
}

// -----

// An lse buffer beside tensors is a mixed form.
func.func @lse_memref(%es: tensor<1x?x8xf32>, %ml: tensor<1x?x8xf32>,
                      %part: tensor<1x?x8x128xf32>, %red: tensor<?x2xi32>,
                      %out: tensor<?x8x128xbf16>, %lse: memref<?x8xf32>) {
  // expected-error @+1 {{takes tensors (before bufferization) or memrefs, not both: got 'tensor<1x?x8xf32>' and 'memref<?x8xf32>'}}
  %o = pa.reduce exp_sums(%es : tensor<1x?x8xf32>)
      max_logits(%ml : tensor<1x?x8xf32>) tmp_out(%part : tensor<1x?x8x128xf32>)
      reduce_info(%red : tensor<?x2xi32>) output(%out : tensor<?x8x128xbf16>)
      lse(%lse : memref<?x8xf32>) -> tensor<?x8x128xbf16>
  return
}

// -----

// The ALiBi rules hold on tensors: f32 [Hq].
func.func @alibi_shape(
    %q: tensor<?x8x128xbf16>, %k: tensor<?x1x16x16x8xbf16>,
    %v: tensor<?x1x128x16xbf16>, %bt: tensor<?x?xi32>, %lens: tensor<?xi32>,
    %slopes: tensor<4xf32>, %work: tensor<?x4xi32>, %es: tensor<1x?x8xf32>,
    %ml: tensor<1x?x8xf32>, %part: tensor<1x?x8x128xf32>) {
  // expected-error @+1 {{'alibi_slopes' must have shape [Hq] = [8], got 'tensor<4xf32>'}}
  %e, %m, %p = pa.decode query(%q : tensor<?x8x128xbf16>)
      key_cache(%k : tensor<?x1x16x16x8xbf16>)
      value_cache(%v : tensor<?x1x128x16xbf16>)
      block_tables(%bt : tensor<?x?xi32>)
      context_lengths(%lens : tensor<?xi32>)
      alibi_slopes(%slopes : tensor<4xf32>)
      work_info(%work : tensor<?x4xi32>)
      exp_sums(%es : tensor<1x?x8xf32>)
      max_logits(%ml : tensor<1x?x8xf32>)
      tmp_out(%part : tensor<1x?x8x128xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 8, v_layout = plain>}
      -> tensor<1x?x8xf32>, tensor<1x?x8xf32>, tensor<1x?x8x128xf32>
  return
}

// -----

// Operands are ranked tensors without an encoding (bufferized to row-major
// memrefs) or memrefs.
func.func @unranked(%lens: tensor<*xi32>, %work: tensor<?x4xi32>,
                    %red: tensor<?x2xi32>) {
  // expected-error @+1 {{operand #0 must be 1-D context lengths [B] of i32 (a ranked tensor without an encoding, or a row-major memref in the default memory space), but got 'tensor<*xi32>'}}
  %w, %r = pa.plan context_lengths(%lens : tensor<*xi32>)
      work_info(%work : tensor<?x4xi32>) reduce_info(%red : tensor<?x2xi32>)
      {num_kv_heads = 1 : i64} -> tensor<?x4xi32>, tensor<?x2xi32>
  return
}

// -----

func.func @encoding(%lens: tensor<?xi32, "sparse">, %work: tensor<?x4xi32>,
                    %red: tensor<?x2xi32>) {
  // expected-error @+1 {{operand #0 must be 1-D context lengths [B] of i32 (a ranked tensor without an encoding, or a row-major memref in the default memory space), but got 'tensor<?xi32, "sparse">'}}
  %w, %r = pa.plan context_lengths(%lens : tensor<?xi32, "sparse">)
      work_info(%work : tensor<?x4xi32>) reduce_info(%red : tensor<?x2xi32>)
      {num_kv_heads = 1 : i64} -> tensor<?x4xi32>, tensor<?x2xi32>
  return
}
