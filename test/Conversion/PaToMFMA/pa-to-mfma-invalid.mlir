// pa-to-mfma checks every decode kernel before rewriting any.
// RUN: pa-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=gfx942},pa-tile,gpu.module(pa-stage-page-ids,pa-to-mfma))'
// RUN: not pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},gpu.module(pa-to-mfma))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHIP
// RUN: not pa-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(pa-to-mfma))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NONE

// CHIP: error: pa-to-mfma: sm_90a is not an AMD chip (the module's pa.target)
// NONE: error: pa-to-mfma: no target chip: the module has no pa.target attribute

// Tiled IR whose cache is OCP fp8 on gfx942, whose matrix units take
// f8E4M3FNUZ: the cache would be misread, so it is rejected before any
// rewrite.
gpu.module @pa_kernels {
  gpu.func @pa_decode(%q: memref<?x8x64xbf16>, %k: memref<?x1x4x16x16xf8E4M3FN>,
                      %v: memref<?x1x64x16xf8E4M3FN>, %bt: memref<?x?xi32>,
                      %es: memref<1x?x8xf32>, %ml: memref<1x?x8xf32>,
                      %part: memref<1x?x8x64xf32>)
      workgroup(%qt : memref<16x64xf32, #gpu.address_space<workgroup>>,
                %s : memref<16x256xf32, #gpu.address_space<workgroup>>,
                %acc : memref<16x64xf32, #gpu.address_space<workgroup>>,
                %max : memref<16xf32, #gpu.address_space<workgroup>>,
                %sum : memref<16xf32, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %ctx = arith.constant 100 : i64
    %lo = arith.constant 0 : i64
    pa.tile.load_query %q[%c0, %c0, %c0] into %qt {query_length = 1 : i64, group_size = 8 : i64}
        : memref<?x8x64xbf16>, memref<16x64xf32, #gpu.address_space<workgroup>>
    pa.tile.init_softmax %max, %sum, %acc
        : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
          memref<16x64xf32, #gpu.address_space<workgroup>>
    scf.for %tile = %c0 to %c1 step %c1 {
      %t64 = arith.index_cast %tile : index to i64
      %ids = pa.tile.page_ids %bt[%c0] tile %tile visible [%lo, %ctx] {page_size = 16 : i64, direct}
          : memref<?x?xi32> -> vector<16xi32>
      // expected-error @+1 {{chip gfx942 takes f8E4M3FNUZ fp8 KV caches, got 'f8E4M3FN'}}
      pa.tile.qk %qt, %k[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %s
          {page_size = 16 : i64, score_scale = 0.18 : f32, scale = #pa.scale<none>,
           compute = #pa.compute<fp8>}
          : memref<16x64xf32, #gpu.address_space<workgroup>>, memref<?x1x4x16x16xf8E4M3FN>,
            vector<16xi32>, memref<16x256xf32, #gpu.address_space<workgroup>>
      pa.tile.softmax %s, %max, %sum, %acc context %ctx tile_start %t64 row_base %c0
          {query_length = 1 : i64, group_size = 8 : i64, sliding_window = 0 : i64}
          : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16xf32, #gpu.address_space<workgroup>>, memref<16x64xf32, #gpu.address_space<workgroup>>
      pa.tile.pv %s, %v[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %acc
          {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
           compute = #pa.compute<fp8>}
          : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<?x1x64x16xf8E4M3FN>,
            vector<16xi32>, memref<16x64xf32, #gpu.address_space<workgroup>>
    }
    pa.tile.store_partials %max, %sum, %acc into %es, %ml, %part [%c0, %c0, %c0] {rows = 8 : i64}
        : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
          memref<16x64xf32, #gpu.address_space<workgroup>>, memref<1x?x8xf32>, memref<1x?x8xf32>,
          memref<1x?x8x64xf32>
    gpu.return
  }
}

// -----

// Tiled IR with head dim 512 in a 32-row group: the two M-tiles'
// accumulators alone would take 256 VGPRs per lane (pa-tile makes 16-row
// groups on AMD above D = 256; pa-tile.mlir checks that).
gpu.module @pa_kernels {
  gpu.func @pa_decode(%q: memref<?x8x512xbf16>, %k: memref<?x1x64x16x8xbf16>,
                      %v: memref<?x1x512x16xbf16>, %bt: memref<?x?xi32>,
                      %es: memref<1x?x32xf32>, %ml: memref<1x?x32xf32>,
                      %part: memref<1x?x32x512xf32>)
      workgroup(%qt : memref<32x512xf32, #gpu.address_space<workgroup>>,
                %s : memref<32x256xf32, #gpu.address_space<workgroup>>,
                %acc : memref<32x512xf32, #gpu.address_space<workgroup>>,
                %max : memref<32xf32, #gpu.address_space<workgroup>>,
                %sum : memref<32xf32, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %ctx = arith.constant 100 : i64
    %lo = arith.constant 0 : i64
    // expected-error @+1 {{head dim 512 with a 32-row group needs 256 accumulator VGPRs per lane for the output alone (at most 128 fit beside a tile step without spilling); use row groups of 16 rows}}
    pa.tile.load_query %q[%c0, %c0, %c0] into %qt {query_length = 4 : i64, group_size = 8 : i64}
        : memref<?x8x512xbf16>, memref<32x512xf32, #gpu.address_space<workgroup>>
    pa.tile.init_softmax %max, %sum, %acc
        : memref<32xf32, #gpu.address_space<workgroup>>, memref<32xf32, #gpu.address_space<workgroup>>,
          memref<32x512xf32, #gpu.address_space<workgroup>>
    scf.for %tile = %c0 to %c1 step %c1 {
      %t64 = arith.index_cast %tile : index to i64
      %ids = pa.tile.page_ids %bt[%c0] tile %tile visible [%lo, %ctx] {page_size = 16 : i64, direct}
          : memref<?x?xi32> -> vector<16xi32>
      pa.tile.qk %qt, %k[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %s
          {page_size = 16 : i64, score_scale = 0.06 : f32, scale = #pa.scale<none>,
           compute = #pa.compute<bf16>}
          : memref<32x512xf32, #gpu.address_space<workgroup>>, memref<?x1x64x16x8xbf16>,
            vector<16xi32>, memref<32x256xf32, #gpu.address_space<workgroup>>
      pa.tile.softmax %s, %max, %sum, %acc context %ctx tile_start %t64 row_base %c0
          {query_length = 4 : i64, group_size = 8 : i64, sliding_window = 0 : i64}
          : memref<32x256xf32, #gpu.address_space<workgroup>>, memref<32xf32, #gpu.address_space<workgroup>>,
            memref<32xf32, #gpu.address_space<workgroup>>, memref<32x512xf32, #gpu.address_space<workgroup>>
      pa.tile.pv %s, %v[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %acc
          {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
           compute = #pa.compute<bf16>}
          : memref<32x256xf32, #gpu.address_space<workgroup>>, memref<?x1x512x16xbf16>,
            vector<16xi32>, memref<32x512xf32, #gpu.address_space<workgroup>>
    }
    pa.tile.store_partials %max, %sum, %acc into %es, %ml, %part [%c0, %c0, %c0] {rows = 32 : i64}
        : memref<32xf32, #gpu.address_space<workgroup>>, memref<32xf32, #gpu.address_space<workgroup>>,
          memref<32x512xf32, #gpu.address_space<workgroup>>, memref<1x?x32xf32>, memref<1x?x32xf32>,
          memref<1x?x32x512xf32>
    gpu.return
  }
}

// -----

// A decode kernel whose tile ops do not have pa-tile's shape: the row
// maxima buffer is also read outside the tile ops.
gpu.module @pa_kernels {
  gpu.func @pa_decode(%q: memref<?x8x64xbf16>, %k: memref<?x1x4x16x16xf8E4M3FNUZ>,
                      %v: memref<?x1x64x16xf8E4M3FNUZ>, %bt: memref<?x?xi32>,
                      %es: memref<1x?x8xf32>, %ml: memref<1x?x8xf32>,
                      %part: memref<1x?x8x64xf32>, %out: memref<16xf32>)
      workgroup(%qt : memref<16x64xf32, #gpu.address_space<workgroup>>,
                %s : memref<16x256xf32, #gpu.address_space<workgroup>>,
                %acc : memref<16x64xf32, #gpu.address_space<workgroup>>,
                %max : memref<16xf32, #gpu.address_space<workgroup>>,
                %sum : memref<16xf32, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %ctx = arith.constant 100 : i64
    %lo = arith.constant 0 : i64
    pa.tile.load_query %q[%c0, %c0, %c0] into %qt {query_length = 1 : i64, group_size = 8 : i64}
        : memref<?x8x64xbf16>, memref<16x64xf32, #gpu.address_space<workgroup>>
    pa.tile.init_softmax %max, %sum, %acc
        : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
          memref<16x64xf32, #gpu.address_space<workgroup>>
    scf.for %tile = %c0 to %c1 step %c1 {
      %t64 = arith.index_cast %tile : index to i64
      %ids = pa.tile.page_ids %bt[%c0] tile %tile visible [%lo, %ctx] {page_size = 16 : i64, direct}
          : memref<?x?xi32> -> vector<16xi32>
      // expected-error @+1 {{pa-to-mfma expects each tile buffer to be a workgroup attribution used by the tile ops only}}
      pa.tile.qk %qt, %k[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %s
          {page_size = 16 : i64, score_scale = 0.18 : f32, scale = #pa.scale<none>,
           compute = #pa.compute<fp8>}
          : memref<16x64xf32, #gpu.address_space<workgroup>>, memref<?x1x4x16x16xf8E4M3FNUZ>,
            vector<16xi32>, memref<16x256xf32, #gpu.address_space<workgroup>>
      pa.tile.softmax %s, %max, %sum, %acc context %ctx tile_start %t64 row_base %c0
          {query_length = 1 : i64, group_size = 8 : i64, sliding_window = 0 : i64}
          : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16xf32, #gpu.address_space<workgroup>>, memref<16x64xf32, #gpu.address_space<workgroup>>
      pa.tile.pv %s, %v[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %acc
          {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
           compute = #pa.compute<fp8>}
          : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<?x1x64x16xf8E4M3FNUZ>,
            vector<16xi32>, memref<16x64xf32, #gpu.address_space<workgroup>>
    }
    %m = memref.load %max[%c4] : memref<16xf32, #gpu.address_space<workgroup>>
    memref.store %m, %out[%c4] : memref<16xf32>
    pa.tile.store_partials %max, %sum, %acc into %es, %ml, %part [%c0, %c0, %c0] {rows = 8 : i64}
        : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
          memref<16x64xf32, #gpu.address_space<workgroup>>, memref<1x?x8xf32>, memref<1x?x8xf32>,
          memref<1x?x8x64xf32>
    gpu.return
  }
}
