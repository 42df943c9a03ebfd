// RUN: pa-opt %s -split-input-file -pa-lower-tile-to-loops | FileCheck %s

// The nhd / hnd cache layouts and page sizes above a tile in the host
// lowering: every element address comes from the one layout mapping
// (buildCacheElementIndices).

// pa.tile.qk on nhd keys [N, P, Hkv, D] = [?, 1, 2, 64] (page size 1: 256
// page ids per tile): key element d of the token is [page, slot, head, d].
!q_tile = memref<16x64xf32, #gpu.address_space<workgroup>>
!scores = memref<16x256xf32, #gpu.address_space<workgroup>>
// CHECK-LABEL: gpu.func @qk_nhd
// CHECK-SAME:    (%[[KC:.*]]: memref<?x1x2x64xbf16>, %[[IDS:.*]]: vector<256xi32>, %[[HEAD:.*]]: index
// CHECK:         scf.if
// CHECK:           %[[PAGE_I32:.*]] = vector.extract %[[IDS]][%{{.*}}] : i32 from vector<256xi32>
// CHECK:           %[[PAGE:.*]] = arith.index_cast %[[PAGE_I32]] : i32 to index
// CHECK:           %[[SLOT:.*]] = arith.remui %{{.*}}, %c1 : index
// CHECK:           scf.for %[[D:.*]] = {{.*}} iter_args
// CHECK:             memref.load %[[KC]][%[[PAGE]], %[[SLOT]], %[[HEAD]], %[[D]]] : memref<?x1x2x64xbf16>
gpu.module @pa_kernels {
  gpu.func @qk_nhd(%k: memref<?x1x2x64xbf16>, %ids: vector<256xi32>, %h: index,
                   %t0: i64, %lo: i64, %hi: i64)
      workgroup(%q: !q_tile, %s: !scores) kernel {
    pa.tile.qk %q, %k[%ids, %h] tile_start %t0 valid [%lo, %hi] into %s
        {page_size = 1 : i64, score_scale = 0.5 : f32,
         scale = #pa.scale<none>, compute = #pa.compute<bf16>,
         cache_layout = #pa.cache_layout<nhd>}
        : !q_tile, memref<?x1x2x64xbf16>, vector<256xi32>, !scores
    gpu.return
  }
}

// -----

// pa.tile.pv on hnd values [N, Hkv, P, D] that are a strided view (of a
// combined cache), page size 1024: one page id per tile, the slot is
// tile_start % 1024 + t, and value d is [page, head, slot, d].
!probs = memref<16x256xf32, #gpu.address_space<workgroup>>
!acc = memref<16x64xf32, #gpu.address_space<workgroup>>
// CHECK-LABEL: gpu.func @pv_hnd_page_1024
// CHECK-SAME:    (%[[VC:.*]]: memref<?x2x1024x64xf8E4M3FN, strided<[?, ?, 64, 1], offset: ?>>, %[[IDS:.*]]: vector<1xi32>, %[[HEAD:.*]]: index, %[[T0:[a-z0-9]+]]: i64
// CHECK:         scf.if
// CHECK:           %[[PAGE_I32:.*]] = vector.extract %[[IDS]][%{{.*}}] : i32 from vector<1xi32>
// CHECK:           %[[IN_PAGE:.*]] = arith.remui %[[T0]], %c1024_i64 : i64
// CHECK:           %[[FIRST:.*]] = arith.index_cast %[[IN_PAGE]] : i64 to index
// CHECK:           %[[PAGE:.*]] = arith.index_cast %[[PAGE_I32]] : i32 to index
// CHECK:           %[[SLOT:.*]] = arith.addi %[[FIRST]], %{{.*}} : index
// CHECK:           scf.for %[[D:.*]] =
// CHECK:             memref.load %[[VC]][%[[PAGE]], %[[HEAD]], %[[SLOT]], %[[D]]] : memref<?x2x1024x64xf8E4M3FN, strided<[?, ?, 64, 1], offset: ?>>
gpu.module @pa_kernels {
  gpu.func @pv_hnd_page_1024(
      %v: memref<?x2x1024x64xf8E4M3FN, strided<[?, ?, 64, 1], offset: ?>>,
      %ids: vector<1xi32>, %h: index, %t0: i64, %lo: i64, %hi: i64)
      workgroup(%p: !probs, %acc: !acc) kernel {
    pa.tile.pv %p, %v[%ids, %h] tile_start %t0 valid [%lo, %hi] into %acc
        {page_size = 1024 : i64, v_layout = #pa.v_layout<plain>,
         scale = #pa.scale<none>, compute = #pa.compute<fp8>,
         cache_layout = #pa.cache_layout<hnd>}
        : !probs, memref<?x2x1024x64xf8E4M3FN, strided<[?, ?, 64, 1], offset: ?>>, vector<1xi32>, !acc
    gpu.return
  }
}

// -----

// pa.tile.page_ids with page size 1024: one id, the entry of page
// tile / 4, whose token range starts at that page's first token.
// CHECK-LABEL: gpu.func @page_ids_1024
// CHECK-SAME:    (%[[BT:.*]]: memref<?x?xi32>, %[[SEQ:.*]]: index, %[[TILE:.*]]: index
// CHECK:       %[[FIRST_PAGE:.*]] = arith.divui %[[TILE]], %c4 : index
// CHECK:       %[[PAGE_TILE:.*]] = arith.muli %[[FIRST_PAGE]], %c4 : index
// CHECK:       %[[PAGE_TILE_I64:.*]] = arith.index_cast %[[PAGE_TILE]] : index to i64
// CHECK:       %[[FIRST_TOKEN:.*]] = arith.muli %[[PAGE_TILE_I64]], %c256_i64 : i64
// CHECK:       scf.for %[[K:.*]] = %{{.*}} to %c1 step
// CHECK:         scf.if
// CHECK:           %[[COL:.*]] = arith.addi %[[FIRST_PAGE]], %[[K]] : index
// CHECK:           memref.load %[[BT]][%[[SEQ]], %[[COL]]] : memref<?x?xi32>
gpu.module @pa_kernels {
  gpu.func @page_ids_1024(%bt: memref<?x?xi32>, %seq: index, %tile: index,
                          %lo: i64, %hi: i64, %out: memref<1xi32>) kernel {
    %ids = pa.tile.page_ids %bt[%seq] tile %tile visible [%lo, %hi]
             {page_size = 1024 : i64} : memref<?x?xi32> -> vector<1xi32>
    %c0 = arith.constant 0 : index
    vector.store %ids, %out[%c0] : memref<1xi32>, vector<1xi32>
    gpu.return
  }
}
