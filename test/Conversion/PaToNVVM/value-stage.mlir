// pa-to-nvvm{value-stage=N}: the tile's first V token blocks copied into
// shared memory by bulk copies (cp.async.bulk) that complete on an
// mbarrier, for the cache layouts and sizes where it applies.
// RUN: pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},pa-lower-plan,pa-tile,pa-lower-reduce,gpu.module(pa-stage-page-ids,pa-to-nvvm{value-stage=2}))' \
// RUN:   | FileCheck %s --check-prefix=TWO
// RUN: pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},pa-lower-plan,pa-tile,pa-lower-reduce,gpu.module(pa-stage-page-ids,pa-to-nvvm{value-stage=4}))' \
// RUN:   | FileCheck %s --check-prefix=FOUR
// RUN: pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},pa-lower-plan,pa-tile,pa-lower-reduce,gpu.module(pa-stage-page-ids,pa-to-nvvm{value-stage=1}))' \
// RUN:   | FileCheck %s --check-prefix=ONE

// fp8 KV, D = 128, transposed V ([pages, Hkv, P / 16, D, 16]): a copy unit
// is one 16-token slot group, D x 16 = 2048 contiguous bytes, copied from
// element (page, head, group, 0, 0); units 2048 + 32 bytes apart. Two
// blocks (128 tokens) are 8 units, 16 KiB; four (the whole tile) 16 units.
// TWO-LABEL:  gpu.func @pa_decode(
// TWO-SAME:       %[[VALUE:[a-z0-9_]+]]: memref<?x1x1x128x16xf8E4M3FN>
// TWO-SAME:       memref<16640xf8E4M3FN, #gpu.address_space<workgroup>>, %{{[a-z0-9]+}} : memref<1xi64, #gpu.address_space<workgroup>>)
// TWO:          nvvm.mbarrier.init
// TWO:          scf.for
// TWO:            "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "r,r,~{memory}" %{{.*}}, %c16384_i32
// TWO:            memref.extract_strided_metadata %[[VALUE]]
// TWO:            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [$0], [$1], $2, [$3];", "r,l,r,r,~{memory}" %{{.*}}, %{{.*}}, %c2048_i32
// TWO-COUNT-7:    "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [$0], [$1], $2, [$3];", "r,l,r,r,~{memory}" %{{.*}}, %{{.*}}, %c2048_i32
// TWO-NOT:        cp.async.bulk
// TWO:            mbarrier.try_wait.parity
// TWO-LABEL:  gpu.func @pa_reduce(
// FOUR-LABEL: gpu.func @pa_decode(
// FOUR-SAME:      memref<33280xf8E4M3FN, #gpu.address_space<workgroup>>, %{{[a-z0-9]+}} : memref<1xi64, #gpu.address_space<workgroup>>)
// FOUR:         %c32768_i32
// FOUR-COUNT-16:  cp.async.bulk.shared::cluster.global
// FOUR-NOT:       cp.async.bulk
// FOUR-LABEL: gpu.func @pa_reduce(
func.func @transposed_v(%query: memref<?x8x128xbf16>, %key_cache: memref<?x1x8x16x16xf8E4M3FN>,
    %value_cache: memref<?x1x1x128x16xf8E4M3FN>, %block_tables: memref<?x?xi32>,
    %context_lengths: memref<?xi32>, %work_info: memref<?x4xi32>, %reduce_info: memref<?x2xi32>,
    %exp_sums: memref<1x?x8xf32>, %max_logits: memref<1x?x8xf32>, %tmp_out: memref<1x?x8x128xf32>,
    %output: memref<?x8x128xbf16>) {
  pa.plan context_lengths(%context_lengths : memref<?xi32>) work_info(%work_info : memref<?x4xi32>)
          reduce_info(%reduce_info : memref<?x2xi32>) {num_kv_heads = 1 : i64, query_length = 1 : i64}
  pa.decode query(%query : memref<?x8x128xbf16>) key_cache(%key_cache : memref<?x1x8x16x16xf8E4M3FN>)
            value_cache(%value_cache : memref<?x1x1x128x16xf8E4M3FN>) block_tables(%block_tables : memref<?x?xi32>)
            context_lengths(%context_lengths : memref<?xi32>) work_info(%work_info : memref<?x4xi32>)
            exp_sums(%exp_sums : memref<1x?x8xf32>) max_logits(%max_logits : memref<1x?x8xf32>)
            tmp_out(%tmp_out : memref<1x?x8x128xf32>)
            {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = transposed>}
  pa.reduce exp_sums(%exp_sums : memref<1x?x8xf32>) max_logits(%max_logits : memref<1x?x8xf32>)
            tmp_out(%tmp_out : memref<1x?x8x128xf32>) reduce_info(%reduce_info : memref<?x2xi32>)
            output(%output : memref<?x8x128xbf16>)
  return
}

// -----

// fp8 KV at D = 256 and 32 rows (Q = 4, G = 8): 109,188 bytes of shared
// memory without a stage, so 4 blocks (64 KiB) would leave one workgroup
// per SM. The stage is cut to what keeps two (113 KiB each): one block, 4
// units of 4096 + 32 bytes (P's terms then share the scores' bytes).
// TWO-LABEL:  gpu.func @pa_decode(
// TWO-SAME:       memref<33792xi8, #gpu.address_space<workgroup>>
// TWO-SAME:       memref<16512xf8E4M3FN, #gpu.address_space<workgroup>>, %{{[a-z0-9]+}} : memref<1xi64, #gpu.address_space<workgroup>>
// TWO:            %c16384_i32
// TWO-COUNT-4:    "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [$0], [$1], $2, [$3];", "r,l,r,r,~{memory}" %{{.*}}, %{{.*}}, %c4096_i32
// TWO-NOT:        cp.async.bulk
// TWO-LABEL:  gpu.func @pa_reduce(
// FOUR-LABEL: gpu.func @pa_decode(
// FOUR-SAME:      memref<16512xf8E4M3FN, #gpu.address_space<workgroup>>
// FOUR-COUNT-4:   cp.async.bulk.shared::cluster.global
// FOUR-NOT:       cp.async.bulk
// FOUR-LABEL: gpu.func @pa_reduce(
func.func @thirty_two_rows(%query: memref<?x8x256xbf16>, %key_cache: memref<?x1x16x16x16xf8E4M3FN>,
    %value_cache: memref<?x1x1x256x16xf8E4M3FN>, %block_tables: memref<?x?xi32>,
    %context_lengths: memref<?xi32>, %work_info: memref<?x4xi32>, %reduce_info: memref<?x2xi32>,
    %exp_sums: memref<1x?x32xf32>, %max_logits: memref<1x?x32xf32>, %tmp_out: memref<1x?x32x256xf32>,
    %output: memref<?x8x256xbf16>) {
  pa.plan context_lengths(%context_lengths : memref<?xi32>) work_info(%work_info : memref<?x4xi32>)
          reduce_info(%reduce_info : memref<?x2xi32>) {num_kv_heads = 1 : i64, query_length = 4 : i64}
  pa.decode query(%query : memref<?x8x256xbf16>) key_cache(%key_cache : memref<?x1x16x16x16xf8E4M3FN>)
            value_cache(%value_cache : memref<?x1x1x256x16xf8E4M3FN>) block_tables(%block_tables : memref<?x?xi32>)
            context_lengths(%context_lengths : memref<?xi32>) work_info(%work_info : memref<?x4xi32>)
            exp_sums(%exp_sums : memref<1x?x32xf32>) max_logits(%max_logits : memref<1x?x32xf32>)
            tmp_out(%tmp_out : memref<1x?x32x256xf32>)
            {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = transposed>}
  pa.reduce exp_sums(%exp_sums : memref<1x?x32xf32>) max_logits(%max_logits : memref<1x?x32xf32>)
            tmp_out(%tmp_out : memref<1x?x32x256xf32>) reduce_info(%reduce_info : memref<?x2xi32>)
            output(%output : memref<?x8x256xbf16>)
  return
}

// -----

// An nhd cache (a token's head dims contiguous, not a page's tokens): no
// stage.
// TWO-LABEL:  gpu.func @pa_decode(
// TWO-NOT:        mbarrier
// TWO-NOT:        cp.async.bulk
// TWO-LABEL:  gpu.func @pa_reduce(
// FOUR-LABEL: gpu.func @pa_decode(
// FOUR-NOT:       cp.async.bulk
// FOUR-LABEL: gpu.func @pa_reduce(
func.func @nhd(%query: memref<?x8x64xbf16>, %key_cache: memref<?x16x1x64xbf16>,
    %value_cache: memref<?x16x1x64xbf16>, %block_tables: memref<?x?xi32>,
    %context_lengths: memref<?xi32>, %work_info: memref<?x4xi32>, %reduce_info: memref<?x2xi32>,
    %exp_sums: memref<1x?x8xf32>, %max_logits: memref<1x?x8xf32>, %tmp_out: memref<1x?x8x64xf32>,
    %output: memref<?x8x64xbf16>) {
  pa.plan context_lengths(%context_lengths : memref<?xi32>) work_info(%work_info : memref<?x4xi32>)
          reduce_info(%reduce_info : memref<?x2xi32>) {num_kv_heads = 1 : i64, query_length = 1 : i64}
  pa.decode query(%query : memref<?x8x64xbf16>) key_cache(%key_cache : memref<?x16x1x64xbf16>)
            value_cache(%value_cache : memref<?x16x1x64xbf16>) block_tables(%block_tables : memref<?x?xi32>)
            context_lengths(%context_lengths : memref<?xi32>) work_info(%work_info : memref<?x4xi32>)
            exp_sums(%exp_sums : memref<1x?x8xf32>) max_logits(%max_logits : memref<1x?x8xf32>)
            tmp_out(%tmp_out : memref<1x?x8x64xf32>)
            {kv_layout = #pa.kv_layout<page_size = 16, layout = nhd>}
  pa.reduce exp_sums(%exp_sums : memref<1x?x8xf32>) max_logits(%max_logits : memref<1x?x8xf32>)
            tmp_out(%tmp_out : memref<1x?x8x64xf32>) reduce_info(%reduce_info : memref<?x2xi32>)
            output(%output : memref<?x8x64xbf16>)
  return
}

// -----

// Transposed V in pages of 128 tokens (8 slot groups): one block (64
// tokens) is the first 4 groups of the tile's first page, not all of it;
// two blocks are that page, four the tile's two pages.
// ONE-LABEL:  func.func @pages_of_a_tile(
// ONE:        gpu.func @pa_decode(
// ONE-SAME:       memref<8320xf8E4M3FN, #gpu.address_space<workgroup>>
// ONE:            %c8192_i32
// ONE-COUNT-4:    cp.async.bulk.shared::cluster.global
// ONE-NOT:        cp.async.bulk
// ONE-LABEL:  gpu.func @pa_reduce(
// TWO-LABEL:  gpu.func @pa_decode(
// TWO-SAME:       memref<16640xf8E4M3FN, #gpu.address_space<workgroup>>
// TWO-COUNT-8:    cp.async.bulk.shared::cluster.global
// TWO-NOT:        cp.async.bulk
// TWO-LABEL:  gpu.func @pa_reduce(
// FOUR-LABEL: gpu.func @pa_decode(
// FOUR-SAME:      memref<33280xf8E4M3FN, #gpu.address_space<workgroup>>
// FOUR-COUNT-16:  cp.async.bulk.shared::cluster.global
// FOUR-NOT:       cp.async.bulk
// FOUR-LABEL: gpu.func @pa_reduce(
func.func @pages_of_a_tile(%query: memref<?x8x128xbf16>, %key_cache: memref<?x1x8x128x16xf8E4M3FN>,
    %value_cache: memref<?x1x8x128x16xf8E4M3FN>, %block_tables: memref<?x?xi32>,
    %context_lengths: memref<?xi32>, %work_info: memref<?x4xi32>, %reduce_info: memref<?x2xi32>,
    %exp_sums: memref<1x?x8xf32>, %max_logits: memref<1x?x8xf32>, %tmp_out: memref<1x?x8x128xf32>,
    %output: memref<?x8x128xbf16>) {
  pa.plan context_lengths(%context_lengths : memref<?xi32>) work_info(%work_info : memref<?x4xi32>)
          reduce_info(%reduce_info : memref<?x2xi32>) {num_kv_heads = 1 : i64, query_length = 1 : i64}
  pa.decode query(%query : memref<?x8x128xbf16>) key_cache(%key_cache : memref<?x1x8x128x16xf8E4M3FN>)
            value_cache(%value_cache : memref<?x1x8x128x16xf8E4M3FN>) block_tables(%block_tables : memref<?x?xi32>)
            context_lengths(%context_lengths : memref<?xi32>) work_info(%work_info : memref<?x4xi32>)
            exp_sums(%exp_sums : memref<1x?x8xf32>) max_logits(%max_logits : memref<1x?x8xf32>)
            tmp_out(%tmp_out : memref<1x?x8x128xf32>)
            {kv_layout = #pa.kv_layout<page_size = 128, k_pack = 16, v_layout = transposed>}
  pa.reduce exp_sums(%exp_sums : memref<1x?x8xf32>) max_logits(%max_logits : memref<1x?x8xf32>)
            tmp_out(%tmp_out : memref<1x?x8x128xf32>) reduce_info(%reduce_info : memref<?x2xi32>)
            output(%output : memref<?x8x128xbf16>)
  return
}

// -----

// bf16 KV, D = 128, transposed V ([pages, Hkv, P / 8, D, 8]): a block is
// 32 tokens, a copy unit 8 tokens of every column (D x 8 x 2 = 2048
// bytes), 2048 + 32 bytes apart (1040 elements). Two blocks are 8 units;
// four 16.
// TWO-LABEL:  func.func @bf16_transposed(
// TWO:        gpu.func @pa_decode(
// TWO-SAME:       memref<8320xbf16, #gpu.address_space<workgroup>>, %{{[a-z0-9]+}} : memref<1xi64, #gpu.address_space<workgroup>>)
// TWO:            %c16384_i32
// TWO:            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [$0], [$1], $2, [$3];", "r,l,r,r,~{memory}" %{{.*}}, %{{.*}}, %c2048_i32
// TWO:            arith.constant 1040 : index
// TWO-COUNT-7:    cp.async.bulk.shared::cluster.global
// TWO-NOT:        cp.async.bulk
// TWO:            mbarrier.try_wait.parity
// TWO:            vector.load %{{.*}} {alignment = 16 : i64} : memref<8320xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// TWO-LABEL:  gpu.func @pa_reduce(
// FOUR-LABEL: func.func @bf16_transposed(
// FOUR:       gpu.func @pa_decode(
// FOUR-SAME:      memref<16640xbf16, #gpu.address_space<workgroup>>
// FOUR-COUNT-16:  cp.async.bulk.shared::cluster.global
// FOUR-NOT:       cp.async.bulk
// FOUR-LABEL: gpu.func @pa_reduce(
func.func @bf16_transposed(%query: memref<?x8x128xbf16>, %key_cache: memref<?x1x16x16x8xbf16>,
    %value_cache: memref<?x1x2x128x8xbf16>, %block_tables: memref<?x?xi32>,
    %context_lengths: memref<?xi32>, %work_info: memref<?x4xi32>, %reduce_info: memref<?x2xi32>,
    %exp_sums: memref<1x?x8xf32>, %max_logits: memref<1x?x8xf32>, %tmp_out: memref<1x?x8x128xf32>,
    %output: memref<?x8x128xbf16>) {
  pa.plan context_lengths(%context_lengths : memref<?xi32>) work_info(%work_info : memref<?x4xi32>)
          reduce_info(%reduce_info : memref<?x2xi32>) {num_kv_heads = 1 : i64, query_length = 1 : i64}
  pa.decode query(%query : memref<?x8x128xbf16>) key_cache(%key_cache : memref<?x1x16x16x8xbf16>)
            value_cache(%value_cache : memref<?x1x2x128x8xbf16>) block_tables(%block_tables : memref<?x?xi32>)
            context_lengths(%context_lengths : memref<?xi32>) work_info(%work_info : memref<?x4xi32>)
            exp_sums(%exp_sums : memref<1x?x8xf32>) max_logits(%max_logits : memref<1x?x8xf32>)
            tmp_out(%tmp_out : memref<1x?x8x128xf32>)
            {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 8, v_layout = transposed>}
  pa.reduce exp_sums(%exp_sums : memref<1x?x8xf32>) max_logits(%max_logits : memref<1x?x8xf32>)
            tmp_out(%tmp_out : memref<1x?x8x128xf32>) reduce_info(%reduce_info : memref<?x2xi32>)
            output(%output : memref<?x8x128xbf16>)
  return
}
