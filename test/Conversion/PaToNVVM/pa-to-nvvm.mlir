// pa-to-nvvm on the kernels of the tiling passes: the decode and reduce
// kernels on warps, the plan kernel on thread 0, no tile op left.
// RUN: pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},pa-lower-plan,pa-tile,pa-lower-reduce,gpu.module(pa-stage-page-ids,pa-to-nvvm))' \
// RUN:   | FileCheck %s
// RUN: pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},pa-lower-plan,pa-tile,pa-lower-reduce,gpu.module(pa-stage-page-ids,pa-to-nvvm{fp8-products=e4m3}))' \
// RUN:   | FileCheck %s --check-prefix=E4M3

// fp8 KV (D = 128, G = 8: one 16-row M-tile), transposed V, per-token
// scales, sinks.
// CHECK-LABEL: gpu.module @pa_kernels
// CHECK:       gpu.func @pa_plan(
// CHECK-SAME:      pa.distribution = #pa.distribution<thread0>
// CHECK:         gpu.thread_id x
// CHECK:         scf.if
// CHECK:       gpu.func @pa_decode(
// CHECK-SAME:      workgroup(
// CHECK-SAME:      pa.distribution = #pa.distribution<warps>
// A query row holding a NaN or infinity becomes NaN as a whole: each of the
// lane's 4 values (bf16 widened by bits) plus sum(0 * q) over the warp.
// CHECK:         %[[Q0:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK:         arith.mulf %[[Q0]], %[[ZERO:.*]] : f32
// CHECK:         gpu.shuffle  xor %{{.*}}, %c16_i32
// CHECK:         gpu.shuffle  xor %{{.*}}, %c1_i32
// CHECK:         %[[POISON:.*]] = arith.addf
// CHECK:         arith.addf %[[Q0]], %[[POISON]] : f32
// The page ids go through shared memory (thread 0 stores a tile's vector).
// CHECK:         vector.store %{{.*}} : memref<32xi32, #gpu.address_space<workgroup>>, vector<16xi32>
// The K chunks: 16-byte loads of 16 fp8 values, read once (nontemporal: the
// target loads them without L1 lines), converted exactly to f16.
// CHECK:         vector.load %{{.*}} {alignment = 16 : i64, nontemporal = true} : memref<?x1x8x16x16xf8E4M3FN>, vector<16xf8E4M3FN>
// CHECK:         llvm.call_intrinsic "llvm.nvvm.e4m3x2.to.f16x2.rn"
// CHECK:         llvm.call_intrinsic "llvm.nvvm.mma.m16n8k16.row.col.f32.f32"
// A score that is not finite is NaN (s * 0 + s) when it is stored: a real
// -inf must make its row NaN, not weigh 0 like a masked score.
// CHECK:         math.fma %[[RAW:[^,]+]], %{{.*}}, %[[RAW]] : f32
// The softmax (16 rows): every score masked (no branch for interior
// tiles: 32-row kernels only); maxima that drop NaN (one max.f32 each; the
// row sum keeps a NaN); exp2 flushing subnormal weights (one MUFU.EX2
// each).
// CHECK:         gpu.barrier
// CHECK-NOT:     scf.if %{{.*}} -> (f32, f32,
// CHECK:         arith.select %{{.*}}, %{{.*}}, %cst{{.*}} : f32
// CHECK-NOT:     scf.if %{{.*}} -> (f32, f32,
// CHECK:         arith.maxnumf
// CHECK:         gpu.shuffle  xor
// CHECK:         llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// P packed to f16 pairs for the PV products.
// CHECK:         llvm.call_intrinsic "llvm.nvvm.ff2f16x2.rn"
// Tiles with invalid tokens take the masked branch.
// CHECK:         scf.if
// CHECK:         vector.load %{{.*}} {alignment = 16 : i64, nontemporal = true} : memref<?x1x1x128x16xf8E4M3FN>, vector<16xf8E4M3FN>
// A NaN row sum (a non-finite input reached the row) is max_logits too.
// CHECK:         %[[NAN_SUM:.*]] = arith.cmpf uno, %[[SUM:.*]], %[[SUM]] : f32
// CHECK:         %[[LOGIT:.*]] = arith.select %[[NAN_SUM]], %[[SUM]], %{{.*}} : f32
// CHECK:         memref.store %[[LOGIT]], %{{.*}} : memref<1x?x8xf32>
// A tmp_out element that is not finite (an infinite value or V scale) is NaN.
// CHECK:         %[[NORM:.*]] = arith.divf
// CHECK:         %[[NORM_OR_NAN:.*]] = math.fma %[[NORM]], %{{.*}}, %[[NORM]] : f32
// CHECK:         arith.select %{{.*}}, %{{.*}}, %[[NORM_OR_NAN]] : f32
// CHECK:       gpu.func @pa_reduce(
// CHECK-SAME:      pa.distribution = #pa.distribution<warps>
// CHECK:         gpu.shuffle  xor
// CHECK-NOT:   pa.tile.

// E4M3:       gpu.func @pa_decode(
// E4M3:         llvm.call_intrinsic "llvm.nvvm.mma.m16n8k32.row.col.f32.e4m3.e4m3.f32"
// E4M3:         llvm.call_intrinsic "llvm.nvvm.ff.to.e4m3x2.rn"
func.func @decode_fp8(%query: memref<?x8x128xbf16>, %key_cache: memref<?x1x8x16x16xf8E4M3FN>,
    %value_cache: memref<?x1x1x128x16xf8E4M3FN>, %block_tables: memref<?x?xi32>,
    %context_lengths: memref<?xi32>, %k_scale: memref<?x1x16xf32>, %v_scale: memref<?x1x16xf32>,
    %sinks: memref<8xf32>, %work_info: memref<?x4xi32>, %reduce_info: memref<?x2xi32>,
    %exp_sums: memref<1x?x8xf32>, %max_logits: memref<1x?x8xf32>, %tmp_out: memref<1x?x8x128xf32>,
    %output: memref<?x8x128xbf16>) {
  pa.plan context_lengths(%context_lengths : memref<?xi32>) work_info(%work_info : memref<?x4xi32>)
          reduce_info(%reduce_info : memref<?x2xi32>) {num_kv_heads = 1 : i64, query_length = 1 : i64}
  pa.decode query(%query : memref<?x8x128xbf16>) key_cache(%key_cache : memref<?x1x8x16x16xf8E4M3FN>)
            value_cache(%value_cache : memref<?x1x1x128x16xf8E4M3FN>) block_tables(%block_tables : memref<?x?xi32>)
            context_lengths(%context_lengths : memref<?xi32>) k_scale(%k_scale : memref<?x1x16xf32>)
            v_scale(%v_scale : memref<?x1x16xf32>) work_info(%work_info : memref<?x4xi32>)
            exp_sums(%exp_sums : memref<1x?x8xf32>) max_logits(%max_logits : memref<1x?x8xf32>)
            tmp_out(%tmp_out : memref<1x?x8x128xf32>)
            {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = transposed>,
             scale = #pa.scale<per_token>}
  pa.reduce exp_sums(%exp_sums : memref<1x?x8xf32>) max_logits(%max_logits : memref<1x?x8xf32>)
            tmp_out(%tmp_out : memref<1x?x8x128xf32>) reduce_info(%reduce_info : memref<?x2xi32>)
            sinks(%sinks : memref<8xf32>) output(%output : memref<?x8x128xbf16>)
  return
}

// -----

// bf16 KV with an f16 query (G = 16, Q = 2: two M-tiles), plain V: bf16
// products, the query and P split into hi + lo bf16 terms (the casts of the
// query are bit operations by now: pa-expand-float-casts).
// CHECK-LABEL: gpu.module @pa_kernels
// CHECK:       gpu.func @pa_decode(
// CHECK-SAME:      pa.distribution = #pa.distribution<warps>
// CHECK:         vector.load %{{.*}} {alignment = 16 : i64, nontemporal = true} : memref<?x1x8x64x8xbf16>, vector<8xbf16>
// CHECK:         llvm.call_intrinsic "llvm.nvvm.mma.m16n8k16.row.col.bf16"
// CHECK:         llvm.call_intrinsic "llvm.nvvm.ff2bf16x2.rn"
// CHECK:         llvm.call_intrinsic "llvm.nvvm.ff2bf16x2.rn"
// CHECK:         vector.load %{{.*}} {alignment = 16 : i64, nontemporal = true} : memref<?x1x64x64xbf16>, vector<8xbf16>
// CHECK-NOT:   pa.tile.
func.func @decode_bf16(%query: memref<?x16x64xf16>, %key_cache: memref<?x1x8x64x8xbf16>,
    %value_cache: memref<?x1x64x64xbf16>, %block_tables: memref<?x?xi32>,
    %context_lengths: memref<?xi32>, %work_info: memref<?x4xi32>,
    %exp_sums: memref<1x?x32xf32>, %max_logits: memref<1x?x32xf32>,
    %tmp_out: memref<1x?x32x64xf32>) {
  pa.decode query(%query : memref<?x16x64xf16>) key_cache(%key_cache : memref<?x1x8x64x8xbf16>)
            value_cache(%value_cache : memref<?x1x64x64xbf16>) block_tables(%block_tables : memref<?x?xi32>)
            context_lengths(%context_lengths : memref<?xi32>) work_info(%work_info : memref<?x4xi32>)
            exp_sums(%exp_sums : memref<1x?x32xf32>) max_logits(%max_logits : memref<1x?x32xf32>)
            tmp_out(%tmp_out : memref<1x?x32x64xf32>)
            {kv_layout = #pa.kv_layout<page_size = 64, k_pack = 8, v_layout = plain>,
             scale = #pa.scale<none>}
  return
}

// -----

// A strided query (a view of a fused qkv tensor, strided<[?, D, 1]>): the
// warps read its rows through the strided memref, so the row stride comes
// from the kernel's query descriptor at run time.
// CHECK-LABEL: gpu.module @pa_kernels
// CHECK:       gpu.func @pa_decode(%[[QUERY:[^:]*]]: memref<?x16x64xf16, strided<[?, 64, 1]>>
// CHECK:         memref.load %[[QUERY]][%{{.*}}, %{{.*}}, %{{.*}}] : memref<?x16x64xf16, strided<[?, 64, 1]>>
// CHECK-NOT:   pa.tile.
func.func @decode_strided_query(%query: memref<?x16x64xf16, strided<[?, 64, 1]>>,
    %key_cache: memref<?x1x8x64x8xbf16>,
    %value_cache: memref<?x1x64x64xbf16>, %block_tables: memref<?x?xi32>,
    %context_lengths: memref<?xi32>, %work_info: memref<?x4xi32>,
    %exp_sums: memref<1x?x32xf32>, %max_logits: memref<1x?x32xf32>,
    %tmp_out: memref<1x?x32x64xf32>) {
  pa.decode query(%query : memref<?x16x64xf16, strided<[?, 64, 1]>>)
            key_cache(%key_cache : memref<?x1x8x64x8xbf16>)
            value_cache(%value_cache : memref<?x1x64x64xbf16>) block_tables(%block_tables : memref<?x?xi32>)
            context_lengths(%context_lengths : memref<?xi32>) work_info(%work_info : memref<?x4xi32>)
            exp_sums(%exp_sums : memref<1x?x32xf32>) max_logits(%max_logits : memref<1x?x32xf32>)
            tmp_out(%tmp_out : memref<1x?x32x64xf32>)
            {kv_layout = #pa.kv_layout<page_size = 64, k_pack = 8, v_layout = plain>,
             scale = #pa.scale<none>}
  return
}

// -----

// An nhd cache, page size 1 (a token pool), on the warps: a token's K head
// dims are one 16-byte load at the layout's address [page, slot, kv head, d]
// (buildCacheElementIndices, as on the host and AMD); pv's two n-blocks of a
// warp interleave their columns (lane g: columns 2g, 2g + 1), so a thread's
// V chunks of 8 tokens are 8 loads of 2 head dims, each token with its own
// page id (two tiles' ids of 256 pages each in shared memory). 256 ids per
// tile are read one per thread: when staged (page f of the staged ids on
// thread f % 128) and for the tiles past the staged bound (into the staged
// buffer's first tile); the scf.if yields where the tile's ids start in the
// staged buffer, and qk copies them (through pa-tile's pool guard) one per
// thread into the slot of the tile's parity, not as thread 0's vector.
// CHECK-LABEL: gpu.module @pa_kernels
// CHECK:       gpu.func @pa_decode(
// CHECK-SAME:      %[[KEYS:[^:]*]]: memref<?x1x1x64xbf16>, %[[VALUES:[^:]*]]: memref<?x1x1x64xbf16>
// CHECK-SAME:      memref<512xi32, #gpu.address_space<workgroup>>
// CHECK-SAME:      pa.distribution = #pa.distribution<warps>
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK:         %[[KV:.*]] = gpu.block_id y
// CHECK:         scf.for %{{.*}} = %[[TID]] to %{{.*}} step %c128
// CHECK:           memref.load %{{.*}} : memref<?x?xi32>
// CHECK:           memref.store %{{.*}}, %[[STAGED:.*]][%{{.*}}] : memref<2048xi32, #gpu.address_space<workgroup>>
// CHECK:         gpu.barrier
// CHECK:         scf.for
// CHECK:           %[[FIRST:.*]] = scf.if %{{.*}} -> (index) {
// CHECK:             %[[STAGED_FIRST:.*]] = arith.muli
// CHECK:             scf.yield %[[STAGED_FIRST]] : index
// CHECK:           } else {
// CHECK:             scf.for %{{.*}} = %[[TID]] to %c256{{.*}} step %c128
// CHECK:               memref.load %{{.*}} : memref<?x?xi32>
// CHECK:               memref.store %{{.*}}, %[[STAGED]][%{{.*}}] : memref<2048xi32, #gpu.address_space<workgroup>>
// CHECK:             gpu.barrier
// CHECK:             scf.yield %c0{{.*}} : index
// CHECK:           }
// CHECK-NOT:       vector.store {{.*}}memref<512xi32
// CHECK:           scf.for %[[K:.*]] = %[[TID]] to %c256{{.*}} step %c128
// CHECK:             %[[AT:.*]] = arith.addi %[[FIRST]], %[[K]] : index
// CHECK:             %[[ID:.*]] = memref.load %[[STAGED]][%[[AT]]] : memref<2048xi32, #gpu.address_space<workgroup>>
// CHECK:             %[[IN_POOL:.*]] = arith.cmpi ult, %[[ID]], %{{.*}} : i32
// CHECK:             %[[GUARDED:.*]] = arith.select %[[IN_POOL]], %[[ID]], %{{.*}} : i32
// CHECK:             memref.store %[[GUARDED]], %{{.*}}[%{{.*}}] : memref<512xi32, #gpu.address_space<workgroup>>
// CHECK:           }
// CHECK:           gpu.barrier
// K and V are read with ld.global.L1::no_allocate.L2::256B (inline PTX at
// the element's address: aligned pointer + (offset + indices . strides) * 2
// bytes), so that the first piece of a token's row brings the rest into L2,
// and no byte, read once, takes an L1 line.
// CHECK:         memref.extract_strided_metadata %[[KEYS]]
// CHECK:         memref.extract_aligned_pointer_as_index %[[KEYS]]
// CHECK:         llvm.addrspacecast %{{.*}} : !llvm.ptr to !llvm.ptr<1>
// CHECK:         llvm.inline_asm "ld.global.L1::no_allocate.L2::256B.v4.b32 {$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,l" %{{.*}} : (!llvm.ptr<1>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK:         vector.bitcast %{{.*}} : vector<4xi32> to vector<8xbf16>
// CHECK-COUNT-8: llvm.inline_asm "ld.global.L1::no_allocate.L2::256B.b32 $0, [$1];", "=r,l" %{{.*}} : (!llvm.ptr<1>) -> i32
// CHECK:         vector.from_elements {{.*}} : vector<8xbf16>
// CHECK:         vector.from_elements {{.*}} : vector<8xbf16>
// CHECK-NOT:   pa.tile.
func.func @decode_nhd(%query: memref<?x8x64xbf16>, %key_cache: memref<?x1x1x64xbf16>,
    %value_cache: memref<?x1x1x64xbf16>, %block_tables: memref<?x?xi32>,
    %context_lengths: memref<?xi32>, %work_info: memref<?x4xi32>,
    %exp_sums: memref<1x?x8xf32>, %max_logits: memref<1x?x8xf32>,
    %tmp_out: memref<1x?x8x64xf32>) {
  pa.decode query(%query : memref<?x8x64xbf16>) key_cache(%key_cache : memref<?x1x1x64xbf16>)
            value_cache(%value_cache : memref<?x1x1x64xbf16>) block_tables(%block_tables : memref<?x?xi32>)
            context_lengths(%context_lengths : memref<?xi32>) work_info(%work_info : memref<?x4xi32>)
            exp_sums(%exp_sums : memref<1x?x8xf32>) max_logits(%max_logits : memref<1x?x8xf32>)
            tmp_out(%tmp_out : memref<1x?x8x64xf32>)
            {kv_layout = #pa.kv_layout<page_size = 1, layout = nhd>}
  return
}

// -----

// hnd fp8, page size 1024 (a page spans four tiles), K and V as strided
// views of one combined [N, 2, Hkv, P, D] cache: one page id per tile (two
// tiles' in shared memory), the tile's slots from tile_start % 1024 on; a V
// chunk of 16 tokens is 16 loads of the 4 interleaved columns of lane g.
// CHECK-LABEL: gpu.module @pa_kernels
// CHECK:       gpu.func @pa_decode(
// CHECK-SAME:      %[[KEYS:[^:]*]]: memref<?x2x1024x128xf8E4M3FN, strided<[524288, 131072, 128, 1]>>
// CHECK-SAME:      %[[VALUES:[^:]*]]: memref<?x2x1024x128xf8E4M3FN, strided<[524288, 131072, 128, 1], offset: 262144>>
// CHECK-SAME:      memref<2xi32, #gpu.address_space<workgroup>>
// CHECK-SAME:      pa.distribution = #pa.distribution<warps>
// CHECK:         arith.remui %{{.*}}, %c1024_i64{{.*}} : i64
// The views' addresses from their strided metadata (V's offset of 262144
// elements included).
// CHECK:         memref.extract_strided_metadata %[[KEYS]] : memref<?x2x1024x128xf8E4M3FN, strided<[524288, 131072, 128, 1]>>
// CHECK:         llvm.inline_asm "ld.global.L1::no_allocate.L2::256B.v4.b32 {$0, $1, $2, $3}, [$4];"
// CHECK:         vector.bitcast %{{.*}} : vector<4xi32> to vector<16xf8E4M3FN>
// CHECK:         memref.extract_strided_metadata %[[VALUES]] : memref<?x2x1024x128xf8E4M3FN, strided<[524288, 131072, 128, 1], offset: 262144>>
// CHECK-COUNT-16: llvm.inline_asm "ld.global.L1::no_allocate.L2::256B.b32 $0, [$1];", "=r,l"
// CHECK:         vector.from_elements {{.*}} : vector<16xf8E4M3FN>
// CHECK-NOT:   pa.tile.
func.func @decode_hnd_combined(%query: memref<?x16x128xbf16>,
    %key_cache: memref<?x2x1024x128xf8E4M3FN, strided<[524288, 131072, 128, 1]>>,
    %value_cache: memref<?x2x1024x128xf8E4M3FN, strided<[524288, 131072, 128, 1], offset: 262144>>,
    %block_tables: memref<?x?xi32>, %context_lengths: memref<?xi32>,
    %k_scale: memref<1xf32>, %v_scale: memref<1xf32>, %work_info: memref<?x4xi32>,
    %exp_sums: memref<2x?x8xf32>, %max_logits: memref<2x?x8xf32>,
    %tmp_out: memref<2x?x8x128xf32>) {
  pa.decode query(%query : memref<?x16x128xbf16>)
            key_cache(%key_cache : memref<?x2x1024x128xf8E4M3FN, strided<[524288, 131072, 128, 1]>>)
            value_cache(%value_cache : memref<?x2x1024x128xf8E4M3FN, strided<[524288, 131072, 128, 1], offset: 262144>>)
            block_tables(%block_tables : memref<?x?xi32>)
            context_lengths(%context_lengths : memref<?xi32>)
            k_scale(%k_scale : memref<1xf32>) v_scale(%v_scale : memref<1xf32>)
            work_info(%work_info : memref<?x4xi32>)
            exp_sums(%exp_sums : memref<2x?x8xf32>) max_logits(%max_logits : memref<2x?x8xf32>)
            tmp_out(%tmp_out : memref<2x?x8x128xf32>)
            {kv_layout = #pa.kv_layout<page_size = 1024, layout = hnd>,
             scale = #pa.scale<per_tensor>}
  return
}

// -----

// ALiBi slopes on warps: the softmax reads the row's slope (query head
// h * G + r % G) once, times log2(e), and adds slope * f32(t - (C - Q + q))
// to each score as it reads it, before the mask.
// CHECK-LABEL: gpu.module @pa_kernels
// CHECK:       gpu.func @pa_decode(
// CHECK-SAME:      %[[SLOPES:arg[0-9]+]]: memref<8xf32>
// CHECK-SAME:      pa.distribution = #pa.distribution<warps>
// CHECK:         %[[SLOPE:.*]] = memref.load %[[SLOPES]][%{{.*}}] : memref<8xf32>
// CHECK:         %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// CHECK:         %[[SLOPE2:.*]] = arith.mulf %[[SLOPE]], %[[LOG2E]] : f32
// CHECK:         %[[RAW:.*]] = memref.load %{{.*}} : memref<{{.*}}xf32, #gpu.address_space<workgroup>>
// CHECK:         %[[DIST:.*]] = arith.subi %{{.*}}, %{{.*}} : i64
// CHECK:         %[[DISTF:.*]] = arith.sitofp %[[DIST]] : i64 to f32
// CHECK:         %[[BIAS:.*]] = arith.mulf %[[SLOPE2]], %[[DISTF]] : f32
// CHECK:         %[[BIASED:.*]] = arith.addf %[[RAW]], %[[BIAS]] : f32
// CHECK:         arith.select %{{.*}}, %[[BIASED]], %{{.*}} : f32
// CHECK-NOT:     pa.tile
func.func @alibi(%q: memref<?x8x128xbf16>, %k: memref<?x1x8x16x16xf8E4M3FN>,
                 %v: memref<?x1x128x16xf8E4M3FN>, %bt: memref<?x?xi32>,
                 %lens: memref<?xi32>, %slopes: memref<8xf32>,
                 %work: memref<?x4xi32>, %red: memref<?x2xi32>,
                 %es: memref<1x?x8xf32>, %ml: memref<1x?x8xf32>,
                 %part: memref<1x?x8x128xf32>, %out: memref<?x8x128xbf16>) {
  pa.plan context_lengths(%lens : memref<?xi32>) work_info(%work : memref<?x4xi32>)
          reduce_info(%red : memref<?x2xi32>) {num_kv_heads = 1 : i64}
  pa.decode query(%q : memref<?x8x128xbf16>) key_cache(%k : memref<?x1x8x16x16xf8E4M3FN>)
            value_cache(%v : memref<?x1x128x16xf8E4M3FN>) block_tables(%bt : memref<?x?xi32>)
            context_lengths(%lens : memref<?xi32>) alibi_slopes(%slopes : memref<8xf32>)
            work_info(%work : memref<?x4xi32>) exp_sums(%es : memref<1x?x8xf32>)
            max_logits(%ml : memref<1x?x8xf32>) tmp_out(%part : memref<1x?x8x128xf32>)
            {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>}
  pa.reduce exp_sums(%es : memref<1x?x8xf32>) max_logits(%ml : memref<1x?x8xf32>)
            tmp_out(%part : memref<1x?x8x128xf32>) reduce_info(%red : memref<?x2xi32>)
            output(%out : memref<?x8x128xbf16>)
  return
}

// -----

// Head dim 80 (fp8, f16 products): on warps. The QK contraction runs over
// two 64-wide blocks; the query's columns past D (lane + 64) are read at
// column 79 and zeroed, and block 1's K chunks t >= 1 (head dims 80..127)
// read chunk 4 and become zero words. PV takes 96 columns (24 per warp,
// n-blocks of 8); columns past D read V column 79 and are never stored.
// CHECK-LABEL: gpu.module @pa_kernels
// CHECK:       gpu.func @pa_decode(
// CHECK-SAME:      pa.distribution = #pa.distribution<warps>
// CHECK:         %[[QIN:.*]] = arith.cmpi ult, %{{.*}}, %c80 : index
// CHECK:         arith.select %[[QIN]], %{{.*}}, %c79 : index
// CHECK:         arith.select %[[QIN]], %{{.*}}, %{{.*}} : bf16
// CHECK:         %[[KIN:.*]] = arith.cmpi ult, %{{.*}}, %c5 : index
// CHECK:         %[[CHUNK:.*]] = arith.select %[[KIN]], %{{.*}}, %c4{{[_0-9]*}} : index
// CHECK:         vector.load %{{.*}}[%{{.*}}, %{{.*}}, %[[CHUNK]], %{{.*}}, %{{.*}}] {alignment = 16 : i64, nontemporal = true} : memref<?x1x5x16x16xf8E4M3FN>, vector<16xf8E4M3FN>
// CHECK:         arith.select %[[KIN]], %{{.*}}, %c0_i32{{[_0-9]*}} : i32
// CHECK:         %[[VIN:.*]] = arith.cmpi ult, %{{.*}}, %c80{{[_0-9]*}} : index
// CHECK:         %[[COLUMN:.*]] = arith.select %[[VIN]], %{{.*}}, %c79{{[_0-9]*}} : index
// CHECK:         vector.load %{{.*}}[%{{.*}}, %{{.*}}, %[[COLUMN]], %{{.*}}] {alignment = 16 : i64, nontemporal = true} : memref<?x1x80x16xf8E4M3FN>, vector<16xf8E4M3FN>
// CHECK-NOT:   pa.tile.
func.func @decode_d80(%query: memref<?x8x80xbf16>, %key_cache: memref<?x1x5x16x16xf8E4M3FN>,
    %value_cache: memref<?x1x80x16xf8E4M3FN>, %block_tables: memref<?x?xi32>,
    %context_lengths: memref<?xi32>, %work_info: memref<?x4xi32>,
    %exp_sums: memref<1x?x8xf32>, %max_logits: memref<1x?x8xf32>,
    %tmp_out: memref<1x?x8x80xf32>) {
  pa.decode query(%query : memref<?x8x80xbf16>) key_cache(%key_cache : memref<?x1x5x16x16xf8E4M3FN>)
            value_cache(%value_cache : memref<?x1x80x16xf8E4M3FN>) block_tables(%block_tables : memref<?x?xi32>)
            context_lengths(%context_lengths : memref<?xi32>) work_info(%work_info : memref<?x4xi32>)
            exp_sums(%exp_sums : memref<1x?x8xf32>) max_logits(%max_logits : memref<1x?x8xf32>)
            tmp_out(%tmp_out : memref<1x?x8x80xf32>)
            {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>,
             scale = #pa.scale<none>}
  return
}

// -----

// The log-sum-exp output: the reduce on warps stores M + ln(den), the natural
// log as lg2.approx.f32 times ln 2 (NVPTX lowers llvm.log only to a
// libdevice call, which the PTX does not link), -inf where den = 0.
// CHECK-LABEL: gpu.module @pa_kernels
// CHECK:       gpu.func @pa_reduce(
// CHECK-SAME:      pa.distribution = #pa.distribution<warps>
// CHECK-NOT:     math.log
// CHECK:         %[[LOG2:.*]] = llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"(%[[DEN:.*]]) : (f32) -> f32
// CHECK:         %[[LN2:.*]] = arith.constant 0.693147182 : f32
// CHECK:         %[[LN:.*]] = arith.mulf %[[LOG2]], %[[LN2]] : f32
// CHECK:         %[[LSE:.*]] = arith.addf %{{.*}}, %[[LN]] : f32
// CHECK:         %[[EMPTY:.*]] = arith.cmpf oeq, %[[DEN]], %{{.*}} : f32
// CHECK:         %[[OUT:.*]] = arith.select %[[EMPTY]], %{{.*}}, %[[LSE]] : f32
// CHECK:         memref.store %[[OUT]], %{{.*}} : memref<?x4xf32>
// CHECK-NOT:     math.log
func.func @lse(%es: memref<1x?x4xf32>, %ml: memref<1x?x4xf32>,
               %tmp: memref<1x?x4x64xf32>, %red: memref<?x2xi32>,
               %out: memref<?x4x64xbf16>, %lse: memref<?x4xf32>) {
  pa.reduce exp_sums(%es : memref<1x?x4xf32>) max_logits(%ml : memref<1x?x4xf32>)
            tmp_out(%tmp : memref<1x?x4x64xf32>) reduce_info(%red : memref<?x2xi32>)
            output(%out : memref<?x4x64xbf16>) lse(%lse : memref<?x4xf32>)
  return
}

// -----

// bf16 KV at 32 rows (G = 8, Q = 4) and D = 256: P's two bf16 terms
// (32 KiB) go into the scores' bytes (33 KiB), so that the kernel's shared
// memory (125 -> 91 KiB) lets two workgroups share an SM. In a tile that
// the whole group sees, softmax stores the terms itself after a barrier
// (they overwrite other threads' scores), and pv skips its prologue; in
// other tiles pv's prologue reads all its scores, then a barrier, then
// writes the terms.
// CHECK-LABEL: gpu.module @pa_kernels
// CHECK:       gpu.func @pa_decode(
// CHECK-SAME:      %[[BYTES:[^ ]*]] : memref<33792xi8, #gpu.address_space<workgroup>>
// CHECK-DAG:     %[[PROBS:.*]] = memref.view %[[BYTES]][%{{.*}}][] : memref<33792xi8, #gpu.address_space<workgroup>> to memref<16384xi16, #gpu.address_space<workgroup>>
// CHECK-DAG:     %[[SCORES:.*]] = memref.view %[[BYTES]][%{{.*}}][] : memref<33792xi8, #gpu.address_space<workgroup>> to memref<8448xf32, #gpu.address_space<workgroup>>
// CHECK:         llvm.call_intrinsic "llvm.nvvm.mma.m16n8k16.row.col.bf16"
// The softmax: interior tiles (every token visible to the row) read the
// scores without the mask, one branch yielding the thread's 64; then P
// times the V scale as the terms, or P back into the scores.
// CHECK:         scf.if %{{.*}} -> (f32, f32,
// CHECK:         arith.maxnumf
// CHECK:         llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK:         scf.if %[[TERMS_HERE:[^ ]+]] {
// CHECK:           gpu.barrier
// CHECK:           llvm.call_intrinsic "llvm.nvvm.ff2bf16x2.rn"
// CHECK:           vector.store %{{.*}}, %[[PROBS]]
// CHECK:         } else {
// CHECK:           memref.store %{{.*}}, %[[SCORES]]
// CHECK:         }
// pv: the prologue only where softmax did not store the terms.
// CHECK:         gpu.barrier
// CHECK:         %[[NO_TERMS:.*]] = arith.xori %[[TERMS_HERE]], %true
// CHECK:         scf.if %[[NO_TERMS]] {
// The prologue: the last row's scores read, a barrier, the first term stored.
// CHECK:         vector.load %[[SCORES]]
// CHECK-NOT:     vector.store {{.*}}%[[PROBS]]
// CHECK:         gpu.barrier
// CHECK-NEXT:    arith.constant 0 : index
// CHECK-NEXT:    llvm.call_intrinsic "llvm.nvvm.ff2bf16x2.rn"
// CHECK:         vector.store %{{.*}}, %[[PROBS]]
// CHECK:         gpu.barrier
func.func @decode_bf16_d256_32_rows(%query: memref<?x8x256xbf16>,
    %key_cache: memref<?x1x32x16x8xbf16>, %value_cache: memref<?x1x2x256x8xbf16>,
    %block_tables: memref<?x?xi32>, %context_lengths: memref<?xi32>,
    %work_info: memref<?x4xi32>, %exp_sums: memref<1x?x32xf32>,
    %max_logits: memref<1x?x32xf32>, %tmp_out: memref<1x?x32x256xf32>) {
  pa.decode query(%query : memref<?x8x256xbf16>) key_cache(%key_cache : memref<?x1x32x16x8xbf16>)
            value_cache(%value_cache : memref<?x1x2x256x8xbf16>) block_tables(%block_tables : memref<?x?xi32>)
            context_lengths(%context_lengths : memref<?xi32>) work_info(%work_info : memref<?x4xi32>)
            exp_sums(%exp_sums : memref<1x?x32xf32>) max_logits(%max_logits : memref<1x?x32xf32>)
            tmp_out(%tmp_out : memref<1x?x32x256xf32>)
            {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 8, v_layout = transposed>,
             scale = #pa.scale<none>}
  return
}

// -----

// fp8 KV at the same shape fits two workgroups per SM as it is (109 KiB):
// scores and P keep their own buffers.
// CHECK-LABEL: gpu.module @pa_kernels
// CHECK:       gpu.func @pa_decode(
// CHECK-SAME:      memref<8448xf32, #gpu.address_space<workgroup>>
// CHECK-SAME:      memref<8192xi16, #gpu.address_space<workgroup>>
// CHECK-NOT:     memref.view
// CHECK:         llvm.call_intrinsic "llvm.nvvm.mma.m16n8k16.row.col.f32.f32"
func.func @decode_fp8_d256_32_rows(%query: memref<?x8x256xbf16>,
    %key_cache: memref<?x1x16x16x16xf8E4M3FN>, %value_cache: memref<?x1x1x256x16xf8E4M3FN>,
    %block_tables: memref<?x?xi32>, %context_lengths: memref<?xi32>,
    %work_info: memref<?x4xi32>, %exp_sums: memref<1x?x32xf32>,
    %max_logits: memref<1x?x32xf32>, %tmp_out: memref<1x?x32x256xf32>,
    %k_scale: memref<1xf32>, %v_scale: memref<1xf32>) {
  pa.decode query(%query : memref<?x8x256xbf16>) key_cache(%key_cache : memref<?x1x16x16x16xf8E4M3FN>)
            value_cache(%value_cache : memref<?x1x1x256x16xf8E4M3FN>) block_tables(%block_tables : memref<?x?xi32>)
            context_lengths(%context_lengths : memref<?xi32>) k_scale(%k_scale : memref<1xf32>)
            v_scale(%v_scale : memref<1xf32>) work_info(%work_info : memref<?x4xi32>)
            exp_sums(%exp_sums : memref<1x?x32xf32>) max_logits(%max_logits : memref<1x?x32xf32>)
            tmp_out(%tmp_out : memref<1x?x32x256xf32>)
            {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = transposed>,
             scale = #pa.scale<per_tensor>}
  return
}

// -----

// Partly seen tokens (MTP, Q = 2, G = 8: one 16-row group of both
// positions, behind a window of 300): the tail run (from vE + q_lo, seen by
// the later position only) and the head run (from vB + q_lo, by the earlier
// one only) are left out of the shared PV product, whose V would meet the
// other rows' zero P (0 * NaN); the edge tiles add them per row, to the rows
// that see them only.
// CHECK-LABEL: gpu.module @pa_kernels
// CHECK:       gpu.func @pa_decode(
// The product's range: the valid range up to the tail run, from the head
// run's end.
// CHECK:         %[[LEN:.*]] = arith.subi %[[QHI:[0-9]+]], %[[QLO:[0-9]+]] : i64
// CHECK:         %[[TAIL:.*]] = arith.addi %{{.*}}, %[[QLO]] : i64
// CHECK:         %[[HEAD:.*]] = arith.subi %[[TAIL]], %c300_i64{{.*}} : i64
// CHECK:         %[[PEND:.*]] = arith.minsi %{{.*}}, %[[TAIL]] : i64
// CHECK:         %[[HEADEND:.*]] = arith.addi %[[HEAD]], %[[LEN]] : i64
// CHECK:         %[[PBEGIN:.*]] = arith.maxsi %{{.*}}, %[[HEADEND]] : i64
// P's weights: 0 outside the product's range.
// CHECK:         arith.cmpi sge, %{{.*}}, %[[PBEGIN]] : i64
// CHECK-NEXT:    arith.cmpi slt, %{{.*}}, %[[PEND]] : i64
// The edge tile: the masked products, a barrier, then per run token of the
// tile and per accumulator element (thread i: i, i + 128, ...) whose row
// sees it, acc += P * v_scale * V in f32 (the e4m3 element converted
// exactly).
// CHECK:         gpu.barrier
// CHECK:         scf.for %{{.*}} = %c0{{.*}} to %{{.*}} step %c1
// CHECK-NEXT:      arith.index_cast
// CHECK-NEXT:      %[[TOKEN:.*]] = arith.addi %[[TAIL]], %{{.*}} : i64
// CHECK:           scf.if
// CHECK:             memref.load %{{.*}} : memref<?x2x16xf32>
// CHECK:             scf.for %{{.*}} = %thread_id_x to %c2048{{.*}} step %c128
// CHECK:               arith.cmpi slt, %[[TOKEN]], %{{.*}} : i64
// CHECK:               scf.if
// CHECK:                 memref.load %{{.*}} : memref<4224xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:            memref.load %{{.*}} : memref<?x2x128x16xf8E4M3FN>
// CHECK:                 llvm.call_intrinsic "llvm.nvvm.e4m3x2.to.f16x2.rn"
// CHECK:                 %[[ACC:.*]] = arith.addf
// CHECK-NEXT:            memref.store %[[ACC]], %{{.*}} : memref<2176xf32, #gpu.address_space<workgroup>>
// The head run: a token of both runs is the tail's.
// CHECK:         scf.for
// CHECK-NEXT:      arith.index_cast
// CHECK-NEXT:      %[[HTOKEN:.*]] = arith.addi %[[HEAD]], %{{.*}} : i64
// CHECK:           arith.cmpi slt, %[[HTOKEN]], %[[TAIL]] : i64
// CHECK-NOT:   pa.tile.
func.func @decode_partly_seen(%query: memref<?x16x128xbf16>, %key_cache: memref<?x2x8x16x16xf8E4M3FN>,
    %value_cache: memref<?x2x128x16xf8E4M3FN>, %block_tables: memref<?x?xi32>,
    %context_lengths: memref<?xi32>, %k_scale: memref<?x2x16xf32>, %v_scale: memref<?x2x16xf32>,
    %work_info: memref<?x4xi32>,
    %exp_sums: memref<2x?x16xf32>, %max_logits: memref<2x?x16xf32>, %tmp_out: memref<2x?x16x128xf32>) {
  pa.decode query(%query : memref<?x16x128xbf16>) key_cache(%key_cache : memref<?x2x8x16x16xf8E4M3FN>)
            value_cache(%value_cache : memref<?x2x128x16xf8E4M3FN>) block_tables(%block_tables : memref<?x?xi32>)
            context_lengths(%context_lengths : memref<?xi32>) k_scale(%k_scale : memref<?x2x16xf32>)
            v_scale(%v_scale : memref<?x2x16xf32>) work_info(%work_info : memref<?x4xi32>)
            exp_sums(%exp_sums : memref<2x?x16xf32>) max_logits(%max_logits : memref<2x?x16xf32>)
            tmp_out(%tmp_out : memref<2x?x16x128xf32>)
            {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = plain>,
             scale = #pa.scale<per_token>, sliding_window = 300 : i64}
  return
}

// -----

// Partly seen tokens where P's terms take the scores' bytes (bf16 KV, D =
// 256, Q = 4, G = 8: 32 rows, a window): the edge tiles copy the run
// tokens' P (6 slots x 32 rows) before the terms overwrite the scores, and
// the per-row sums read the copy.
// CHECK-LABEL: gpu.module @pa_kernels
// CHECK:       gpu.func @pa_decode(
// CHECK-SAME:      %[[SHARED:[^ ]*]] : memref<33792xi8, #gpu.address_space<workgroup>>
// CHECK-SAME:      %[[PARTLY:[^ ]*]] : memref<192xf32, #gpu.address_space<workgroup>>
// CHECK:         %[[SCORES:.*]] = memref.view %[[SHARED]]{{.*}} to memref<8448xf32, #gpu.address_space<workgroup>>
// CHECK:         %[[EDGE:.*]] = arith.xori %{{.*}}, %true : i1
// CHECK-NEXT:    scf.if %[[EDGE]] {
// CHECK:           scf.for
// CHECK:             %[[P:.*]] = memref.load %[[SCORES]][%{{.*}}] : memref<8448xf32, #gpu.address_space<workgroup>>
// CHECK:             memref.store %[[P]], %[[PARTLY]][%{{.*}}] : memref<192xf32, #gpu.address_space<workgroup>>
// CHECK:         memref.load %[[PARTLY]][%{{.*}}] : memref<192xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    memref.load %{{.*}} : memref<?x2x256x16xbf16>
// CHECK-NOT:   pa.tile.
func.func @decode_partly_seen_shared_bytes(%query: memref<?x16x256xbf16>, %key_cache: memref<?x2x32x16x8xbf16>,
    %value_cache: memref<?x2x256x16xbf16>, %block_tables: memref<?x?xi32>,
    %context_lengths: memref<?xi32>, %work_info: memref<?x4xi32>,
    %exp_sums: memref<2x?x32xf32>, %max_logits: memref<2x?x32xf32>, %tmp_out: memref<2x?x32x256xf32>) {
  pa.decode query(%query : memref<?x16x256xbf16>) key_cache(%key_cache : memref<?x2x32x16x8xbf16>)
            value_cache(%value_cache : memref<?x2x256x16xbf16>) block_tables(%block_tables : memref<?x?xi32>)
            context_lengths(%context_lengths : memref<?xi32>) work_info(%work_info : memref<?x4xi32>)
            exp_sums(%exp_sums : memref<2x?x32xf32>) max_logits(%max_logits : memref<2x?x32xf32>)
            tmp_out(%tmp_out : memref<2x?x32x256xf32>)
            {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 8, v_layout = plain>,
             scale = #pa.scale<none>, sliding_window = 300 : i64}
  return
}
