// RUN: pa-opt %s -split-input-file | FileCheck %s
// RUN: pa-opt %s -split-input-file -mlir-print-op-generic | pa-opt -split-input-file | FileCheck %s

// The full feature set: per-token scales, transposed V, window, sinks, MTP.
// CHECK-LABEL: func.func @full
// CHECK:       pa.plan context_lengths(%{{.*}} : memref<?xi32>) work_info(%{{.*}} : memref<?x4xi32>) reduce_info(%{{.*}} : memref<?x2xi32>)
// CHECK-SAME:    budget = 512 : i64, max_partitions = 256 : i64, num_kv_heads = 2 : i64, query_length = 2 : i64, sliding_window = 257 : i64
// CHECK:       pa.decode query(%{{.*}} : memref<?x16x256xbf16>) key_cache(%{{.*}} : memref<?x2x16x16x16xf8E4M3FN>) value_cache(%{{.*}} : memref<?x2x1x256x16xf8E4M3FN>)
// CHECK-SAME:    k_scale(%{{.*}} : memref<?x2x16xf32>) v_scale(%{{.*}} : memref<?x2x16xf32>)
// CHECK-SAME:    kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = transposed>
// CHECK-SAME:    scale = #pa.scale<per_token>
// CHECK-SAME:    sliding_window = 257 : i64
// CHECK-SAME:    softmax_scale = 6.250000e-02 : f64
// CHECK:       pa.reduce {{.*}} sinks(%{{.*}} : memref<16xf32>) output(%{{.*}} : memref<?x16x256xbf16>)
func.func @full(%q: memref<?x16x256xbf16>, %k: memref<?x2x16x16x16xf8E4M3FN>,
                %v: memref<?x2x1x256x16xf8E4M3FN>, %bt: memref<?x?xi32>,
                %lens: memref<?xi32>, %ks: memref<?x2x16xf32>,
                %vs: memref<?x2x16xf32>, %sinks: memref<16xf32>,
                %work: memref<?x4xi32>, %red: memref<?x2xi32>,
                %es: memref<2x?x16xf32>, %ml: memref<2x?x16xf32>,
                %part: memref<2x?x16x256xf32>, %out: memref<?x16x256xbf16>) {
  pa.plan context_lengths(%lens : memref<?xi32>) work_info(%work : memref<?x4xi32>)
          reduce_info(%red : memref<?x2xi32>)
          {num_kv_heads = 2 : i64, query_length = 2 : i64, sliding_window = 257 : i64,
           budget = 512 : i64, max_partitions = 256 : i64}
  pa.decode query(%q : memref<?x16x256xbf16>) key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
            value_cache(%v : memref<?x2x1x256x16xf8E4M3FN>) block_tables(%bt : memref<?x?xi32>)
            context_lengths(%lens : memref<?xi32>)
            k_scale(%ks : memref<?x2x16xf32>) v_scale(%vs : memref<?x2x16xf32>)
            work_info(%work : memref<?x4xi32>) exp_sums(%es : memref<2x?x16xf32>)
            max_logits(%ml : memref<2x?x16xf32>) tmp_out(%part : memref<2x?x16x256xf32>)
            {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = transposed>,
             scale = #pa.scale<per_token>, sliding_window = 257 : i64, softmax_scale = 0.0625 : f64}
  pa.reduce exp_sums(%es : memref<2x?x16xf32>) max_logits(%ml : memref<2x?x16xf32>)
            tmp_out(%part : memref<2x?x16x256xf32>) reduce_info(%red : memref<?x2xi32>)
            sinks(%sinks : memref<16xf32>) output(%out : memref<?x16x256xbf16>)
  return
}

// -----

// The minimal form: bf16 KV, no scales, plain V, defaults for every attribute.
// CHECK-LABEL: func.func @minimal
// CHECK:       pa.plan {{.*}} {num_kv_heads = 1 : i64}
// CHECK:       pa.decode
// CHECK-NOT:     k_scale
// CHECK-SAME:    {kv_layout = #pa.kv_layout<page_size = 64, k_pack = 8>}
// CHECK:       pa.reduce
// CHECK-NOT:     sinks
// CHECK-SAME:    output(%{{.*}} : memref<?x4x64xf16>)
func.func @minimal(%q: memref<?x4x64xf16>, %k: memref<?x1x8x64x8xbf16>,
                   %v: memref<?x1x64x64xbf16>, %bt: memref<?x?xi32>,
                   %lens: memref<?xi32>, %work: memref<?x4xi32>, %red: memref<?x2xi32>,
                   %es: memref<1x?x4xf32>, %ml: memref<1x?x4xf32>,
                   %part: memref<1x?x4x64xf32>, %out: memref<?x4x64xf16>) {
  pa.plan context_lengths(%lens : memref<?xi32>) work_info(%work : memref<?x4xi32>)
          reduce_info(%red : memref<?x2xi32>) {num_kv_heads = 1 : i64}
  pa.decode query(%q : memref<?x4x64xf16>) key_cache(%k : memref<?x1x8x64x8xbf16>)
            value_cache(%v : memref<?x1x64x64xbf16>) block_tables(%bt : memref<?x?xi32>)
            context_lengths(%lens : memref<?xi32>) work_info(%work : memref<?x4xi32>)
            exp_sums(%es : memref<1x?x4xf32>) max_logits(%ml : memref<1x?x4xf32>)
            tmp_out(%part : memref<1x?x4x64xf32>)
            {kv_layout = #pa.kv_layout<page_size = 64, k_pack = 8, v_layout = plain>}
  pa.reduce exp_sums(%es : memref<1x?x4xf32>) max_logits(%ml : memref<1x?x4xf32>)
            tmp_out(%part : memref<1x?x4x64xf32>) reduce_info(%red : memref<?x2xi32>)
            output(%out : memref<?x4x64xf16>)
  return
}

// -----

// gfx942's fp8 flavour, per-tensor scales, page 128, D 512, static shapes,
// bf16 compute over fp8 KV, window -1 (none), MTP 8 at GQA 4.
// CHECK-LABEL: func.func @fnuz_static
// CHECK:       pa.decode {{.*}}key_cache(%{{.*}} : memref<100x1x32x128x16xf8E4M3FNUZ>)
// CHECK-SAME:    k_scale(%{{.*}} : memref<1xf32>) v_scale(%{{.*}} : memref<1xf32>)
// CHECK-SAME:    compute = #pa.compute<bf16>
// CHECK-SAME:    scale = #pa.scale<per_tensor>
// CHECK-SAME:    sliding_window = -1 : i64
func.func @fnuz_static(%q: memref<16x4x512xbf16>, %k: memref<100x1x32x128x16xf8E4M3FNUZ>,
                       %v: memref<100x1x512x128xf8E4M3FNUZ>, %bt: memref<2x9xi32>,
                       %lens: memref<2xi32>, %ks: memref<1xf32>, %vs: memref<1xf32>,
                       %work: memref<8x4xi32>, %es: memref<1x8x32xf32>,
                       %ml: memref<1x8x32xf32>, %part: memref<1x8x32x512xf32>) {
  pa.decode query(%q : memref<16x4x512xbf16>) key_cache(%k : memref<100x1x32x128x16xf8E4M3FNUZ>)
            value_cache(%v : memref<100x1x512x128xf8E4M3FNUZ>) block_tables(%bt : memref<2x9xi32>)
            context_lengths(%lens : memref<2xi32>)
            k_scale(%ks : memref<1xf32>) v_scale(%vs : memref<1xf32>)
            work_info(%work : memref<8x4xi32>) exp_sums(%es : memref<1x8x32xf32>)
            max_logits(%ml : memref<1x8x32xf32>) tmp_out(%part : memref<1x8x32x512xf32>)
            {kv_layout = #pa.kv_layout<page_size = 128, k_pack = 16, v_layout = plain>,
             scale = #pa.scale<per_tensor>, sliding_window = -1 : i64, compute = #pa.compute<bf16>}
  return
}

// -----

// The tile ops of the tiled IR round-trip, with and without scale operands.
// CHECK-LABEL: gpu.func @tile_ops
// CHECK: pa.tile.page_ids %{{.*}}[%{{.*}}] tile %{{.*}} visible[%{{.*}}, %{{.*}}] {direct, page_size = 16 : i64} : memref<?x?xi32> -> vector<16xi32>
// CHECK: pa.tile.load_query
// CHECK: pa.tile.init_softmax
// CHECK: pa.tile.qk {{.*}} into %{{.*}} {compute = #pa.compute<fp8>
// CHECK: pa.tile.qk {{.*}} k_scale(%{{.*}} : memref<1xf32>) into
// CHECK: pa.tile.softmax
// CHECK: pa.tile.pv {{.*}} into %{{.*}} {compute = #pa.compute<fp8>
// CHECK: pa.tile.pv {{.*}} v_scale(%{{.*}} : memref<?x2x16xf32>) into
// CHECK: pa.tile.store_partials
!tile = memref<16x256xf32, #gpu.address_space<workgroup>>
!rows = memref<16xf32, #gpu.address_space<workgroup>>
gpu.module @pa_kernels {
  gpu.func @tile_ops(%query: memref<?x16x256xbf16>, %k: memref<?x2x16x16x16xf8E4M3FN>,
                     %v: memref<?x2x256x16xf8E4M3FN>, %bt: memref<?x?xi32>,
                     %ks: memref<1xf32>, %vs: memref<?x2x16xf32>,
                     %es: memref<2x?x16xf32>, %ml: memref<2x?x16xf32>,
                     %part: memref<2x?x16x256xf32>, %i: index, %t: i64, %ctx: i64)
      workgroup(%q: !tile, %s: !tile, %acc: !tile, %mx: !rows, %sm: !rows) kernel {
    %ids = pa.tile.page_ids %bt[%i] tile %i visible [%t, %ctx] {page_size = 16 : i64, direct}
        : memref<?x?xi32> -> vector<16xi32>
    pa.tile.load_query %query[%i, %i, %i] into %q {query_length = 2 : i64, group_size = 8 : i64}
        : memref<?x16x256xbf16>, !tile
    pa.tile.init_softmax %mx, %sm, %acc : !rows, !rows, !tile
    pa.tile.qk %q, %k[%ids, %i] tile_start %t valid [%t, %ctx] into %s
        {page_size = 16 : i64, score_scale = 0.09 : f32, scale = #pa.scale<none>,
         compute = #pa.compute<fp8>} : !tile, memref<?x2x16x16x16xf8E4M3FN>, vector<16xi32>, !tile
    pa.tile.qk %q, %k[%ids, %i] tile_start %t valid [%t, %ctx] k_scale(%ks : memref<1xf32>) into %s
        {page_size = 16 : i64, score_scale = 0.09 : f32, scale = #pa.scale<per_tensor>,
         compute = #pa.compute<fp8>} : !tile, memref<?x2x16x16x16xf8E4M3FN>, vector<16xi32>, !tile
    pa.tile.softmax %s, %mx, %sm, %acc context %ctx tile_start %t row_base %i
        {query_length = 2 : i64, group_size = 8 : i64, sliding_window = 17 : i64}
        : !tile, !rows, !rows, !tile
    pa.tile.pv %s, %v[%ids, %i] tile_start %t valid [%t, %ctx] into %acc
        {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
         compute = #pa.compute<fp8>} : !tile, memref<?x2x256x16xf8E4M3FN>, vector<16xi32>, !tile
    pa.tile.pv %s, %v[%ids, %i] tile_start %t valid [%t, %ctx] v_scale(%vs : memref<?x2x16xf32>) into %acc
        {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<per_token>,
         compute = #pa.compute<fp8>} : !tile, memref<?x2x256x16xf8E4M3FN>, vector<16xi32>, !tile
    pa.tile.store_partials %mx, %sm, %acc into %es, %ml, %part[%i, %i, %i] {rows = 16 : i64}
        : !rows, !rows, !tile, memref<2x?x16xf32>, memref<2x?x16xf32>, memref<2x?x16x256xf32>
    gpu.return
  }
}

// -----

// A query that is a view of a fused qkv tensor: rows 3 * 4 * 64 elements
// apart at run time (strided<[?, 64, 1]>), read at the memref's strides.
// CHECK-LABEL: func.func @strided_query
// CHECK:       pa.decode query(%{{.*}} : memref<?x4x64xf16, strided<[?, 64, 1]>>)
func.func @strided_query(%q: memref<?x4x64xf16, strided<[?, 64, 1]>>,
                         %k: memref<?x1x8x64x8xbf16>,
                         %v: memref<?x1x64x64xbf16>, %bt: memref<?x?xi32>,
                         %lens: memref<?xi32>, %work: memref<?x4xi32>,
                         %es: memref<1x?x4xf32>, %ml: memref<1x?x4xf32>,
                         %part: memref<1x?x4x64xf32>) {
  pa.decode query(%q : memref<?x4x64xf16, strided<[?, 64, 1]>>)
            key_cache(%k : memref<?x1x8x64x8xbf16>)
            value_cache(%v : memref<?x1x64x64xbf16>) block_tables(%bt : memref<?x?xi32>)
            context_lengths(%lens : memref<?xi32>) work_info(%work : memref<?x4xi32>)
            exp_sums(%es : memref<1x?x4xf32>) max_logits(%ml : memref<1x?x4xf32>)
            tmp_out(%part : memref<1x?x4x64xf32>)
            {kv_layout = #pa.kv_layout<page_size = 64, k_pack = 8, v_layout = plain>}
  return
}

// -----

// A NaN or infinite softmax_scale verifies: it is a non-finite input that
// makes every row with a visible token NaN (docs/semantics.md).
// CHECK-LABEL: func.func @softmax_scale_non_finite
// CHECK:       softmax_scale = 0x7FF0000000000000 : f64
// CHECK:       softmax_scale = 0x7FF8000000000000 : f64
func.func @softmax_scale_non_finite(
    %q: memref<?x16x256xbf16>, %k: memref<?x2x16x16x16xf8E4M3FN>,
    %v: memref<?x2x256x16xf8E4M3FN>, %bt: memref<?x?xi32>,
    %lens: memref<?xi32>, %work: memref<?x4xi32>, %es: memref<2x?x8xf32>,
    %ml: memref<2x?x8xf32>, %part: memref<2x?x8x256xf32>) {
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>) context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>) exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>) tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>, softmax_scale = 0x7FF0000000000000 : f64}
  pa.decode query(%q : memref<?x16x256xbf16>)
      key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
      value_cache(%v : memref<?x2x256x16xf8E4M3FN>)
      block_tables(%bt : memref<?x?xi32>) context_lengths(%lens : memref<?xi32>)
      work_info(%work : memref<?x4xi32>) exp_sums(%es : memref<2x?x8xf32>)
      max_logits(%ml : memref<2x?x8xf32>) tmp_out(%part : memref<2x?x8x256xf32>)
      {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>, softmax_scale = 0x7FF8000000000000 : f64}
  return
}

// -----

// nhd K and V as strided views of one combined [N, 2, P, Hkv, D] cache
// (outer strides dynamic, head-dim axis contiguous), page size 1.
// CHECK-LABEL: func.func @nhd_combined_views
// CHECK:       pa.decode
// CHECK-SAME:    key_cache(%{{[a-z0-9]+}} : memref<?x1x2x128xbf16, strided<[?, 256, 128, 1], offset: ?>>)
// CHECK-SAME:    value_cache(%{{.*}} : memref<?x1x2x128xbf16, strided<[?, 256, 128, 1], offset: ?>>)
// CHECK-SAME:    kv_layout = #pa.kv_layout<page_size = 1, layout = nhd>
func.func @nhd_combined_views(
    %q: memref<?x8x128xbf16>,
    %k: memref<?x1x2x128xbf16, strided<[?, 256, 128, 1], offset: ?>>,
    %v: memref<?x1x2x128xbf16, strided<[?, 256, 128, 1], offset: ?>>,
    %bt: memref<?x?xi32>, %lens: memref<?xi32>, %work: memref<?x4xi32>,
    %es: memref<2x?x4xf32>, %ml: memref<2x?x4xf32>, %part: memref<2x?x4x128xf32>) {
  pa.decode query(%q : memref<?x8x128xbf16>)
            key_cache(%k : memref<?x1x2x128xbf16, strided<[?, 256, 128, 1], offset: ?>>)
            value_cache(%v : memref<?x1x2x128xbf16, strided<[?, 256, 128, 1], offset: ?>>)
            block_tables(%bt : memref<?x?xi32>) context_lengths(%lens : memref<?xi32>)
            work_info(%work : memref<?x4xi32>) exp_sums(%es : memref<2x?x4xf32>)
            max_logits(%ml : memref<2x?x4xf32>) tmp_out(%part : memref<2x?x4x128xf32>)
            {kv_layout = #pa.kv_layout<page_size = 1, layout = nhd>}
  return
}

// -----

// hnd with page size 1024 and per-token scales [N, Hkv, P].
// CHECK-LABEL: func.func @hnd_page_1024
// CHECK:       pa.decode
// CHECK-SAME:    key_cache(%{{[a-z0-9]+}} : memref<?x2x1024x64xf8E4M3FN>)
// CHECK-SAME:    k_scale(%{{.*}} : memref<?x2x1024xf32>)
// CHECK-SAME:    kv_layout = #pa.kv_layout<page_size = 1024, layout = hnd>
func.func @hnd_page_1024(
    %q: memref<?x8x64xbf16>, %k: memref<?x2x1024x64xf8E4M3FN>,
    %v: memref<?x2x1024x64xf8E4M3FN>, %bt: memref<?x?xi32>, %lens: memref<?xi32>,
    %ks: memref<?x2x1024xf32>, %vs: memref<?x2x1024xf32>, %work: memref<?x4xi32>,
    %es: memref<2x?x4xf32>, %ml: memref<2x?x4xf32>, %part: memref<2x?x4x64xf32>) {
  pa.decode query(%q : memref<?x8x64xbf16>)
            key_cache(%k : memref<?x2x1024x64xf8E4M3FN>)
            value_cache(%v : memref<?x2x1024x64xf8E4M3FN>)
            block_tables(%bt : memref<?x?xi32>) context_lengths(%lens : memref<?xi32>)
            k_scale(%ks : memref<?x2x1024xf32>) v_scale(%vs : memref<?x2x1024xf32>)
            work_info(%work : memref<?x4xi32>) exp_sums(%es : memref<2x?x4xf32>)
            max_logits(%ml : memref<2x?x4xf32>) tmp_out(%part : memref<2x?x4x64xf32>)
            {kv_layout = #pa.kv_layout<layout = hnd, page_size = 1024>,
             scale = #pa.scale<per_token>}
  return
}

// -----

// ALiBi slopes on pa.decode and the tiled IR's pa.tile.alibi.
// CHECK-LABEL: func.func @alibi
// CHECK:       pa.decode
// CHECK-SAME:    context_lengths(%{{.*}} : memref<?xi32>) alibi_slopes(%{{.*}} : memref<8xf32>) work_info(
// CHECK:       pa.tile.alibi %{{.*}}, %{{.*}}[%{{.*}}] context %{{.*}} tile_start %{{.*}} row_base %{{.*}} {group_size = 8 : i64, query_length = 1 : i64} : memref<8x256xf32, 3>, memref<8xf32>
func.func @alibi(%q: memref<?x8x64xbf16>, %k: memref<?x1x8x64x8xbf16>,
                 %v: memref<?x1x64x64xbf16>, %bt: memref<?x?xi32>,
                 %lens: memref<?xi32>, %slopes: memref<8xf32>,
                 %work: memref<?x4xi32>, %es: memref<1x?x8xf32>,
                 %ml: memref<1x?x8xf32>, %part: memref<1x?x8x64xf32>,
                 %scores: memref<8x256xf32, 3>, %h: index, %ctx: i64,
                 %t0: i64, %r0: index) {
  pa.decode query(%q : memref<?x8x64xbf16>) key_cache(%k : memref<?x1x8x64x8xbf16>)
            value_cache(%v : memref<?x1x64x64xbf16>) block_tables(%bt : memref<?x?xi32>)
            context_lengths(%lens : memref<?xi32>) alibi_slopes(%slopes : memref<8xf32>)
            work_info(%work : memref<?x4xi32>) exp_sums(%es : memref<1x?x8xf32>)
            max_logits(%ml : memref<1x?x8xf32>) tmp_out(%part : memref<1x?x8x64xf32>)
            {kv_layout = #pa.kv_layout<page_size = 64, k_pack = 8>}
  pa.tile.alibi %scores, %slopes[%h] context %ctx tile_start %t0 row_base %r0
      {query_length = 1 : i64, group_size = 8 : i64}
      : memref<8x256xf32, 3>, memref<8xf32>
  return
}

// -----

// The chip the module is compiled for (#pa.target).
// CHECK: module attributes {pa.target = #pa.target<"sm_90a">}
module attributes {pa.target = #pa.target<"sm_90a">} {
}

// -----

// The hnd example of the pa.decode description: D = 96, fp8 KV with
// per-tensor scales, page size 1024.
// CHECK-LABEL: func.func @hnd_d96_per_tensor
// CHECK:       pa.decode
// CHECK-SAME:    key_cache(%{{[a-z0-9]+}} : memref<?x2x1024x96xf8E4M3FN>)
// CHECK-SAME:    k_scale(%{{.*}} : memref<1xf32>)
// CHECK-SAME:    kv_layout = #pa.kv_layout<page_size = 1024, layout = hnd>
// CHECK-SAME:    scale = #pa.scale<per_tensor>
func.func @hnd_d96_per_tensor(
    %q: memref<?x8x96xbf16>, %k: memref<?x2x1024x96xf8E4M3FN>,
    %v: memref<?x2x1024x96xf8E4M3FN>, %bt: memref<?x?xi32>, %lens: memref<?xi32>,
    %ks: memref<1xf32>, %vs: memref<1xf32>, %work: memref<?x4xi32>,
    %es: memref<2x?x4xf32>, %ml: memref<2x?x4xf32>, %out: memref<2x?x4x96xf32>) {
  pa.decode query(%q : memref<?x8x96xbf16>)
            key_cache(%k : memref<?x2x1024x96xf8E4M3FN>)
            value_cache(%v : memref<?x2x1024x96xf8E4M3FN>)
            block_tables(%bt : memref<?x?xi32>)
            context_lengths(%lens : memref<?xi32>)
            k_scale(%ks : memref<1xf32>)
            v_scale(%vs : memref<1xf32>)
            work_info(%work : memref<?x4xi32>)
            exp_sums(%es : memref<2x?x4xf32>)
            max_logits(%ml : memref<2x?x4xf32>)
            tmp_out(%out : memref<2x?x4x96xf32>)
            {kv_layout = #pa.kv_layout<page_size = 1024, layout = hnd>,
             scale = #pa.scale<per_tensor>}
  return
}
