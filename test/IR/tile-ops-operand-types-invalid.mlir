// RUN: pa-opt %s -split-input-file -verify-diagnostics

// The tile ops' global operands have the element types, ranks, memory space
// and layouts of pa.decode's (PaOps.td), in memref form: every lowering
// (pa-lower-tile-to-loops, pa-to-mfma, pa-to-nvvm) reads them as such.

gpu.module @k {
  gpu.func @page_ids_i64_table(%bt: memref<?x?xi64>, %seq: index, %tile: index,
                               %lo: i64, %hi: i64) kernel {
    // expected-error @+1 {{operand #0 must be 2-D block tables [B, max_pages] of i32 (a row-major memref in the default memory space), but got 'memref<?x?xi64>'}}
    %ids = pa.tile.page_ids %bt[%seq] tile %tile visible [%lo, %hi]
             {page_size = 16 : i64} : memref<?x?xi64> -> vector<16xi32>
    gpu.return
  }
}

// -----

// A block table in workgroup memory would be read as global memory.
gpu.module @k {
  gpu.func @page_ids_workgroup_table(%bt: memref<4x8xi32, 3>, %seq: index,
                                     %tile: index, %lo: i64, %hi: i64) kernel {
    // expected-error @+1 {{operand #0 must be 2-D block tables [B, max_pages] of i32 (a row-major memref in the default memory space), but got 'memref<4x8xi32, 3>'}}
    %ids = pa.tile.page_ids %bt[%seq] tile %tile visible [%lo, %hi]
             {page_size = 16 : i64} : memref<4x8xi32, 3> -> vector<16xi32>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @qk_index_cache(%q: memref<16x128xf32, 3>, %k: memref<?x1x16x16x8xindex>,
                           %ids: vector<16xi32>, %h: index, %t: i64,
                           %s: memref<16x256xf32, 3>) kernel {
    // expected-error @+1 {{operand #1 must be 4-D (nhd, hnd) or 5-D (packed) KV cache of f8E4M3FN, f8E4M3FNUZ or bf16 (a row-major or strided (unit innermost stride) memref in the default memory space), but got 'memref<?x1x16x16x8xindex>'}}
    pa.tile.qk %q, %k[%ids, %h] tile_start %t valid [%t, %t] into %s
        {page_size = 16 : i64, score_scale = 0.1 : f32, scale = #pa.scale<none>,
         compute = #pa.compute<bf16>}
        : memref<16x128xf32, 3>, memref<?x1x16x16x8xindex>, vector<16xi32>, memref<16x256xf32, 3>
    gpu.return
  }
}

// -----

// A head-dim axis that is not contiguous (a combined cache viewed with the
// wrong axis innermost).
gpu.module @k {
  gpu.func @qk_strided_head_dim(%q: memref<16x256xf32, 3>,
                                %k: memref<?x16x2x256xf8E4M3FN, strided<[?, 1024, 512, 2]>>,
                                %ids: vector<16xi32>, %h: index, %t: i64,
                                %s: memref<16x256xf32, 3>) kernel {
    // expected-error @+1 {{operand #1 must be 4-D (nhd, hnd) or 5-D (packed) KV cache}}
    pa.tile.qk %q, %k[%ids, %h] tile_start %t valid [%t, %t] into %s
        {page_size = 16 : i64, score_scale = 0.1 : f32, scale = #pa.scale<none>,
         compute = #pa.compute<fp8>, cache_layout = #pa.cache_layout<nhd>}
        : memref<16x256xf32, 3>, memref<?x16x2x256xf8E4M3FN, strided<[?, 1024, 512, 2]>>,
          vector<16xi32>, memref<16x256xf32, 3>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @qk_2d_scale(%q: memref<16x64xf32, 3>, %k: memref<?x2x4x16x16xf8E4M3FN>,
                        %ids: vector<16xi32>, %h: index, %t: i64, %ks: memref<2x16xf32>,
                        %s: memref<16x256xf32, 3>) kernel {
    // expected-error @+1 {{operand #7 must be 1-D per-tensor [1] or 3-D per-token [N, Hkv, P] scales of f32 (a row-major memref in the default memory space), but got 'memref<2x16xf32>'}}
    pa.tile.qk %q, %k[%ids, %h] tile_start %t valid [%t, %t] k_scale(%ks : memref<2x16xf32>) into %s
        {page_size = 16 : i64, score_scale = 0.1 : f32, scale = #pa.scale<per_token>,
         compute = #pa.compute<fp8>}
        : memref<16x64xf32, 3>, memref<?x2x4x16x16xf8E4M3FN>, vector<16xi32>, memref<16x256xf32, 3>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @pv_f16_cache(%p: memref<16x256xf32, 3>, %v: memref<?x1x64x16xf16>,
                         %ids: vector<16xi32>, %h: index, %t: i64,
                         %acc: memref<16x64xf32, 3>) kernel {
    // expected-error @+1 {{operand #1 must be 4-D (nhd, hnd) or 5-D (packed) KV cache of f8E4M3FN, f8E4M3FNUZ or bf16}}
    pa.tile.pv %p, %v[%ids, %h] tile_start %t valid [%t, %t] into %acc
        {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
         compute = #pa.compute<bf16>}
        : memref<16x256xf32, 3>, memref<?x1x64x16xf16>, vector<16xi32>, memref<16x64xf32, 3>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @pv_f16_scale(%p: memref<16x256xf32, 3>, %v: memref<?x1x64x16xbf16>,
                         %ids: vector<16xi32>, %h: index, %t: i64, %vs: memref<1xf16>,
                         %acc: memref<16x64xf32, 3>) kernel {
    // expected-error @+1 {{operand #7 must be 1-D per-tensor [1] or 3-D per-token [N, Hkv, P] scales of f32}}
    pa.tile.pv %p, %v[%ids, %h] tile_start %t valid [%t, %t] v_scale(%vs : memref<1xf16>) into %acc
        {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<per_tensor>,
         compute = #pa.compute<bf16>}
        : memref<16x256xf32, 3>, memref<?x1x64x16xbf16>, vector<16xi32>, memref<16x64xf32, 3>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @store_partials_f16_sums(%m: memref<16xf32, 3>, %acc: memref<16x64xf32, 3>,
                                    %es: memref<1x?x8xf16>, %ml: memref<1x?x8xf32>,
                                    %out: memref<1x?x8x64xf32>, %i: index) kernel {
    // expected-error @+1 {{operand #3 must be 3-D partial row statistics [Hkv, capacity, Q*G] of f32 (a row-major memref in the default memory space), but got 'memref<1x?x8xf16>'}}
    pa.tile.store_partials %m, %m, %acc into %es, %ml, %out [%i, %i, %i] {rows = 8 : i64}
        : memref<16xf32, 3>, memref<16xf32, 3>, memref<16x64xf32, 3>,
          memref<1x?x8xf16>, memref<1x?x8xf32>, memref<1x?x8x64xf32>
    gpu.return
  }
}

// -----

// A strided view of the partial outputs: the lowerings index them row-major.
gpu.module @k {
  gpu.func @store_partials_strided_out(%m: memref<16xf32, 3>, %acc: memref<16x64xf32, 3>,
                                       %es: memref<1x?x8xf32>, %ml: memref<1x?x8xf32>,
                                       %out: memref<1x?x8x64xf32, strided<[?, 1024, 128, 1]>>,
                                       %i: index) kernel {
    // expected-error @+1 {{operand #5 must be 4-D partial outputs [Hkv, capacity, Q*G, D] of f32 (a row-major memref in the default memory space), but got 'memref<1x?x8x64xf32, strided<[?, 1024, 128, 1]>>'}}
    pa.tile.store_partials %m, %m, %acc into %es, %ml, %out [%i, %i, %i] {rows = 8 : i64}
        : memref<16xf32, 3>, memref<16xf32, 3>, memref<16x64xf32, 3>,
          memref<1x?x8xf32>, memref<1x?x8xf32>, memref<1x?x8x64xf32, strided<[?, 1024, 128, 1]>>
    gpu.return
  }
}

// -----

// pa.tile.load_query reads pa.decode's query types and f32 (hand-written
// tiled IR), nothing else: an integer query was an error of
// pa-lower-tile-to-loops only, an fp8 one was loaded by it.
gpu.module @k {
  gpu.func @load_query_integer(%query: memref<?x8x64xi16>, %i: index,
                               %q: memref<16x64xf32, 3>) kernel {
    // expected-error @+1 {{operand #0 must be 3-D query [B*Q, Hq, D] of bf16, f16 or f32 (a row-major or strided (unit innermost stride) memref in the default memory space), but got 'memref<?x8x64xi16>'}}
    pa.tile.load_query %query[%i, %i, %i] into %q
        {query_length = 1 : i64, group_size = 8 : i64}
        : memref<?x8x64xi16>, memref<16x64xf32, 3>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @load_query_fp8(%query: memref<?x8x64xf8E4M3FN>, %i: index,
                           %q: memref<16x64xf32, 3>) kernel {
    // expected-error @+1 {{operand #0 must be 3-D query [B*Q, Hq, D] of bf16, f16 or f32 (a row-major or strided (unit innermost stride) memref in the default memory space), but got 'memref<?x8x64xf8E4M3FN>'}}
    pa.tile.load_query %query[%i, %i, %i] into %q
        {query_length = 1 : i64, group_size = 8 : i64}
        : memref<?x8x64xf8E4M3FN>, memref<16x64xf32, 3>
    gpu.return
  }
}

// -----

// A query in workgroup memory would be read as global memory.
gpu.module @k {
  gpu.func @load_query_workgroup(%query: memref<2x8x64xbf16, 3>, %i: index,
                                 %q: memref<16x64xf32, 3>) kernel {
    // expected-error @+1 {{operand #0 must be 3-D query [B*Q, Hq, D] of bf16, f16 or f32 (a row-major or strided (unit innermost stride) memref in the default memory space), but got 'memref<2x8x64xbf16, 3>'}}
    pa.tile.load_query %query[%i, %i, %i] into %q
        {query_length = 1 : i64, group_size = 8 : i64}
        : memref<2x8x64xbf16, 3>, memref<16x64xf32, 3>
    gpu.return
  }
}

// -----

// The head dim must be contiguous (pa-to-mfma loads vectors along it).
gpu.module @k {
  gpu.func @load_query_strided_head_dim(%query: memref<?x8x64xf16, strided<[1024, 128, 2]>>,
                                        %i: index, %q: memref<16x64xf32, 3>) kernel {
    // expected-error @+1 {{operand #0 must be 3-D query [B*Q, Hq, D] of bf16, f16 or f32 (a row-major or strided (unit innermost stride) memref in the default memory space), but got 'memref<?x8x64xf16, strided<[1024, 128, 2]>>'}}
    pa.tile.load_query %query[%i, %i, %i] into %q
        {query_length = 1 : i64, group_size = 8 : i64}
        : memref<?x8x64xf16, strided<[1024, 128, 2]>>, memref<16x64xf32, 3>
    gpu.return
  }
}

// -----

// Accepted: an f32 query, and a strided one with rows apart (pa.decode's
// strided query, after pa-tile).
gpu.module @k {
  gpu.func @load_query_accepted(%f32: memref<?x8x64xf32>,
                                %strided: memref<?x8x64xbf16, strided<[?, 64, 1]>>,
                                %i: index, %q: memref<16x64xf32, 3>) kernel {
    pa.tile.load_query %f32[%i, %i, %i] into %q
        {query_length = 1 : i64, group_size = 8 : i64}
        : memref<?x8x64xf32>, memref<16x64xf32, 3>
    pa.tile.load_query %strided[%i, %i, %i] into %q
        {query_length = 1 : i64, group_size = 8 : i64}
        : memref<?x8x64xbf16, strided<[?, 64, 1]>>, memref<16x64xf32, 3>
    gpu.return
  }
}
