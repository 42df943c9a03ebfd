// RUN: pa-opt %s -split-input-file -pa-lower-tile-to-loops | FileCheck %s

// pa.tile.page_ids: a loop over the 16 pages of the tile building the vector
// with vector.insert; the block-table load sits in an scf.if on "the page's
// token range [tile*256 + k*16, +16) meets [lo, hi)".

// CHECK-LABEL: gpu.func @page_ids
// CHECK-SAME:    (%[[BT:.*]]: memref<?x?xi32>, %[[SEQ:.*]]: index, %[[TILE:.*]]: index, %[[LO:.*]]: i64, %[[HI:.*]]: i64
// CHECK-NOT:   pa.tile
// CHECK-DAG:   %[[ZEROS:.*]] = arith.constant dense<0> : vector<16xi32>
// CHECK-DAG:   %[[ZERO_ID:.*]] = arith.constant 0 : i32
// CHECK:       %[[FIRST_PAGE:.*]] = arith.muli %[[TILE]], %c16
// CHECK:       %[[TILE_I64:.*]] = arith.index_cast %[[TILE]] : index to i64
// CHECK:       %[[FIRST_TOKEN:.*]] = arith.muli %[[TILE_I64]], %c256_i64
// CHECK:       %[[IDS:.*]] = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZEROS]]) -> (vector<16xi32>)
// CHECK:         %[[K_I64:.*]] = arith.index_cast %[[K]] : index to i64
// CHECK:         %[[OFFSET:.*]] = arith.muli %[[K_I64]], %c16_i64
// CHECK:         %[[PAGE_BEGIN:.*]] = arith.addi %[[FIRST_TOKEN]], %[[OFFSET]] : i64
// CHECK:         %[[PAGE_END:.*]] = arith.addi %[[PAGE_BEGIN]], %{{.*}} : i64
// CHECK:         %[[OV_BEGIN:.*]] = arith.maxsi %[[PAGE_BEGIN]], %[[LO]] : i64
// CHECK:         %[[OV_END:.*]] = arith.minsi %[[PAGE_END]], %[[HI]] : i64
// CHECK:         %[[VISIBLE:.*]] = arith.cmpi slt, %[[OV_BEGIN]], %[[OV_END]] : i64
// CHECK:         %[[ID:.*]] = scf.if %[[VISIBLE]] -> (i32) {
// CHECK:           %[[COL:.*]] = arith.addi %[[FIRST_PAGE]], %[[K]] : index
// CHECK:           %[[LOADED:.*]] = memref.load %[[BT]][%[[SEQ]], %[[COL]]] : memref<?x?xi32>
// CHECK:           scf.yield %[[LOADED]] : i32
// CHECK:         } else {
// CHECK-NEXT:      scf.yield %[[ZERO_ID]] : i32
// CHECK:         }
// CHECK:         %[[INSERTED:.*]] = vector.insert %[[ID]], %[[ACC]] [%[[K]]] : i32 into vector<16xi32>
// CHECK:         scf.yield %[[INSERTED]] : vector<16xi32>
// CHECK:       vector.store %[[IDS]]
gpu.module @pa_kernels {
  gpu.func @page_ids(%bt: memref<?x?xi32>, %seq: index, %tile: index,
                     %lo: i64, %hi: i64, %out: memref<16xi32>) kernel {
    %ids = pa.tile.page_ids %bt[%seq] tile %tile visible [%lo, %hi]
             {page_size = 16 : i64} : memref<?x?xi32> -> vector<16xi32>
    %c0 = arith.constant 0 : index
    vector.store %ids, %out[%c0] : memref<16xi32>, vector<16xi32>
    gpu.return
  }
}

// -----

// pa.tile.load_query: query rows r = row_base + m < Q*G = 8 gather
// query[seq*2 + r/4][h*4 + r%4][d] widened with extf; padding rows get 0.
// Then every element of the row plus sum_d 0 * q_d: NaN for all of a row
// holding a NaN or infinity, unchanged otherwise.

!q_tile = memref<16x64xf32, #gpu.address_space<workgroup>>
// CHECK-LABEL: gpu.func @load_query
// CHECK-SAME:    (%[[QUERY:.*]]: memref<?x8x64xbf16>, %[[SEQ:.*]]: index, %[[HEAD:.*]]: index, %[[BASE:.*]]: index) workgroup(%[[TILE:.*]] : memref<16x64xf32
// CHECK:       %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:       scf.for %[[M:.*]] = %{{.*}} to %c16
// CHECK:         %[[ROW:.*]] = arith.addi %[[BASE]], %[[M]] : index
// CHECK:         %[[IS_ROW:.*]] = arith.cmpi ult, %[[ROW]], %c8 : index
// CHECK:         scf.if %[[IS_ROW]] {
// CHECK:           %[[SEQ_ROW:.*]] = arith.muli %[[SEQ]], %c2
// CHECK:           %[[POS:.*]] = arith.divui %[[ROW]], %c4
// CHECK:           %[[QROW:.*]] = arith.addi %[[SEQ_ROW]], %[[POS]]
// CHECK:           %[[HEAD_BASE:.*]] = arith.muli %[[HEAD]], %c4
// CHECK:           %[[MEMBER:.*]] = arith.remui %[[ROW]], %c4
// CHECK:           %[[QHEAD:.*]] = arith.addi %[[HEAD_BASE]], %[[MEMBER]]
// CHECK:           scf.for %[[D:.*]] =
// CHECK:             %[[RAW:.*]] = memref.load %[[QUERY]][%[[QROW]], %[[QHEAD]], %[[D]]] : memref<?x8x64xbf16>
// CHECK:             %[[WIDE:.*]] = arith.extf %[[RAW]] : bf16 to f32
// CHECK:             memref.store %[[WIDE]], %[[TILE]][%[[M]], %[[D]]]
// CHECK:           %[[POISON:.*]] = scf.for %[[D3:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32)
// CHECK:             %[[Q:.*]] = memref.load %[[TILE]][%[[M]], %[[D3]]]
// CHECK:             %[[TIMES0:.*]] = arith.mulf %[[Q]], %[[ZERO]] : f32
// CHECK:             %[[NEXT:.*]] = arith.addf %[[ACC]], %[[TIMES0]] : f32
// CHECK:             scf.yield %[[NEXT]]
// CHECK:           scf.for %[[D4:.*]] =
// CHECK:             %[[Q2:.*]] = memref.load %[[TILE]][%[[M]], %[[D4]]]
// CHECK:             %[[POISONED:.*]] = arith.addf %[[Q2]], %[[POISON]] : f32
// CHECK:             memref.store %[[POISONED]], %[[TILE]][%[[M]], %[[D4]]]
// CHECK:         } else {
// CHECK:           scf.for %[[D2:.*]] =
// CHECK:             memref.store %[[ZERO]], %[[TILE]][%[[M]], %[[D2]]]
gpu.module @pa_kernels {
  gpu.func @load_query(%query: memref<?x8x64xbf16>, %seq: index, %h: index,
                       %r0: index) workgroup(%q: !q_tile) kernel {
    pa.tile.load_query %query[%seq, %h, %r0] into %q
        {query_length = 2 : i64, group_size = 4 : i64}
        : memref<?x8x64xbf16>, !q_tile
    gpu.return
  }
}

// -----

// pa.tile.load_query of a strided query (a view of a fused qkv tensor,
// strided<[?, 64, 1]>): the same gather, each element loaded through the
// strided memref (the host descriptor's row stride).

!q_tile_s = memref<16x64xf32, #gpu.address_space<workgroup>>
// CHECK-LABEL: gpu.func @load_strided_query
// CHECK-SAME:    (%[[QUERY:.*]]: memref<?x8x64xbf16, strided<[?, 64, 1]>>,
// CHECK:           memref.load %[[QUERY]][%{{.*}}, %{{.*}}, %{{.*}}] : memref<?x8x64xbf16, strided<[?, 64, 1]>>
gpu.module @pa_kernels {
  gpu.func @load_strided_query(%query: memref<?x8x64xbf16, strided<[?, 64, 1]>>,
                               %seq: index, %h: index,
                               %r0: index) workgroup(%q: !q_tile_s) kernel {
    pa.tile.load_query %query[%seq, %h, %r0] into %q
        {query_length = 2 : i64, group_size = 4 : i64}
        : memref<?x8x64xbf16, strided<[?, 64, 1]>>, !q_tile_s
    gpu.return
  }
}

// -----

!rows = memref<16xf32, #gpu.address_space<workgroup>>
!acc = memref<16x64xf32, #gpu.address_space<workgroup>>
// CHECK-LABEL: gpu.func @init_softmax
// CHECK-SAME:    workgroup(%[[MAX:.*]] : memref<16xf32, #gpu.address_space<workgroup>>, %[[SUM:.*]] : memref<16xf32, #gpu.address_space<workgroup>>, %[[ACC:.*]] : memref<16x64xf32
// CHECK-DAG:   %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG:   %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:       scf.for %[[M:.*]] =
// CHECK:         memref.store %[[NEG_INF]], %[[MAX]][%[[M]]]
// CHECK:         memref.store %[[ZERO]], %[[SUM]][%[[M]]]
// CHECK:         scf.for %[[D:.*]] =
// CHECK:           memref.store %[[ZERO]], %[[ACC]][%[[M]], %[[D]]]
gpu.module @pa_kernels {
  gpu.func @init_softmax() workgroup(%max: !rows, %sum: !rows, %acc: !acc) kernel {
    pa.tile.init_softmax %max, %sum, %acc : !rows, !rows, !acc
    gpu.return
  }
}

// -----

// pa.tile.qk, packed fp8 keys [N, 2, 64/16, 16, 16], per-token scales: the
// column loop tests the token's validity first; the key loads, the page-id
// extraction and the scale load are all inside the scf.if; invalid columns
// only store 0.

!q_tile = memref<16x64xf32, #gpu.address_space<workgroup>>
!scores = memref<16x256xf32, #gpu.address_space<workgroup>>
// CHECK-LABEL: gpu.func @qk
// CHECK-SAME:    (%[[KC:.*]]: memref<?x2x4x16x16xf8E4M3FN>, %[[IDS:.*]]: vector<16xi32>, %[[HEAD:.*]]: index, %[[T0:.*]]: i64, %[[LO:.*]]: i64, %[[HI:.*]]: i64, %[[KS:.*]]: memref<?x2x16xf32>) workgroup(%[[Q:.*]] : memref<16x64xf32, #gpu.address_space<workgroup>>, %[[S:.*]] : memref<16x256xf32
// CHECK:       %[[SCORE_SCALE:.*]] = arith.constant 5.000000e-01 : f32
// CHECK:       scf.for %[[T:.*]] = %{{.*}} to %c256
// CHECK-NOT:     memref.load
// CHECK:         %[[T_I64:.*]] = arith.index_cast %[[T]] : index to i64
// CHECK:         %[[TOKEN:.*]] = arith.addi %[[T0]], %[[T_I64]] : i64
// CHECK:         %[[GE:.*]] = arith.cmpi sge, %[[TOKEN]], %[[LO]] : i64
// CHECK:         %[[LT:.*]] = arith.cmpi slt, %[[TOKEN]], %[[HI]] : i64
// CHECK:         %[[VALID:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK:         scf.if %[[VALID]] {
// CHECK:           %[[PAGE_IDX:.*]] = arith.divui %[[T]], %[[P:.*]] : index
// CHECK:           %[[PAGE_I32:.*]] = vector.extract %[[IDS]][%[[PAGE_IDX]]] : i32 from vector<16xi32>
// CHECK:           %[[PAGE:.*]] = arith.index_cast %[[PAGE_I32]] : i32 to index
// CHECK:           %[[SLOT:.*]] = arith.remui %[[T]], %[[P]] : index
// CHECK:           %[[KSCALE:.*]] = memref.load %[[KS]][%[[PAGE]], %[[HEAD]], %[[SLOT]]] : memref<?x2x16xf32>
// CHECK:           %[[COL_SCALE:.*]] = arith.mulf %[[SCORE_SCALE]], %[[KSCALE]] : f32
// CHECK:           scf.for %[[M:.*]] =
// CHECK:             %[[DOT:.*]] = scf.for %[[D:.*]] = {{.*}} iter_args(%[[SUM:.*]] = %{{.*}}) -> (f32)
// CHECK:               %[[D_HI:.*]] = arith.divui %[[D]], %[[X:.*]] : index
// CHECK:               %[[D_LO:.*]] = arith.remui %[[D]], %[[X]] : index
// CHECK:               %[[K_RAW:.*]] = memref.load %[[KC]][%[[PAGE]], %[[HEAD]], %[[D_HI]], %[[SLOT]], %[[D_LO]]] : memref<?x2x4x16x16xf8E4M3FN>
// CHECK:               %[[K:.*]] = arith.extf %[[K_RAW]] : f8E4M3FN to f32
// CHECK:               %[[QV:.*]] = memref.load %[[Q]][%[[M]], %[[D]]]
// CHECK:               %[[PROD:.*]] = arith.mulf %[[QV]], %[[K]] : f32
// CHECK:               %[[NEXT:.*]] = arith.addf %[[SUM]], %[[PROD]] : f32
// CHECK:               scf.yield %[[NEXT]] : f32
// A score that is not finite is NaN (s * 0 + s), so that a real -inf makes
// its row NaN instead of weighing 0 like a masked one.
// CHECK:             %[[RAW_SCORE:.*]] = arith.mulf %[[DOT]], %[[COL_SCALE]] : f32
// CHECK:             %[[SCORE:.*]] = math.fma %[[RAW_SCORE]], %{{.*}}, %[[RAW_SCORE]] : f32
// CHECK:             memref.store %[[SCORE]], %[[S]][%[[M]], %[[T]]]
// CHECK:         } else {
// CHECK-NOT:       memref.load
// CHECK:           scf.for %[[M2:.*]] =
// CHECK:             memref.store %{{.*}}, %[[S]][%[[M2]], %[[T]]]
// CHECK:         }
// CHECK:       gpu.return
gpu.module @pa_kernels {
  gpu.func @qk(%k: memref<?x2x4x16x16xf8E4M3FN>, %ids: vector<16xi32>, %h: index,
               %t0: i64, %lo: i64, %hi: i64, %ks: memref<?x2x16xf32>)
      workgroup(%q: !q_tile, %s: !scores) kernel {
    pa.tile.qk %q, %k[%ids, %h] tile_start %t0 valid [%lo, %hi] k_scale(%ks : memref<?x2x16xf32>) into %s
        {page_size = 16 : i64, score_scale = 0.5 : f32,
         scale = #pa.scale<per_token>, compute = #pa.compute<fp8>}
        : !q_tile, memref<?x2x4x16x16xf8E4M3FN>, vector<16xi32>, !scores
    gpu.return
  }
}

// -----

// pa.tile.qk without scales, bf16 keys (x = 8), page size 64: the column
// scale is score_scale alone; the page of column t is t / 64.

!q_tile = memref<32x64xf32, #gpu.address_space<workgroup>>
!scores = memref<32x256xf32, #gpu.address_space<workgroup>>
// CHECK-LABEL: gpu.func @qk_bf16_no_scale
// CHECK:       scf.if
// CHECK:         arith.divui %{{.*}}, %c64 : index
// CHECK:         vector.extract %{{.*}} : i32 from vector<4xi32>
// CHECK:         arith.remui %{{.*}}, %c64 : index
// CHECK-NOT:     memref.load {{.*}}xf32>
// CHECK:         arith.mulf %{{.*}}, %cst{{.*}} : f32
// CHECK:         scf.for {{.*}} to %c32
// CHECK:           arith.divui %{{.*}}, %c8
// CHECK:           arith.remui %{{.*}}, %c8
// CHECK:           memref.load {{.*}} : memref<?x4x8x64x8xbf16>
// CHECK:           arith.extf {{.*}} : bf16 to f32
gpu.module @pa_kernels {
  gpu.func @qk_bf16_no_scale(%k: memref<?x4x8x64x8xbf16>, %ids: vector<4xi32>,
                             %h: index, %t0: i64, %lo: i64, %hi: i64)
      workgroup(%q: !q_tile, %s: !scores) kernel {
    pa.tile.qk %q, %k[%ids, %h] tile_start %t0 valid [%lo, %hi] into %s
        {page_size = 64 : i64, score_scale = 0.125 : f32,
         scale = #pa.scale<none>, compute = #pa.compute<bf16>}
        : !q_tile, memref<?x4x8x64x8xbf16>, vector<4xi32>, !scores
    gpu.return
  }
}

// -----

// pa.tile.qk with soft_cap = c = 2: each score s (exp2 domain) becomes
// c - 2c / (exp2(s * 2 log2(e) / c) + 1) = c * tanh(s / c) before it is
// stored.

!q_tile = memref<16x64xf32, #gpu.address_space<workgroup>>
!scores = memref<16x256xf32, #gpu.address_space<workgroup>>
// CHECK-LABEL: gpu.func @qk_soft_cap
// CHECK:         %[[DOT:.*]] = scf.for
// The score is checked first: the cap would map +-inf to +-c.
// CHECK:         %[[RAW_SCORE:.*]] = arith.mulf %[[DOT]], %{{.*}} : f32
// CHECK:         %[[SCORE:.*]] = math.fma %[[RAW_SCORE]], %{{.*}}, %[[RAW_SCORE]] : f32
// CHECK:         %[[K:.*]] = arith.constant 1.44269502 : f32
// CHECK:         %[[ARG:.*]] = arith.mulf %[[SCORE]], %[[K]] : f32
// CHECK:         %[[E:.*]] = math.exp2 %[[ARG]] : f32
// CHECK:         %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:         %[[DEN:.*]] = arith.addf %[[E]], %[[ONE]] : f32
// CHECK:         %[[RCP:.*]] = arith.divf %{{.*}}, %[[DEN]] : f32
// CHECK:         %[[C:.*]] = arith.constant 2.000000e+00 : f32
// CHECK:         %[[TWO_C:.*]] = arith.constant 4.000000e+00 : f32
// CHECK:         %[[TWICE:.*]] = arith.mulf %[[TWO_C]], %[[RCP]] : f32
// CHECK:         %[[CAPPED:.*]] = arith.subf %[[C]], %[[TWICE]] : f32
// CHECK:         memref.store %[[CAPPED]], %{{.*}}
gpu.module @pa_kernels {
  gpu.func @qk_soft_cap(%k: memref<?x1x4x16x16xf8E4M3FN>, %ids: vector<16xi32>,
                        %h: index, %t0: i64, %lo: i64, %hi: i64)
      workgroup(%q: !q_tile, %s: !scores) kernel {
    pa.tile.qk %q, %k[%ids, %h] tile_start %t0 valid [%lo, %hi] into %s
        {page_size = 16 : i64, score_scale = 0.125 : f32,
         scale = #pa.scale<none>, compute = #pa.compute<fp8>,
         soft_cap = 2.0 : f32}
        : !q_tile, memref<?x1x4x16x16xf8E4M3FN>, vector<16xi32>, !scores
    gpu.return
  }
}

// -----

// pa.tile.softmax with Q = 2, G = 4 and a window of 3: row r = base + m has
// q = r / 4, end = C - (Q - 1) + q, begin = max(end - 3, 0); padding rows
// (r >= 8) are masked. Masking is a select to -inf; both exp2 arguments are
// guarded by "new max == -inf".

!scores = memref<16x256xf32, #gpu.address_space<workgroup>>
!rows = memref<16xf32, #gpu.address_space<workgroup>>
!acc = memref<16x64xf32, #gpu.address_space<workgroup>>
// CHECK-LABEL: gpu.func @softmax
// CHECK-SAME:    (%[[CTX:.*]]: i64, %[[T0:.*]]: i64, %[[BASE:.*]]: index) workgroup(%[[S:.*]] : memref<16x256xf32, #gpu.address_space<workgroup>>, %[[MAX:.*]] : memref<16xf32, #gpu.address_space<workgroup>>, %[[SUM:.*]] : memref<16xf32, #gpu.address_space<workgroup>>, %[[ACC:.*]] : memref<16x64xf32
// CHECK-DAG:   %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG:   %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:       scf.for %[[M:.*]] =
// CHECK:         %[[ROW_IDX:.*]] = arith.addi %[[BASE]], %[[M]] : index
// CHECK:         %[[ROW:.*]] = arith.index_cast %[[ROW_IDX]] : index to i64
// CHECK:         %[[IS_ROW:.*]] = arith.cmpi slt, %[[ROW]], %c8_i64 : i64
// CHECK:         %[[POS:.*]] = arith.divsi %[[ROW]], %c4_i64 : i64
// CHECK:         %[[CTX_LESS:.*]] = arith.subi %[[CTX]], %c1_i64 : i64
// CHECK:         %[[END:.*]] = arith.addi %[[CTX_LESS]], %[[POS]] : i64
// CHECK:         %[[WIN_BEGIN:.*]] = arith.subi %[[END]], %c3_i64 : i64
// CHECK:         %[[BEGIN:.*]] = arith.maxsi %[[WIN_BEGIN]], %c0_i64 : i64
// CHECK:         %[[TILE_MAX:.*]] = scf.for %[[T:.*]] = {{.*}} iter_args(%[[RUN_MAX:.*]] = %[[NEG_INF]]) -> (f32)
// CHECK:           %[[T_I64:.*]] = arith.index_cast %[[T]] : index to i64
// CHECK:           %[[TOKEN:.*]] = arith.addi %[[T0]], %[[T_I64]] : i64
// CHECK:           %[[GE:.*]] = arith.cmpi sge, %[[TOKEN]], %[[BEGIN]] : i64
// CHECK:           %[[LT:.*]] = arith.cmpi slt, %[[TOKEN]], %[[END]] : i64
// CHECK:           %[[IN:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK:           %[[VISIBLE:.*]] = arith.andi %[[IS_ROW]], %[[IN]] : i1
// CHECK:           %[[RAW:.*]] = memref.load %[[S]][%[[M]], %[[T]]]
// CHECK:           %[[MASKED:.*]] = arith.select %[[VISIBLE]], %[[RAW]], %[[NEG_INF]] : f32
// CHECK:           memref.store %[[MASKED]], %[[S]][%[[M]], %[[T]]]
// CHECK:           %[[NEXT_MAX:.*]] = arith.maximumf %[[RUN_MAX]], %[[MASKED]] : f32
// CHECK:           scf.yield %[[NEXT_MAX]] : f32
// CHECK:         %[[OLD_MAX:.*]] = memref.load %[[MAX]][%[[M]]]
// CHECK:         %[[NEW_MAX:.*]] = arith.maximumf %[[OLD_MAX]], %[[TILE_MAX]] : f32
// CHECK:         %[[NOTHING:.*]] = arith.cmpf oeq, %[[NEW_MAX]], %[[NEG_INF]] : f32
// CHECK:         %[[DIFF:.*]] = arith.subf %[[OLD_MAX]], %[[NEW_MAX]] : f32
// CHECK:         %[[ALPHA_ARG:.*]] = arith.select %[[NOTHING]], %[[ZERO]], %[[DIFF]] : f32
// CHECK:         %[[ALPHA:.*]] = math.exp2 %[[ALPHA_ARG]] : f32
// CHECK:         %[[SHIFT:.*]] = arith.select %[[NOTHING]], %[[ZERO]], %[[NEW_MAX]] : f32
// CHECK:         %[[TILE_SUM:.*]] = scf.for %[[T2:.*]] = {{.*}} iter_args(%[[RUN_SUM:.*]] = %[[ZERO]]) -> (f32)
// CHECK:           %[[MS:.*]] = memref.load %[[S]][%[[M]], %[[T2]]]
// CHECK:           %[[SHIFTED:.*]] = arith.subf %[[MS]], %[[SHIFT]] : f32
// CHECK:           %[[P:.*]] = math.exp2 %[[SHIFTED]] : f32
// CHECK:           memref.store %[[P]], %[[S]][%[[M]], %[[T2]]]
// CHECK:           %[[NEXT_SUM:.*]] = arith.addf %[[RUN_SUM]], %[[P]] : f32
// CHECK:         %[[OLD_SUM:.*]] = memref.load %[[SUM]][%[[M]]]
// CHECK:         %[[SCALED_SUM:.*]] = arith.mulf %[[OLD_SUM]], %[[ALPHA]] : f32
// CHECK:         %[[NEW_SUM:.*]] = arith.addf %[[SCALED_SUM]], %[[TILE_SUM]] : f32
// CHECK:         memref.store %[[NEW_SUM]], %[[SUM]][%[[M]]]
// CHECK:         memref.store %[[NEW_MAX]], %[[MAX]][%[[M]]]
// CHECK:         scf.for %[[D:.*]] =
// CHECK:           %[[A:.*]] = memref.load %[[ACC]][%[[M]], %[[D]]]
// CHECK:           %[[SCALED:.*]] = arith.mulf %[[A]], %[[ALPHA]] : f32
// CHECK:           memref.store %[[SCALED]], %[[ACC]][%[[M]], %[[D]]]
// CHECK-NOT:   math.exp
gpu.module @pa_kernels {
  gpu.func @softmax(%ctx: i64, %t0: i64, %r0: index)
      workgroup(%s: !scores, %max: !rows, %sum: !rows, %acc: !acc) kernel {
    pa.tile.softmax %s, %max, %sum, %acc context %ctx tile_start %t0 row_base %r0
        {query_length = 2 : i64, group_size = 4 : i64, sliding_window = 3 : i64}
        : !scores, !rows, !rows, !acc
    gpu.return
  }
}

// -----

// No window (W = -1): begin is the constant 0, no maxsi.

!scores = memref<16x256xf32, #gpu.address_space<workgroup>>
!rows = memref<16xf32, #gpu.address_space<workgroup>>
!acc = memref<16x64xf32, #gpu.address_space<workgroup>>
// CHECK-LABEL: gpu.func @softmax_no_window
// CHECK:       arith.divsi
// CHECK:       %[[END:.*]] = arith.addi
// CHECK-NOT:   arith.maxsi
// CHECK:       %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-NEXT:  scf.for
// CHECK:         arith.cmpi sge, %{{.*}}, %[[ZERO]] : i64
// CHECK:         arith.cmpi slt, %{{.*}}, %[[END]] : i64
gpu.module @pa_kernels {
  gpu.func @softmax_no_window(%ctx: i64, %t0: i64, %r0: index)
      workgroup(%s: !scores, %max: !rows, %sum: !rows, %acc: !acc) kernel {
    pa.tile.softmax %s, %max, %sum, %acc context %ctx tile_start %t0 row_base %r0
        {query_length = 1 : i64, group_size = 8 : i64, sliding_window = -1 : i64}
        : !scores, !rows, !rows, !acc
    gpu.return
  }
}

// -----

// pa.tile.pv, transposed bf16 values [N, 2, 16/8, 64, 8], per-tensor scale:
// token slot s of a page is read at [page][h][s / 8][d][s % 8], only inside
// the column's validity scf.if (no else: invalid columns are skipped), each
// value element once (d outer, rows inner).

!probs = memref<16x256xf32, #gpu.address_space<workgroup>>
!acc = memref<16x64xf32, #gpu.address_space<workgroup>>
// CHECK-LABEL: gpu.func @pv_transposed
// CHECK-SAME:    (%[[VC:.*]]: memref<?x2x2x64x8xbf16>, %[[IDS:.*]]: vector<16xi32>, %[[HEAD:.*]]: index, %[[T0:.*]]: i64, %[[LO:.*]]: i64, %[[HI:.*]]: i64, %[[VS:.*]]: memref<1xf32>) workgroup(%[[P:.*]] : memref<16x256xf32, #gpu.address_space<workgroup>>, %[[ACC:.*]] : memref<16x64xf32
// CHECK:       scf.for %[[T:.*]] = %{{.*}} to %c256
// CHECK-NOT:     memref.load
// CHECK:         %[[VALID:.*]] = arith.andi
// CHECK:         scf.if %[[VALID]] {
// CHECK:           %[[PAGE_IDX:.*]] = arith.divui %[[T]], %c16 : index
// CHECK:           %[[PAGE_I32:.*]] = vector.extract %[[IDS]][%[[PAGE_IDX]]] : i32 from vector<16xi32>
// CHECK:           %[[PAGE:.*]] = arith.index_cast %[[PAGE_I32]] : i32 to index
// CHECK:           %[[SLOT:.*]] = arith.remui %[[T]], %c16 : index
// CHECK:           %[[VSCALE:.*]] = memref.load %[[VS]][%{{.*}}] : memref<1xf32>
// CHECK:           scf.for %[[D:.*]] =
// CHECK:             %[[SLOT_HI:.*]] = arith.divui %[[SLOT]], %[[X:.*]] : index
// CHECK:             %[[SLOT_LO:.*]] = arith.remui %[[SLOT]], %[[X]] : index
// CHECK:             %[[V_RAW:.*]] = memref.load %[[VC]][%[[PAGE]], %[[HEAD]], %[[SLOT_HI]], %[[D]], %[[SLOT_LO]]] : memref<?x2x2x64x8xbf16>
// CHECK:             %[[V:.*]] = arith.extf %[[V_RAW]] : bf16 to f32
// CHECK:             scf.for %[[M:.*]] =
// A row whose p is 0 (it does not see the token) adds exactly 0, never
// 0 * NaN.
// CHECK:               %[[PROB:.*]] = memref.load %[[P]][%[[M]], %[[T]]]
// CHECK:               %[[WEIGHT:.*]] = arith.mulf %[[PROB]], %[[VSCALE]] : f32
// CHECK:               %[[TERM:.*]] = arith.mulf %[[WEIGHT]], %[[V]] : f32
// CHECK:               %[[UNSEEN:.*]] = arith.cmpf oeq, %[[PROB]], %[[PZERO:.*]] : f32
// CHECK:               %[[OLD:.*]] = memref.load %[[ACC]][%[[M]], %[[D]]]
// CHECK:               %[[KEPT:.*]] = arith.select %[[UNSEEN]], %[[PZERO]], %[[TERM]] : f32
// CHECK:               %[[NEW:.*]] = arith.addf %[[OLD]], %[[KEPT]] : f32
// CHECK:               memref.store %[[NEW]], %[[ACC]][%[[M]], %[[D]]]
// CHECK-NOT:     else
// CHECK:       gpu.return
gpu.module @pa_kernels {
  gpu.func @pv_transposed(%v: memref<?x2x2x64x8xbf16>, %ids: vector<16xi32>,
                          %h: index, %t0: i64, %lo: i64, %hi: i64,
                          %vs: memref<1xf32>)
      workgroup(%p: !probs, %acc: !acc) kernel {
    pa.tile.pv %p, %v[%ids, %h] tile_start %t0 valid [%lo, %hi] v_scale(%vs : memref<1xf32>) into %acc
        {page_size = 16 : i64, v_layout = #pa.v_layout<transposed>,
         scale = #pa.scale<per_tensor>, compute = #pa.compute<bf16>}
        : !probs, memref<?x2x2x64x8xbf16>, vector<16xi32>, !acc
    gpu.return
  }
}

// -----

// pa.tile.pv, plain fp8 values [N, 2, 64, 16], per-token scales: value d of
// slot s is [page][h][d][s].

!probs = memref<16x256xf32, #gpu.address_space<workgroup>>
!acc = memref<16x64xf32, #gpu.address_space<workgroup>>
// CHECK-LABEL: gpu.func @pv_plain
// CHECK-SAME:    (%[[VC:.*]]: memref<?x2x64x16xf8E4M3FNUZ>, %[[IDS:.*]]: vector<16xi32>, %[[HEAD:.*]]: index, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %[[VS:.*]]: memref<?x2x16xf32>)
// CHECK:         scf.if
// CHECK:           %[[PAGE:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK:           %[[SLOT:.*]] = arith.remui
// CHECK:           memref.load %[[VS]][%[[PAGE]], %[[HEAD]], %[[SLOT]]] : memref<?x2x16xf32>
// CHECK-NOT:       arith.divui
// CHECK:           scf.for %[[D:.*]] =
// CHECK:             %[[V_RAW:.*]] = memref.load %[[VC]][%[[PAGE]], %[[HEAD]], %[[D]], %[[SLOT]]] : memref<?x2x64x16xf8E4M3FNUZ>
// CHECK:             arith.extf %[[V_RAW]] : f8E4M3FNUZ to f32
gpu.module @pa_kernels {
  gpu.func @pv_plain(%v: memref<?x2x64x16xf8E4M3FNUZ>, %ids: vector<16xi32>,
                     %h: index, %t0: i64, %lo: i64, %hi: i64,
                     %vs: memref<?x2x16xf32>)
      workgroup(%p: !probs, %acc: !acc) kernel {
    pa.tile.pv %p, %v[%ids, %h] tile_start %t0 valid [%lo, %hi] v_scale(%vs : memref<?x2x16xf32>) into %acc
        {page_size = 16 : i64, v_layout = #pa.v_layout<plain>,
         scale = #pa.scale<per_token>, compute = #pa.compute<fp8>}
        : !probs, memref<?x2x64x16xf8E4M3FNUZ>, vector<16xi32>, !acc
    gpu.return
  }
}

// -----

// pa.tile.store_partials: rows r = base + m < 8 only; max_logits gets
// row_max * ln(2); row_sum == 0 selects -inf / 0 / 0; a NaN row_sum is
// max_logits too (a non-finite input reached the row); a tmp_out element
// that is not finite (an infinite value or v_scale) is NaN.

!rows = memref<16xf32, #gpu.address_space<workgroup>>
!acc = memref<16x64xf32, #gpu.address_space<workgroup>>
// CHECK-LABEL: gpu.func @store_partials
// CHECK-SAME:    (%[[ES:.*]]: memref<2x?x8xf32>, %[[ML:.*]]: memref<2x?x8xf32>, %[[OUT:.*]]: memref<2x?x8x64xf32>, %[[HEAD:.*]]: index, %[[SLOT:.*]]: index, %[[BASE:.*]]: index) workgroup(%[[MAX:.*]] : memref<16xf32, #gpu.address_space<workgroup>>, %[[SUM:.*]] : memref<16xf32, #gpu.address_space<workgroup>>, %[[ACC:.*]] : memref<16x64xf32
// CHECK-DAG:   %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG:   %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:   %[[LN2:.*]] = arith.constant 0.693147182 : f32
// CHECK:       scf.for %[[M:.*]] =
// CHECK:         %[[ROW:.*]] = arith.addi %[[BASE]], %[[M]] : index
// CHECK:         %[[IN:.*]] = arith.cmpi ult, %[[ROW]], %c8 : index
// CHECK:         scf.if %[[IN]] {
// CHECK:           %[[S:.*]] = memref.load %[[SUM]][%[[M]]]
// CHECK:           %[[EMPTY:.*]] = arith.cmpf oeq, %[[S]], %[[ZERO]] : f32
// CHECK:           %[[MX:.*]] = memref.load %[[MAX]][%[[M]]]
// CHECK:           %[[NAT:.*]] = arith.mulf %[[MX]], %[[LN2]] : f32
// CHECK:           %[[LOGIT:.*]] = arith.select %[[EMPTY]], %[[NEG_INF]], %[[NAT]] : f32
// CHECK:           %[[NAN_SUM:.*]] = arith.cmpf uno, %[[S]], %[[S]] : f32
// CHECK:           %[[LOGIT_OR_NAN:.*]] = arith.select %[[NAN_SUM]], %[[S]], %[[LOGIT]] : f32
// CHECK:           memref.store %[[LOGIT_OR_NAN]], %[[ML]][%[[HEAD]], %[[SLOT]], %[[ROW]]]
// CHECK:           %[[ES_VAL:.*]] = arith.select %[[EMPTY]], %[[ZERO]], %[[S]] : f32
// CHECK:           memref.store %[[ES_VAL]], %[[ES]][%[[HEAD]], %[[SLOT]], %[[ROW]]]
// CHECK:           scf.for %[[D:.*]] =
// CHECK:             %[[A:.*]] = memref.load %[[ACC]][%[[M]], %[[D]]]
// CHECK:             %[[NORM:.*]] = arith.divf %[[A]], %[[S]] : f32
// CHECK:             %[[NORM_OR_NAN:.*]] = math.fma %[[NORM]], %[[ZERO]], %[[NORM]] : f32
// CHECK:             %[[OUT_VAL:.*]] = arith.select %[[EMPTY]], %[[ZERO]], %[[NORM_OR_NAN]] : f32
// CHECK:             memref.store %[[OUT_VAL]], %[[OUT]][%[[HEAD]], %[[SLOT]], %[[ROW]], %[[D]]]
gpu.module @pa_kernels {
  gpu.func @store_partials(%es: memref<2x?x8xf32>, %ml: memref<2x?x8xf32>,
                           %out: memref<2x?x8x64xf32>, %h: index, %slot: index,
                           %r0: index)
      workgroup(%max: !rows, %sum: !rows, %acc: !acc) kernel {
    pa.tile.store_partials %max, %sum, %acc into %es, %ml, %out [%h, %slot, %r0]
        {rows = 8 : i64}
        : !rows, !rows, !acc, memref<2x?x8xf32>, memref<2x?x8xf32>, memref<2x?x8x64xf32>
    gpu.return
  }
}

// -----

// pa.tile.alibi with Q = 2, G = 4: row r = base + m of KV head h reads the
// slope of query head h * 4 + r % 4 (times log2(e)) and adds it times the
// token's distance t - (C - Q + q) from the row's own token (q = r / 4),
// as f32, to every score of the row.

!scores = memref<16x256xf32, #gpu.address_space<workgroup>>
// CHECK-LABEL: gpu.func @alibi
// CHECK-SAME:    (%[[SLOPES:.*]]: memref<8xf32>, %[[H:.*]]: index, %[[CTX:.*]]: i64, %[[T0:.*]]: i64, %[[BASE:.*]]: index)
// CHECK:         scf.for %[[M:.*]] =
// CHECK:           %[[ROW:.*]] = arith.addi %[[BASE]], %[[M]] : index
// CHECK:           %[[FIRST:.*]] = arith.muli %[[H]], %{{.*}} : index
// CHECK:           %[[G:.*]] = arith.remui %[[ROW]], %{{.*}} : index
// CHECK:           %[[HEAD:.*]] = arith.addi %[[FIRST]], %[[G]] : index
// CHECK:           %[[Q:.*]] = arith.divui %[[ROW]], %{{.*}} : index
// CHECK:           %[[SLOPE:.*]] = memref.load %[[SLOPES]][%[[HEAD]]] : memref<8xf32>
// CHECK:           %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// CHECK:           %[[SLOPE2:.*]] = arith.mulf %[[SLOPE]], %[[LOG2E]] : f32
// CHECK:           scf.for %[[T:.*]] =
// CHECK:             %[[TOKEN:.*]] = arith.addi %[[T0]], %{{.*}} : i64
// CHECK:             %[[S:.*]] = memref.load
// CHECK:             %[[DIST:.*]] = arith.subi %[[TOKEN]], %{{.*}} : i64
// CHECK:             %[[DISTF:.*]] = arith.sitofp %[[DIST]] : i64 to f32
// CHECK:             %[[BIAS:.*]] = arith.mulf %[[SLOPE2]], %[[DISTF]] : f32
// CHECK:             %[[NEW:.*]] = arith.addf %[[S]], %[[BIAS]] : f32
// CHECK:             memref.store %[[NEW]], %{{.*}}[%[[M]], %[[T]]]
gpu.module @pa_kernels {
  gpu.func @alibi(%slopes: memref<8xf32>, %h: index, %ctx: i64, %t0: i64,
                  %base: index) workgroup(%s: !scores) kernel {
    pa.tile.alibi %s, %slopes[%h] context %ctx tile_start %t0 row_base %base
        {query_length = 2 : i64, group_size = 4 : i64}
        : !scores, memref<8xf32>
    gpu.return
  }
}
