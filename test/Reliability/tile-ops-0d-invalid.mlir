// RUN: pa-opt %s -split-input-file -verify-diagnostics

// Found by inspection while preparing the fuzzer: each tile-op verifier read
// dim 0 of a tile buffer before checking its rank, so a 0-D buffer crashed
// pa-opt (segfault). Each is now the verifier's diagnostic.

gpu.module @k {
  gpu.func @init_softmax(%m: memref<16xf32>, %acc: memref<f32>) kernel {
    // expected-error @+1 {{operand #2 must be static 2-D f32 tile [M, D] or [M, 256], but got 'memref<f32>'}}
    pa.tile.init_softmax %m, %m, %acc : memref<16xf32>, memref<16xf32>, memref<f32>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @qk(%q: memref<16x64xf32>, %k: memref<?x1x4x16x16xf8E4M3FN>,
               %ids: vector<16xi32>, %i: index, %t: i64, %s: memref<f32>) kernel {
    // expected-error @+1 {{operand #7 must be static 2-D f32 tile [M, D] or [M, 256], but got 'memref<f32>'}}
    pa.tile.qk %q, %k[%ids, %i] tile_start %t valid [%t, %t] into %s
        {page_size = 16 : i64, score_scale = 0.1 : f32, scale = #pa.scale<none>,
         compute = #pa.compute<fp8>}
        : memref<16x64xf32>, memref<?x1x4x16x16xf8E4M3FN>, vector<16xi32>, memref<f32>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @softmax(%s: memref<f32>, %m: memref<16xf32>, %acc: memref<16x64xf32>,
                    %i: index, %t: i64) kernel {
    // expected-error @+1 {{operand #0 must be static 2-D f32 tile [M, D] or [M, 256], but got 'memref<f32>'}}
    pa.tile.softmax %s, %m, %m, %acc context %t tile_start %t row_base %i
        {query_length = 1 : i64, group_size = 1 : i64, sliding_window = 0 : i64}
        : memref<f32>, memref<16xf32>, memref<16xf32>, memref<16x64xf32>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @pv(%p: memref<f32>, %v: memref<?x1x64x16xf8E4M3FN>, %ids: vector<16xi32>,
               %i: index, %t: i64, %acc: memref<16x64xf32>) kernel {
    // expected-error @+1 {{operand #0 must be static 2-D f32 tile [M, D] or [M, 256], but got 'memref<f32>'}}
    pa.tile.pv %p, %v[%ids, %i] tile_start %t valid [%t, %t] into %acc
        {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
         compute = #pa.compute<fp8>}
        : memref<f32>, memref<?x1x64x16xf8E4M3FN>, vector<16xi32>, memref<16x64xf32>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @store_partials(%m: memref<16xf32>, %acc: memref<f32>, %es: memref<1x?x1xf32>,
                           %tmp: memref<1x?x1x64xf32>, %i: index) kernel {
    // expected-error @+1 {{operand #2 must be static 2-D f32 tile [M, D] or [M, 256], but got 'memref<f32>'}}
    pa.tile.store_partials %m, %m, %acc into %es, %es, %tmp[%i, %i, %i] {rows = 1 : i64}
        : memref<16xf32>, memref<16xf32>, memref<f32>, memref<1x?x1xf32>, memref<1x?x1xf32>,
          memref<1x?x1x64xf32>
    gpu.return
  }
}
