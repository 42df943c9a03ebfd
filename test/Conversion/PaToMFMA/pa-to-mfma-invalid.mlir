// pa-to-mfma checks every decode kernel before rewriting any. The inputs
// are tiled IR (what pa-tile and pa-stage-page-ids hand the pass), checked
// in: each case breaks one rule of the contract the lowering relies on
// (tiled-ir.mlir has tiled IR it takes).
// RUN: pa-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=gfx942},gpu.module(pa-to-mfma))'
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

// -----

// The contract: exactly one of each tile op. Without pa.tile.softmax the
// scores would reach pv unnormalized: refused, at the kernel.
gpu.module @pa_kernels {
  // expected-error @+1 {{pa-to-mfma expects exactly one 'pa.tile.softmax' in a decode kernel, found 0}}
  gpu.func @pa_decode(%q: memref<?x8x64xbf16>, %k: memref<?x1x8x16x8xbf16>,
                      %v: memref<?x1x64x16xbf16>, %bt: memref<?x?xi32>,
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
      pa.tile.qk %qt, %k[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %s
          {page_size = 16 : i64, score_scale = 0.18 : f32, scale = #pa.scale<none>,
           compute = #pa.compute<bf16>}
          : memref<16x64xf32, #gpu.address_space<workgroup>>, memref<?x1x8x16x8xbf16>,
            vector<16xi32>, memref<16x256xf32, #gpu.address_space<workgroup>>
      pa.tile.pv %s, %v[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %acc
          {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
           compute = #pa.compute<bf16>}
          : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<?x1x64x16xbf16>,
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

// Two QK products per tile (one of each tile op, so this is refused too).
gpu.module @pa_kernels {
  // expected-error @+1 {{pa-to-mfma expects exactly one 'pa.tile.qk' in a decode kernel, found 2}}
  gpu.func @pa_decode(%q: memref<?x8x64xbf16>, %k: memref<?x1x8x16x8xbf16>,
                      %v: memref<?x1x64x16xbf16>, %bt: memref<?x?xi32>,
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
      pa.tile.qk %qt, %k[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %s
          {page_size = 16 : i64, score_scale = 0.18 : f32, scale = #pa.scale<none>,
           compute = #pa.compute<bf16>}
          : memref<16x64xf32, #gpu.address_space<workgroup>>, memref<?x1x8x16x8xbf16>,
            vector<16xi32>, memref<16x256xf32, #gpu.address_space<workgroup>>
      pa.tile.qk %qt, %k[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %s
          {page_size = 16 : i64, score_scale = 0.18 : f32, scale = #pa.scale<none>,
           compute = #pa.compute<bf16>}
          : memref<16x64xf32, #gpu.address_space<workgroup>>, memref<?x1x8x16x8xbf16>,
            vector<16xi32>, memref<16x256xf32, #gpu.address_space<workgroup>>
      pa.tile.softmax %s, %max, %sum, %acc context %ctx tile_start %t64 row_base %c0
          {query_length = 1 : i64, group_size = 8 : i64, sliding_window = 0 : i64}
          : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16xf32, #gpu.address_space<workgroup>>, memref<16x64xf32, #gpu.address_space<workgroup>>
      pa.tile.pv %s, %v[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %acc
          {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
           compute = #pa.compute<bf16>}
          : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<?x1x64x16xbf16>,
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

// qk -> softmax -> pv, in that order, in the tile loop: pv before softmax
// would sum unnormalized scores.
gpu.module @pa_kernels {
  gpu.func @pa_decode(%q: memref<?x8x64xbf16>, %k: memref<?x1x8x16x8xbf16>,
                      %v: memref<?x1x64x16xbf16>, %bt: memref<?x?xi32>,
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
      // expected-error @+1 {{pa-to-mfma expects pa.tile.qk, pa.tile.softmax and pa.tile.pv, in that order, directly in the tile loop}}
      pa.tile.qk %qt, %k[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %s
          {page_size = 16 : i64, score_scale = 0.18 : f32, scale = #pa.scale<none>,
           compute = #pa.compute<bf16>}
          : memref<16x64xf32, #gpu.address_space<workgroup>>, memref<?x1x8x16x8xbf16>,
            vector<16xi32>, memref<16x256xf32, #gpu.address_space<workgroup>>
      pa.tile.pv %s, %v[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %acc
          {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
           compute = #pa.compute<bf16>}
          : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<?x1x64x16xbf16>,
            vector<16xi32>, memref<16x64xf32, #gpu.address_space<workgroup>>
      pa.tile.softmax %s, %max, %sum, %acc context %ctx tile_start %t64 row_base %c0
          {query_length = 1 : i64, group_size = 8 : i64, sliding_window = 0 : i64}
          : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16xf32, #gpu.address_space<workgroup>>, memref<16x64xf32, #gpu.address_space<workgroup>>
    }
    pa.tile.store_partials %max, %sum, %acc into %es, %ml, %part [%c0, %c0, %c0] {rows = 8 : i64}
        : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
          memref<16x64xf32, #gpu.address_space<workgroup>>, memref<1x?x8xf32>, memref<1x?x8xf32>,
          memref<1x?x8x64xf32>
    gpu.return
  }
}

// -----

// QK outside the tile loop (once, not per tile).
gpu.module @pa_kernels {
  gpu.func @pa_decode(%q: memref<?x8x64xbf16>, %k: memref<?x1x8x16x8xbf16>,
                      %v: memref<?x1x64x16xbf16>, %bt: memref<?x?xi32>,
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
    %t64 = arith.constant 0 : i64
    %ids = pa.tile.page_ids %bt[%c0] tile %c0 visible [%lo, %ctx] {page_size = 16 : i64, direct}
        : memref<?x?xi32> -> vector<16xi32>
    // expected-error @+1 {{pa-to-mfma expects pa.tile.qk, pa.tile.softmax and pa.tile.pv, in that order, directly in the tile loop}}
    pa.tile.qk %qt, %k[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %s
        {page_size = 16 : i64, score_scale = 0.18 : f32, scale = #pa.scale<none>,
         compute = #pa.compute<bf16>}
        : memref<16x64xf32, #gpu.address_space<workgroup>>, memref<?x1x8x16x8xbf16>,
          vector<16xi32>, memref<16x256xf32, #gpu.address_space<workgroup>>
    scf.for %tile = %c0 to %c1 step %c1 {
      pa.tile.softmax %s, %max, %sum, %acc context %ctx tile_start %t64 row_base %c0
          {query_length = 1 : i64, group_size = 8 : i64, sliding_window = 0 : i64}
          : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16xf32, #gpu.address_space<workgroup>>, memref<16x64xf32, #gpu.address_space<workgroup>>
      pa.tile.pv %s, %v[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %acc
          {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
           compute = #pa.compute<bf16>}
          : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<?x1x64x16xbf16>,
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

// The query load, softmax init, tile loop and partial store in that
// order: partials stored before the loop would be the initial state.
gpu.module @pa_kernels {
  gpu.func @pa_decode(%q: memref<?x8x64xbf16>, %k: memref<?x1x8x16x8xbf16>,
                      %v: memref<?x1x64x16xbf16>, %bt: memref<?x?xi32>,
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
    // expected-error @+1 {{pa-to-mfma expects the query load, softmax init, tile loop and partial store in that order}}
    pa.tile.store_partials %max, %sum, %acc into %es, %ml, %part [%c0, %c0, %c0] {rows = 8 : i64}
        : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
          memref<16x64xf32, #gpu.address_space<workgroup>>, memref<1x?x8xf32>, memref<1x?x8xf32>,
          memref<1x?x8x64xf32>
    scf.for %tile = %c0 to %c1 step %c1 {
      %t64 = arith.index_cast %tile : index to i64
      %ids = pa.tile.page_ids %bt[%c0] tile %tile visible [%lo, %ctx] {page_size = 16 : i64, direct}
          : memref<?x?xi32> -> vector<16xi32>
      pa.tile.qk %qt, %k[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %s
          {page_size = 16 : i64, score_scale = 0.18 : f32, scale = #pa.scale<none>,
           compute = #pa.compute<bf16>}
          : memref<16x64xf32, #gpu.address_space<workgroup>>, memref<?x1x8x16x8xbf16>,
            vector<16xi32>, memref<16x256xf32, #gpu.address_space<workgroup>>
      pa.tile.softmax %s, %max, %sum, %acc context %ctx tile_start %t64 row_base %c0
          {query_length = 1 : i64, group_size = 8 : i64, sliding_window = 0 : i64}
          : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16xf32, #gpu.address_space<workgroup>>, memref<16x64xf32, #gpu.address_space<workgroup>>
      pa.tile.pv %s, %v[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %acc
          {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
           compute = #pa.compute<bf16>}
          : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<?x1x64x16xbf16>,
            vector<16xi32>, memref<16x64xf32, #gpu.address_space<workgroup>>
    }
    gpu.return
  }
}

// -----

// The softmax init inside an scf.if: not in the block of the others.
gpu.module @pa_kernels {
  gpu.func @pa_decode(%q: memref<?x8x64xbf16>, %k: memref<?x1x8x16x8xbf16>,
                      %v: memref<?x1x64x16xbf16>, %bt: memref<?x?xi32>,
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
    %always = arith.constant true
    scf.if %always {
      // expected-error @+1 {{pa-to-mfma expects the query load, softmax init, tile loop and partial store in one block}}
      pa.tile.init_softmax %max, %sum, %acc
          : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16x64xf32, #gpu.address_space<workgroup>>
    }
    scf.for %tile = %c0 to %c1 step %c1 {
      %t64 = arith.index_cast %tile : index to i64
      %ids = pa.tile.page_ids %bt[%c0] tile %tile visible [%lo, %ctx] {page_size = 16 : i64, direct}
          : memref<?x?xi32> -> vector<16xi32>
      pa.tile.qk %qt, %k[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %s
          {page_size = 16 : i64, score_scale = 0.18 : f32, scale = #pa.scale<none>,
           compute = #pa.compute<bf16>}
          : memref<16x64xf32, #gpu.address_space<workgroup>>, memref<?x1x8x16x8xbf16>,
            vector<16xi32>, memref<16x256xf32, #gpu.address_space<workgroup>>
      pa.tile.softmax %s, %max, %sum, %acc context %ctx tile_start %t64 row_base %c0
          {query_length = 1 : i64, group_size = 8 : i64, sliding_window = 0 : i64}
          : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16xf32, #gpu.address_space<workgroup>>, memref<16x64xf32, #gpu.address_space<workgroup>>
      pa.tile.pv %s, %v[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %acc
          {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
           compute = #pa.compute<bf16>}
          : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<?x1x64x16xbf16>,
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

// The tile state lives in the tile buffers: a tile loop carrying values
// of its own is not pa-tile's.
gpu.module @pa_kernels {
  gpu.func @pa_decode(%q: memref<?x8x64xbf16>, %k: memref<?x1x8x16x8xbf16>,
                      %v: memref<?x1x64x16xbf16>, %bt: memref<?x?xi32>,
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
    %zero = arith.constant 0 : i64
    // expected-error @+1 {{pa-to-mfma expects a tile loop without loop-carried values}}
    %count = scf.for %tile = %c0 to %c1 step %c1 iter_args(%n = %zero) -> (i64) {
      %t64 = arith.index_cast %tile : index to i64
      %ids = pa.tile.page_ids %bt[%c0] tile %tile visible [%lo, %ctx] {page_size = 16 : i64, direct}
          : memref<?x?xi32> -> vector<16xi32>
      pa.tile.qk %qt, %k[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %s
          {page_size = 16 : i64, score_scale = 0.18 : f32, scale = #pa.scale<none>,
           compute = #pa.compute<bf16>}
          : memref<16x64xf32, #gpu.address_space<workgroup>>, memref<?x1x8x16x8xbf16>,
            vector<16xi32>, memref<16x256xf32, #gpu.address_space<workgroup>>
      pa.tile.softmax %s, %max, %sum, %acc context %ctx tile_start %t64 row_base %c0
          {query_length = 1 : i64, group_size = 8 : i64, sliding_window = 0 : i64}
          : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16xf32, #gpu.address_space<workgroup>>, memref<16x64xf32, #gpu.address_space<workgroup>>
      pa.tile.pv %s, %v[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %acc
          {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
           compute = #pa.compute<bf16>}
          : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<?x1x64x16xbf16>,
            vector<16xi32>, memref<16x64xf32, #gpu.address_space<workgroup>>
      %next = arith.addi %n, %t64 : i64
      scf.yield %next : i64
    }
    pa.tile.store_partials %max, %sum, %acc into %es, %ml, %part [%c0, %c0, %c0] {rows = 8 : i64}
        : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
          memref<16x64xf32, #gpu.address_space<workgroup>>, memref<1x?x8xf32>, memref<1x?x8xf32>,
          memref<1x?x8x64xf32>
    gpu.return
  }
}

// -----

// The tile ops communicate through shared tile buffers: a softmax on
// other scores than the QK wrote breaks the chain.
gpu.module @pa_kernels {
  gpu.func @pa_decode(%q: memref<?x8x64xbf16>, %k: memref<?x1x8x16x8xbf16>,
                      %v: memref<?x1x64x16xbf16>, %bt: memref<?x?xi32>,
                      %es: memref<1x?x8xf32>, %ml: memref<1x?x8xf32>,
                      %part: memref<1x?x8x64xf32>)
      workgroup(%qt : memref<16x64xf32, #gpu.address_space<workgroup>>,
                %s : memref<16x256xf32, #gpu.address_space<workgroup>>,
                %acc : memref<16x64xf32, #gpu.address_space<workgroup>>,
                %max : memref<16xf32, #gpu.address_space<workgroup>>,
                %sum : memref<16xf32, #gpu.address_space<workgroup>>,
                %s2 : memref<16x256xf32, #gpu.address_space<workgroup>>) kernel {
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
      // expected-error @+1 {{pa-to-mfma expects the tile ops to share their tile buffers (query tile, scores, row max, row sum, accumulator)}}
      pa.tile.qk %qt, %k[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %s
          {page_size = 16 : i64, score_scale = 0.18 : f32, scale = #pa.scale<none>,
           compute = #pa.compute<bf16>}
          : memref<16x64xf32, #gpu.address_space<workgroup>>, memref<?x1x8x16x8xbf16>,
            vector<16xi32>, memref<16x256xf32, #gpu.address_space<workgroup>>
      pa.tile.softmax %s2, %max, %sum, %acc context %ctx tile_start %t64 row_base %c0
          {query_length = 1 : i64, group_size = 8 : i64, sliding_window = 0 : i64}
          : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16xf32, #gpu.address_space<workgroup>>, memref<16x64xf32, #gpu.address_space<workgroup>>
      pa.tile.pv %s2, %v[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %acc
          {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
           compute = #pa.compute<bf16>}
          : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<?x1x64x16xbf16>,
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

// ALiBi adds its bias to the scores between qk and softmax; after the
// softmax it would miss this tile's weights.
gpu.module @pa_kernels {
  gpu.func @pa_decode(%q: memref<?x8x64xbf16>, %k: memref<?x1x8x16x8xbf16>,
                      %v: memref<?x1x64x16xbf16>, %bt: memref<?x?xi32>,
                      %es: memref<1x?x8xf32>, %ml: memref<1x?x8xf32>,
                      %part: memref<1x?x8x64xf32>, %slopes: memref<?xf32>)
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
      pa.tile.qk %qt, %k[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %s
          {page_size = 16 : i64, score_scale = 0.18 : f32, scale = #pa.scale<none>,
           compute = #pa.compute<bf16>}
          : memref<16x64xf32, #gpu.address_space<workgroup>>, memref<?x1x8x16x8xbf16>,
            vector<16xi32>, memref<16x256xf32, #gpu.address_space<workgroup>>
      pa.tile.softmax %s, %max, %sum, %acc context %ctx tile_start %t64 row_base %c0
          {query_length = 1 : i64, group_size = 8 : i64, sliding_window = 0 : i64}
          : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16xf32, #gpu.address_space<workgroup>>, memref<16x64xf32, #gpu.address_space<workgroup>>
      // expected-error @+1 {{pa-to-mfma expects pa.tile.alibi between pa.tile.qk and pa.tile.softmax, on their scores, rows, tile and KV head}}
      pa.tile.alibi %s, %slopes[%c0] context %ctx tile_start %t64 row_base %c0
          {query_length = 1 : i64, group_size = 8 : i64}
          : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<?xf32>
      pa.tile.pv %s, %v[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %acc
          {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
           compute = #pa.compute<bf16>}
          : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<?x1x64x16xbf16>,
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

// Row groups are one or two 16-row M-tiles (pa-tile makes 16 or 32).
gpu.module @pa_kernels {
  gpu.func @pa_decode(%q: memref<?x8x64xbf16>, %k: memref<?x1x8x16x8xbf16>,
                      %v: memref<?x1x64x16xbf16>, %bt: memref<?x?xi32>,
                      %es: memref<1x?x8xf32>, %ml: memref<1x?x8xf32>,
                      %part: memref<1x?x8x64xf32>)
      workgroup(%qt : memref<48x64xf32, #gpu.address_space<workgroup>>,
                %s : memref<48x256xf32, #gpu.address_space<workgroup>>,
                %acc : memref<48x64xf32, #gpu.address_space<workgroup>>,
                %max : memref<48xf32, #gpu.address_space<workgroup>>,
                %sum : memref<48xf32, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %ctx = arith.constant 100 : i64
    %lo = arith.constant 0 : i64
    // expected-error @+1 {{pa-to-mfma supports row groups of 16 or 32 rows (one or two 16-row M-tiles), got 48}}
    pa.tile.load_query %q[%c0, %c0, %c0] into %qt {query_length = 1 : i64, group_size = 48 : i64}
        : memref<?x8x64xbf16>, memref<48x64xf32, #gpu.address_space<workgroup>>
    pa.tile.init_softmax %max, %sum, %acc
        : memref<48xf32, #gpu.address_space<workgroup>>, memref<48xf32, #gpu.address_space<workgroup>>,
          memref<48x64xf32, #gpu.address_space<workgroup>>
    scf.for %tile = %c0 to %c1 step %c1 {
      %t64 = arith.index_cast %tile : index to i64
      %ids = pa.tile.page_ids %bt[%c0] tile %tile visible [%lo, %ctx] {page_size = 16 : i64, direct}
          : memref<?x?xi32> -> vector<16xi32>
      pa.tile.qk %qt, %k[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %s
          {page_size = 16 : i64, score_scale = 0.18 : f32, scale = #pa.scale<none>,
           compute = #pa.compute<bf16>}
          : memref<48x64xf32, #gpu.address_space<workgroup>>, memref<?x1x8x16x8xbf16>,
            vector<16xi32>, memref<48x256xf32, #gpu.address_space<workgroup>>
      pa.tile.softmax %s, %max, %sum, %acc context %ctx tile_start %t64 row_base %c0
          {query_length = 1 : i64, group_size = 8 : i64, sliding_window = 0 : i64}
          : memref<48x256xf32, #gpu.address_space<workgroup>>, memref<48xf32, #gpu.address_space<workgroup>>,
            memref<48xf32, #gpu.address_space<workgroup>>, memref<48x64xf32, #gpu.address_space<workgroup>>
      pa.tile.pv %s, %v[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %acc
          {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
           compute = #pa.compute<bf16>}
          : memref<48x256xf32, #gpu.address_space<workgroup>>, memref<?x1x64x16xbf16>,
            vector<16xi32>, memref<48x64xf32, #gpu.address_space<workgroup>>
    }
    pa.tile.store_partials %max, %sum, %acc into %es, %ml, %part [%c0, %c0, %c0] {rows = 8 : i64}
        : memref<48xf32, #gpu.address_space<workgroup>>, memref<48xf32, #gpu.address_space<workgroup>>,
          memref<48x64xf32, #gpu.address_space<workgroup>>, memref<1x?x8xf32>, memref<1x?x8xf32>,
          memref<1x?x8x64xf32>
    gpu.return
  }
}

// -----

// With Q > 1 some rows see tokens others do not; their values are read
// outside the shared product, by the page ids pa-tile guards with the pool
// size (select(ids < N, ids, 0)). Unguarded ids are refused.
gpu.module @pa_kernels {
  // expected-error @+1 {{pa-to-mfma: expected the tile's page ids guarded by the pool size}}
  gpu.func @pa_decode(%q: memref<?x8x64xbf16>, %k: memref<?x1x8x16x8xbf16>,
                      %v: memref<?x1x64x16xbf16>, %bt: memref<?x?xi32>,
                      %es: memref<1x?x16xf32>, %ml: memref<1x?x16xf32>,
                      %part: memref<1x?x16x64xf32>)
      workgroup(%qt : memref<16x64xf32, #gpu.address_space<workgroup>>,
                %s : memref<16x256xf32, #gpu.address_space<workgroup>>,
                %acc : memref<16x64xf32, #gpu.address_space<workgroup>>,
                %max : memref<16xf32, #gpu.address_space<workgroup>>,
                %sum : memref<16xf32, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %ctx = arith.constant 100 : i64
    %lo = arith.constant 0 : i64
    pa.tile.load_query %q[%c0, %c0, %c0] into %qt {query_length = 2 : i64, group_size = 8 : i64}
        : memref<?x8x64xbf16>, memref<16x64xf32, #gpu.address_space<workgroup>>
    pa.tile.init_softmax %max, %sum, %acc
        : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
          memref<16x64xf32, #gpu.address_space<workgroup>>
    scf.for %tile = %c0 to %c1 step %c1 {
      %t64 = arith.index_cast %tile : index to i64
      %ids = pa.tile.page_ids %bt[%c0] tile %tile visible [%lo, %ctx] {page_size = 16 : i64, direct}
          : memref<?x?xi32> -> vector<16xi32>
      pa.tile.qk %qt, %k[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %s
          {page_size = 16 : i64, score_scale = 0.18 : f32, scale = #pa.scale<none>,
           compute = #pa.compute<bf16>}
          : memref<16x64xf32, #gpu.address_space<workgroup>>, memref<?x1x8x16x8xbf16>,
            vector<16xi32>, memref<16x256xf32, #gpu.address_space<workgroup>>
      pa.tile.softmax %s, %max, %sum, %acc context %ctx tile_start %t64 row_base %c0
          {query_length = 2 : i64, group_size = 8 : i64, sliding_window = 0 : i64}
          : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16xf32, #gpu.address_space<workgroup>>, memref<16x64xf32, #gpu.address_space<workgroup>>
      pa.tile.pv %s, %v[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %acc
          {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
           compute = #pa.compute<bf16>}
          : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<?x1x64x16xbf16>,
            vector<16xi32>, memref<16x64xf32, #gpu.address_space<workgroup>>
    }
    pa.tile.store_partials %max, %sum, %acc into %es, %ml, %part [%c0, %c0, %c0] {rows = 16 : i64}
        : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
          memref<16x64xf32, #gpu.address_space<workgroup>>, memref<1x?x16xf32>, memref<1x?x16xf32>,
          memref<1x?x16x64xf32>
    gpu.return
  }
}

// -----

// qk and pv of one tile on other page ids: V of other pages than K.
// (pa-to-mfma took this kernel before the shared contract, TiledDecode.h,
// reading V by the qk's ids.)
gpu.module @pa_kernels {
  gpu.func @pa_decode(%q: memref<?x8x64xbf16>, %k: memref<?x1x8x16x8xbf16>,
                      %v: memref<?x1x64x16xbf16>, %bt: memref<?x?xi32>,
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
      %ids2 = pa.tile.page_ids %bt[%c1] tile %tile visible [%lo, %ctx] {page_size = 16 : i64, direct}
          : memref<?x?xi32> -> vector<16xi32>
      pa.tile.qk %qt, %k[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %s
          {page_size = 16 : i64, score_scale = 0.18 : f32, scale = #pa.scale<none>,
           compute = #pa.compute<bf16>}
          : memref<16x64xf32, #gpu.address_space<workgroup>>, memref<?x1x8x16x8xbf16>,
            vector<16xi32>, memref<16x256xf32, #gpu.address_space<workgroup>>
      pa.tile.softmax %s, %max, %sum, %acc context %ctx tile_start %t64 row_base %c0
          {query_length = 1 : i64, group_size = 8 : i64, sliding_window = 0 : i64}
          : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16xf32, #gpu.address_space<workgroup>>, memref<16x64xf32, #gpu.address_space<workgroup>>
      // expected-error @+1 {{pa-to-mfma expects pa.tile.qk, pa.tile.softmax and pa.tile.pv on one tile (one tile start, the same page ids in qk and pv)}}
      pa.tile.pv %s, %v[%ids2, %c0] tile_start %t64 valid [%lo, %ctx] into %acc
          {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
           compute = #pa.compute<bf16>}
          : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<?x1x64x16xbf16>,
            vector<16xi32>, memref<16x64xf32, #gpu.address_space<workgroup>>
    }
    pa.tile.store_partials %max, %sum, %acc into %es, %ml, %part [%c0, %c0, %c0] {rows = 8 : i64}
        : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
          memref<16x64xf32, #gpu.address_space<workgroup>>, memref<1x?x8xf32>, memref<1x?x8xf32>,
          memref<1x?x8x64xf32>
    gpu.return
  }
}
