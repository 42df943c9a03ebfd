// pa-mfma-layout on checked-in tiled IR (the input of pa-to-mfma, as in
// tiled-ir.mlir): each decode kernel gets the lane mapping pa-to-mfma lowers
// it with, as its pa.mfma_layout; a kernel's own mapping is kept, and
// pa-to-mfma follows it (and drops it with the tile ops). Inputs are written
// with OCP fp8 (gfx950's f8E4M3FN); the gfx942 runs read them as f8E4M3FNUZ.
// RUN: sed -e 's/f8E4M3FN>/f8E4M3FNUZ>/g' %s | pa-opt -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=gfx942},gpu.module(pa-mfma-layout))' \
// RUN:   | FileCheck %s --check-prefixes=CHECK,GFX942
// RUN: pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=gfx950},gpu.module(pa-mfma-layout))' \
// RUN:   | FileCheck %s --check-prefixes=CHECK,GFX950
// RUN: sed -e 's/f8E4M3FN>/f8E4M3FNUZ>/g' %s | pa-opt -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=gfx942},gpu.module(pa-mfma-layout,pa-to-mfma{fp8-residual=none}))' \
// RUN:   | FileCheck %s --check-prefixes=LOWER,LOWER942 --implicit-check-not=pa.mfma_layout
// RUN: pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=gfx950},gpu.module(pa-mfma-layout,pa-to-mfma{fp8-residual=none}))' \
// RUN:   | FileCheck %s --check-prefixes=LOWER,LOWER950 --implicit-check-not=pa.mfma_layout
// (pa-to-mfma drops the mapping with the tile ops: --implicit-check-not.)

// fp8, D = 128, 16 rows: gfx950 multiplies QK with 16x16x128 (both 64-dim
// load chunks at once), gfx942 with 16x16x32.
// CHECK-LABEL: gpu.func @fp8_d128
// GFX942-SAME: kernel attributes {pa.mfma_layout = #pa.mfma_layout<qk = 16x16x32, pv = 16x16x32, m_tiles = 1, wave_tokens = 64, qk_chunks = 2>}
// GFX950-SAME: kernel attributes {pa.mfma_layout = #pa.mfma_layout<qk = 16x16x128, pv = 16x16x32, m_tiles = 1, wave_tokens = 64, qk_chunks = 2>}
// LOWER-LABEL: gpu.func @fp8_d128
// LOWER942-NOT: amdgpu.mfma 16x16x128
// LOWER942:     amdgpu.mfma 16x16x32
// LOWER942-NOT: amdgpu.mfma 16x16x128
// LOWER950:     amdgpu.mfma 16x16x128
// LOWER950:     amdgpu.mfma 16x16x32
// LOWER:        gpu.return
gpu.module @pa_kernels {
  gpu.func @fp8_d128(%q: memref<?x8x128xbf16>, %k: memref<?x1x8x16x16xf8E4M3FN>,
                      %v: memref<?x1x128x16xf8E4M3FN>, %bt: memref<?x?xi32>,
                      %es: memref<1x?x8xf32>, %ml: memref<1x?x8xf32>,
                      %part: memref<1x?x8x128xf32>)
      workgroup(%qt : memref<16x128xf32, #gpu.address_space<workgroup>>,
                %s : memref<16x256xf32, #gpu.address_space<workgroup>>,
                %acc : memref<16x128xf32, #gpu.address_space<workgroup>>,
                %max : memref<16xf32, #gpu.address_space<workgroup>>,
                %sum : memref<16xf32, #gpu.address_space<workgroup>>) kernel {
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

// 32 rows: two M-tiles (16x16x128 on gfx950 up to D = 128).
// CHECK-LABEL: gpu.func @fp8_d128_rows32
// GFX942-SAME: kernel attributes {pa.mfma_layout = #pa.mfma_layout<qk = 16x16x32, pv = 16x16x32, m_tiles = 2, wave_tokens = 64, qk_chunks = 2>}
// GFX950-SAME: kernel attributes {pa.mfma_layout = #pa.mfma_layout<qk = 16x16x128, pv = 16x16x32, m_tiles = 2, wave_tokens = 64, qk_chunks = 2>}
gpu.module @pa_kernels {
  gpu.func @fp8_d128_rows32(%q: memref<?x8x128xbf16>, %k: memref<?x1x8x16x16xf8E4M3FN>,
                      %v: memref<?x1x128x16xf8E4M3FN>, %bt: memref<?x?xi32>,
                      %es: memref<1x?x8xf32>, %ml: memref<1x?x8xf32>,
                      %part: memref<1x?x8x128xf32>)
      workgroup(%qt : memref<32x128xf32, #gpu.address_space<workgroup>>,
                %s : memref<32x256xf32, #gpu.address_space<workgroup>>,
                %acc : memref<32x128xf32, #gpu.address_space<workgroup>>,
                %max : memref<32xf32, #gpu.address_space<workgroup>>,
                %sum : memref<32xf32, #gpu.address_space<workgroup>>) kernel {
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
           compute = #pa.compute<fp8>}
          : memref<32x128xf32, #gpu.address_space<workgroup>>, memref<?x1x8x16x16xf8E4M3FN>,
            vector<16xi32>, memref<32x256xf32, #gpu.address_space<workgroup>>
      pa.tile.softmax %s, %max, %sum, %acc context %ctx tile_start %t64 row_base %c0
          {query_length = 1 : i64, group_size = 8 : i64, sliding_window = 0 : i64}
          : memref<32x256xf32, #gpu.address_space<workgroup>>, memref<32xf32, #gpu.address_space<workgroup>>,
            memref<32xf32, #gpu.address_space<workgroup>>, memref<32x128xf32, #gpu.address_space<workgroup>>
      pa.tile.pv %s, %v[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %acc
          {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
           compute = #pa.compute<fp8>}
          : memref<32x256xf32, #gpu.address_space<workgroup>>, memref<?x1x128x16xf8E4M3FN>,
            vector<16xi32>, memref<32x128xf32, #gpu.address_space<workgroup>>
    }
    pa.tile.store_partials %max, %sum, %acc into %es, %ml, %part [%c0, %c0, %c0] {rows = 8 : i64}
        : memref<32xf32, #gpu.address_space<workgroup>>, memref<32xf32, #gpu.address_space<workgroup>>,
          memref<32x128xf32, #gpu.address_space<workgroup>>, memref<1x?x8xf32>, memref<1x?x8xf32>,
          memref<1x?x8x128xf32>
    gpu.return
  }
}

// -----

// 32 rows at D = 256 with a window (or ALiBi, or per-token scales):
// 16x16x32 on both chips (gfx950 took 260-268 VGPRs, 1 wave, with
// 16x16x128; 243-251, 2 waves, without). Without any of them gfx950 keeps
// 16x16x128 there (mfma-code-objects.mlir, d256 per-tensor q4g8).
// CHECK-LABEL: gpu.func @fp8_d256_rows32_window
// GFX942-SAME: kernel attributes {pa.mfma_layout = #pa.mfma_layout<qk = 16x16x32, pv = 16x16x32, m_tiles = 2, wave_tokens = 64, qk_chunks = 4>}
// GFX950-SAME: kernel attributes {pa.mfma_layout = #pa.mfma_layout<qk = 16x16x32, pv = 16x16x32, m_tiles = 2, wave_tokens = 64, qk_chunks = 4>}
gpu.module @pa_kernels {
  gpu.func @fp8_d256_rows32_window(%q: memref<?x8x256xbf16>, %k: memref<?x1x16x16x16xf8E4M3FN>,
                      %v: memref<?x1x256x16xf8E4M3FN>, %bt: memref<?x?xi32>,
                      %es: memref<1x?x8xf32>, %ml: memref<1x?x8xf32>,
                      %part: memref<1x?x8x256xf32>)
      workgroup(%qt : memref<32x256xf32, #gpu.address_space<workgroup>>,
                %s : memref<32x256xf32, #gpu.address_space<workgroup>>,
                %acc : memref<32x256xf32, #gpu.address_space<workgroup>>,
                %max : memref<32xf32, #gpu.address_space<workgroup>>,
                %sum : memref<32xf32, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %ctx = arith.constant 100 : i64
    %lo = arith.constant 0 : i64
    pa.tile.load_query %q[%c0, %c0, %c0] into %qt {query_length = 1 : i64, group_size = 8 : i64}
        : memref<?x8x256xbf16>, memref<32x256xf32, #gpu.address_space<workgroup>>
    pa.tile.init_softmax %max, %sum, %acc
        : memref<32xf32, #gpu.address_space<workgroup>>, memref<32xf32, #gpu.address_space<workgroup>>,
          memref<32x256xf32, #gpu.address_space<workgroup>>
    scf.for %tile = %c0 to %c1 step %c1 {
      %t64 = arith.index_cast %tile : index to i64
      %ids = pa.tile.page_ids %bt[%c0] tile %tile visible [%lo, %ctx] {page_size = 16 : i64, direct}
          : memref<?x?xi32> -> vector<16xi32>
      pa.tile.qk %qt, %k[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %s
          {page_size = 16 : i64, score_scale = 0.18 : f32, scale = #pa.scale<none>,
           compute = #pa.compute<fp8>}
          : memref<32x256xf32, #gpu.address_space<workgroup>>, memref<?x1x16x16x16xf8E4M3FN>,
            vector<16xi32>, memref<32x256xf32, #gpu.address_space<workgroup>>
      pa.tile.softmax %s, %max, %sum, %acc context %ctx tile_start %t64 row_base %c0
          {query_length = 1 : i64, group_size = 8 : i64, sliding_window = 300 : i64}
          : memref<32x256xf32, #gpu.address_space<workgroup>>, memref<32xf32, #gpu.address_space<workgroup>>,
            memref<32xf32, #gpu.address_space<workgroup>>, memref<32x256xf32, #gpu.address_space<workgroup>>
      pa.tile.pv %s, %v[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %acc
          {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
           compute = #pa.compute<fp8>}
          : memref<32x256xf32, #gpu.address_space<workgroup>>, memref<?x1x256x16xf8E4M3FN>,
            vector<16xi32>, memref<32x256xf32, #gpu.address_space<workgroup>>
    }
    pa.tile.store_partials %max, %sum, %acc into %es, %ml, %part [%c0, %c0, %c0] {rows = 8 : i64}
        : memref<32xf32, #gpu.address_space<workgroup>>, memref<32xf32, #gpu.address_space<workgroup>>,
          memref<32x256xf32, #gpu.address_space<workgroup>>, memref<1x?x8xf32>, memref<1x?x8xf32>,
          memref<1x?x8x256xf32>
    gpu.return
  }
}

// -----

// D = 192 is no whole number of 16x16x128's K: 16x16x32 on both chips,
// three load chunks.
// CHECK-LABEL: gpu.func @fp8_d192
// CHECK-SAME: kernel attributes {pa.mfma_layout = #pa.mfma_layout<qk = 16x16x32, pv = 16x16x32, m_tiles = 1, wave_tokens = 64, qk_chunks = 3>}
gpu.module @pa_kernels {
  gpu.func @fp8_d192(%q: memref<?x8x192xbf16>, %k: memref<?x1x12x16x16xf8E4M3FN>,
                      %v: memref<?x1x192x16xf8E4M3FN>, %bt: memref<?x?xi32>,
                      %es: memref<1x?x8xf32>, %ml: memref<1x?x8xf32>,
                      %part: memref<1x?x8x192xf32>)
      workgroup(%qt : memref<16x192xf32, #gpu.address_space<workgroup>>,
                %s : memref<16x256xf32, #gpu.address_space<workgroup>>,
                %acc : memref<16x192xf32, #gpu.address_space<workgroup>>,
                %max : memref<16xf32, #gpu.address_space<workgroup>>,
                %sum : memref<16xf32, #gpu.address_space<workgroup>>) kernel {
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

// -----

// bf16: 16x16x16 for QK and PV, 16-byte loads of 8 values: 4 chunks.
// CHECK-LABEL: gpu.func @bf16_d128
// CHECK-SAME: kernel attributes {pa.mfma_layout = #pa.mfma_layout<qk = 16x16x16, pv = 16x16x16, m_tiles = 1, wave_tokens = 64, qk_chunks = 4>}
// LOWER-LABEL: gpu.func @bf16_d128
// LOWER-NOT:   amdgpu.mfma 16x16x32
// LOWER:       amdgpu.mfma 16x16x16
// LOWER-NOT:   amdgpu.mfma 16x16x32
// LOWER:       gpu.return
gpu.module @pa_kernels {
  gpu.func @bf16_d128(%q: memref<?x8x128xbf16>, %k: memref<?x1x16x16x8xbf16>,
                      %v: memref<?x1x128x16xbf16>, %bt: memref<?x?xi32>,
                      %es: memref<1x?x8xf32>, %ml: memref<1x?x8xf32>,
                      %part: memref<1x?x8x128xf32>)
      workgroup(%qt : memref<16x128xf32, #gpu.address_space<workgroup>>,
                %s : memref<16x256xf32, #gpu.address_space<workgroup>>,
                %acc : memref<16x128xf32, #gpu.address_space<workgroup>>,
                %max : memref<16xf32, #gpu.address_space<workgroup>>,
                %sum : memref<16xf32, #gpu.address_space<workgroup>>) kernel {
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
           compute = #pa.compute<bf16>}
          : memref<16x128xf32, #gpu.address_space<workgroup>>, memref<?x1x16x16x8xbf16>,
            vector<16xi32>, memref<16x256xf32, #gpu.address_space<workgroup>>
      pa.tile.softmax %s, %max, %sum, %acc context %ctx tile_start %t64 row_base %c0
          {query_length = 1 : i64, group_size = 8 : i64, sliding_window = 0 : i64}
          : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16xf32, #gpu.address_space<workgroup>>, memref<16x128xf32, #gpu.address_space<workgroup>>
      pa.tile.pv %s, %v[%ids, %c0] tile_start %t64 valid [%lo, %ctx] into %acc
          {page_size = 16 : i64, v_layout = #pa.v_layout<plain>, scale = #pa.scale<none>,
           compute = #pa.compute<bf16>}
          : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<?x1x128x16xbf16>,
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

// A kernel's own mapping is kept: 16x16x32 QK on gfx950 too, which
// pa-to-mfma then emits instead of 16x16x128.
// CHECK-LABEL: gpu.func @own_mapping
// CHECK-SAME: kernel attributes {pa.mfma_layout = #pa.mfma_layout<qk = 16x16x32, pv = 16x16x32, m_tiles = 1, wave_tokens = 64, qk_chunks = 2>}
// LOWER-LABEL: gpu.func @own_mapping
// LOWER-NOT:   amdgpu.mfma 16x16x128
// LOWER:       amdgpu.mfma 16x16x32
// LOWER-NOT:   amdgpu.mfma 16x16x128
// LOWER:       gpu.return
gpu.module @pa_kernels {
  gpu.func @own_mapping(%q: memref<?x8x128xbf16>, %k: memref<?x1x8x16x16xf8E4M3FN>,
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
