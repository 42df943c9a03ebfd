// #pa.mfma_layout's errors: its syntax, its shapes alone, and on a decode
// kernel against the module's chip and the kernel's tile ops.
// RUN: pa-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{expected an MFMA shape 16x16xK}}
module attributes {test.layout = #pa.mfma_layout<qk = 32x32x16, pv = 16x16x32, m_tiles = 1, wave_tokens = 64, qk_chunks = 2>} {
}

// -----

// expected-error @+1 {{pv must be 16x16x16 (bf16) or 16x16x32 (fp8), got 16x16x64}}
module attributes {test.layout = #pa.mfma_layout<qk = 16x16x32, pv = 16x16x64, m_tiles = 1, wave_tokens = 64, qk_chunks = 2>} {
}

// -----

// expected-error @+1 {{qk must be 16x16x32 or 16x16x128 with fp8 operands (pv = 16x16x32), got 16x16x16}}
module attributes {test.layout = #pa.mfma_layout<qk = 16x16x16, pv = 16x16x32, m_tiles = 1, wave_tokens = 64, qk_chunks = 2>} {
}

// -----

// expected-error @+1 {{qk must be 16x16x16 with bf16 operands (pv = 16x16x16), got 16x16x128}}
module attributes {test.layout = #pa.mfma_layout<qk = 16x16x128, pv = 16x16x16, m_tiles = 1, wave_tokens = 64, qk_chunks = 2>} {
}

// -----

// expected-error @+1 {{m_tiles must be 1 or 2 (row groups of 16 or 32 rows), got 3}}
module attributes {test.layout = #pa.mfma_layout<qk = 16x16x32, pv = 16x16x32, m_tiles = 3, wave_tokens = 64, qk_chunks = 2>} {
}

// -----

// expected-error @+1 {{wave_tokens must be 64 (4 waves share a 256-token tile), got 32}}
module attributes {test.layout = #pa.mfma_layout<qk = 16x16x32, pv = 16x16x32, m_tiles = 1, wave_tokens = 32, qk_chunks = 2>} {
}

// -----

// expected-error @+1 {{qk_chunks must be at least 1, got 0}}
module attributes {test.layout = #pa.mfma_layout<qk = 16x16x32, pv = 16x16x32, m_tiles = 1, wave_tokens = 64, qk_chunks = 0>} {
}

// -----

// expected-error @+1 {{expected 'm_tiles'}}
module attributes {test.layout = #pa.mfma_layout<qk = 16x16x32, pv = 16x16x32, wave_tokens = 64, qk_chunks = 2>} {
}

// -----

// The kernel attribute is a #pa.mfma_layout.
module attributes {pa.target = #pa.target<"gfx950">} {
  gpu.module @pa_kernels {
    // expected-error @+1 {{'pa.mfma_layout' must be a #pa.mfma_layout attribute, got 2 : i64}}
    gpu.func @pa_decode(%q: memref<?x8x128xbf16>, %k: memref<?x1x8x16x16xf8E4M3FN>,
                        %v: memref<?x1x128x16xf8E4M3FN>, %bt: memref<?x?xi32>,
                        %es: memref<1x?x8xf32>, %ml: memref<1x?x8xf32>,
                        %part: memref<1x?x8x128xf32>)
        workgroup(%qt : memref<16x128xf32, #gpu.address_space<workgroup>>,
                  %s : memref<16x256xf32, #gpu.address_space<workgroup>>,
                  %acc : memref<16x128xf32, #gpu.address_space<workgroup>>,
                  %max : memref<16xf32, #gpu.address_space<workgroup>>,
                  %sum : memref<16xf32, #gpu.address_space<workgroup>>) kernel attributes {pa.mfma_layout = 2 : i64} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %ctx = arith.constant 100 : i64
      %lo = arith.constant 0 : i64
      pa.tile.load_query %q[%c0, %c0, %c0] into %qt {query_length = 1 : i64, group_size = 8 : i64}
          : memref<?x8x128xbf16>, memref<16x128xf32, #gpu.address_space<workgroup>>
      pa.tile.init_softmax %max, %sum, %acc
          : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16x128xf32, #gpu.address_space<workgroup>>
      scf.for %tile = %c0 to %c1 step %c1 {
        %t64 = arith.index_cast %tile : index to i64
        %ids = pa.tile.page_ids %bt[%c0] tile %tile visible [%lo, %ctx] {page_size = 16 : i64, direct}
            : memref<?x?xi32> -> vector<16xi32>
        pa.tile.qk %qt, %k[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %s
            {page_size = 16 : i64, score_scale = 0.18 : f32, scale = #pa.scale<none>,
             compute = #pa.compute<fp8>}
            : memref<16x128xf32, #gpu.address_space<workgroup>>, memref<?x1x8x16x16xf8E4M3FN>,
              vector<16xi32>, memref<16x256xf32, #gpu.address_space<workgroup>>
        pa.tile.softmax %s, %max, %sum, %acc context %ctx tile_start %t64 row_base %c0
            {query_length = 1 : i64, group_size = 8 : i64, sliding_window = 0 : i64}
            : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
              memref<16xf32, #gpu.address_space<workgroup>>, memref<16x128xf32, #gpu.address_space<workgroup>>
        pa.tile.pv %s, %v[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %acc
            {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
             compute = #pa.compute<fp8>}
            : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<?x1x128x16xf8E4M3FN>,
              vector<16xi32>, memref<16x128xf32, #gpu.address_space<workgroup>>
      }
      pa.tile.store_partials %max, %sum, %acc into %es, %ml, %part [%c0, %c0, %c0] {rows = 8 : i64}
          : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16x128xf32, #gpu.address_space<workgroup>>, memref<1x?x8xf32>, memref<1x?x8xf32>,
            memref<1x?x8x128xf32>
      gpu.return
    }
  }
}

// -----

// Without a pa.target the chip's rules wait for one (pa-set-target); the
// kernel's are checked.
gpu.module @pa_kernels {
  gpu.func @pa_decode(%q: memref<?x8x128xbf16>, %k: memref<?x1x8x16x16xf8E4M3FN>,
                      %v: memref<?x1x128x16xf8E4M3FN>, %bt: memref<?x?xi32>,
                      %es: memref<1x?x8xf32>, %ml: memref<1x?x8xf32>,
                      %part: memref<1x?x8x128xf32>)
      workgroup(%qt : memref<16x128xf32, #gpu.address_space<workgroup>>,
                %s : memref<16x256xf32, #gpu.address_space<workgroup>>,
                %acc : memref<16x128xf32, #gpu.address_space<workgroup>>,
                %max : memref<16xf32, #gpu.address_space<workgroup>>,
                %sum : memref<16xf32, #gpu.address_space<workgroup>>) kernel attributes {pa.mfma_layout = #pa.mfma_layout<qk = 16x16x128, pv = 16x16x32, m_tiles = 2, wave_tokens = 64, qk_chunks = 2>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %ctx = arith.constant 100 : i64
    %lo = arith.constant 0 : i64
    pa.tile.load_query %q[%c0, %c0, %c0] into %qt {query_length = 1 : i64, group_size = 8 : i64}
        : memref<?x8x128xbf16>, memref<16x128xf32, #gpu.address_space<workgroup>>
    pa.tile.init_softmax %max, %sum, %acc
        : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
          memref<16x128xf32, #gpu.address_space<workgroup>>
    scf.for %tile = %c0 to %c1 step %c1 {
      %t64 = arith.index_cast %tile : index to i64
      %ids = pa.tile.page_ids %bt[%c0] tile %tile visible [%lo, %ctx] {page_size = 16 : i64, direct}
          : memref<?x?xi32> -> vector<16xi32>
      // expected-error @+1 {{'pa.tile.qk' op does not fit the kernel's 'pa.mfma_layout': it has 2 M-tile(s) of 16 rows, the row group has 16 rows}}
      pa.tile.qk %qt, %k[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %s
          {page_size = 16 : i64, score_scale = 0.18 : f32, scale = #pa.scale<none>,
           compute = #pa.compute<fp8>}
          : memref<16x128xf32, #gpu.address_space<workgroup>>, memref<?x1x8x16x16xf8E4M3FN>,
            vector<16xi32>, memref<16x256xf32, #gpu.address_space<workgroup>>
      pa.tile.softmax %s, %max, %sum, %acc context %ctx tile_start %t64 row_base %c0
          {query_length = 1 : i64, group_size = 8 : i64, sliding_window = 0 : i64}
          : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16xf32, #gpu.address_space<workgroup>>, memref<16x128xf32, #gpu.address_space<workgroup>>
      pa.tile.pv %s, %v[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %acc
          {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
           compute = #pa.compute<fp8>}
          : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<?x1x128x16xf8E4M3FN>,
            vector<16xi32>, memref<16x128xf32, #gpu.address_space<workgroup>>
    }
    pa.tile.store_partials %max, %sum, %acc into %es, %ml, %part [%c0, %c0, %c0] {rows = 8 : i64}
        : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
          memref<16x128xf32, #gpu.address_space<workgroup>>, memref<1x?x8xf32>, memref<1x?x8xf32>,
          memref<1x?x8x128xf32>
    gpu.return
  }
}

// -----

module attributes {pa.target = #pa.target<"sm_90a">} {
  gpu.module @pa_kernels {
    // expected-error @+1 {{'pa.mfma_layout' is a lane mapping of AMD chips; the module's target is sm_90a}}
    gpu.func @pa_decode(%q: memref<?x8x128xbf16>, %k: memref<?x1x8x16x16xf8E4M3FN>,
                        %v: memref<?x1x128x16xf8E4M3FN>, %bt: memref<?x?xi32>,
                        %es: memref<1x?x8xf32>, %ml: memref<1x?x8xf32>,
                        %part: memref<1x?x8x128xf32>)
        workgroup(%qt : memref<16x128xf32, #gpu.address_space<workgroup>>,
                  %s : memref<16x256xf32, #gpu.address_space<workgroup>>,
                  %acc : memref<16x128xf32, #gpu.address_space<workgroup>>,
                  %max : memref<16xf32, #gpu.address_space<workgroup>>,
                  %sum : memref<16xf32, #gpu.address_space<workgroup>>) kernel attributes {pa.mfma_layout = #pa.mfma_layout<qk = 16x16x32, pv = 16x16x32, m_tiles = 1, wave_tokens = 64, qk_chunks = 2>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %ctx = arith.constant 100 : i64
      %lo = arith.constant 0 : i64
      pa.tile.load_query %q[%c0, %c0, %c0] into %qt {query_length = 1 : i64, group_size = 8 : i64}
          : memref<?x8x128xbf16>, memref<16x128xf32, #gpu.address_space<workgroup>>
      pa.tile.init_softmax %max, %sum, %acc
          : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16x128xf32, #gpu.address_space<workgroup>>
      scf.for %tile = %c0 to %c1 step %c1 {
        %t64 = arith.index_cast %tile : index to i64
        %ids = pa.tile.page_ids %bt[%c0] tile %tile visible [%lo, %ctx] {page_size = 16 : i64, direct}
            : memref<?x?xi32> -> vector<16xi32>
        pa.tile.qk %qt, %k[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %s
            {page_size = 16 : i64, score_scale = 0.18 : f32, scale = #pa.scale<none>,
             compute = #pa.compute<fp8>}
            : memref<16x128xf32, #gpu.address_space<workgroup>>, memref<?x1x8x16x16xf8E4M3FN>,
              vector<16xi32>, memref<16x256xf32, #gpu.address_space<workgroup>>
        pa.tile.softmax %s, %max, %sum, %acc context %ctx tile_start %t64 row_base %c0
            {query_length = 1 : i64, group_size = 8 : i64, sliding_window = 0 : i64}
            : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
              memref<16xf32, #gpu.address_space<workgroup>>, memref<16x128xf32, #gpu.address_space<workgroup>>
        pa.tile.pv %s, %v[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %acc
            {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
             compute = #pa.compute<fp8>}
            : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<?x1x128x16xf8E4M3FN>,
              vector<16xi32>, memref<16x128xf32, #gpu.address_space<workgroup>>
      }
      pa.tile.store_partials %max, %sum, %acc into %es, %ml, %part [%c0, %c0, %c0] {rows = 8 : i64}
          : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16x128xf32, #gpu.address_space<workgroup>>, memref<1x?x8xf32>, memref<1x?x8xf32>,
            memref<1x?x8x128xf32>
      gpu.return
    }
  }
}

// -----

// gfx942 has no v_mfma_f32_16x16x128_f8f6f4.
module attributes {pa.target = #pa.target<"gfx942">} {
  gpu.module @pa_kernels {
    // expected-error @+1 {{'pa.mfma_layout' qk = 16x16x128 needs v_mfma_f32_16x16x128_f8f6f4, which gfx942 does not have}}
    gpu.func @pa_decode(%q: memref<?x8x128xbf16>, %k: memref<?x1x8x16x16xf8E4M3FNUZ>,
                        %v: memref<?x1x128x16xf8E4M3FNUZ>, %bt: memref<?x?xi32>,
                        %es: memref<1x?x8xf32>, %ml: memref<1x?x8xf32>,
                        %part: memref<1x?x8x128xf32>)
        workgroup(%qt : memref<16x128xf32, #gpu.address_space<workgroup>>,
                  %s : memref<16x256xf32, #gpu.address_space<workgroup>>,
                  %acc : memref<16x128xf32, #gpu.address_space<workgroup>>,
                  %max : memref<16xf32, #gpu.address_space<workgroup>>,
                  %sum : memref<16xf32, #gpu.address_space<workgroup>>) kernel attributes {pa.mfma_layout = #pa.mfma_layout<qk = 16x16x128, pv = 16x16x32, m_tiles = 1, wave_tokens = 64, qk_chunks = 2>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %ctx = arith.constant 100 : i64
      %lo = arith.constant 0 : i64
      pa.tile.load_query %q[%c0, %c0, %c0] into %qt {query_length = 1 : i64, group_size = 8 : i64}
          : memref<?x8x128xbf16>, memref<16x128xf32, #gpu.address_space<workgroup>>
      pa.tile.init_softmax %max, %sum, %acc
          : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16x128xf32, #gpu.address_space<workgroup>>
      scf.for %tile = %c0 to %c1 step %c1 {
        %t64 = arith.index_cast %tile : index to i64
        %ids = pa.tile.page_ids %bt[%c0] tile %tile visible [%lo, %ctx] {page_size = 16 : i64, direct}
            : memref<?x?xi32> -> vector<16xi32>
        pa.tile.qk %qt, %k[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %s
            {page_size = 16 : i64, score_scale = 0.18 : f32, scale = #pa.scale<none>,
             compute = #pa.compute<fp8>}
            : memref<16x128xf32, #gpu.address_space<workgroup>>, memref<?x1x8x16x16xf8E4M3FNUZ>,
              vector<16xi32>, memref<16x256xf32, #gpu.address_space<workgroup>>
        pa.tile.softmax %s, %max, %sum, %acc context %ctx tile_start %t64 row_base %c0
            {query_length = 1 : i64, group_size = 8 : i64, sliding_window = 0 : i64}
            : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
              memref<16xf32, #gpu.address_space<workgroup>>, memref<16x128xf32, #gpu.address_space<workgroup>>
        pa.tile.pv %s, %v[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %acc
            {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
             compute = #pa.compute<fp8>}
            : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<?x1x128x16xf8E4M3FNUZ>,
              vector<16xi32>, memref<16x128xf32, #gpu.address_space<workgroup>>
      }
      pa.tile.store_partials %max, %sum, %acc into %es, %ml, %part [%c0, %c0, %c0] {rows = 8 : i64}
          : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16x128xf32, #gpu.address_space<workgroup>>, memref<1x?x8xf32>, memref<1x?x8xf32>,
            memref<1x?x8x128xf32>
      gpu.return
    }
  }
}

// -----

// A mapping for two M-tiles on a 16-row group.
module attributes {pa.target = #pa.target<"gfx950">} {
  gpu.module @pa_kernels {
    gpu.func @pa_decode(%q: memref<?x8x128xbf16>, %k: memref<?x1x8x16x16xf8E4M3FN>,
                        %v: memref<?x1x128x16xf8E4M3FN>, %bt: memref<?x?xi32>,
                        %es: memref<1x?x8xf32>, %ml: memref<1x?x8xf32>,
                        %part: memref<1x?x8x128xf32>)
        workgroup(%qt : memref<16x128xf32, #gpu.address_space<workgroup>>,
                  %s : memref<16x256xf32, #gpu.address_space<workgroup>>,
                  %acc : memref<16x128xf32, #gpu.address_space<workgroup>>,
                  %max : memref<16xf32, #gpu.address_space<workgroup>>,
                  %sum : memref<16xf32, #gpu.address_space<workgroup>>) kernel attributes {pa.mfma_layout = #pa.mfma_layout<qk = 16x16x32, pv = 16x16x32, m_tiles = 2, wave_tokens = 64, qk_chunks = 2>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %ctx = arith.constant 100 : i64
      %lo = arith.constant 0 : i64
      pa.tile.load_query %q[%c0, %c0, %c0] into %qt {query_length = 1 : i64, group_size = 8 : i64}
          : memref<?x8x128xbf16>, memref<16x128xf32, #gpu.address_space<workgroup>>
      pa.tile.init_softmax %max, %sum, %acc
          : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16x128xf32, #gpu.address_space<workgroup>>
      scf.for %tile = %c0 to %c1 step %c1 {
        %t64 = arith.index_cast %tile : index to i64
        %ids = pa.tile.page_ids %bt[%c0] tile %tile visible [%lo, %ctx] {page_size = 16 : i64, direct}
            : memref<?x?xi32> -> vector<16xi32>
        // expected-error @+1 {{'pa.tile.qk' op does not fit the kernel's 'pa.mfma_layout': it has 2 M-tile(s) of 16 rows, the row group has 16 rows}}
        pa.tile.qk %qt, %k[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %s
            {page_size = 16 : i64, score_scale = 0.18 : f32, scale = #pa.scale<none>,
             compute = #pa.compute<fp8>}
            : memref<16x128xf32, #gpu.address_space<workgroup>>, memref<?x1x8x16x16xf8E4M3FN>,
              vector<16xi32>, memref<16x256xf32, #gpu.address_space<workgroup>>
        pa.tile.softmax %s, %max, %sum, %acc context %ctx tile_start %t64 row_base %c0
            {query_length = 1 : i64, group_size = 8 : i64, sliding_window = 0 : i64}
            : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
              memref<16xf32, #gpu.address_space<workgroup>>, memref<16x128xf32, #gpu.address_space<workgroup>>
        pa.tile.pv %s, %v[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %acc
            {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
             compute = #pa.compute<fp8>}
            : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<?x1x128x16xf8E4M3FN>,
              vector<16xi32>, memref<16x128xf32, #gpu.address_space<workgroup>>
      }
      pa.tile.store_partials %max, %sum, %acc into %es, %ml, %part [%c0, %c0, %c0] {rows = 8 : i64}
          : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16x128xf32, #gpu.address_space<workgroup>>, memref<1x?x8xf32>, memref<1x?x8xf32>,
            memref<1x?x8x128xf32>
      gpu.return
    }
  }
}

// -----

// A bf16 mapping for fp8 products.
module attributes {pa.target = #pa.target<"gfx950">} {
  gpu.module @pa_kernels {
    gpu.func @pa_decode(%q: memref<?x8x128xbf16>, %k: memref<?x1x8x16x16xf8E4M3FN>,
                        %v: memref<?x1x128x16xf8E4M3FN>, %bt: memref<?x?xi32>,
                        %es: memref<1x?x8xf32>, %ml: memref<1x?x8xf32>,
                        %part: memref<1x?x8x128xf32>)
        workgroup(%qt : memref<16x128xf32, #gpu.address_space<workgroup>>,
                  %s : memref<16x256xf32, #gpu.address_space<workgroup>>,
                  %acc : memref<16x128xf32, #gpu.address_space<workgroup>>,
                  %max : memref<16xf32, #gpu.address_space<workgroup>>,
                  %sum : memref<16xf32, #gpu.address_space<workgroup>>) kernel attributes {pa.mfma_layout = #pa.mfma_layout<qk = 16x16x16, pv = 16x16x16, m_tiles = 1, wave_tokens = 64, qk_chunks = 2>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %ctx = arith.constant 100 : i64
      %lo = arith.constant 0 : i64
      pa.tile.load_query %q[%c0, %c0, %c0] into %qt {query_length = 1 : i64, group_size = 8 : i64}
          : memref<?x8x128xbf16>, memref<16x128xf32, #gpu.address_space<workgroup>>
      pa.tile.init_softmax %max, %sum, %acc
          : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16x128xf32, #gpu.address_space<workgroup>>
      scf.for %tile = %c0 to %c1 step %c1 {
        %t64 = arith.index_cast %tile : index to i64
        %ids = pa.tile.page_ids %bt[%c0] tile %tile visible [%lo, %ctx] {page_size = 16 : i64, direct}
            : memref<?x?xi32> -> vector<16xi32>
        // expected-error @+1 {{'pa.tile.qk' op does not fit the kernel's 'pa.mfma_layout': it has pv = 16x16x16, the kernel computes in fp8 (pv = 16x16x32)}}
        pa.tile.qk %qt, %k[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %s
            {page_size = 16 : i64, score_scale = 0.18 : f32, scale = #pa.scale<none>,
             compute = #pa.compute<fp8>}
            : memref<16x128xf32, #gpu.address_space<workgroup>>, memref<?x1x8x16x16xf8E4M3FN>,
              vector<16xi32>, memref<16x256xf32, #gpu.address_space<workgroup>>
        pa.tile.softmax %s, %max, %sum, %acc context %ctx tile_start %t64 row_base %c0
            {query_length = 1 : i64, group_size = 8 : i64, sliding_window = 0 : i64}
            : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
              memref<16xf32, #gpu.address_space<workgroup>>, memref<16x128xf32, #gpu.address_space<workgroup>>
        pa.tile.pv %s, %v[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %acc
            {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
             compute = #pa.compute<fp8>}
            : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<?x1x128x16xf8E4M3FN>,
              vector<16xi32>, memref<16x128xf32, #gpu.address_space<workgroup>>
      }
      pa.tile.store_partials %max, %sum, %acc into %es, %ml, %part [%c0, %c0, %c0] {rows = 8 : i64}
          : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16x128xf32, #gpu.address_space<workgroup>>, memref<1x?x8xf32>, memref<1x?x8xf32>,
            memref<1x?x8x128xf32>
      gpu.return
    }
  }
}

// -----

// 16x16x128 takes two 64-dim load chunks at once: D = 192 has three.
module attributes {pa.target = #pa.target<"gfx950">} {
  gpu.module @pa_kernels {
    gpu.func @pa_decode(%q: memref<?x8x192xbf16>, %k: memref<?x1x12x16x16xf8E4M3FN>,
                        %v: memref<?x1x192x16xf8E4M3FN>, %bt: memref<?x?xi32>,
                        %es: memref<1x?x8xf32>, %ml: memref<1x?x8xf32>,
                        %part: memref<1x?x8x192xf32>)
        workgroup(%qt : memref<16x192xf32, #gpu.address_space<workgroup>>,
                  %s : memref<16x256xf32, #gpu.address_space<workgroup>>,
                  %acc : memref<16x192xf32, #gpu.address_space<workgroup>>,
                  %max : memref<16xf32, #gpu.address_space<workgroup>>,
                  %sum : memref<16xf32, #gpu.address_space<workgroup>>) kernel attributes {pa.mfma_layout = #pa.mfma_layout<qk = 16x16x128, pv = 16x16x32, m_tiles = 1, wave_tokens = 64, qk_chunks = 3>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %ctx = arith.constant 100 : i64
      %lo = arith.constant 0 : i64
      pa.tile.load_query %q[%c0, %c0, %c0] into %qt {query_length = 1 : i64, group_size = 8 : i64}
          : memref<?x8x192xbf16>, memref<16x192xf32, #gpu.address_space<workgroup>>
      pa.tile.init_softmax %max, %sum, %acc
          : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16x192xf32, #gpu.address_space<workgroup>>
      scf.for %tile = %c0 to %c1 step %c1 {
        %t64 = arith.index_cast %tile : index to i64
        %ids = pa.tile.page_ids %bt[%c0] tile %tile visible [%lo, %ctx] {page_size = 16 : i64, direct}
            : memref<?x?xi32> -> vector<16xi32>
        // expected-error @+1 {{'pa.tile.qk' op does not fit the kernel's 'pa.mfma_layout': qk = 16x16x128 needs a head dim that is a multiple of 128, got 192}}
        pa.tile.qk %qt, %k[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %s
            {page_size = 16 : i64, score_scale = 0.18 : f32, scale = #pa.scale<none>,
             compute = #pa.compute<fp8>}
            : memref<16x192xf32, #gpu.address_space<workgroup>>, memref<?x1x12x16x16xf8E4M3FN>,
              vector<16xi32>, memref<16x256xf32, #gpu.address_space<workgroup>>
        pa.tile.softmax %s, %max, %sum, %acc context %ctx tile_start %t64 row_base %c0
            {query_length = 1 : i64, group_size = 8 : i64, sliding_window = 0 : i64}
            : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
              memref<16xf32, #gpu.address_space<workgroup>>, memref<16x192xf32, #gpu.address_space<workgroup>>
        pa.tile.pv %s, %v[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %acc
            {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
             compute = #pa.compute<fp8>}
            : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<?x1x192x16xf8E4M3FN>,
              vector<16xi32>, memref<16x192xf32, #gpu.address_space<workgroup>>
      }
      pa.tile.store_partials %max, %sum, %acc into %es, %ml, %part [%c0, %c0, %c0] {rows = 8 : i64}
          : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16x192xf32, #gpu.address_space<workgroup>>, memref<1x?x8xf32>, memref<1x?x8xf32>,
            memref<1x?x8x192xf32>
      gpu.return
    }
  }
}

// -----

// D = 128 of fp8 is two chunks of 4 lane groups x 16 bytes.
module attributes {pa.target = #pa.target<"gfx950">} {
  gpu.module @pa_kernels {
    gpu.func @pa_decode(%q: memref<?x8x128xbf16>, %k: memref<?x1x8x16x16xf8E4M3FN>,
                        %v: memref<?x1x128x16xf8E4M3FN>, %bt: memref<?x?xi32>,
                        %es: memref<1x?x8xf32>, %ml: memref<1x?x8xf32>,
                        %part: memref<1x?x8x128xf32>)
        workgroup(%qt : memref<16x128xf32, #gpu.address_space<workgroup>>,
                  %s : memref<16x256xf32, #gpu.address_space<workgroup>>,
                  %acc : memref<16x128xf32, #gpu.address_space<workgroup>>,
                  %max : memref<16xf32, #gpu.address_space<workgroup>>,
                  %sum : memref<16xf32, #gpu.address_space<workgroup>>) kernel attributes {pa.mfma_layout = #pa.mfma_layout<qk = 16x16x32, pv = 16x16x32, m_tiles = 1, wave_tokens = 64, qk_chunks = 3>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %ctx = arith.constant 100 : i64
      %lo = arith.constant 0 : i64
      pa.tile.load_query %q[%c0, %c0, %c0] into %qt {query_length = 1 : i64, group_size = 8 : i64}
          : memref<?x8x128xbf16>, memref<16x128xf32, #gpu.address_space<workgroup>>
      pa.tile.init_softmax %max, %sum, %acc
          : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16x128xf32, #gpu.address_space<workgroup>>
      scf.for %tile = %c0 to %c1 step %c1 {
        %t64 = arith.index_cast %tile : index to i64
        %ids = pa.tile.page_ids %bt[%c0] tile %tile visible [%lo, %ctx] {page_size = 16 : i64, direct}
            : memref<?x?xi32> -> vector<16xi32>
        // expected-error @+1 {{'pa.tile.qk' op does not fit the kernel's 'pa.mfma_layout': it has qk_chunks = 3, the head dim 128 of 'f8E4M3FN' takes 2 (16-byte loads of 4 lane groups)}}
        pa.tile.qk %qt, %k[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %s
            {page_size = 16 : i64, score_scale = 0.18 : f32, scale = #pa.scale<none>,
             compute = #pa.compute<fp8>}
            : memref<16x128xf32, #gpu.address_space<workgroup>>, memref<?x1x8x16x16xf8E4M3FN>,
              vector<16xi32>, memref<16x256xf32, #gpu.address_space<workgroup>>
        pa.tile.softmax %s, %max, %sum, %acc context %ctx tile_start %t64 row_base %c0
            {query_length = 1 : i64, group_size = 8 : i64, sliding_window = 0 : i64}
            : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
              memref<16xf32, #gpu.address_space<workgroup>>, memref<16x128xf32, #gpu.address_space<workgroup>>
        pa.tile.pv %s, %v[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %acc
            {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
             compute = #pa.compute<fp8>}
            : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<?x1x128x16xf8E4M3FN>,
              vector<16xi32>, memref<16x128xf32, #gpu.address_space<workgroup>>
      }
      pa.tile.store_partials %max, %sum, %acc into %es, %ml, %part [%c0, %c0, %c0] {rows = 8 : i64}
          : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16x128xf32, #gpu.address_space<workgroup>>, memref<1x?x8xf32>, memref<1x?x8xf32>,
            memref<1x?x8x128xf32>
      gpu.return
    }
  }
}

// -----

// A kernel without tile ops has no mapping.
module attributes {pa.target = #pa.target<"gfx950">} {
  gpu.module @pa_kernels {
    // expected-error @+1 {{'pa.mfma_layout' belongs on a decode kernel (one with pa.tile.load_query and pa.tile.qk)}}
    gpu.func @pa_reduce() kernel attributes {pa.mfma_layout = #pa.mfma_layout<qk = 16x16x32, pv = 16x16x32, m_tiles = 1, wave_tokens = 64, qk_chunks = 2>} {
      gpu.return
    }
  }
}

// -----

// The kernel's verifier runs before its tile ops': a pa.tile.qk without
// compute is the op's to report.
module attributes {pa.target = #pa.target<"gfx950">} {
  gpu.module @pa_kernels {
    gpu.func @pa_decode(%q: memref<?x8x128xbf16>, %k: memref<?x1x8x16x16xf8E4M3FN>,
                        %v: memref<?x1x128x16xf8E4M3FN>, %bt: memref<?x?xi32>,
                        %es: memref<1x?x8xf32>, %ml: memref<1x?x8xf32>,
                        %part: memref<1x?x8x128xf32>)
        workgroup(%qt : memref<16x128xf32, #gpu.address_space<workgroup>>,
                  %s : memref<16x256xf32, #gpu.address_space<workgroup>>,
                  %acc : memref<16x128xf32, #gpu.address_space<workgroup>>,
                  %max : memref<16xf32, #gpu.address_space<workgroup>>,
                  %sum : memref<16xf32, #gpu.address_space<workgroup>>) kernel attributes {pa.mfma_layout = #pa.mfma_layout<qk = 16x16x32, pv = 16x16x32, m_tiles = 1, wave_tokens = 64, qk_chunks = 2>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %ctx = arith.constant 100 : i64
      %lo = arith.constant 0 : i64
      pa.tile.load_query %q[%c0, %c0, %c0] into %qt {query_length = 1 : i64, group_size = 8 : i64}
          : memref<?x8x128xbf16>, memref<16x128xf32, #gpu.address_space<workgroup>>
      pa.tile.init_softmax %max, %sum, %acc
          : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16x128xf32, #gpu.address_space<workgroup>>
      scf.for %tile = %c0 to %c1 step %c1 {
        %t64 = arith.index_cast %tile : index to i64
        %ids = pa.tile.page_ids %bt[%c0] tile %tile visible [%lo, %ctx] {page_size = 16 : i64, direct}
            : memref<?x?xi32> -> vector<16xi32>
        // expected-error @+1 {{'pa.tile.qk' op requires attribute 'compute'}}
        "pa.tile.qk"(%qt, %k, %ids, %c0, %t64, %lo, %ctx, %s)
            <{page_size = 16 : i64, score_scale = 0.18 : f32, scale = #pa.scale<none>}>
            : (memref<16x128xf32, #gpu.address_space<workgroup>>, memref<?x1x8x16x16xf8E4M3FN>,
               vector<16xi32>, index, i64, i64, i64, memref<16x256xf32, #gpu.address_space<workgroup>>) -> ()
        pa.tile.softmax %s, %max, %sum, %acc context %ctx tile_start %t64 row_base %c0
            {query_length = 1 : i64, group_size = 8 : i64, sliding_window = 0 : i64}
            : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
              memref<16xf32, #gpu.address_space<workgroup>>, memref<16x128xf32, #gpu.address_space<workgroup>>
        pa.tile.pv %s, %v[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %acc
            {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
             compute = #pa.compute<fp8>}
            : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<?x1x128x16xf8E4M3FN>,
              vector<16xi32>, memref<16x128xf32, #gpu.address_space<workgroup>>
      }
      pa.tile.store_partials %max, %sum, %acc into %es, %ml, %part [%c0, %c0, %c0] {rows = 8 : i64}
          : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16x128xf32, #gpu.address_space<workgroup>>, memref<1x?x8xf32>, memref<1x?x8xf32>,
            memref<1x?x8x128xf32>
      gpu.return
    }
  }
}

// -----

// A key cache that is not a memref is the pa.tile.qk's to report.
module attributes {pa.target = #pa.target<"gfx950">} {
  gpu.module @pa_kernels {
    gpu.func @pa_decode(%q: memref<?x8x128xbf16>, %k: memref<?x1x8x16x16xf8E4M3FN>,
                        %v: memref<?x1x128x16xf8E4M3FN>, %bt: memref<?x?xi32>,
                        %es: memref<1x?x8xf32>, %ml: memref<1x?x8xf32>,
                        %part: memref<1x?x8x128xf32>)
        workgroup(%qt : memref<16x128xf32, #gpu.address_space<workgroup>>,
                  %s : memref<16x256xf32, #gpu.address_space<workgroup>>,
                  %acc : memref<16x128xf32, #gpu.address_space<workgroup>>,
                  %max : memref<16xf32, #gpu.address_space<workgroup>>,
                  %sum : memref<16xf32, #gpu.address_space<workgroup>>) kernel attributes {pa.mfma_layout = #pa.mfma_layout<qk = 16x16x32, pv = 16x16x32, m_tiles = 1, wave_tokens = 64, qk_chunks = 2>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %ctx = arith.constant 100 : i64
      %lo = arith.constant 0 : i64
      pa.tile.load_query %q[%c0, %c0, %c0] into %qt {query_length = 1 : i64, group_size = 8 : i64}
          : memref<?x8x128xbf16>, memref<16x128xf32, #gpu.address_space<workgroup>>
      pa.tile.init_softmax %max, %sum, %acc
          : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16x128xf32, #gpu.address_space<workgroup>>
      scf.for %tile = %c0 to %c1 step %c1 {
        %t64 = arith.index_cast %tile : index to i64
        %ids = pa.tile.page_ids %bt[%c0] tile %tile visible [%lo, %ctx] {page_size = 16 : i64, direct}
            : memref<?x?xi32> -> vector<16xi32>
        %bad = arith.constant 0 : i32
        // expected-error @+1 {{'pa.tile.qk' op operand #1 must be}}
        "pa.tile.qk"(%qt, %bad, %ids, %c0, %t64, %lo, %ctx, %s)
            <{page_size = 16 : i64, score_scale = 0.18 : f32, scale = #pa.scale<none>,
              compute = #pa.compute<fp8>}>
            : (memref<16x128xf32, #gpu.address_space<workgroup>>, i32,
               vector<16xi32>, index, i64, i64, i64, memref<16x256xf32, #gpu.address_space<workgroup>>) -> ()
        pa.tile.softmax %s, %max, %sum, %acc context %ctx tile_start %t64 row_base %c0
            {query_length = 1 : i64, group_size = 8 : i64, sliding_window = 0 : i64}
            : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
              memref<16xf32, #gpu.address_space<workgroup>>, memref<16x128xf32, #gpu.address_space<workgroup>>
        pa.tile.pv %s, %v[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %acc
            {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
             compute = #pa.compute<fp8>}
            : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<?x1x128x16xf8E4M3FN>,
              vector<16xi32>, memref<16x128xf32, #gpu.address_space<workgroup>>
      }
      pa.tile.store_partials %max, %sum, %acc into %es, %ml, %part [%c0, %c0, %c0] {rows = 8 : i64}
          : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16x128xf32, #gpu.address_space<workgroup>>, memref<1x?x8xf32>, memref<1x?x8xf32>,
            memref<1x?x8x128xf32>
      gpu.return
    }
  }
}

// -----

// A query tile that is not a memref is the pa.tile.load_query's to report.
module attributes {pa.target = #pa.target<"gfx950">} {
  gpu.module @pa_kernels {
    gpu.func @pa_decode(%q: memref<?x8x128xbf16>, %k: memref<?x1x8x16x16xf8E4M3FN>,
                        %v: memref<?x1x128x16xf8E4M3FN>, %bt: memref<?x?xi32>,
                        %es: memref<1x?x8xf32>, %ml: memref<1x?x8xf32>,
                        %part: memref<1x?x8x128xf32>)
        workgroup(%qt : memref<16x128xf32, #gpu.address_space<workgroup>>,
                  %s : memref<16x256xf32, #gpu.address_space<workgroup>>,
                  %acc : memref<16x128xf32, #gpu.address_space<workgroup>>,
                  %max : memref<16xf32, #gpu.address_space<workgroup>>,
                  %sum : memref<16xf32, #gpu.address_space<workgroup>>) kernel attributes {pa.mfma_layout = #pa.mfma_layout<qk = 16x16x32, pv = 16x16x32, m_tiles = 1, wave_tokens = 64, qk_chunks = 2>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %ctx = arith.constant 100 : i64
      %lo = arith.constant 0 : i64
      %bad = arith.constant dense<0.0> : tensor<16x128xf32>
      // expected-error @+1 {{'pa.tile.load_query' op operand #4 must be static 2-D f32 tile}}
      "pa.tile.load_query"(%q, %c0, %c0, %c0, %bad) <{query_length = 1 : i64, group_size = 8 : i64}>
          : (memref<?x8x128xbf16>, index, index, index, tensor<16x128xf32>) -> ()
      pa.tile.init_softmax %max, %sum, %acc
          : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16x128xf32, #gpu.address_space<workgroup>>
      scf.for %tile = %c0 to %c1 step %c1 {
        %t64 = arith.index_cast %tile : index to i64
        %ids = pa.tile.page_ids %bt[%c0] tile %tile visible [%lo, %ctx] {page_size = 16 : i64, direct}
            : memref<?x?xi32> -> vector<16xi32>
        pa.tile.qk %qt, %k[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %s
            {page_size = 16 : i64, score_scale = 0.18 : f32, scale = #pa.scale<none>,
             compute = #pa.compute<fp8>}
            : memref<16x128xf32, #gpu.address_space<workgroup>>, memref<?x1x8x16x16xf8E4M3FN>,
              vector<16xi32>, memref<16x256xf32, #gpu.address_space<workgroup>>
        pa.tile.softmax %s, %max, %sum, %acc context %ctx tile_start %t64 row_base %c0
            {query_length = 1 : i64, group_size = 8 : i64, sliding_window = 0 : i64}
            : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
              memref<16xf32, #gpu.address_space<workgroup>>, memref<16x128xf32, #gpu.address_space<workgroup>>
        pa.tile.pv %s, %v[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %acc
            {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
             compute = #pa.compute<fp8>}
            : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<?x1x128x16xf8E4M3FN>,
              vector<16xi32>, memref<16x128xf32, #gpu.address_space<workgroup>>
      }
      pa.tile.store_partials %max, %sum, %acc into %es, %ml, %part [%c0, %c0, %c0] {rows = 8 : i64}
          : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16x128xf32, #gpu.address_space<workgroup>>, memref<1x?x8xf32>, memref<1x?x8xf32>,
            memref<1x?x8x128xf32>
      gpu.return
    }
  }
}

// -----

// A generic pa.tile.load_query without its query tile (4 operands of 5):
// the layout reads no tile op's operands, so the op reports its count.
module attributes {pa.target = #pa.target<"gfx950">} {
  gpu.module @pa_kernels {
    gpu.func @pa_decode(%q: memref<?x8x128xbf16>, %k: memref<?x1x8x16x16xf8E4M3FN>,
                        %bt: memref<?x?xi32>)
        workgroup(%qt : memref<16x128xf32, #gpu.address_space<workgroup>>,
                  %s : memref<16x256xf32, #gpu.address_space<workgroup>>) kernel attributes {pa.mfma_layout = #pa.mfma_layout<qk = 16x16x32, pv = 16x16x32, m_tiles = 1, wave_tokens = 64, qk_chunks = 2>} {
      %c0 = arith.constant 0 : index
      %ctx = arith.constant 100 : i64
      %lo = arith.constant 0 : i64
      // expected-error @+1 {{'pa.tile.load_query' op expected 5 operands, but found 4}}
      "pa.tile.load_query"(%q, %c0, %c0, %c0) <{query_length = 1 : i64, group_size = 8 : i64}>
          : (memref<?x8x128xbf16>, index, index, index) -> ()
      %ids = pa.tile.page_ids %bt[%c0] tile %c0 visible [%lo, %ctx] {page_size = 16 : i64, direct}
          : memref<?x?xi32> -> vector<16xi32>
      pa.tile.qk %qt, %k[%ids, %c0] tile_start %lo valid [%lo, %ctx] into %s
          {page_size = 16 : i64, score_scale = 0.18 : f32, scale = #pa.scale<none>,
           compute = #pa.compute<fp8>}
          : memref<16x128xf32, #gpu.address_space<workgroup>>, memref<?x1x8x16x16xf8E4M3FN>,
            vector<16xi32>, memref<16x256xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}

// -----

// A generic pa.tile.qk with 3 operands of at least 8.
module attributes {pa.target = #pa.target<"gfx950">} {
  gpu.module @pa_kernels {
    gpu.func @pa_decode(%q: memref<?x8x128xbf16>, %k: memref<?x1x8x16x16xf8E4M3FN>)
        workgroup(%qt : memref<16x128xf32, #gpu.address_space<workgroup>>) kernel attributes {pa.mfma_layout = #pa.mfma_layout<qk = 16x16x32, pv = 16x16x32, m_tiles = 1, wave_tokens = 64, qk_chunks = 2>} {
      %c0 = arith.constant 0 : index
      pa.tile.load_query %q[%c0, %c0, %c0] into %qt {query_length = 1 : i64, group_size = 8 : i64}
          : memref<?x8x128xbf16>, memref<16x128xf32, #gpu.address_space<workgroup>>
      // expected-error @+1 {{'pa.tile.qk' op expected 8 or more operands, but found 3}}
      "pa.tile.qk"(%qt, %k, %c0)
          <{page_size = 16 : i64, score_scale = 0.18 : f32, scale = #pa.scale<none>,
            compute = #pa.compute<fp8>}>
          : (memref<16x128xf32, #gpu.address_space<workgroup>>, memref<?x1x8x16x16xf8E4M3FN>, index) -> ()
      gpu.return
    }
  }
}

// -----

// A generic pa.tile.qk with no operands at all and a layout on the
// module, not a kernel: the module is no decode kernel's.
// expected-error @+1 {{'pa.mfma_layout' belongs on a kernel (a function op), not on 'builtin.module'}}
module attributes {pa.mfma_layout = #pa.mfma_layout<qk = 16x16x32, pv = 16x16x32, m_tiles = 1, wave_tokens = 64, qk_chunks = 2>} {
  "pa.tile.qk"() <{page_size = 16 : i64, score_scale = 0.18 : f32, scale = #pa.scale<none>,
                   compute = #pa.compute<fp8>}> : () -> ()
}
