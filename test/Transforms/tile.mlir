// RUN: pa-opt %s -split-input-file -pa-set-target=chip=gfx950 -pa-tile | FileCheck %s
// RUN: pa-opt %s -split-input-file -pa-set-target=chip=sm_90a -pa-tile | FileCheck %s --check-prefix=NV

// MTP 2 at GQA 8 (16 rows: one M-tile), window 257, per-token scales,
// transposed V.
// CHECK-LABEL: func.func @window_per_token
// CHECK:         %[[CAP:.*]] = memref.dim %{{.*}}, %c0 : memref<?x4xi32>
// CHECK:         gpu.launch_func @pa_kernels::@pa_decode blocks in (%[[CAP]], %c2, %c1) threads in (%c256,
// CHECK-NOT:     pa.decode
// CHECK:       gpu.module @pa_kernels
// CHECK:         gpu.func @pa_decode(
// CHECK-SAME:      workgroup(%[[QT:.*]] : memref<16x256xf32, #gpu.address_space<workgroup>>, %[[S:.*]] : memref<16x256xf32, #gpu.address_space<workgroup>>, %[[ACC:.*]] : memref<16x256xf32, #gpu.address_space<workgroup>>, %[[MAX:.*]] : memref<16xf32, #gpu.address_space<workgroup>>, %[[SUM:.*]] : memref<16xf32, #gpu.address_space<workgroup>>)
// CHECK-SAME:      kernel attributes {known_block_size = array<i32: 256, 1, 1>
// CHECK:           %[[SLOT:.*]] = gpu.block_id x
// CHECK:           %[[HEAD:.*]] = gpu.block_id y
// CHECK:           %[[GROUP:.*]] = gpu.block_id z
// The slot's (sequence, begin, end, context); empty slots do nothing.
// CHECK:           %[[SEQ:.*]] = memref.load %[[WORK:.*]][%[[SLOT]], %c0]
// CHECK:           %[[BEGIN:.*]] = arith.extsi
// CHECK:           %[[END:.*]] = arith.extsi
// CHECK:           %[[CTX:.*]] = arith.extsi
// CHECK:           %[[NONEMPTY:.*]] = arith.cmpi slt, %[[BEGIN]], %[[END]] : i64
// CHECK:           scf.if %[[NONEMPTY]] {
// The window's left edge: max(0, C - (Q - 1) + qLo - W), in i64.
// Hostile-data guards (docs/reliability.md): the block table is read up to
// its width (max_pages * P tokens), ids outside the pool (the smallest dim 0
// of the caches and per-token scales) read page 0, an empty pool no tile.
// CHECK:             %[[HI:.*]] = arith.maxsi %c0_i64, %{{.*}} : i64
// CHECK:             %[[LO_RAW:.*]] = arith.subi %{{.*}}, %c257_i64{{[_0-9]*}} : i64
// CHECK:             %[[LO:.*]] = arith.maxsi %[[LO_RAW]], %{{.*}} : i64
// CHECK-COUNT-4:     memref.dim %{{.*}}, %c0{{[_0-9]*}} : memref<?x2x
// CHECK:             %[[WIDTH:.*]] = memref.dim %{{.*}}, %c1{{[_0-9]*}} : memref<?x?xi32>
// CHECK:             %[[WIDTH64:.*]] = arith.index_cast %[[WIDTH]] : index to i64
// CHECK:             %[[TABLE_END:.*]] = arith.muli %[[WIDTH64]], %c16_i64{{[_0-9]*}} : i64
// CHECK:             %[[IDS_END:.*]] = arith.minsi %[[HI]], %[[TABLE_END]] : i64
// CHECK:             %[[POOL_EMPTY:.*]] = arith.cmpi eq, %[[POOL:.*]], %c0_i64{{[_0-9]*}} : i64
// CHECK:             %[[POOL_SAT:.*]] = arith.minsi %[[POOL]], %c2147483648_i64 : i64
// CHECK:             %[[POOL32:.*]] = arith.trunci %[[POOL_SAT]] : i64 to i32
// CHECK:             arith.select %[[POOL_EMPTY]], %{{.*}}, %{{.*}} : i64
// CHECK:             pa.tile.load_query %{{.*}}[%{{.*}}, %[[HEAD]], %{{.*}}] into %[[QT]] {group_size = 8 : i64, query_length = 2 : i64}
// CHECK:             pa.tile.init_softmax %[[MAX]], %[[SUM]], %[[ACC]]
// CHECK:             scf.for %[[TILE:.*]] = %{{.*}} to %{{.*}} step
// CHECK:               %[[T0:.*]] = arith.muli %{{.*}}, %c256_i64 : i64
// CHECK:               %[[RAW_IDS:.*]] = pa.tile.page_ids %{{.*}} tile %[[TILE]] visible[%[[LO]], %[[IDS_END]]] {page_size = 16 : i64} : memref<?x?xi32> -> vector<16xi32>
// CHECK:               %[[POOL_VEC:.*]] = vector.broadcast %[[POOL32]] : i32 to vector<16xi32>
// CHECK:               %[[IN_POOL:.*]] = arith.cmpi ult, %[[RAW_IDS]], %[[POOL_VEC]] : vector<16xi32>
// CHECK:               %[[IDS:.*]] = arith.select %[[IN_POOL]], %[[RAW_IDS]], %{{.*}} : vector<16xi1>, vector<16xi32>
// CHECK:               pa.tile.qk %[[QT]], %{{.*}}[%[[IDS]], %[[HEAD]]] tile_start %[[T0]] valid[%[[LO]], %[[HI]]] k_scale(%{{.*}} : memref<?x2x16xf32>) into %[[S]] {compute = #pa.compute<fp8>, page_size = 16 : i64, scale = #pa.scale<per_token>, score_scale = 0.0901684388 : f32}
// CHECK:               pa.tile.softmax %[[S]], %[[MAX]], %[[SUM]], %[[ACC]] context %[[CTX]] tile_start %[[T0]] row_base %{{.*}} {group_size = 8 : i64, query_length = 2 : i64, sliding_window = 257 : i64}
// CHECK:               pa.tile.pv %[[S]], %{{.*}}[%[[IDS]], %[[HEAD]]] tile_start %[[T0]] valid[%[[LO]], %[[HI]]] v_scale(%{{.*}} : memref<?x2x16xf32>) into %[[ACC]] {compute = #pa.compute<fp8>, page_size = 16 : i64, scale = #pa.scale<per_token>, v_layout = #pa.v_layout<transposed>}
// CHECK:             }
// CHECK:             pa.tile.store_partials %[[MAX]], %[[SUM]], %[[ACC]] into {{.*}}[%[[HEAD]], %[[SLOT]], %{{.*}}] {rows = 16 : i64}
func.func @window_per_token(%q: memref<?x16x256xbf16>, %k: memref<?x2x16x16x16xf8E4M3FN>,
                %v: memref<?x2x1x256x16xf8E4M3FN>, %bt: memref<?x?xi32>,
                %lens: memref<?xi32>, %ks: memref<?x2x16xf32>, %vs: memref<?x2x16xf32>,
                %work: memref<?x4xi32>, %es: memref<2x?x16xf32>, %ml: memref<2x?x16xf32>,
                %part: memref<2x?x16x256xf32>) {
  pa.decode query(%q : memref<?x16x256xbf16>) key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
            value_cache(%v : memref<?x2x1x256x16xf8E4M3FN>) block_tables(%bt : memref<?x?xi32>)
            context_lengths(%lens : memref<?xi32>)
            k_scale(%ks : memref<?x2x16xf32>) v_scale(%vs : memref<?x2x16xf32>)
            work_info(%work : memref<?x4xi32>) exp_sums(%es : memref<2x?x16xf32>)
            max_logits(%ml : memref<2x?x16xf32>) tmp_out(%part : memref<2x?x16x256xf32>)
            {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = transposed>,
             scale = #pa.scale<per_token>, sliding_window = 257 : i64}
  return
}

// -----

// bf16 KV, no scales, no window, 32 rows (MTP 4 at GQA 8): one row group of
// two 16-row M-tiles sharing each K/V tile; 64-token pages give 4 page ids.
// CHECK-LABEL: func.func @two_m_tiles
// CHECK:         gpu.launch_func @pa_kernels::@pa_decode blocks in (%{{[^,]*}}, %c1{{[_0-9]*}}, %c1{{[_0-9]*}})
// CHECK:         gpu.func @pa_decode(
// CHECK-SAME:      workgroup(%{{.*}} : memref<32x128xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<32x256xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<32x128xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<32xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<32xf32, #gpu.address_space<workgroup>>)
// No window: every row group sees the slot from token 0.
// CHECK:           pa.tile.page_ids %{{.*}} tile %{{.*}} visible[%c0_i64{{[_0-9]*}}, %{{.*}}] {page_size = 64 : i64} : memref<?x?xi32> -> vector<4xi32>
// CHECK:           pa.tile.qk
// CHECK-NOT:         k_scale
// CHECK-SAME:        {compute = #pa.compute<bf16>, page_size = 64 : i64, scale = #pa.scale<none>, score_scale = 0.127517432 : f32}
// CHECK:           pa.tile.softmax {{.*}} {group_size = 8 : i64, query_length = 4 : i64, sliding_window = 0 : i64}
// CHECK:           pa.tile.pv {{.*}} {compute = #pa.compute<bf16>, page_size = 64 : i64, scale = #pa.scale<none>, v_layout = #pa.v_layout<plain>}
// CHECK:           pa.tile.store_partials {{.*}} {rows = 32 : i64}
func.func @two_m_tiles(%q: memref<?x8x128xf16>, %k: memref<?x1x16x64x8xbf16>,
                       %v: memref<?x1x128x64xbf16>, %bt: memref<?x?xi32>, %lens: memref<?xi32>,
                       %work: memref<?x4xi32>, %es: memref<1x?x32xf32>,
                       %ml: memref<1x?x32xf32>, %part: memref<1x?x32x128xf32>) {
  pa.decode query(%q : memref<?x8x128xf16>) key_cache(%k : memref<?x1x16x64x8xbf16>)
            value_cache(%v : memref<?x1x128x64xbf16>) block_tables(%bt : memref<?x?xi32>)
            context_lengths(%lens : memref<?xi32>) work_info(%work : memref<?x4xi32>)
            exp_sums(%es : memref<1x?x32xf32>) max_logits(%ml : memref<1x?x32xf32>)
            tmp_out(%part : memref<1x?x32x128xf32>)
            {kv_layout = #pa.kv_layout<page_size = 64, k_pack = 8, v_layout = plain>}
  return
}

// -----

// 128 rows (MTP 4 at GQA 32) in four row groups of 32 (grid z = 4); per-tensor
// scales on a bf16 cache and an explicit softmax scale (0.5 * log2(e)).
// CHECK-LABEL: func.func @four_row_groups
// CHECK:         gpu.launch_func @pa_kernels::@pa_decode blocks in (%{{[^,]*}}, %c1{{[_0-9]*}}, %c4)
// CHECK:         gpu.func @pa_decode(
// CHECK-SAME:      memref<32x64xf32, #gpu.address_space<workgroup>>
// CHECK:           %[[GROUP:.*]] = gpu.block_id z
// CHECK:           %[[ROWBASE:.*]] = arith.muli %[[GROUP]], %c32 : index
// CHECK:           pa.tile.qk {{.*}} k_scale(%{{.*}} : memref<1xf32>) into {{.*}} {compute = #pa.compute<bf16>, page_size = 128 : i64, scale = #pa.scale<per_tensor>, score_scale = 0.72134751 : f32}
// CHECK:           pa.tile.store_partials {{.*}}[%{{.*}}, %{{.*}}, %[[ROWBASE]]] {rows = 128 : i64}
func.func @four_row_groups(%q: memref<?x32x64xbf16>, %k: memref<?x1x8x128x8xbf16>,
                           %v: memref<?x1x64x128xbf16>, %bt: memref<?x?xi32>,
                           %lens: memref<?xi32>, %ks: memref<1xf32>, %vs: memref<1xf32>,
                           %work: memref<?x4xi32>, %es: memref<1x?x128xf32>,
                           %ml: memref<1x?x128xf32>, %part: memref<1x?x128x64xf32>) {
  pa.decode query(%q : memref<?x32x64xbf16>) key_cache(%k : memref<?x1x8x128x8xbf16>)
            value_cache(%v : memref<?x1x64x128xbf16>) block_tables(%bt : memref<?x?xi32>)
            context_lengths(%lens : memref<?xi32>)
            k_scale(%ks : memref<1xf32>) v_scale(%vs : memref<1xf32>)
            work_info(%work : memref<?x4xi32>) exp_sums(%es : memref<1x?x128xf32>)
            max_logits(%ml : memref<1x?x128xf32>) tmp_out(%part : memref<1x?x128x64xf32>)
            {kv_layout = #pa.kv_layout<page_size = 128, k_pack = 8, v_layout = plain>,
             scale = #pa.scale<per_tensor>, softmax_scale = 0.5 : f64}
  return
}

// -----

// logits_soft_cap = 30 becomes the tile's soft_cap in the exp2 domain of its
// scores (30 * log2(e)); without the attribute tile.qk has none (above).
// CHECK-LABEL: func.func @soft_cap
// CHECK:         pa.tile.qk
// CHECK-SAME:      soft_cap = 43.2808495 : f32
// CHECK-NOT:     pa.tile.alibi
// CHECK:         pa.tile.softmax
func.func @soft_cap(%q: memref<?x8x128xbf16>, %k: memref<?x1x8x16x16xf8E4M3FN>,
                    %v: memref<?x1x128x16xf8E4M3FN>, %bt: memref<?x?xi32>,
                    %lens: memref<?xi32>, %work: memref<?x4xi32>,
                    %es: memref<1x?x8xf32>, %ml: memref<1x?x8xf32>,
                    %part: memref<1x?x8x128xf32>) {
  pa.decode query(%q : memref<?x8x128xbf16>) key_cache(%k : memref<?x1x8x16x16xf8E4M3FN>)
            value_cache(%v : memref<?x1x128x16xf8E4M3FN>) block_tables(%bt : memref<?x?xi32>)
            context_lengths(%lens : memref<?xi32>)
            work_info(%work : memref<?x4xi32>) exp_sums(%es : memref<1x?x8xf32>)
            max_logits(%ml : memref<1x?x8xf32>) tmp_out(%part : memref<1x?x8x128xf32>)
            {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>,
             logits_soft_cap = 30.0 : f64}
  return
}

// -----

// A strided query (a view of a fused qkv tensor): the decode kernel takes
// it with its strided<[?, D, 1]> type, launched with the caller's memref,
// and load_query reads it as such.
// CHECK-LABEL: func.func @strided_query
// CHECK:         gpu.launch_func @pa_kernels::@pa_decode {{.*}} args(%{{.*}} : memref<?x4x64xf16, strided<[?, 64, 1]>>,
// CHECK:         gpu.func @pa_decode(%[[QUERY:[^:]*]]: memref<?x4x64xf16, strided<[?, 64, 1]>>
// CHECK:           pa.tile.load_query %[[QUERY]][{{.*}}] into {{.*}} : memref<?x4x64xf16, strided<[?, 64, 1]>>,
func.func @strided_query(%q: memref<?x4x64xf16, strided<[?, 64, 1]>>,
                         %k: memref<?x1x8x64x8xbf16>,
                         %v: memref<?x1x64x64xbf16>, %bt: memref<?x?xi32>,
                         %lens: memref<?xi32>, %work: memref<?x4xi32>,
                         %es: memref<1x?x4xf32>, %ml: memref<1x?x4xf32>,
                         %part: memref<1x?x4x64xf32>) {
  pa.decode query(%q : memref<?x4x64xf16, strided<[?, 64, 1]>>)
            key_cache(%k : memref<?x1x8x64x8xbf16>)
            value_cache(%v : memref<?x1x64x64xbf16>) block_tables(%bt : memref<?x?xi32>)
            context_lengths(%lens : memref<?xi32>) work_info(%work : memref<?x4xi32>)
            exp_sums(%es : memref<1x?x4xf32>) max_logits(%ml : memref<1x?x4xf32>)
            tmp_out(%part : memref<1x?x4x64xf32>)
            {kv_layout = #pa.kv_layout<page_size = 64, k_pack = 8, v_layout = plain>}
  return
}

// -----

// nhd caches, page size 1: 256 page ids per tile; the tile ops carry the
// layout, so every lowering indexes the cache the way it is laid out.
// CHECK-LABEL: func.func @nhd_page_1
// CHECK:         gpu.func @pa_decode(
// CHECK:           pa.tile.page_ids {{.*}} {page_size = 1 : i64} : memref<?x?xi32> -> vector<256xi32>
// CHECK:           pa.tile.qk {{.*}} {cache_layout = #pa.cache_layout<nhd>, compute = #pa.compute<bf16>, page_size = 1 : i64
// CHECK-SAME:        memref<?x1x2x64xbf16>
// CHECK:           pa.tile.pv {{.*}} {cache_layout = #pa.cache_layout<nhd>, compute = #pa.compute<bf16>, page_size = 1 : i64
func.func @nhd_page_1(%q: memref<?x8x64xbf16>, %k: memref<?x1x2x64xbf16>,
                      %v: memref<?x1x2x64xbf16>, %bt: memref<?x?xi32>, %lens: memref<?xi32>,
                      %work: memref<?x4xi32>, %es: memref<2x?x4xf32>,
                      %ml: memref<2x?x4xf32>, %part: memref<2x?x4x64xf32>) {
  pa.decode query(%q : memref<?x8x64xbf16>) key_cache(%k : memref<?x1x2x64xbf16>)
            value_cache(%v : memref<?x1x2x64xbf16>) block_tables(%bt : memref<?x?xi32>)
            context_lengths(%lens : memref<?xi32>) work_info(%work : memref<?x4xi32>)
            exp_sums(%es : memref<2x?x4xf32>) max_logits(%ml : memref<2x?x4xf32>)
            tmp_out(%part : memref<2x?x4x64xf32>)
            {kv_layout = #pa.kv_layout<page_size = 1, layout = nhd>}
  return
}

// -----

// hnd caches, page size 1024: a page spans four tiles, one page id each.
// CHECK-LABEL: func.func @hnd_page_1024
// CHECK:         gpu.func @pa_decode(
// CHECK:           pa.tile.page_ids {{.*}} {page_size = 1024 : i64} : memref<?x?xi32> -> vector<1xi32>
// CHECK:           pa.tile.qk {{.*}} {cache_layout = #pa.cache_layout<hnd>
// CHECK:           pa.tile.pv {{.*}} {cache_layout = #pa.cache_layout<hnd>
func.func @hnd_page_1024(%q: memref<?x4x128xbf16>, %k: memref<?x1x1024x128xf8E4M3FN>,
                         %v: memref<?x1x1024x128xf8E4M3FN>, %bt: memref<?x?xi32>, %lens: memref<?xi32>,
                         %work: memref<?x4xi32>, %es: memref<1x?x4xf32>,
                         %ml: memref<1x?x4xf32>, %part: memref<1x?x4x128xf32>) {
  pa.decode query(%q : memref<?x4x128xbf16>) key_cache(%k : memref<?x1x1024x128xf8E4M3FN>)
            value_cache(%v : memref<?x1x1024x128xf8E4M3FN>) block_tables(%bt : memref<?x?xi32>)
            context_lengths(%lens : memref<?xi32>) work_info(%work : memref<?x4xi32>)
            exp_sums(%es : memref<1x?x4xf32>) max_logits(%ml : memref<1x?x4xf32>)
            tmp_out(%part : memref<1x?x4x128xf32>)
            {kv_layout = #pa.kv_layout<page_size = 1024, layout = hnd>}
  return
}

// -----

// ALiBi slopes: pa.tile.alibi between the qk and the softmax of each tile,
// on the scores, the KV head (block id y) and the slopes kernel argument.
// CHECK-LABEL: func.func @alibi
// CHECK:         gpu.func @pa_decode(
// CHECK-SAME:      %[[SLOPES:arg[0-9]+]]: memref<8xf32>
// CHECK-SAME:      pa.arg_names = ["query", "key_cache", "value_cache", "block_tables", "context_lengths", "alibi_slopes", "work_info", "exp_sums", "max_logits", "tmp_out"]
// CHECK:         %[[KV:.*]] = gpu.block_id y
// CHECK:         pa.tile.qk
// CHECK-NEXT:    pa.tile.alibi %{{.*}}, %[[SLOPES]][%[[KV]]] context %{{.*}} tile_start %{{.*}} row_base %{{.*}} {group_size = 8 : i64, query_length = 1 : i64}
// CHECK-NEXT:    pa.tile.softmax
func.func @alibi(%q: memref<?x8x128xbf16>, %k: memref<?x1x8x16x16xf8E4M3FN>,
                 %v: memref<?x1x128x16xf8E4M3FN>, %bt: memref<?x?xi32>,
                 %lens: memref<?xi32>, %slopes: memref<8xf32>,
                 %work: memref<?x4xi32>,
                 %es: memref<1x?x8xf32>, %ml: memref<1x?x8xf32>,
                 %part: memref<1x?x8x128xf32>) {
  pa.decode query(%q : memref<?x8x128xbf16>) key_cache(%k : memref<?x1x8x16x16xf8E4M3FN>)
            value_cache(%v : memref<?x1x128x16xf8E4M3FN>) block_tables(%bt : memref<?x?xi32>)
            context_lengths(%lens : memref<?xi32>) alibi_slopes(%slopes : memref<8xf32>)
            work_info(%work : memref<?x4xi32>) exp_sums(%es : memref<1x?x8xf32>)
            max_logits(%ml : memref<1x?x8xf32>) tmp_out(%part : memref<1x?x8x128xf32>)
            {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}
  return
}

// -----

// Head dim 512 with 32 rows (Q 4, G 8): on AMD two 16-row groups (grid z
// 2), whose kernels keep one M-tile of accumulators (128 VGPRs) instead of
// two (256, spilling); NVIDIA keeps one 32-row group.
// CHECK-LABEL: func.func @d512_32_rows
// CHECK:         gpu.launch_func @pa_kernels::@pa_decode blocks in (%{{[^,]*}}, %c1{{[_0-9]*}}, %c2{{[_0-9]*}})
// CHECK:         gpu.func @pa_decode(
// CHECK-SAME:      workgroup(%{{.*}} : memref<16x512xf32, #gpu.address_space<workgroup>>
// CHECK:           %[[GROUP:.*]] = gpu.block_id z
// CHECK:           arith.muli %[[GROUP]], %c16 : index
// NV-LABEL:      func.func @d512_32_rows
// NV:            gpu.launch_func @pa_kernels::@pa_decode blocks in (%{{[^,]*}}, %c1{{[_0-9]*}}, %c1{{[_0-9]*}})
// NV:            gpu.func @pa_decode(
// NV-SAME:         workgroup(%{{.*}} : memref<32x512xf32, #gpu.address_space<workgroup>>
func.func @d512_32_rows(%q: memref<?x8x512xbf16>, %k: memref<?x1x32x16x16xf8E4M3FN>,
                        %v: memref<?x1x512x16xf8E4M3FN>, %bt: memref<?x?xi32>,
                        %lens: memref<?xi32>, %work: memref<?x4xi32>,
                        %es: memref<1x?x32xf32>, %ml: memref<1x?x32xf32>,
                        %part: memref<1x?x32x512xf32>) {
  pa.decode query(%q : memref<?x8x512xbf16>) key_cache(%k : memref<?x1x32x16x16xf8E4M3FN>)
            value_cache(%v : memref<?x1x512x16xf8E4M3FN>) block_tables(%bt : memref<?x?xi32>)
            context_lengths(%lens : memref<?xi32>) work_info(%work : memref<?x4xi32>)
            exp_sums(%es : memref<1x?x32xf32>) max_logits(%ml : memref<1x?x32xf32>)
            tmp_out(%part : memref<1x?x32x512xf32>)
            {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}
  return
}
