// RUN: pa-opt %s -split-input-file -verify-diagnostics -pa-lower-tile-to-loops

// Operand shapes the op verifiers leave open but the loops index into.

// The spec: a non-packed 4-D K layout is rejected, never miscompiled.
gpu.module @pa_kernels {
  gpu.func @qk_4d_keys(%k: memref<?x2x64x16xf8E4M3FN>, %ids: vector<16xi32>,
                       %h: index, %t0: i64, %lo: i64, %hi: i64, %ks: memref<1xf32>)
      workgroup(%q: memref<16x64xf32, 3>, %s: memref<16x256xf32, 3>) kernel {
    // expected-error @+1 {{'key_cache' must be a 5-D [N, Hkv, D/x, P, x] memref of float elements of at most 32 bits, got 'memref<?x2x64x16xf8E4M3FN>'}}
    pa.tile.qk %q, %k[%ids, %h] tile_start %t0 valid [%lo, %hi] k_scale(%ks : memref<1xf32>) into %s
        {page_size = 16 : i64, score_scale = 0.5 : f32,
         scale = #pa.scale<per_tensor>, compute = #pa.compute<fp8>}
        : memref<16x64xf32, 3>, memref<?x2x64x16xf8E4M3FN>, vector<16xi32>, memref<16x256xf32, 3>
    gpu.return
  }
}

// -----

gpu.module @pa_kernels {
  gpu.func @qk_page_mismatch(%k: memref<?x2x4x64x16xf8E4M3FN>, %ids: vector<16xi32>,
                             %h: index, %t0: i64, %lo: i64, %hi: i64, %ks: memref<1xf32>)
      workgroup(%q: memref<16x64xf32, 3>, %s: memref<16x256xf32, 3>) kernel {
    // expected-error @+1 {{'key_cache' dim 3 (page size) must be 16, got 64}}
    pa.tile.qk %q, %k[%ids, %h] tile_start %t0 valid [%lo, %hi] k_scale(%ks : memref<1xf32>) into %s
        {page_size = 16 : i64, score_scale = 0.5 : f32,
         scale = #pa.scale<per_tensor>, compute = #pa.compute<fp8>}
        : memref<16x64xf32, 3>, memref<?x2x4x64x16xf8E4M3FN>, vector<16xi32>, memref<16x256xf32, 3>
    gpu.return
  }
}

// -----

gpu.module @pa_kernels {
  gpu.func @qk_head_dim_mismatch(%k: memref<?x2x8x16x16xf8E4M3FN>, %ids: vector<16xi32>,
                                 %h: index, %t0: i64, %lo: i64, %hi: i64, %ks: memref<1xf32>)
      workgroup(%q: memref<16x64xf32, 3>, %s: memref<16x256xf32, 3>) kernel {
    // expected-error @+1 {{'key_cache' dim 2 (D/x) must be 4, got 8}}
    pa.tile.qk %q, %k[%ids, %h] tile_start %t0 valid [%lo, %hi] k_scale(%ks : memref<1xf32>) into %s
        {page_size = 16 : i64, score_scale = 0.5 : f32,
         scale = #pa.scale<per_tensor>, compute = #pa.compute<fp8>}
        : memref<16x64xf32, 3>, memref<?x2x8x16x16xf8E4M3FN>, vector<16xi32>, memref<16x256xf32, 3>
    gpu.return
  }
}

// -----

gpu.module @pa_kernels {
  gpu.func @qk_pack_not_dividing(%k: memref<?x2x?x16x24xbf16>, %ids: vector<16xi32>,
                                 %h: index, %t0: i64, %lo: i64, %hi: i64, %ks: memref<1xf32>)
      workgroup(%q: memref<16x64xf32, 3>, %s: memref<16x256xf32, 3>) kernel {
    // expected-error @+1 {{head dim 64 is not a multiple of the key packing width 24}}
    pa.tile.qk %q, %k[%ids, %h] tile_start %t0 valid [%lo, %hi] k_scale(%ks : memref<1xf32>) into %s
        {page_size = 16 : i64, score_scale = 0.5 : f32,
         scale = #pa.scale<per_tensor>, compute = #pa.compute<bf16>}
        : memref<16x64xf32, 3>, memref<?x2x?x16x24xbf16>, vector<16xi32>, memref<16x256xf32, 3>
    gpu.return
  }
}

// -----

gpu.module @pa_kernels {
  gpu.func @qk_dynamic_pack(%k: memref<?x2x4x16x?xbf16>, %ids: vector<16xi32>,
                            %h: index, %t0: i64, %lo: i64, %hi: i64, %ks: memref<1xf32>)
      workgroup(%q: memref<16x64xf32, 3>, %s: memref<16x256xf32, 3>) kernel {
    // expected-error @+1 {{'key_cache' needs a static packing width (last dim), got 'memref<?x2x4x16x?xbf16>'}}
    pa.tile.qk %q, %k[%ids, %h] tile_start %t0 valid [%lo, %hi] k_scale(%ks : memref<1xf32>) into %s
        {page_size = 16 : i64, score_scale = 0.5 : f32,
         scale = #pa.scale<per_tensor>, compute = #pa.compute<bf16>}
        : memref<16x64xf32, 3>, memref<?x2x4x16x?xbf16>, vector<16xi32>, memref<16x256xf32, 3>
    gpu.return
  }
}

// -----

gpu.module @pa_kernels {
  gpu.func @qk_per_token_scale_rank(%k: memref<?x2x4x16x16xf8E4M3FN>, %ids: vector<16xi32>,
                                    %h: index, %t0: i64, %lo: i64, %hi: i64, %ks: memref<1xf32>)
      workgroup(%q: memref<16x64xf32, 3>, %s: memref<16x256xf32, 3>) kernel {
    // expected-error @+1 {{'k_scale' must be a 3-D [N, Hkv, P] memref of float elements of at most 32 bits, got 'memref<1xf32>'}}
    pa.tile.qk %q, %k[%ids, %h] tile_start %t0 valid [%lo, %hi] k_scale(%ks : memref<1xf32>) into %s
        {page_size = 16 : i64, score_scale = 0.5 : f32,
         scale = #pa.scale<per_token>, compute = #pa.compute<fp8>}
        : memref<16x64xf32, 3>, memref<?x2x4x16x16xf8E4M3FN>, vector<16xi32>, memref<16x256xf32, 3>
    gpu.return
  }
}

// -----

gpu.module @pa_kernels {
  gpu.func @pv_plain_rank(%v: memref<?x2x1x64x16xbf16>, %ids: vector<16xi32>,
                          %h: index, %t0: i64, %lo: i64, %hi: i64, %vs: memref<1xf32>)
      workgroup(%p: memref<16x256xf32, 3>, %acc: memref<16x64xf32, 3>) kernel {
    // expected-error @+1 {{'value_cache' must be a 4-D plain [N, Hkv, D, P] memref of float elements of at most 32 bits, got 'memref<?x2x1x64x16xbf16>'}}
    pa.tile.pv %p, %v[%ids, %h] tile_start %t0 valid [%lo, %hi] v_scale(%vs : memref<1xf32>) into %acc
        {page_size = 16 : i64, v_layout = #pa.v_layout<plain>,
         scale = #pa.scale<per_tensor>, compute = #pa.compute<bf16>}
        : memref<16x256xf32, 3>, memref<?x2x1x64x16xbf16>, vector<16xi32>, memref<16x64xf32, 3>
    gpu.return
  }
}

// -----

gpu.module @pa_kernels {
  gpu.func @pv_transposed_pack_too_wide(%v: memref<?x2x1x64x32xbf16>, %ids: vector<16xi32>,
                                        %h: index, %t0: i64, %lo: i64, %hi: i64, %vs: memref<1xf32>)
      workgroup(%p: memref<16x256xf32, 3>, %acc: memref<16x64xf32, 3>) kernel {
    // expected-error @+1 {{page size 16 is not a multiple of the value packing width 32}}
    pa.tile.pv %p, %v[%ids, %h] tile_start %t0 valid [%lo, %hi] v_scale(%vs : memref<1xf32>) into %acc
        {page_size = 16 : i64, v_layout = #pa.v_layout<transposed>,
         scale = #pa.scale<per_tensor>, compute = #pa.compute<bf16>}
        : memref<16x256xf32, 3>, memref<?x2x1x64x32xbf16>, vector<16xi32>, memref<16x64xf32, 3>
    gpu.return
  }
}

// -----

gpu.module @pa_kernels {
  gpu.func @pv_transposed_head_dim(%v: memref<?x2x2x128x8xbf16>, %ids: vector<16xi32>,
                                   %h: index, %t0: i64, %lo: i64, %hi: i64, %vs: memref<1xf32>)
      workgroup(%p: memref<16x256xf32, 3>, %acc: memref<16x64xf32, 3>) kernel {
    // expected-error @+1 {{'value_cache' dim 3 (head dim) must be 64, got 128}}
    pa.tile.pv %p, %v[%ids, %h] tile_start %t0 valid [%lo, %hi] v_scale(%vs : memref<1xf32>) into %acc
        {page_size = 16 : i64, v_layout = #pa.v_layout<transposed>,
         scale = #pa.scale<per_tensor>, compute = #pa.compute<bf16>}
        : memref<16x256xf32, 3>, memref<?x2x2x128x8xbf16>, vector<16xi32>, memref<16x64xf32, 3>
    gpu.return
  }
}

// -----

gpu.module @pa_kernels {
  gpu.func @store_head_dim(%es: memref<2x?x8xf32>, %ml: memref<2x?x8xf32>,
                           %out: memref<2x?x8x128xf32>, %h: index, %slot: index,
                           %r0: index)
      workgroup(%max: memref<16xf32, 3>, %sum: memref<16xf32, 3>,
                %acc: memref<16x64xf32, 3>) kernel {
    // expected-error @+1 {{'tmp_out' dim 3 (head dim) must be 64, got 128}}
    pa.tile.store_partials %max, %sum, %acc into %es, %ml, %out [%h, %slot, %r0]
        {rows = 8 : i64}
        : memref<16xf32, 3>, memref<16xf32, 3>, memref<16x64xf32, 3>,
          memref<2x?x8xf32>, memref<2x?x8xf32>, memref<2x?x8x128xf32>
    gpu.return
  }
}
