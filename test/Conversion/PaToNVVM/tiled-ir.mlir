// pa-to-nvvm on checked-in tiled IR: the input the pass takes (pa-tile,
// then pa-stage-page-ids), written here by hand and reduced to what each
// check needs, so that the contract between the tiling passes and the
// NVIDIA backend is visible and no earlier pass runs at test time. A
// decode kernel the warp lowering does not take runs its workgroup program
// on thread 0 (pa.distribution = #pa.distribution<thread0>) and says why in
// pa.thread0_reason: the last cases.
// RUN: pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},gpu.module(pa-to-nvvm))' \
// RUN:   | FileCheck %s --check-prefixes=CHECK,NO-AHEAD
// RUN: pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},gpu.module(pa-to-nvvm{value-ahead=1}))' \
// RUN:   | FileCheck %s --check-prefix=VALUE-AHEAD1
// RUN: pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},gpu.module(pa-to-nvvm{value-ahead=2}))' \
// RUN:   | FileCheck %s --check-prefix=VALUE-AHEAD2
// RUN: not pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},gpu.module(pa-to-nvvm{value-ahead=0}))' \
// RUN:   2>&1 | FileCheck %s --check-prefix=VALUE-AHEAD-RANGE
// RUN: pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},gpu.module(pa-to-nvvm{fp8-products=e4m3}))' \
// RUN:   | FileCheck %s --check-prefix=E4M3
// RUN: pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},gpu.module(pa-to-nvvm{key-ahead=1}))' \
// RUN:   | FileCheck %s --check-prefix=AHEAD
// RUN: pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},gpu.module(pa-to-nvvm{key-ahead=1 key-ahead-in-registers=1}))' \
// RUN:   | FileCheck %s --check-prefix=AHEAD-REG
// RUN: not pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},gpu.module(pa-to-nvvm{key-ahead=9}))' \
// RUN:   2>&1 | FileCheck %s --check-prefix=AHEAD-RANGE
// RUN: pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},gpu.module(pa-to-nvvm{key-ahead=2 key-ahead-bulk=1}))' \
// RUN:   | FileCheck %s --check-prefix=AHEAD-BULK
// RUN: not pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},gpu.module(pa-to-nvvm{key-ahead=1 key-ahead-bulk=1 key-ahead-in-registers=1}))' \
// RUN:   2>&1 | FileCheck %s --check-prefix=AHEAD-BULK-REG
// RUN: pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},gpu.module(pa-to-nvvm{l2-prefetch=1}))' \
// RUN:   | FileCheck %s --check-prefix=L2
// RUN: pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},gpu.module(pa-to-nvvm{l2-prefetch=1 l2-prefetch-min-tiles=16}))' \
// RUN:   | FileCheck %s --check-prefix=L2-MIN
// RUN: not pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},gpu.module(pa-to-nvvm{l2-prefetch-min-tiles=16}))' \
// RUN:   2>&1 | FileCheck %s --check-prefix=L2-MIN-ALONE
// RUN: not pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},gpu.module(pa-to-nvvm{l2-prefetch=1 l2-prefetch-min-tiles=-1}))' \
// RUN:   2>&1 | FileCheck %s --check-prefix=L2-MIN-RANGE
// RUN: pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},gpu.module(pa-to-nvvm{value-stage=2}))' \
// RUN:   | FileCheck %s --check-prefix=STAGE
// RUN: pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},gpu.module(pa-to-nvvm{value-stage=8}))' \
// RUN:   | FileCheck %s --check-prefix=STAGE-TILE
// RUN: not pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},gpu.module(pa-to-nvvm{value-stage=9}))' \
// RUN:   2>&1 | FileCheck %s --check-prefix=STAGE-RANGE
// RUN: pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},gpu.module(pa-to-nvvm{value-stage=1 key-ahead=1}))' \
// RUN:   | FileCheck %s --check-prefix=STAGE-AHEAD

// The decode kernel of pa-tile for D = 64, fp8 KV (page size 16, packed K,
// plain V, a static pool of 64 pages, 2 KV heads), G = 8, Q = 1: one
// 16-row M-tile. The workgroup reads its slot of the plan, exits when it
// is empty, loads the query, stages the page ids of its first 128 tiles in
// shared memory (the ids past them are read directly), and runs qk ->
// softmax -> pv per 256-token tile on the workgroup buffers (query tile,
// scores, row max, row sum, accumulator). Then the reduce kernel's
// head-dim loops.
// CHECK-LABEL: gpu.func @pa_decode(
// CHECK-SAME:      workgroup(
// CHECK-SAME:      nvvm.minctasm = 2 : i32
// CHECK-SAME:      pa.distribution = #pa.distribution<warps>
// CHECK:         %[[TID:.*]] = gpu.thread_id x
// The slot's plan row in one 16-byte load (field by field, LLVM sank two
// of the loads below the empty-slot branch: a second round trip).
// CHECK-NOT:     memref.load %{{.*}} : memref<?x4xi32>
// CHECK:         %[[WORK:.*]] = vector.load %{{.*}}[%{{.*}}, %c0{{.*}}] {alignment = 16 : i64} : memref<?x4xi32>, vector<4xi32>
// CHECK-DAG:     vector.extract %[[WORK]][0] : i32 from vector<4xi32>
// CHECK-DAG:     vector.extract %[[WORK]][1] : i32 from vector<4xi32>
// CHECK-DAG:     vector.extract %[[WORK]][2] : i32 from vector<4xi32>
// CHECK-DAG:     vector.extract %[[WORK]][3] : i32 from vector<4xi32>
// CHECK-NOT:     memref.load %{{.*}} : memref<?x4xi32>
// CHECK:         scf.if
// Every query row's loads come first, each row's in a branch that yields
// them (rows past G = 8 yield zeros), so that no row's loads wait for
// another row's conversion.
// CHECK:         %[[ROW0:.*]]:2 = scf.if %[[IS_ROW0:.*]] -> (bf16, bf16) {
// CHECK-COUNT-2:   memref.load %{{.*}} : memref<?x16x64xbf16>
// CHECK:         } else {
// CHECK-COUNT-3: scf.if %{{.*}} -> (bf16, bf16) {
// CHECK-COUNT-2:   memref.load %{{.*}} : memref<?x16x64xbf16>
// CHECK-NOT:     memref.load %{{.*}} : memref<?x16x64xbf16>
// The staging loop of pa-stage-page-ids: thread i copies the ids of tiles
// i, i + 128, ...; a barrier publishes them. Its block-table reads are
// issued while the query's are in flight.
// CHECK:         %[[FIRST:.*]] = arith.muli %[[TID]], %c1 : index
// CHECK-NEXT:    %[[OWN:.*]] = arith.addi %c0, %[[FIRST]] : index
// CHECK-NEXT:    %c128{{.*}} = arith.constant 128 : index
// CHECK-NEXT:    %[[STRIDE:.*]] = arith.muli %c1, %c128{{.*}} : index
// CHECK-NEXT:    scf.for %{{.*}} = %[[OWN]] to %{{.*}} step %[[STRIDE]] {
// CHECK:           memref.load %{{.*}} : memref<?x?xi32>
// CHECK:           vector.store %{{.*}} : memref<2048xi32, #gpu.address_space<workgroup>>, vector<16xi32>
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
// Then the query rows' conversions. A query row holding a NaN or infinity
// becomes NaN as a whole: each of the lane's values (bf16 widened by bits)
// plus sum(0 * q) over the warp.
// CHECK-NEXT:    scf.if %[[IS_ROW0]] {
// CHECK-NEXT:      arith.bitcast %[[ROW0]]#0 : bf16 to i16
// CHECK:           %[[Q0:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK:           arith.mulf %[[Q0]], %[[ZERO:.*]] : f32
// CHECK:           gpu.shuffle  xor %{{.*}}, %c8_i32
// CHECK:           gpu.shuffle  xor %{{.*}}, %c1_i32
// CHECK:           %[[POISON:.*]] = arith.addf
// CHECK:           arith.addf %[[Q0]], %[[POISON]] : f32
// CHECK:         gpu.barrier
// CHECK-NEXT:    scf.for
// The tile's page ids go through shared memory, by tile parity (thread 0
// stores a tile's vector).
// CHECK:         vector.store %{{.*}} : memref<32xi32, #gpu.address_space<workgroup>>, vector<16xi32>
// The K chunks: 16-byte loads of 16 fp8 values, converted exactly to f16.
// CHECK:         vector.load %{{.*}} {alignment = 16 : i64, nontemporal = true} : memref<64x2x4x16x16xf8E4M3FN>, vector<16xf8E4M3FN>
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
// CHECK:         vector.load %{{.*}} {alignment = 16 : i64, nontemporal = true} : memref<64x2x64x16xf8E4M3FN>, vector<16xf8E4M3FN>
// A NaN row sum (a non-finite input reached the row) is max_logits too.
// CHECK:         %[[NAN_SUM:.*]] = arith.cmpf uno, %[[SUM:.*]], %[[SUM]] : f32
// CHECK:         %[[LOGIT:.*]] = arith.select %[[NAN_SUM]], %[[SUM]], %{{.*}} : f32
// CHECK:         memref.store %[[LOGIT]], %{{.*}} : memref<2x?x8xf32>
// CHECK-NOT:     pa.tile.
// CHECK:         gpu.return

// The reduce kernel (not pa-lower-reduce's whole kernel, so not rebuilt
// for warps): its writes are all in scf.parallel loops, which thread i
// runs for iterations i, i + 128, ...
// CHECK-LABEL: gpu.func @pa_reduce(
// CHECK-SAME:      pa.distribution = #pa.distribution<"parallel-loops">
// CHECK:         %[[RTID:.*]] = gpu.thread_id x
// CHECK-NOT:     scf.parallel
// CHECK:         scf.for %{{.*}} = %[[RTID]] to %c64 step %c128
// CHECK-NOT:     scf.parallel
// CHECK:         gpu.return

// Without key-ahead (the default) nothing is copied asynchronously.
// NO-AHEAD-NOT:  nvvm.cp.async

// With key-ahead=1 (D = 64 fp8: one K block, all of it): thread 0 stores
// the first tile's ids before the loop, a barrier publishes them, and each
// thread copies its 8 K chunks of that tile into a 16 KiB buffer
// (cp.async, one group). In the loop qk stores no ids, waits for its
// copies and reads K from the buffer, not from the cache; at its end
// thread 0 stores the next tile's ids (where there is one), and pv, after
// its barrier, copies the next tile's chunks.
// AHEAD-LABEL:  gpu.func @pa_decode(
// AHEAD-SAME:       %[[KEY:[a-z0-9]+]]: memref<64x2x4x16x16xf8E4M3FN>
// AHEAD-SAME:       %[[IDS:[a-z0-9]+]] : memref<32xi32, #gpu.address_space<workgroup>>, %[[AHEAD:[a-z0-9]+]] : memref<16384xf8E4M3FN, #gpu.address_space<workgroup>>)
// AHEAD:          scf.if %{{.*}} -> (i64) {
// AHEAD:            vector.store %{{.*}}, %[[IDS]][%{{.*}}] {{.*}} vector<16xi32>
// AHEAD:          gpu.barrier
// AHEAD-NEXT:     scf.if
// AHEAD-COUNT-8:    nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
// AHEAD-NOT:        nvvm.cp.async.shared.global
// AHEAD:          nvvm.cp.async.commit.group
// AHEAD-NEXT:     scf.for
// AHEAD-NOT:        vector.store %{{.*}}, %[[IDS]]
// AHEAD:            gpu.barrier
// AHEAD-NOT:        vector.store %{{.*}}, %[[IDS]]
// AHEAD:            nvvm.cp.async.wait.group 0
// AHEAD-COUNT-8:    vector.load %[[AHEAD]][%{{.*}}] {alignment = 16 : i64} : memref<16384xf8E4M3FN, #gpu.address_space<workgroup>>, vector<16xf8E4M3FN>
// AHEAD-NOT:        vector.load %[[KEY]][
// AHEAD:            scf.if %{{.*}} -> (i64) {
// AHEAD:              vector.store %{{.*}}, %[[IDS]][%{{.*}}] {{.*}} vector<16xi32>
// AHEAD:            gpu.barrier
// AHEAD:            gpu.barrier
// AHEAD-NEXT:       scf.if
// AHEAD-COUNT-8:      nvvm.cp.async.shared.global
// AHEAD:            nvvm.cp.async.commit.group
// AHEAD-LABEL:  gpu.func @pa_reduce(
// AHEAD-RANGE: error: pa-to-nvvm: key-ahead must be in [0, 8] (K blocks of a tile), got 9

// With key-ahead-in-registers too: no buffer and no cp.async. After the
// barrier that publishes the first tile's ids, each thread loads its 8 K
// chunks of that tile (zeros where the loop runs no tile); they enter the
// tile loop as iteration arguments, which qk takes instead of loading K.
// pv, after its barrier, loads the next tile's chunks (zeros after the
// last tile) and the loop yields them.
// AHEAD-REG-LABEL:  gpu.func @pa_decode(
// AHEAD-REG-SAME:       %[[KEY:[a-z0-9]+]]: memref<64x2x4x16x16xf8E4M3FN>
// AHEAD-REG-SAME:       %[[IDS:[a-z0-9]+]] : memref<32xi32, #gpu.address_space<workgroup>>)
// AHEAD-REG-NOT:        nvvm.cp.async
// AHEAD-REG:          scf.if %{{.*}} -> (i64) {
// AHEAD-REG:            vector.store %{{.*}}, %[[IDS]][%{{.*}}] {{.*}} vector<16xi32>
// AHEAD-REG:          gpu.barrier
// AHEAD-REG-NEXT:     %[[FIRST:.*]]:8 = scf.if %{{.*}} -> (vector<16xf8E4M3FN>,
// AHEAD-REG-COUNT-8:    vector.load %[[KEY]][{{.*}}] {alignment = 16 : i64, nontemporal = true}
// AHEAD-REG:            scf.yield
// AHEAD-REG:          } else {
// AHEAD-REG:            scf.yield %cst
// AHEAD-REG:          scf.for %{{.*}} iter_args(%[[C0:[a-z0-9]+]] = %[[FIRST]]#0, {{.*}}, %[[C7:[a-z0-9]+]] = %[[FIRST]]#7) -> (
// AHEAD-REG:            gpu.barrier
// AHEAD-REG-NOT:        vector.load %[[KEY]][
// AHEAD-REG:            vector.bitcast %[[C0]] : vector<16xf8E4M3FN> to vector<4xi32>
// AHEAD-REG:            gpu.barrier
// AHEAD-REG:            gpu.barrier
// AHEAD-REG-NEXT:       %[[NEXT:.*]]:8 = scf.if %{{.*}} -> (vector<16xf8E4M3FN>,
// AHEAD-REG-COUNT-8:      vector.load %[[KEY]][{{.*}}] {alignment = 16 : i64, nontemporal = true}
// AHEAD-REG:            } else {
// AHEAD-REG:              scf.yield %cst
// AHEAD-REG:            scf.yield %[[NEXT]]#0, {{.*}}, %[[NEXT]]#7 : vector<16xf8E4M3FN>,
// AHEAD-REG-LABEL:  gpu.func @pa_reduce(

// With l2-prefetch: after the barrier that starts qk, lanes 0-15 of warp 3
// each prefetch one page of the tile's V into L2 (its ids' slot by the
// tile's parity; a page of a head: 64 x 16 bytes), before qk's K loads;
// qk stores the next tile's ids at its end, and pv, after its barrier and
// where a next tile exists, prefetches that tile's K pages (4 x 16 x 16
// bytes) alike. The other kernels (no packed fp8 pages of 16) get none.
// L2-LABEL:  gpu.func @pa_decode(
// L2-SAME:       %[[KEY:[a-z0-9]+]]: memref<64x2x4x16x16xf8E4M3FN>, %[[VALUE:[a-z0-9]+]]: memref<64x2x64x16xf8E4M3FN>
// L2-SAME:       %[[IDS:[a-z0-9]+]] : memref<32xi32, #gpu.address_space<workgroup>>)
// L2:          scf.for
// L2:            gpu.barrier
// L2:            %[[WARP3:.*]] = arith.cmpi eq, %{{.*}}, %c3
// L2:            %[[LANES:.*]] = arith.cmpi ult, %{{.*}}, %c16
// L2:            %[[PREFETCHING:.*]] = arith.andi %[[WARP3]], %[[LANES]] : i1
// L2-NEXT:       scf.if %[[PREFETCHING]] {
// L2:              memref.load %[[IDS]]
// L2:              memref.extract_aligned_pointer_as_index %[[VALUE]]
// L2:              cp.async.bulk.prefetch.L2.global [$0], $1;{{.*}}%c1024_i32
// L2:            vector.load %[[KEY]]
// L2:            vector.store %{{.*}}, %[[IDS]][%{{.*}}] {{.*}} vector<16xi32>
// L2:            gpu.barrier
// L2:            scf.if
// L2:              scf.if
// L2:                memref.load %[[IDS]]
// L2:                memref.extract_aligned_pointer_as_index %[[KEY]]
// L2:                cp.async.bulk.prefetch.L2.global [$0], $1;{{.*}}%c1024_i32
// L2-NOT:        cp.async.bulk.prefetch
// L2-LABEL:  gpu.func @pa_reduce(
// L2-NOT:    cp.async.bulk.prefetch

// With l2-prefetch-min-tiles=16: the lanes prefetch only where the tile
// loop runs 16 tiles or more (its span > 15 steps), for V and for K.
// L2-MIN-LABEL:  gpu.func @pa_decode(
// L2-MIN:          scf.for %{{.*}} = %[[FIRST:[0-9]+]] to %[[END:[0-9]+]] step %[[STEP:c1]] {
// L2-MIN:            %[[LANES:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// L2-MIN-NEXT:       %[[SPAN:.*]] = arith.subi %[[END]], %[[FIRST]] : index
// L2-MIN-NEXT:       %[[C15:.*]] = arith.constant 15 : index
// L2-MIN-NEXT:       %[[SHORTEST:.*]] = arith.muli %[[STEP]], %[[C15]] : index
// L2-MIN-NEXT:       %[[LONG:.*]] = arith.cmpi sgt, %[[SPAN]], %[[SHORTEST]] : index
// L2-MIN-NEXT:       %[[PREFETCHING:.*]] = arith.andi %[[LANES]], %[[LONG]] : i1
// L2-MIN-NEXT:       scf.if %[[PREFETCHING]] {
// L2-MIN:              cp.async.bulk.prefetch.L2.global
// L2-MIN:            gpu.barrier
// L2-MIN:            scf.if
// L2-MIN:              arith.cmpi sgt, %{{.*}}, %{{.*}} : index
// L2-MIN:              scf.if
// L2-MIN:                cp.async.bulk.prefetch.L2.global
// L2-MIN-LABEL:  gpu.func @pa_reduce(
// L2-MIN-ALONE: error: pa-to-nvvm: l2-prefetch-min-tiles needs l2-prefetch (it picks the partitions that prefetch)
// L2-MIN-RANGE: error: pa-to-nvvm: l2-prefetch-min-tiles must be in [0, 1048576] (tiles of a partition), got -1

// With key-ahead-bulk: key-ahead's blocks (D = 64: one) go through the
// bulk-copy engine into a key stage of 64 rows (1 block x 16 pages x 4
// chunks), each a page's 16 tokens of one chunk (256 bytes) plus 32 bytes
// of padding (288), completing on an mbarrier that thread 0 initializes.
// Before the loop, after the barrier that publishes the first tile's ids,
// warp 0's lane 0 expects the stage's 16 KiB and each of its lanes copies
// rows lane and lane + 32; qk waits for the tile's phase (the iteration's
// parity) and reads its 8 chunks from the stage (no K load, no cp.async);
// pv, after its barrier, copies the next tile's rows alike.
// AHEAD-BULK-LABEL:  gpu.func @pa_decode(
// AHEAD-BULK-SAME:       %[[KEY:[a-z0-9]+]]: memref<64x2x4x16x16xf8E4M3FN>
// AHEAD-BULK-SAME:       %[[IDS:[a-z0-9]+]] : memref<32xi32, #gpu.address_space<workgroup>>, %[[STAGED:[a-z0-9]+]] : memref<18432xf8E4M3FN, #gpu.address_space<workgroup>>, %[[BARRIER:[a-z0-9]+]] : memref<1xi64, #gpu.address_space<workgroup>>)
// AHEAD-BULK-NOT:        nvvm.cp.async
// AHEAD-BULK:            memref.extract_aligned_pointer_as_index %[[BARRIER]]
// AHEAD-BULK:            nvvm.mbarrier.init %{{.*}}, %c1_i32
// AHEAD-BULK:          gpu.barrier
// AHEAD-BULK-NEXT:     scf.if
// AHEAD-BULK:            scf.if
// AHEAD-BULK:              mbarrier.arrive.expect_tx{{.*}}%c16384_i32
// AHEAD-BULK:            memref.load %[[IDS]]
// AHEAD-BULK:            arith.constant 288 : index
// AHEAD-BULK:            memref.extract_strided_metadata %[[KEY]]
// AHEAD-BULK:            cp.async.bulk.shared::cluster.global{{.*}}%c256_i32
// AHEAD-BULK:            arith.constant 32 : index
// AHEAD-BULK:            cp.async.bulk.shared::cluster.global
// AHEAD-BULK-NOT:        cp.async.bulk
// AHEAD-BULK:          scf.for
// AHEAD-BULK:            gpu.barrier
// AHEAD-BULK-NOT:        vector.load %[[KEY]][
// AHEAD-BULK:            arith.remui %{{.*}}, %c2{{.*}} : index
// AHEAD-BULK:            mbarrier.try_wait.parity
// AHEAD-BULK-COUNT-8:    vector.load %[[STAGED]][%{{.*}}] {alignment = 16 : i64}
// AHEAD-BULK-NOT:        vector.load %[[KEY]][
// AHEAD-BULK:            gpu.barrier
// AHEAD-BULK:            gpu.barrier
// AHEAD-BULK-NEXT:       scf.if
// AHEAD-BULK:              mbarrier.arrive.expect_tx{{.*}}%c16384_i32
// AHEAD-BULK-COUNT-2:      cp.async.bulk.shared::cluster.global{{.*}}%c256_i32
// AHEAD-BULK-NOT:        cp.async.bulk
// AHEAD-BULK-LABEL:  gpu.func @pa_reduce(
// AHEAD-BULK-REG: error: pa-to-nvvm: key-ahead-bulk and key-ahead-in-registers exclude each other (where key-ahead's chunks go)

// With value-stage=2 (fp8: V blocks of 64 tokens, so the tile's first 128
// tokens, 8 plain-V pages of D x P = 64 x 16 bytes): a stage of 8 copy
// units, each a page padded by 2 columns' bytes (1024 + 32: unit u at
// element 1056 u), and an
// mbarrier that thread 0 initializes before the loop. In the loop, after
// qk's barrier (every thread has read the previous tile's stage), thread 0
// expects the 8 KiB on the barrier and issues the 8 bulk copies; qk no
// longer requests pv's first V block. pv requests the first block past the
// stage (block 2) from the cache, waits for the barrier's phase of this
// tile (the iteration's parity), reads blocks 0 and 1 from the stage and
// block 3 from the cache, in both the full and the masked branch.
// STAGE-LABEL:  gpu.func @pa_decode(
// STAGE-SAME:       %[[VALUE:[a-z0-9]+]]: memref<64x2x64x16xf8E4M3FN>
// STAGE-SAME:       %[[STAGED:[a-z0-9]+]] : memref<8448xf8E4M3FN, #gpu.address_space<workgroup>>, %[[BARRIER:[a-z0-9]+]] : memref<1xi64, #gpu.address_space<workgroup>>)
// STAGE:          scf.if
// STAGE:            memref.extract_aligned_pointer_as_index %[[BARRIER]]
// STAGE:            nvvm.mbarrier.init %{{.*}}, %c1_i32 : !llvm.ptr<3>, i32
// STAGE-NEXT:       nvvm.fence.mbarrier.init
// STAGE:          scf.for %[[TILE:[a-z0-9]+]] =
// STAGE:            gpu.barrier
// STAGE-NOT:        gpu.barrier
// STAGE:            scf.if
// STAGE:              llvm.inline_asm has_side_effects "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "r,r,~{memory}" %{{.*}}, %c8192_i32
// STAGE:              llvm.inline_asm has_side_effects "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [$0], [$1], $2, [$3];", "r,l,r,r,~{memory}" %{{.*}}, %{{.*}}, %c1024_i32
// STAGE:              arith.constant 1056 : index
// STAGE:              cp.async.bulk
// STAGE-COUNT-5:      cp.async.bulk
// STAGE:              arith.constant 7392 : index
// STAGE:              cp.async.bulk
// STAGE-NOT:          cp.async.bulk
// STAGE:            }
// STAGE-NOT:        vector.load %[[VALUE]]
// STAGE:            llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// STAGE-NOT:        vector.load %[[VALUE]]
// STAGE:            scf.if
// STAGE-COUNT-2:      vector.load %[[VALUE]]{{.*}} {alignment = 16 : i64, nontemporal = true}
// STAGE:              %[[ITERATION:.*]] = arith.divui %{{.*}}, %c1 : index
// STAGE:              %[[PARITY:.*]] = arith.remui %[[ITERATION]], %c2{{.*}} : index
// STAGE:              %[[PHASE:.*]] = arith.index_castui %[[PARITY]] : index to i32
// STAGE:              llvm.inline_asm has_side_effects "{{.*}}mbarrier.try_wait.parity.shared::cta.b64 done, [$0], $1;{{.*}}", "r,r,~{memory}" %{{.*}}, %[[PHASE]]
// STAGE-NOT:          vector.load %[[VALUE]]
// STAGE-COUNT-4:      vector.load %[[STAGED]][%{{.*}}] {alignment = 16 : i64} : memref<8448xf8E4M3FN, #gpu.address_space<workgroup>>, vector<16xf8E4M3FN>
// STAGE-NOT:          vector.load %[[STAGED]]
// STAGE:              vector.load %[[VALUE]]
// STAGE:            } else {
// STAGE:              mbarrier.try_wait.parity
// STAGE-LABEL:  gpu.func @pa_reduce(

// pv's V loads ahead of its products (D = 64 fp8: 2 chunks per token
// block and warp). By default the next block's: block 0 came from qk, so
// pv's full-tile branch requests block 1 before block 0's products; with
// value-ahead=2, blocks 1 and 2.
// VALUE-AHEAD1-LABEL: gpu.func @pa_decode(
// VALUE-AHEAD1-SAME:      %[[VALUE:[a-z0-9]+]]: memref<64x2x64x16xf8E4M3FN>
// VALUE-AHEAD1:         llvm.nvvm.ff2f16x2.rn
// VALUE-AHEAD1:         gpu.barrier
// VALUE-AHEAD1:         scf.if
// VALUE-AHEAD1-NOT:       llvm.nvvm.mma
// VALUE-AHEAD1:           vector.load %[[VALUE]]
// VALUE-AHEAD1-NOT:       llvm.nvvm.mma
// VALUE-AHEAD1:           vector.load %[[VALUE]]
// VALUE-AHEAD1-NOT:       vector.load %[[VALUE]]
// VALUE-AHEAD1:           llvm.nvvm.mma.m16n8k16
// VALUE-AHEAD2-LABEL: gpu.func @pa_decode(
// VALUE-AHEAD2-SAME:      %[[VALUE:[a-z0-9]+]]: memref<64x2x64x16xf8E4M3FN>
// VALUE-AHEAD2:         llvm.nvvm.ff2f16x2.rn
// VALUE-AHEAD2:         gpu.barrier
// VALUE-AHEAD2:         scf.if
// VALUE-AHEAD2-NOT:       llvm.nvvm.mma
// VALUE-AHEAD2:           vector.load %[[VALUE]]
// VALUE-AHEAD2-NOT:       llvm.nvvm.mma
// VALUE-AHEAD2:           vector.load %[[VALUE]]
// VALUE-AHEAD2-NOT:       llvm.nvvm.mma
// VALUE-AHEAD2:           vector.load %[[VALUE]]
// VALUE-AHEAD2-NOT:       llvm.nvvm.mma
// VALUE-AHEAD2:           vector.load %[[VALUE]]
// VALUE-AHEAD2-NOT:       vector.load %[[VALUE]]
// VALUE-AHEAD2:           llvm.nvvm.mma.m16n8k16
// VALUE-AHEAD-RANGE: error: pa-to-nvvm: value-ahead must be in [1, 4] (V token blocks requested ahead), got 0

// value-stage=8 asks for more than the tile's 4 blocks: the whole tile, 16
// pages, is staged, and pv reads no V from the cache.
// STAGE-TILE-LABEL:  gpu.func @pa_decode(
// STAGE-TILE-SAME:       %[[VALUE:[a-z0-9]+]]: memref<64x2x64x16xf8E4M3FN>
// STAGE-TILE-SAME:       memref<16896xf8E4M3FN, #gpu.address_space<workgroup>>, %{{[a-z0-9]+}} : memref<1xi64, #gpu.address_space<workgroup>>)
// STAGE-TILE:          scf.for
// STAGE-TILE:            %c16384_i32
// STAGE-TILE-COUNT-16:   cp.async.bulk.shared::cluster.global
// STAGE-TILE-NOT:        vector.load %[[VALUE]]
// STAGE-TILE:            mbarrier.try_wait.parity
// STAGE-TILE-NOT:        vector.load %[[VALUE]]
// STAGE-TILE-LABEL:  gpu.func @pa_reduce(
// STAGE-RANGE: error: pa-to-nvvm: value-stage must be in [0, 8] (V token blocks of a tile), got 9
// With key-ahead too: qk reads its first K block from key-ahead's buffer
// and issues the stage's copies (4 pages: one V block of 64 tokens); pv
// copies the next tile's K after its barrier, then waits for the stage.
// STAGE-AHEAD-LABEL: gpu.func @pa_decode(
// STAGE-AHEAD-SAME:      memref<16384xf8E4M3FN, #gpu.address_space<workgroup>>, %{{[a-z0-9]+}} : memref<4224xf8E4M3FN, #gpu.address_space<workgroup>>, %{{[a-z0-9]+}} : memref<1xi64, #gpu.address_space<workgroup>>)
// STAGE-AHEAD:         scf.for
// STAGE-AHEAD:           gpu.barrier
// STAGE-AHEAD:           %c4096_i32
// STAGE-AHEAD-COUNT-4:   cp.async.bulk.shared::cluster.global
// STAGE-AHEAD:           nvvm.cp.async.wait.group 0
// STAGE-AHEAD:           nvvm.cp.async.shared.global
// STAGE-AHEAD:           mbarrier.try_wait.parity
// STAGE-AHEAD-LABEL: gpu.func @pa_reduce(

// With fp8-products=e4m3 the products take the raw e4m3 bytes.
// E4M3-LABEL:  gpu.func @pa_decode(
// E4M3:          llvm.call_intrinsic "llvm.nvvm.mma.m16n8k32.row.col.f32.e4m3.e4m3.f32"
// E4M3:          llvm.call_intrinsic "llvm.nvvm.ff.to.e4m3x2.rn"
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
      kernel attributes {known_block_size = array<i32: 128, 1, 1>,
                         pa.arg_names = ["query", "key_cache", "value_cache", "block_tables",
                                         "work_info", "exp_sums", "max_logits", "tmp_out"]} {
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
          %at = arith.muli %j, %c16 : index
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
      kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
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

// A decode kernel without pa.tile.softmax (not one of each tile op).
// CHECK-LABEL: gpu.func @pa_decode(
// CHECK-SAME:      pa.distribution = #pa.distribution<thread0>
// CHECK-SAME:      pa.thread0_reason = "pa-to-nvvm expects exactly one 'pa.tile.softmax' in a decode kernel, found 0"
// CHECK-NOT:     pa.tile.
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

// The softmax and pv on other scores than the qk wrote: no qk -> softmax
// -> pv chain through the tile buffers.
// CHECK-LABEL: gpu.func @pa_decode(
// CHECK-SAME:      pa.distribution = #pa.distribution<thread0>
// CHECK-SAME:      pa.thread0_reason = "pa-to-nvvm expects the tile ops to share their tile buffers (query tile, scores, row max, row sum, accumulator)"
// CHECK-NOT:     pa.tile.
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

// An f32 query (the warps take bf16 or f16).
// CHECK-LABEL: gpu.func @pa_decode(
// CHECK-SAME:      pa.distribution = #pa.distribution<thread0>
// CHECK-SAME:      pa.thread0_reason = "bf16 or f16 queries only"
// CHECK-NOT:     pa.tile.
gpu.module @pa_kernels {
  gpu.func @pa_decode(%q: memref<?x8x64xf32>, %k: memref<?x1x8x16x8xbf16>,
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
        : memref<?x8x64xf32>, memref<16x64xf32, #gpu.address_space<workgroup>>
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

// A 48-row group (the warps take one or two 16-row M-tiles).
// CHECK-LABEL: gpu.func @pa_decode(
// CHECK-SAME:      pa.distribution = #pa.distribution<thread0>
// CHECK-SAME:      pa.thread0_reason = "row groups of 16 or 32 rows only"
// CHECK-NOT:     pa.tile.
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
    pa.tile.load_query %q[%c0, %c0, %c0] into %qt {query_length = 1 : i64, group_size = 8 : i64}
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

// pv before softmax in the tile loop: the warp lowering makes P in the
// softmax (and for 32 rows rescales the accumulators in pv), so the chain
// must run in this order. (Before the shared contract, TiledDecode.h, the
// warps took this kernel.)
// CHECK-LABEL: gpu.func @pa_decode(
// CHECK-SAME:      pa.distribution = #pa.distribution<thread0>
// CHECK-SAME:      pa.thread0_reason = "pa-to-nvvm expects pa.tile.qk, pa.tile.softmax and pa.tile.pv, in that order, directly in the tile loop"
// CHECK-NOT:     pa.tile.
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

// qk and pv of one tile on other page ids: V of other pages than K.
// CHECK-LABEL: gpu.func @pa_decode(
// CHECK-SAME:      pa.distribution = #pa.distribution<thread0>
// CHECK-SAME:      pa.thread0_reason = "pa-to-nvvm expects pa.tile.qk, pa.tile.softmax and pa.tile.pv on one tile (one tile start, the same page ids in qk and pv)"
// CHECK-NOT:     pa.tile.
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
