// pa-to-mfma on checked-in tiled IR: the input the pass takes (pa-tile,
// then pa-stage-page-ids), written here by hand and reduced to what each
// check needs, so that the contract between the tiling passes and the AMD
// backend is visible and no earlier pass runs at test time. Inputs are
// written with OCP fp8 (gfx950's f8E4M3FN); the gfx942 runs read them as
// f8E4M3FNUZ (sed), the fp8 its matrix units take. pa-to-mfma-invalid.mlir
// has the tiled IR the pass refuses.
// gfx942 would load this 16-row kernel's K a tile ahead by default (the LDS
// allows it 3 waves at most; key-prefetch.mlir): key-prefetch=none there, so
// both chips share the checks of the unprefetched body, and PREFETCH below
// checks the prefetched one.
// RUN: sed -e 's/f8E4M3FN>/f8E4M3FNUZ>/g' %s | pa-opt -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=gfx942},gpu.module(pa-to-mfma{fp8-residual=none key-prefetch=none}))' \
// RUN:   | FileCheck %s --check-prefixes=CHECK,GFX942 -DFP8=f8E4M3FNUZ
// RUN: pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=gfx950},gpu.module(pa-to-mfma{fp8-residual=none}))' \
// RUN:   | FileCheck %s --check-prefixes=CHECK,GFX950 -DFP8=f8E4M3FN
// RUN: pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=gfx950},gpu.module(pa-to-mfma{fp8-residual=none key-prefetch=next-tile}))' \
// RUN:   | FileCheck %s --check-prefix=PREFETCH
// The same with a store in the staged branch of the page ids: the
// prefetch would copy the page-id computation for the next tile, so it
// declines a computation that writes memory (no prefetch, no poison).
// RUN: sed -e '/%%loaded = vector.load %%staged_ids\[%%at\]/a\          vector.store %%loaded, %%staged_ids[%%at] : memref<2048xi32, #gpu.address_space<workgroup>>, vector<16xi32>' %s \
// RUN:   | pa-opt -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=gfx950},gpu.module(pa-to-mfma{fp8-residual=none key-prefetch=next-tile}))' \
// RUN:   | FileCheck %s --check-prefix=WRITES

// The decode kernel of pa-tile for D = 64, fp8 KV (page size 16, packed K,
// plain V, a static pool of 64 pages, 2 KV heads), G = 8, Q = 1: one
// 16-row M-tile. The workgroup reads its slot of the plan, exits when it
// is empty, loads and quantizes the query, stages the page ids of its
// first 128 tiles in LDS (the ids past them are read directly), and runs
// qk -> softmax -> pv per 256-token tile on the workgroup buffers (query
// tile, scores, row max, row sum, accumulator). Then the reduce kernel's
// head-dim loops.

// The tile buffers of the workgroup program (f32 [M, D] query tile, scores,
// accumulator, row statistics) are gone; LDS holds the staged page ids
// (the input's 2048 ids), the query / merge scratch (i32: 16 rows of
// 64 fp8 + 16 bytes, or 4 waves x 16 rows x 32 f32 for the merge, plus the
// zero word) and the row statistics (16 rows x (1 + 3 x 4 waves)).
// CHECK-LABEL: gpu.func @pa_decode(
// CHECK-SAME:    workgroup(%[[IDS:.*]] : memref<2048xi32, #gpu.address_space<workgroup>>, %[[SCRATCH:.*]] : memref<2049xi32, #gpu.address_space<workgroup>>, %[[STATS:.*]] : memref<208xf32, #gpu.address_space<workgroup>>)
// CHECK-SAME:    denormal_fp_math_f32 = "preserve-sign"
// A 16-row group asks for as many waves per SIMD as its LDS (17220 bytes)
// leaves room for workgroups per CU, 3 on gfx942 (64 KiB); on gfx950 (160
// KiB) 4, the most for D <= 128 (32-row groups ask for 2).
// GFX942-SAME:   passthrough = {{\[\["amdgpu-ieee", "false"\], \["amdgpu-waves-per-eu", "3"\]\]}}
// GFX950-SAME:   passthrough = {{\[\["amdgpu-ieee", "false"\], \["amdgpu-waves-per-eu", "4"\]\]}}
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// CHECK-NOT:     pa.tile

// The query, quantized per row: 16 lanes per row (4 values each), the
// row's max |q| over them by a butterfly, 4 rows per wave. First a row
// holding a NaN or infinity becomes NaN as a whole: q + sum(0 * q) over
// the row's lanes.
// CHECK:         scf.if
// CHECK:         %[[Q:.*]] = scf.if %{{.*}} -> (vector<4xf32>)
// CHECK:           vector.load %{{.*}} : memref<?x16x64xbf16>, vector<4xbf16>
// CHECK:         %[[TIMES0:.*]] = arith.mulf %[[Q]], %{{.*}} : vector<4xf32>
// CHECK:         vector.extract %[[TIMES0]][0]
// CHECK:         gpu.shuffle xor %{{.*}}, %c1_i32, %c64_i32 : f32
// CHECK:         gpu.shuffle xor %{{.*}}, %c8_i32
// CHECK:         %[[POISON:.*]] = arith.addf
// CHECK:         %[[SPREAD:.*]] = vector.broadcast %[[POISON]] : f32 to vector<4xf32>
// CHECK:         arith.addf %[[Q]], %[[SPREAD]] : vector<4xf32>
// CHECK:         gpu.shuffle xor %{{.*}}, %c1_i32
// CHECK:         gpu.shuffle xor %{{.*}}, %c2_i32{{.*}},
// CHECK:         gpu.shuffle xor %{{.*}}, %c4_i32{{.*}},
// CHECK:         gpu.shuffle xor %{{.*}}, %c8_i32{{.*}},
// CHECK:         amdgpu.packed_trunc_2xfp8 {{.*}} : f32 to vector<4x[[FP8]]>
// CHECK:         vector.store %{{.*}}, %[[SCRATCH]][%{{.*}}] {alignment = 4 : i64} : memref<2049xi32, #gpu.address_space<workgroup>>, vector<1xi32>
// The row's scale, from its first lane.
// CHECK:         memref.store %{{.*}}, %[[STATS]]

// Page ids staged by all lanes, one id per lane and step.
// CHECK:         scf.for %{{.*}} = %[[TID]] to %{{.*}} step %c256{{.*}} {
// CHECK:           memref.load %{{.*}} : memref<?x?xi32>
// CHECK:           memref.store %{{.*}}, %[[IDS]][%{{.*}}] : memref<2048xi32, #gpu.address_space<workgroup>>
// CHECK:         gpu.barrier
// CHECK-NOT:     gpu.barrier

// K and V through fat raw buffers (32-bit offsets: the static pool is
// small), one tile loop.
// CHECK:         %[[K:.*]] = amdgpu.fat_raw_buffer_cast %{{.*}} : memref<64x2x4x16x16x[[FP8]]> to memref<64x2x4x16x16x[[FP8]], #amdgpu.address_space<fat_raw_buffer>>
// CHECK:         %[[V:.*]] = amdgpu.fat_raw_buffer_cast %{{.*}} : memref<64x2x64x16x[[FP8]]> to memref<64x2x64x16x[[FP8]], #amdgpu.address_space<fat_raw_buffer>>
// CHECK-NOT:     amdgpu.mfma
// key-prefetch=next-tile (auto leaves this 16-row kernel as it is: the
// registers would cost it a wave): the first tile's K loaded before the
// loop, in a uniform branch on whether the loop runs (poison otherwise),
// as i32 words (D = 64: 4 blocks x 1 chunk of 16 bytes per lane); the
// loop carries them, its QK reads them instead of loading, and each step
// loads the next tile's after its own QK (the next tile's page ids read
// again there), carried to the next step.
// WRITES-LABEL: gpu.func @pa_decode(
// WRITES:         scf.for {{.*}} iter_args({{.*}}) -> ({{.*}}vector<4xf32>) : i32 {
// WRITES-NOT:     ub.poison
// WRITES-LABEL: gpu.func @pa_reduce(
// PREFETCH-LABEL: gpu.func @pa_decode(
// PREFETCH:         %[[K:.*]] = amdgpu.fat_raw_buffer_cast %{{.*}} : memref<64x2x4x16x16xf8E4M3FN> to
// PREFETCH:         %[[FIRST:.*]]:4 = scf.if %{{.*}} -> (vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>) {
// PREFETCH-COUNT-4:   vector.load %[[K]][{{.*}}] : memref<64x2x4x16x16xf8E4M3FN, #amdgpu.address_space<fat_raw_buffer>>, vector<16xf8E4M3FN>
// PREFETCH:         } else {
// PREFETCH-COUNT-4:   ub.poison : vector<4xi32>
// PREFETCH:         scf.for {{.*}} iter_args({{.*}}, %[[C0:.*]] = %[[FIRST]]#0, %{{.*}} = %[[FIRST]]#1, %{{.*}} = %[[FIRST]]#2, %{{.*}} = %[[FIRST]]#3) -> ({{.*}}, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>) : i32 {
// PREFETCH-NOT:       vector.load %[[K]]
// PREFETCH:           vector.bitcast %[[C0]] : vector<4xi32> to vector<16xf8E4M3FN>
// PREFETCH-NOT:       vector.load %[[K]]
// PREFETCH-COUNT-8:   amdgpu.mfma 16x16x32
// PREFETCH-NOT:       amdgpu.mfma
// PREFETCH:           %[[NEXT:.*]]:4 = scf.if %{{.*}} -> (vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>) {
// The next tile's staged test in i32 too (its tile number tile + 1).
// PREFETCH:             %[[NEXT_REL:.*]] = arith.subi %{{.*}}, %{{.*}} : i32
// PREFETCH:             %[[NEXT_STAGED:.*]] = arith.cmpi ult, %[[NEXT_REL]], %{{.*}} : i32
// PREFETCH:             scf.if %[[NEXT_STAGED]] -> (i32, i32) {
// PREFETCH-COUNT-4:     vector.load %[[K]]
// PREFETCH:           } else {
// PREFETCH-COUNT-4:     ub.poison : vector<4xi32>
// PREFETCH-NOT:       vector.load %[[K]]
// PREFETCH:           scf.yield {{.*}}, %[[NEXT]]#0, %[[NEXT]]#1, %[[NEXT]]#2, %[[NEXT]]#3 : {{.*}}, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>
// PREFETCH-NEXT:    }

// The loop carries the query offset, the M-tile's row max, lane-partial
// sum, lane-partial sum of the weights the fp8 product used, and its 4
// accumulator blocks (D = 64). It counts tiles in i32 (a tile index is
// below 2^31 whatever the offsets' width): an i64 counter took two VGPRs
// per lane-derived index the backend strength-reduced from it.
// CHECK:         scf.for %{{.*}} iter_args({{.*}}) -> (index, f32, f32, f32, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) : i32 {
// Page ids of the tile: each lane reads its own staged id for K and for V
// (one LDS word each, no vector of 16 ids extracted at a lane position),
// or the direct reads past the staged tiles: one branch for both.
// Whether the tile's ids are staged, tile - begin < staged, in i32 as the
// loop counts (an index compare is a 64-bit VALU compare per tile): the
// difference, unsigned, against the staged tile count.
// CHECK-NOT:       vector<16xi32>
// CHECK:           %[[REL:.*]] = arith.subi %{{.*}}, %{{.*}} : i32
// CHECK-NOT:       vector<16xi32>
// CHECK:           %[[IS_STAGED:.*]] = arith.cmpi ult, %[[REL]], %{{.*}} : i32
// CHECK-NOT:       vector<16xi32>
// CHECK:           scf.if %[[IS_STAGED]] -> (i32, i32) {
// CHECK-NEXT:        arith.constant 16 : index
// CHECK-NEXT:        arith.muli
// CHECK-NEXT:        arith.addi
// CHECK-NEXT:        memref.load %[[IDS]][%{{.*}}] : memref<2048xi32, #gpu.address_space<workgroup>>
// CHECK-NEXT:        arith.addi
// CHECK-NEXT:        memref.load %[[IDS]][%{{.*}}] : memref<2048xi32, #gpu.address_space<workgroup>>
// CHECK-NEXT:        scf.yield %{{.*}}, %{{.*}} : i32, i32
// CHECK:           } else {
// CHECK:             memref.load %{{.*}} : memref<?x?xi32>
// CHECK:             memref.load %{{.*}} : memref<?x?xi32>
// CHECK:           arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK:           arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK-NOT:       scf.if %{{.*}} -> (i32) {
// QK: 4 blocks x 2 K-steps; K in 16-byte loads, the query chunk from LDS.
// CHECK:           vector.load %[[SCRATCH]][%{{.*}}] {alignment = 16 : i64} : memref<2049xi32, #gpu.address_space<workgroup>>, vector<4xi32>
// CHECK:           vector.load %[[K]][{{.*}}] : memref<64x2x4x16x16x[[FP8]], #amdgpu.address_space<fat_raw_buffer>>, vector<16x[[FP8]]>
// CHECK-COUNT-8:   amdgpu.mfma 16x16x32 {{.*}} : vector<8x[[FP8]]>, vector<8x[[FP8]]>, vector<4xf32>
// Edge tiles only: one uniform branch on whether every row sees the whole
// tile, all of it in the op's valid range (tile start and end against the
// valid begin and end and the rows' visible end). A full tile keeps its
// scores and ANDs V with ones; an edge tile masks scores by selection and
// builds the V byte masks.
// CHECK:           arith.cmpi sle, %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:      arith.cmpi sle, %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:      arith.andi %{{.*}}, %{{.*}} : i1
// CHECK-NEXT:      arith.cmpi sle, %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:      %[[FULL:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK-NEXT:      %[[EDGE:.*]]:5 = scf.if %[[FULL]] -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xi32>) {
// CHECK-NEXT:        scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xi32>
// CHECK-NEXT:      } else {
// CHECK-COUNT-4:     arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<4xi1>, vector<4xf32>
// CHECK:             arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<16xi1>, vector<16xi8>
// CHECK:             scf.yield
// CHECK-NEXT:      }
// Softmax on the branch's scores: the row max across lane groups.
// CHECK-NOT:       arith.select %{{.*}} : vector<4xi1>, vector<4xf32>
// CHECK:           gpu.shuffle xor %{{.*}}, %c16_i32{{.*}}, %c64_i32{{.*}} : f32
// CHECK:           gpu.shuffle xor %{{.*}}, %c32_i32{{.*}}, %c64_i32{{.*}} : f32
// The factor of the row's accumulators, exp2(old max - new max), then the
// scores shifted by the row max less log2 pScale (P's factor, 2^7 for
// e4m3fnuz, 2^8 for e4m3fn: exp2 gives P * pScale), as s + (-shift): LLVM
// makes a vector add of a negated splat packed adds (v_pk_add_f32), a
// vector subtraction one v_sub_f32 per score.
// CHECK:           math.exp2 %{{.*}} : f32
// CHECK-NEXT:      %[[ROW_MAX:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// GFX942-NEXT:     %[[LOG2_P:.*]] = arith.constant 7.000000e+00 : f32
// GFX950-NEXT:     %[[LOG2_P:.*]] = arith.constant 8.000000e+00 : f32
// CHECK-NEXT:      %[[SHIFT:.*]] = arith.subf %[[ROW_MAX]], %[[LOG2_P]] : f32
// CHECK-NEXT:      %[[NEG_SHIFT:.*]] = arith.negf %[[SHIFT]] : f32
// CHECK-NEXT:      %[[NEG_SHIFTS:.*]] = vector.broadcast %[[NEG_SHIFT]] : f32 to vector<4xf32>
// CHECK-NEXT:      %[[SHIFTED:.*]] = arith.addf %{{.*}}, %[[NEG_SHIFTS]] : vector<4xf32>
// CHECK-NEXT:      math.exp2 %[[SHIFTED]] : vector<4xf32>
// CHECK-NOT:       arith.subf %{{.*}} : vector<4xf32>
// The row sum back in units of P, once, in an fma with the kept sum (the
// scaling by a power of two is exact: one rounding either way).
// CHECK:           vector.extract %{{.*}}[3] : f32 from vector<4xf32>
// CHECK-NEXT:      %[[LANE_SUM:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      %[[KEPT_SUM:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// GFX942-NEXT:     %[[INVERSE_P_SUM:.*]] = arith.constant 7.812500e-03 : f32
// GFX950-NEXT:     %[[INVERSE_P_SUM:.*]] = arith.constant 3.906250e-03 : f32
// CHECK-NEXT:      math.fma %[[LANE_SUM]], %[[INVERSE_P_SUM]], %[[KEPT_SUM]] : f32
// P quantized in registers, with no multiply by pScale before, and not
// converted back: the PV product sums the weights it used (below).
// CHECK-NOT:       arith.mulf %{{.*}} : vector<16xf32>
// CHECK:           amdgpu.packed_trunc_2xfp8
// CHECK-NOT:       arith.extf %{{.*}} : vector<8x[[FP8]]> to vector<8xf32>
// The accumulators' rescale in a uniform branch: a ballot of the lanes
// whose factor (the row max's shift) is not exactly 1; a tile where none
// is keeps the accumulators as they are.
// CHECK:           %[[RESCALE:.*]] = arith.cmpf une, %[[FACTOR:.*]], %{{.*}} : f32
// CHECK-NEXT:      %[[CHANGED:.*]] = rocdl.ballot %[[RESCALE]] : i64
// CHECK-NEXT:      arith.constant 0 : i64
// CHECK-NEXT:      %[[KEEP:.*]] = arith.cmpi eq, %[[CHANGED]], %{{.*}} : i64
// CHECK-NEXT:      %[[OUT:.*]]:4 = scf.if %[[KEEP]] -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// CHECK-NEXT:        scf.yield %[[O0:.*]], %[[O1:.*]], %[[O2:.*]], %[[O3:.*]] : vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>
// CHECK-NEXT:      } else {
// CHECK-NEXT:        %[[SPREAD:.*]] = vector.broadcast %[[FACTOR]] : f32 to vector<4xf32>
// CHECK-NEXT:        arith.mulf %[[O0]], %[[SPREAD]] : vector<4xf32>
// CHECK-NEXT:        arith.mulf %[[O1]], %[[SPREAD]] : vector<4xf32>
// CHECK-NEXT:        arith.mulf %[[O2]], %[[SPREAD]] : vector<4xf32>
// CHECK-NEXT:        arith.mulf %[[O3]], %[[SPREAD]] : vector<4xf32>
// CHECK-NEXT:        scf.yield
// CHECK-NEXT:      }
// PV: V in 16-byte loads, zeroed outside the valid range; 4 head-dim
// blocks x 2 K-steps.
// CHECK:           vector.load %[[V]][{{.*}}] : memref<64x2x64x16x[[FP8]], #amdgpu.address_space<fat_raw_buffer>>, vector<16x[[FP8]]>
// CHECK:           arith.andi %{{.*}}, %[[EDGE]]#4 : vector<4xi32>
// CHECK:           amdgpu.mfma 16x16x32 {{.*}} + %[[OUT]]#0 {{.*}} : vector<8x[[FP8]]>, vector<8x[[FP8]]>, vector<4xf32>
// CHECK-COUNT-7:   amdgpu.mfma 16x16x32 {{.*}} : vector<8x[[FP8]]>, vector<8x[[FP8]]>, vector<4xf32>
// The weights the product used, summed by the matrix unit: 1^T P^T with
// a block of fp8 ones, 2 K-steps, each lane's element 0 its row's sum
// over the wave's tokens, in units of 1 / pScale.
// CHECK:           %[[ONES:.*]] = arith.constant dense<1.000000e+00> : vector<8x[[FP8]]>
// CHECK:           amdgpu.mfma 16x16x32 %[[ONES]] * {{.*}} : vector<8x[[FP8]]>, vector<8x[[FP8]]>, vector<4xf32>
// CHECK-NEXT:      %[[WEIGHT_SUMS:.*]] = amdgpu.mfma 16x16x32 %[[ONES]] * {{.*}} : vector<8x[[FP8]]>, vector<8x[[FP8]]>, vector<4xf32>
// CHECK-NEXT:      %[[WEIGHT_SUM:.*]] = vector.extract %[[WEIGHT_SUMS]][0] : f32 from vector<4xf32>
// CHECK-NEXT:      arith.addf %{{.*}}, %[[WEIGHT_SUM]] : f32
// CHECK-NOT:       amdgpu.mfma
// CHECK-NOT:       gpu.barrier
// CHECK:           scf.yield
// CHECK-NOT:     amdgpu.mfma

// Merge of the 4 waves: row sums over the lane groups (the weights' sums
// are the wave's already: only scaled back by 1 / pScale), statistics
// through LDS, the output in two 32-wide chunks (each: the waves' shares
// to LDS, a barrier, every lane sums 4 values of the 4 shares). Its lane
// ids are made again from a ballot of every lane (not the prologue's,
// which would stay live across the loop).
// CHECK:         %[[EVERY:.*]] = rocdl.ballot %true : i64
// CHECK:         %[[BELOW_LO:.*]] = rocdl.mbcnt.lo %{{.*}}, %c0_i32 : (i32, i32) -> i32
// CHECK:         rocdl.mbcnt.hi %{{.*}}, %[[BELOW_LO]] : (i32, i32) -> i32
// CHECK:         gpu.shuffle xor %{{.*}}, %c16_i32
// CHECK:         gpu.shuffle xor %{{.*}}, %c32_i32
// CHECK-NOT:     gpu.shuffle
// GFX942:        arith.constant 7.812500e-03 : f32
// GFX950:        arith.constant 3.906250e-03 : f32
// CHECK-NOT:     gpu.shuffle
// CHECK:         memref.store %{{.*}}, %[[STATS]]
// CHECK:         gpu.barrier
// A NaN merged sum (a non-finite input reached the row) is also the
// normalizer and max_logits, so the reducer keeps the partition.
// CHECK:         %[[NAN_SUM:.*]] = arith.cmpf uno, %[[TOTAL:.*]], %[[TOTAL]] : f32
// CHECK:         %[[NORMALIZER:.*]] = arith.select %[[NAN_SUM]], %[[TOTAL]], %{{.*}} : f32
// CHECK:         arith.divf %{{.*}}, %[[NORMALIZER]] : f32
// CHECK:         %[[LOGIT:.*]] = arith.select %[[NAN_SUM]], %[[TOTAL]], %{{.*}} : f32
// CHECK:         memref.store %[[LOGIT]], %{{.*}} : memref<2x?x8xf32>
// CHECK:         memref.store %[[TOTAL]], %{{.*}} : memref<2x?x8xf32>
// CHECK-COUNT-2: vector.store %{{.*}}, %[[SCRATCH]]
// CHECK:         gpu.barrier
// CHECK-COUNT-4: vector.load %[[SCRATCH]]
// CHECK:         vector.store %{{.*}} : memref<2x?x8x64xf32>, vector<4xf32>
// CHECK:         gpu.barrier
// CHECK-COUNT-2: vector.store %{{.*}}, %[[SCRATCH]]
// CHECK:         gpu.barrier
// CHECK-COUNT-4: vector.load %[[SCRATCH]]
// CHECK:         vector.store %{{.*}} : memref<2x?x8x64xf32>, vector<4xf32>
// CHECK-NOT:     gpu.barrier
// CHECK:         gpu.return

// The reduce kernel: its head-dim loops are lane-strided; no barrier.
// CHECK-LABEL: gpu.func @pa_reduce(
// CHECK:         %[[RTID:.*]] = gpu.thread_id x
// CHECK-NOT:     scf.parallel
// CHECK-NOT:     gpu.barrier
// CHECK:         scf.for %{{.*}} = %[[RTID]] to %c64{{.*}} step %c256
// CHECK-NOT:     scf.parallel
// CHECK:         gpu.return
gpu.module @pa_kernels {
  gpu.func @pa_decode(%query: memref<?x16x64xbf16>, %key_cache: memref<64x2x4x16x16xf8E4M3FN>,
                      %value_cache: memref<64x2x64x16xf8E4M3FN>, %block_tables: memref<?x?xi32>,
                      %work_info: memref<?x4xi32>, %exp_sums: memref<2x?x8xf32>,
                      %max_logits: memref<2x?x8xf32>, %tmp_out: memref<2x?x8x64xf32>)
      workgroup(%query_tile : memref<16x64xf32, #gpu.address_space<workgroup>>,
                %scores : memref<16x256xf32, #gpu.address_space<workgroup>>,
                %acc : memref<16x64xf32, #gpu.address_space<workgroup>>,
                %row_max : memref<16xf32, #gpu.address_space<workgroup>>,
                %row_sum : memref<16xf32, #gpu.address_space<workgroup>>,
                %staged_ids : memref<2048xi32, #gpu.address_space<workgroup>>)
      kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c16 = arith.constant 16 : index
    %c128 = arith.constant 128 : index
    %c0_i64 = arith.constant 0 : i64
    %c256_i64 = arith.constant 256 : i64
    %pool = arith.constant dense<64> : vector<16xi32>
    %no_page = arith.constant dense<0> : vector<16xi32>
    %slot = gpu.block_id x
    %kv_head = gpu.block_id y
    // The slot: sequence, first and end tile, context length.
    %seq_i32 = memref.load %work_info[%slot, %c0] : memref<?x4xi32>
    %begin_i32 = memref.load %work_info[%slot, %c1] : memref<?x4xi32>
    %end_i32 = memref.load %work_info[%slot, %c2] : memref<?x4xi32>
    %context_i32 = memref.load %work_info[%slot, %c3] : memref<?x4xi32>
    %seq = arith.index_cast %seq_i32 : i32 to index
    %begin = arith.index_cast %begin_i32 : i32 to index
    %end = arith.index_cast %end_i32 : i32 to index
    %context = arith.extsi %context_i32 : i32 to i64
    // An empty slot (begin >= end) exits at once.
    %nonempty = arith.cmpi slt, %begin, %end : index
    scf.if %nonempty {
      pa.tile.load_query %query[%seq, %kv_head, %c0] into %query_tile {group_size = 8 : i64, query_length = 1 : i64}
          : memref<?x16x64xbf16>, memref<16x64xf32, #gpu.address_space<workgroup>>
      pa.tile.init_softmax %row_max, %row_sum, %acc
          : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16x64xf32, #gpu.address_space<workgroup>>
      // pa-stage-page-ids: the first (at most 128) tiles' ids to LDS.
      %tiles = arith.subi %end, %begin : index
      %staged = arith.minsi %tiles, %c128 : index
      scf.for %j = %c0 to %staged step %c1 {
        %tile = arith.addi %begin, %j : index
        %ids = pa.tile.page_ids %block_tables[%seq] tile %tile visible [%c0_i64, %context] {direct, page_size = 16 : i64}
            : memref<?x?xi32> -> vector<16xi32>
        %at = arith.muli %j, %c16 : index
        vector.store %ids, %staged_ids[%at] : memref<2048xi32, #gpu.address_space<workgroup>>, vector<16xi32>
      }
      scf.for %tile = %begin to %end step %c1 {
        %tile_i64 = arith.index_cast %tile : index to i64
        %tile_start = arith.muli %tile_i64, %c256_i64 : i64
        %j = arith.subi %tile, %begin : index
        %is_staged = arith.cmpi slt, %j, %staged : index
        %ids = scf.if %is_staged -> (vector<16xi32>) {
          %c16_ids = arith.constant 16 : index
          %at = arith.muli %j, %c16_ids : index
          %loaded = vector.load %staged_ids[%at] : memref<2048xi32, #gpu.address_space<workgroup>>, vector<16xi32>
          scf.yield %loaded : vector<16xi32>
        } else {
          %read = pa.tile.page_ids %block_tables[%seq] tile %tile visible [%c0_i64, %context] {direct, page_size = 16 : i64}
              : memref<?x?xi32> -> vector<16xi32>
          scf.yield %read : vector<16xi32>
        }
        // Ids outside the pool read page 0 (pa-tile's guard).
        %in_pool = arith.cmpi ult, %ids, %pool : vector<16xi32>
        %pages = arith.select %in_pool, %ids, %no_page : vector<16xi1>, vector<16xi32>
        pa.tile.qk %query_tile, %key_cache[%pages, %kv_head] tile_start %tile_start valid [%c0_i64, %context] into %scores
            {compute = #pa.compute<fp8>, page_size = 16 : i64, scale = #pa.scale<none>, score_scale = 0.180336878 : f32}
            : memref<16x64xf32, #gpu.address_space<workgroup>>, memref<64x2x4x16x16xf8E4M3FN>, vector<16xi32>,
              memref<16x256xf32, #gpu.address_space<workgroup>>
        pa.tile.softmax %scores, %row_max, %row_sum, %acc context %context tile_start %tile_start row_base %c0
            {group_size = 8 : i64, query_length = 1 : i64, sliding_window = 0 : i64}
            : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
              memref<16xf32, #gpu.address_space<workgroup>>, memref<16x64xf32, #gpu.address_space<workgroup>>
        pa.tile.pv %scores, %value_cache[%pages, %kv_head] tile_start %tile_start valid [%c0_i64, %context] into %acc
            {compute = #pa.compute<fp8>, page_size = 16 : i64, scale = #pa.scale<none>, v_layout = #pa.v_layout<plain>}
            : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<64x2x64x16xf8E4M3FN>, vector<16xi32>,
              memref<16x64xf32, #gpu.address_space<workgroup>>
      }
      pa.tile.store_partials %row_max, %row_sum, %acc into %exp_sums, %max_logits, %tmp_out[%kv_head, %slot, %c0] {rows = 8 : i64}
          : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16x64xf32, #gpu.address_space<workgroup>>, memref<2x?x8xf32>, memref<2x?x8xf32>, memref<2x?x8x64xf32>
    }
    gpu.return
  }

  // The reduce kernel of pa-lower-reduce, reduced to its head-dim loops
  // (scf.parallel: iterations that touch their own elements).
  gpu.func @pa_reduce(%tmp_out: memref<2x?x8x64xf32>, %output: memref<?x16x64xbf16>)
      workgroup(%row : memref<64xf32, #gpu.address_space<workgroup>>)
      kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %partition = gpu.block_id x
    %kv_head = gpu.block_id y
    scf.parallel (%d) = (%c0) to (%c64) step (%c1) {
      memref.store %zero, %row[%d] : memref<64xf32, #gpu.address_space<workgroup>>
      scf.reduce
    }
    scf.parallel (%d) = (%c0) to (%c64) step (%c1) {
      %part = memref.load %tmp_out[%kv_head, %partition, %c0, %d] : memref<2x?x8x64xf32>
      %sum = memref.load %row[%d] : memref<64xf32, #gpu.address_space<workgroup>>
      %added = arith.addf %sum, %part : f32
      %out = arith.truncf %added : f32 to bf16
      memref.store %out, %output[%partition, %kv_head, %d] : memref<?x16x64xbf16>
      scf.reduce
    }
    gpu.return
  }
}

// -----

// The chip picks the MFMA instructions. D = 128, fp8, one M-tile, no
// staging (every tile reads its ids from the block table): gfx950 takes
// QK in one 16x16x128 per block (4), gfx942 in 16x16x32 steps (4 blocks x
// 4 K-steps); PV is 8 head-dim blocks x 2 K-steps of 16x16x32 on both,
// and the weights' sums 2 K-steps against fp8 ones.
// CHECK-LABEL:    gpu.func @pa_decode(
// CHECK:          scf.for {{.*}} iter_args(
// GFX942-COUNT-32: amdgpu.mfma 16x16x32 {{.*}} : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<4xf32>
// GFX950-COUNT-4: amdgpu.mfma 16x16x128 {{.*}} : vector<32xf8E4M3FN>, vector<32xf8E4M3FN>, vector<4xf32>
// GFX950-COUNT-16: amdgpu.mfma 16x16x32 {{.*}} : vector<8xf8E4M3FN>, vector<8xf8E4M3FN>, vector<4xf32>
// CHECK:          %[[ONES:.*]] = arith.constant dense<1.000000e+00>
// CHECK-COUNT-2:  amdgpu.mfma 16x16x32 %[[ONES]] *
// CHECK-NOT:      amdgpu.mfma
// CHECK:          gpu.return
gpu.module @pa_kernels {
  gpu.func @pa_decode(%query: memref<?x8x128xbf16>, %key_cache: memref<64x1x8x16x16xf8E4M3FN>,
                      %value_cache: memref<64x1x128x16xf8E4M3FN>, %block_tables: memref<?x?xi32>,
                      %exp_sums: memref<1x?x8xf32>, %max_logits: memref<1x?x8xf32>,
                      %tmp_out: memref<1x?x8x128xf32>)
      workgroup(%query_tile : memref<16x128xf32, #gpu.address_space<workgroup>>,
                %scores : memref<16x256xf32, #gpu.address_space<workgroup>>,
                %acc : memref<16x128xf32, #gpu.address_space<workgroup>>,
                %row_max : memref<16xf32, #gpu.address_space<workgroup>>,
                %row_sum : memref<16xf32, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i64 = arith.constant 0 : i64
    %c256_i64 = arith.constant 256 : i64
    %context = arith.constant 1000 : i64
    %tiles = arith.constant 4 : index
    %slot = gpu.block_id x
    pa.tile.load_query %query[%slot, %c0, %c0] into %query_tile {group_size = 8 : i64, query_length = 1 : i64}
        : memref<?x8x128xbf16>, memref<16x128xf32, #gpu.address_space<workgroup>>
    pa.tile.init_softmax %row_max, %row_sum, %acc
        : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
          memref<16x128xf32, #gpu.address_space<workgroup>>
    scf.for %tile = %c0 to %tiles step %c1 {
      %tile_i64 = arith.index_cast %tile : index to i64
      %tile_start = arith.muli %tile_i64, %c256_i64 : i64
      %pages = pa.tile.page_ids %block_tables[%slot] tile %tile visible [%c0_i64, %context] {direct, page_size = 16 : i64}
          : memref<?x?xi32> -> vector<16xi32>
      pa.tile.qk %query_tile, %key_cache[%pages, %c0] tile_start %tile_start valid [%c0_i64, %context] into %scores
          {compute = #pa.compute<fp8>, page_size = 16 : i64, scale = #pa.scale<none>, score_scale = 0.1275 : f32}
          : memref<16x128xf32, #gpu.address_space<workgroup>>, memref<64x1x8x16x16xf8E4M3FN>, vector<16xi32>,
            memref<16x256xf32, #gpu.address_space<workgroup>>
      pa.tile.softmax %scores, %row_max, %row_sum, %acc context %context tile_start %tile_start row_base %c0
          {group_size = 8 : i64, query_length = 1 : i64, sliding_window = 0 : i64}
          : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
            memref<16xf32, #gpu.address_space<workgroup>>, memref<16x128xf32, #gpu.address_space<workgroup>>
      pa.tile.pv %scores, %value_cache[%pages, %c0] tile_start %tile_start valid [%c0_i64, %context] into %acc
          {compute = #pa.compute<fp8>, page_size = 16 : i64, scale = #pa.scale<none>, v_layout = #pa.v_layout<plain>}
          : memref<16x256xf32, #gpu.address_space<workgroup>>, memref<64x1x128x16xf8E4M3FN>, vector<16xi32>,
            memref<16x128xf32, #gpu.address_space<workgroup>>
    }
    pa.tile.store_partials %row_max, %row_sum, %acc into %exp_sums, %max_logits, %tmp_out[%c0, %slot, %c0] {rows = 8 : i64}
        : memref<16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>,
          memref<16x128xf32, #gpu.address_space<workgroup>>, memref<1x?x8xf32>, memref<1x?x8xf32>, memref<1x?x8x128xf32>
    gpu.return
  }
}
