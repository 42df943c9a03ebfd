// pa-mfma-layout checks each decode kernel as pa-to-mfma does before it
// attaches a mapping (pa-to-mfma-invalid.mlir has every rule), for the
// module's AMD chip.
// RUN: pa-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=gfx942},gpu.module(pa-mfma-layout))'
// RUN: not pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},gpu.module(pa-mfma-layout))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHIP

// CHIP: error: pa-mfma-layout: sm_90a is not an AMD chip (the module's pa.target)

// An OCP fp8 cache on gfx942 (whose matrix units take f8E4M3FNUZ).
gpu.module @pa_kernels {
  gpu.func @pa_decode(%q: memref<?x8x128xbf16>, %k: memref<?x1x8x16x16xf8E4M3FN>,
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
      // expected-error @+1 {{chip gfx942 takes f8E4M3FNUZ fp8 KV caches, got 'f8E4M3FN'}}
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
