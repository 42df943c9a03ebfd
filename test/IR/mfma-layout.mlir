// #pa.mfma_layout, the lane mapping of an AMD decode kernel: printed as
// parsed, alone and as a decode kernel's pa.mfma_layout (checked against
// the module's chip and the kernel's tile ops).
// RUN: pa-opt %s -split-input-file | FileCheck %s
// RUN: pa-opt %s -split-input-file | pa-opt -split-input-file | FileCheck %s

// CHECK: module attributes {test.bf16 = #pa.mfma_layout<qk = 16x16x16, pv = 16x16x16, m_tiles = 1, wave_tokens = 64, qk_chunks = 4>,
// CHECK-SAME: test.fp8 = #pa.mfma_layout<qk = 16x16x32, pv = 16x16x32, m_tiles = 2, wave_tokens = 64, qk_chunks = 3>}
module attributes {test.fp8 = #pa.mfma_layout<qk = 16x16x32, pv = 16x16x32, m_tiles = 2,
                                         wave_tokens = 64, qk_chunks = 3>,
                   test.bf16 = #pa.mfma_layout<qk=16x16x16,pv=16x16x16,m_tiles=1,wave_tokens=64,qk_chunks=4>} {
}

// -----

// gfx950's 16x16x128 QK on a D = 128 fp8 kernel: two 64-dim load chunks.
// CHECK-LABEL: gpu.func @pa_decode
// CHECK-SAME: kernel attributes {pa.mfma_layout = #pa.mfma_layout<qk = 16x16x128, pv = 16x16x32, m_tiles = 1, wave_tokens = 64, qk_chunks = 2>}
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

// Without a pa.target (before pa-set-target) the chip's rules wait: a
// 16x16x128 mapping parses.
// CHECK-LABEL: gpu.func @pa_decode
// CHECK-SAME: kernel attributes {pa.mfma_layout = #pa.mfma_layout<qk = 16x16x128, pv = 16x16x32, m_tiles = 1, wave_tokens = 64, qk_chunks = 2>}
gpu.module @pa_kernels {
  gpu.func @pa_decode(%q: memref<?x8x128xbf16>, %k: memref<?x1x8x16x16xf8E4M3FN>,
                      %v: memref<?x1x128x16xf8E4M3FN>, %bt: memref<?x?xi32>,
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

// bf16 on gfx942, 32 rows: 4 chunks of 32 head dims, two M-tiles.
// CHECK-LABEL: gpu.func @pa_decode
// CHECK-SAME: kernel attributes {pa.mfma_layout = #pa.mfma_layout<qk = 16x16x16, pv = 16x16x16, m_tiles = 2, wave_tokens = 64, qk_chunks = 4>}
module attributes {pa.target = #pa.target<"gfx942">} {
  gpu.module @pa_kernels {
    gpu.func @pa_decode(%q: memref<?x8x128xbf16>, %k: memref<?x1x16x16x8xbf16>,
                        %v: memref<?x1x128x16xbf16>, %bt: memref<?x?xi32>,
                        %es: memref<1x?x8xf32>, %ml: memref<1x?x8xf32>,
                        %part: memref<1x?x8x128xf32>)
        workgroup(%qt : memref<32x128xf32, #gpu.address_space<workgroup>>,
                  %s : memref<32x256xf32, #gpu.address_space<workgroup>>,
                  %acc : memref<32x128xf32, #gpu.address_space<workgroup>>,
                  %max : memref<32xf32, #gpu.address_space<workgroup>>,
                  %sum : memref<32xf32, #gpu.address_space<workgroup>>) kernel attributes {pa.mfma_layout = #pa.mfma_layout<qk = 16x16x16, pv = 16x16x16, m_tiles = 2, wave_tokens = 64, qk_chunks = 4>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %ctx = arith.constant 100 : i64
      %lo = arith.constant 0 : i64
      pa.tile.load_query %q[%c0, %c0, %c0] into %qt {query_length = 1 : i64, group_size = 8 : i64}
          : memref<?x8x128xbf16>, memref<32x128xf32, #gpu.address_space<workgroup>>
      pa.tile.init_softmax %max, %sum, %acc
          : memref<32xf32, #gpu.address_space<workgroup>>, memref<32xf32, #gpu.address_space<workgroup>>,
            memref<32x128xf32, #gpu.address_space<workgroup>>
      scf.for %tile = %c0 to %c1 step %c1 {
        %t64 = arith.index_cast %tile : index to i64
        %ids = pa.tile.page_ids %bt[%c0] tile %tile visible [%lo, %ctx] {page_size = 16 : i64, direct}
            : memref<?x?xi32> -> vector<16xi32>
        pa.tile.qk %qt, %k[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %s
            {page_size = 16 : i64, score_scale = 0.18 : f32, scale = #pa.scale<none>,
             compute = #pa.compute<bf16>}
            : memref<32x128xf32, #gpu.address_space<workgroup>>, memref<?x1x16x16x8xbf16>,
              vector<16xi32>, memref<32x256xf32, #gpu.address_space<workgroup>>
        pa.tile.softmax %s, %max, %sum, %acc context %ctx tile_start %t64 row_base %c0
            {query_length = 1 : i64, group_size = 8 : i64, sliding_window = 0 : i64}
            : memref<32x256xf32, #gpu.address_space<workgroup>>, memref<32xf32, #gpu.address_space<workgroup>>,
              memref<32xf32, #gpu.address_space<workgroup>>, memref<32x128xf32, #gpu.address_space<workgroup>>
        pa.tile.pv %s, %v[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %acc
            {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
             compute = #pa.compute<bf16>}
            : memref<32x256xf32, #gpu.address_space<workgroup>>, memref<?x1x128x16xbf16>,
              vector<16xi32>, memref<32x128xf32, #gpu.address_space<workgroup>>
      }
      pa.tile.store_partials %max, %sum, %acc into %es, %ml, %part [%c0, %c0, %c0] {rows = 8 : i64}
          : memref<32xf32, #gpu.address_space<workgroup>>, memref<32xf32, #gpu.address_space<workgroup>>,
            memref<32x128xf32, #gpu.address_space<workgroup>>, memref<1x?x8xf32>, memref<1x?x8xf32>,
            memref<1x?x8x128xf32>
      gpu.return
    }
  }
}
