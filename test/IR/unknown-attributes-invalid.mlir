// RUN: pa-opt %s -split-input-file -verify-diagnostics

// An attribute a pa op does not define is an error naming the attributes it
// does define (the ODS list, so the message follows the op): a misspelt
// `logits_soft_cap` must not compile to the same code as without it.

func.func @decode_misspelt_soft_cap(
    %q: memref<?x16x256xbf16>,
    %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>,
    %bt: memref<?x?xi32>,
    %lens: memref<?xi32>,
    %work: memref<?x4xi32>,
    %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>) {
  // expected-error @+1 {{'pa.decode' op has no attribute 'logit_softcap'; its attributes are: compute, kv_layout, logits_soft_cap, scale, sliding_window, softmax_scale (other attributes need a dialect prefix, as 'engine.note')}}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>)
      context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>)
      exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>)
      tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>,
       logit_softcap = 30.0 : f64}
  return
}

// -----

func.func @plan_misspelt_window(%lens: memref<?xi32>, %w: memref<?x4xi32>, %r: memref<?x2xi32>) {
  // expected-error @+1 {{'pa.plan' op has no attribute 'slidingwindow'; its attributes are: budget, max_partitions, num_kv_heads, query_length, sliding_window}}
  pa.plan context_lengths(%lens : memref<?xi32>) work_info(%w : memref<?x4xi32>)
          reduce_info(%r : memref<?x2xi32>)
          {num_kv_heads = 1 : i64, slidingwindow = 128 : i64}
  return
}

// -----

func.func @reduce_unknown(%es: memref<2x?x8xf32>, %ml: memref<2x?x8xf32>,
                          %part: memref<2x?x8x256xf32>, %red: memref<?x2xi32>,
                          %out: memref<?x16x256xbf16>) {
  // expected-error @+1 {{'pa.reduce' op has no attribute 'sinks_scale'; its attributes are: (none)}}
  pa.reduce exp_sums(%es : memref<2x?x8xf32>) max_logits(%ml : memref<2x?x8xf32>)
            tmp_out(%part : memref<2x?x8x256xf32>) reduce_info(%red : memref<?x2xi32>)
            output(%out : memref<?x16x256xbf16>) {sinks_scale = 1.0 : f32}
  return
}

// -----

// Attributes with another dialect's prefix (discardable) stay allowed, on
// every pa op; a `pa.` one must be in the table of
// DiscardableAttributes.h (discardable-attributes-invalid.mlir).
func.func @prefixed_attributes_are_kept(
    %lens: memref<?xi32>, %w: memref<?x4xi32>, %r: memref<?x2xi32>,
    %es: memref<2x?x8xf32>, %ml: memref<2x?x8xf32>,
    %part: memref<2x?x8x256xf32>, %out: memref<?x16x256xbf16>) {
  pa.plan context_lengths(%lens : memref<?xi32>) work_info(%w : memref<?x4xi32>)
          reduce_info(%r : memref<?x2xi32>)
          {num_kv_heads = 2 : i64, engine.note = "from the engine", llvm.foo = 1 : i32}
  pa.reduce exp_sums(%es : memref<2x?x8xf32>) max_logits(%ml : memref<2x?x8xf32>)
            tmp_out(%part : memref<2x?x8x256xf32>) reduce_info(%r : memref<?x2xi32>)
            output(%out : memref<?x16x256xbf16>) {engine.note = "kept"}
  return
}

// -----

// A `pa.` name the dialect does not define is refused on a pa op too.
func.func @pa_prefixed_unknown(%lens: memref<?xi32>, %w: memref<?x4xi32>, %r: memref<?x2xi32>) {
  // expected-error @+1 {{unknown attribute 'pa.note': the pa dialect defines pa.target, pa.arg_names, pa.grid, pa.distribution, pa.thread0_reason, pa.nvvm.grid_z, pa.nvvm.grid_z_limit, pa.nvvm.grid_z_otherwise, pa.nvvm.single_partition_output, pa.kernarg_fields, pa.param_fields, pa.shared_bytes, pa.mfma_layout, pa.dynamic_strides, pa.static_layouts, pa.static_sizes, pa.access_alignments, pa.nvvm.programmatic_launch}}
  pa.plan context_lengths(%lens : memref<?xi32>) work_info(%w : memref<?x4xi32>)
          reduce_info(%r : memref<?x2xi32>)
          {num_kv_heads = 2 : i64, pa.note = "from the engine"}
  return
}

// -----

func.func @tile_op_unknown(%bt: memref<?x?xi32>, %seq: index, %tile: index, %lo: i64, %hi: i64) {
  // expected-error @+1 {{'pa.tile.page_ids' op has no attribute 'stride'; its attributes are: direct, page_size}}
  %0 = pa.tile.page_ids %bt[%seq] tile %tile visible [%lo, %hi]
         {page_size = 16 : i64, stride = 2 : i64} : memref<?x?xi32> -> vector<16xi32>
  return
}
