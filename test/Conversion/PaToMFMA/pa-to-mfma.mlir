// pa-to-mfma on decode kernels built by the tiling passes of
// pa-lower-to-rocdl (mfma_lower.py) for configurations of mfma_decode.py,
// named d<D>-<kv>-p<P>-<V layout>-<scale>-w<window>-q<Q>g<G>[-n<pool>]
// (-n: a static pool size, one tile loop; without it the pool is dynamic).
// The fp8 flavour follows the chip (gfx942 f8E4M3FNUZ, gfx950 f8E4M3FN).
// Most runs set fp8-residual=none: the MFMA structure of the design with
// one product per step; the last two check p (P's residual only) and the
// default, query-and-p.
//
// The structure of one kernel in detail (lane mapping, staging, the tile
// loop, the merge) is checked on checked-in tiled IR in tiled-ir.mlir; this
// file checks what changes across configurations.

// MFMAs per wave and tile loop: M-tiles x (4 blocks x D/32 K-steps + D/16
// blocks x 2 K-steps) = M-tiles x D/4 for fp8 (x4 waves: the minimum
// 2 * 256 * D * rows / (16 * 16 * 32)); gfx950 with D = 64 has no 16x16x128
// QK (D is not a multiple of its K). Then, without per-token V scales
// where the edge branch is (one M-tile, or D <= 128) or QK is 16x16x32
// (gfx942 always), the weights' sums: M-tiles x 2 K-steps x P's terms of
// 1^T P^T against a constant block of fp8 ones (W2, W4); per-token V
// scales (the weights divided by each token's factor) sum them in lanes
// (W0).
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d64-fp8-p16-plain-none-w0-q4g8-n64 --chip gfx942 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefixes=COUNT,N32,W4 -DFP8=f8E4M3FNUZ
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d128-fp8-p64-transposed-per_tensor-w0-q1g8-n64 --chip gfx942 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefixes=COUNT,N32,W2 -DFP8=f8E4M3FNUZ
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d64-fp8-p16-plain-per_token-w257-q4g8-n64 --chip gfx950 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefixes=COUNT,N32,W0 -DFP8=f8E4M3FN
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d256-fp8-p64-plain-none-w0-q4g8-n64 --chip gfx942 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefixes=COUNT,N128,W4 -DFP8=f8E4M3FNUZ
// COUNT-LABEL:   gpu.func @pa_decode(
// COUNT-NOT:     amdgpu.mfma
// COUNT:         scf.for {{.*}} iter_args(
// N32-COUNT-32:  amdgpu.mfma 16x16x32 %{{[0-9]+}} * {{.*}} : vector<8x[[FP8]]>, vector<8x[[FP8]]>, vector<4xf32>
// N64-COUNT-64:  amdgpu.mfma 16x16x32 %{{[0-9]+}} * {{.*}} : vector<8x[[FP8]]>, vector<8x[[FP8]]>, vector<4xf32>
// N128-COUNT-128: amdgpu.mfma 16x16x32 %{{[0-9]+}} * {{.*}} : vector<8x[[FP8]]>, vector<8x[[FP8]]>, vector<4xf32>
// W2:            %[[ONES:.*]] = arith.constant dense<1.000000e+00> : vector<8x[[FP8]]>
// W2-COUNT-2:    amdgpu.mfma 16x16x32 %[[ONES]] * {{.*}} : vector<8x[[FP8]]>, vector<8x[[FP8]]>, vector<4xf32>
// W4:            %[[ONES:.*]] = arith.constant dense<1.000000e+00> : vector<8x[[FP8]]>
// W4-COUNT-4:    amdgpu.mfma 16x16x32 %[[ONES]] * {{.*}} : vector<8x[[FP8]]>, vector<8x[[FP8]]>, vector<4xf32>
// W0-NOT:        dense<1.000000e+00> : vector<8x[[FP8]]>
// COUNT-NOT:     amdgpu.mfma
// COUNT:         gpu.return

// Two M-tiles with the edge branch (D <= 128): the first branch masks the
// scores of both M-tiles and the lane's own per-token V scale; the used
// weights' reciprocals are made once per tile for both M-tiles (one f32
// divide per lane, its token's); the V loads come before a second branch on
// the same condition
// that yields them as they are for full tiles and ANDs them with the
// valid-range bytes for edge tiles; the PV products follow.
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d64-fp8-p16-plain-per_token-w0-q4g8-n64 --chip gfx942 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefix=VBRANCH
// VBRANCH-LABEL: gpu.func @pa_decode(
// VBRANCH:       scf.for {{.*}} iter_args(
// VBRANCH-COUNT-16: amdgpu.mfma 16x16x32
// VBRANCH:       %[[EDGE:.*]]:9 = scf.if %[[FULL:.*]] -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, f32) {
// VBRANCH:       arith.divf %{{.*}}, %{{.*}} fastmath<arcp,afn> : f32
// VBRANCH-NOT:   arith.divf {{.*}} vector<
// VBRANCH-NOT:   amdgpu.mfma
// VBRANCH-COUNT-4: vector.load %{{.*}} : memref<64x2x64x16xf8E4M3FNUZ, #amdgpu.address_space<fat_raw_buffer>>, vector<16xf8E4M3FNUZ>
// VBRANCH-NEXT:  vector.bitcast
// VBRANCH-NEXT:  %[[VALUES:.*]]:4 = scf.if %[[FULL]] -> (vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>) {
// VBRANCH-NEXT:    scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>
// VBRANCH-NEXT:  } else {
// VBRANCH-COUNT-4: arith.andi %{{.*}}, %{{.*}} : vector<4xi32>
// VBRANCH-NEXT:    scf.yield
// VBRANCH-NEXT:  }
// VBRANCH-NOT:   arith.andi {{.*}} vector<4xi32>
// VBRANCH-COUNT-16: amdgpu.mfma 16x16x32
// VBRANCH-NOT:   amdgpu.mfma
// VBRANCH:       scf.yield

// Two M-tiles at D = 256 (registers at the limit of 2 waves per SIMD): no
// edge branch; every V load is ANDed with the valid-range bytes, and the
// used weights' reciprocals are made per PV step (vector<8xf32>).
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d256-fp8-p16-plain-per_token-w0-q4g8-n64 --chip gfx942 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefix=VMASK
// VMASK-LABEL:   gpu.func @pa_decode(
// VMASK:         scf.for {{.*}} iter_args(
// VMASK-NOT:     scf.if %{{.*}} -> (vector<4xi32>
// VMASK-NOT:     arith.divf {{.*}} vector<16xf32>
// VMASK:         arith.divf %{{.*}}, %{{.*}} fastmath<arcp,afn> : vector<8xf32>
// VMASK:         vector.load %{{.*}} : memref<64x2x256x16xf8E4M3FNUZ, #amdgpu.address_space<fat_raw_buffer>>, vector<16xf8E4M3FNUZ>
// VMASK-NEXT:    vector.bitcast
// VMASK-NEXT:    arith.andi %{{.*}}, %{{.*}} : vector<4xi32>
// VMASK:         scf.yield

// gfx950, D a multiple of 128: QK on v_mfma_f32_16x16x128_f8f6f4 (two load
// chunks per product, 32 fp8 values per lane): M-tiles x 4 blocks x D/128,
// then PV as on gfx942 (M-tiles x D/16 blocks x 2 K-steps). D = 128 at 32
// rows and D = 256 at 16 rows: 8 + 32. At D = 256 with per-token scales on
// the packed cache, 16 rows take 16x16x32 QK (the NARROW prefix; with 16x16x128 half
// of them needed more than the 168 VGPRs of 3 waves), except with ALiBi (2
// waves either way).
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d128-fp8-p16-plain-per_token-w257-q2g16-n64 --chip gfx950 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefix=WIDE
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d256-fp8-p16-transposed-per_token-w300-q1g8-alibi-n64 --chip gfx950 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefix=WIDE
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d256-fp8-p16-transposed-per_token-w257-q2g8-n64 --chip gfx950 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefix=NARROW
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d256-fp8-p64-plain-per_token-w0-q1g8-n64 --chip gfx950 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefix=NARROW
// NARROW-LABEL:    gpu.func @pa_decode(
// NARROW:          scf.for {{.*}} iter_args(
// NARROW-COUNT-32: amdgpu.mfma 16x16x32 {{.*}} : vector<8xf8E4M3FN>, vector<8xf8E4M3FN>, vector<4xf32>
// NARROW-NOT:      amdgpu.mfma 16x16x128
// NARROW:          gpu.return
// WIDE-LABEL:    gpu.func @pa_decode(
// WIDE-NOT:      amdgpu.mfma
// WIDE:          scf.for {{.*}} iter_args(
// WIDE-COUNT-8:  amdgpu.mfma 16x16x128 {{.*}} : vector<32xf8E4M3FN>, vector<32xf8E4M3FN>, vector<4xf32>
// WIDE-NOT:      amdgpu.mfma 16x16x128
// WIDE-COUNT-32: amdgpu.mfma 16x16x32 {{.*}} : vector<8xf8E4M3FN>, vector<8xf8E4M3FN>, vector<4xf32>
// WIDE-NOT:      amdgpu.mfma
// WIDE:          gpu.return

// bf16 KV: v_mfma_f32_16x16x16_bf16, 4 values (8 bytes) per lane and step;
// P in two bf16 terms, its truncation and what that missed (one term moved
// normal-distributed outputs past the bf16-KV tolerance), whatever
// fp8-residual says: M-tiles x (4 x D/16 + 2 x D/16 x 4) = M-tiles x 3D/4.
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d64-bf16-p16-plain-none-w0-q1g8-n64 --chip gfx942 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefixes=BF16,B32
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d128-bf16-p64-transposed-none-w0-q3g8-n64 --chip gfx950 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefixes=BF16,B128
// BF16-LABEL:    gpu.func @pa_decode(
// BF16-NOT:      packed_trunc
// BF16:          scf.for {{.*}} iter_args(
// BF16:          vector.load {{.*}} #amdgpu.address_space<fat_raw_buffer>>, vector<8xbf16>
// B32-COUNT-48:  amdgpu.mfma 16x16x16 {{.*}} : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
// B128-COUNT-192: amdgpu.mfma 16x16x16 {{.*}} : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
// BF16-NOT:      amdgpu.mfma
// BF16:          gpu.return

// The two terms of P's first step, by truncation: the high halves of P's
// words, then of P minus its truncation (exact in f32); the V operand's two
// products into one accumulator.
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d64-bf16-p16-plain-none-w0-q1g8-n64 --chip gfx942 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefix=BF16P
// BF16P-LABEL:   gpu.func @pa_decode(
// BF16P:         scf.for {{.*}} iter_args(
// BF16P:         %[[P:.*]] = vector.shuffle %{{.*}} [0, 1, 2, 3] : vector<16xf32>, vector<16xf32>
// BF16P-NEXT:    %[[BITS:.*]] = vector.bitcast %[[P]] : vector<4xf32> to vector<4xi32>
// BF16P-NEXT:    %[[MASK:.*]] = arith.constant dense<-65536> : vector<4xi32>
// BF16P-NEXT:    %[[HIBITS:.*]] = arith.andi %[[BITS]], %[[MASK]] : vector<4xi32>
// BF16P-NEXT:    %[[TRUNCATED:.*]] = vector.bitcast %[[HIBITS]] : vector<4xi32> to vector<4xf32>
// BF16P-NEXT:    %[[PHALVES:.*]] = vector.bitcast %[[P]] : vector<4xf32> to vector<8xbf16>
// BF16P-NEXT:    %[[HI:.*]] = vector.shuffle %[[PHALVES]], %[[PHALVES]] [1, 3, 5, 7] : vector<8xbf16>, vector<8xbf16>
// BF16P-NEXT:    %[[REST:.*]] = arith.subf %[[P]], %[[TRUNCATED]] : vector<4xf32>
// BF16P-NEXT:    %[[RHALVES:.*]] = vector.bitcast %[[REST]] : vector<4xf32> to vector<8xbf16>
// BF16P-NEXT:    %[[LO:.*]] = vector.shuffle %[[RHALVES]], %[[RHALVES]] [1, 3, 5, 7] : vector<8xbf16>, vector<8xbf16>
// BF16P:         %[[SUM:.*]] = amdgpu.mfma 16x16x16 %[[V:[^ ]*]] * %[[HI]] + %{{.*}} : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
// BF16P-NEXT:    amdgpu.mfma 16x16x16 %[[V]] * %[[LO]] + %[[SUM]] {{.*}} : vector<4xbf16>, vector<4xbf16>, vector<4xf32>

// bf16 K elements can be infinite: each score block is checked (s * 0 + s,
// NaN for +-inf) after its scale and before the mask, so that an infinite
// score makes its row NaN instead of weighing 0 like a masked -inf.
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d64-bf16-p16-plain-none-w0-q1g8-n64 --chip gfx942 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefix=BF16SCORES
// BF16SCORES-LABEL: gpu.func @pa_decode(
// BF16SCORES:       scf.for {{.*}} iter_args(
// BF16SCORES-COUNT-16: amdgpu.mfma 16x16x16
// BF16SCORES:       %[[SCALED:.*]] = arith.mulf %{{.*}}, %{{.*}} : vector<4xf32>
// BF16SCORES:       math.fma %[[SCALED]], %{{.*}}, %[[SCALED]] : vector<4xf32>
// BF16SCORES-COUNT-3: math.fma
// BF16SCORES:       scf.if
// BF16SCORES:       amdgpu.mfma 16x16x16

// bf16 compute on an fp8 cache: K and V converted after the 16-byte loads
// (K loaded a tile ahead, the loop's operands: gfx942 prefetches this
// 16-row kernel, so the tile's own K words convert in the loop).
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d64-fp8-p16-plain-none-w0-q1g8-n64-bf16c --chip gfx942 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefix=BF16C
// BF16C-LABEL:   gpu.func @pa_decode(
// BF16C:         vector.load {{.*}} vector<16xf8E4M3FNUZ>
// BF16C:         scf.for {{.*}} iter_args(
// BF16C:         arith.extf %{{.*}} : vector<16xf8E4M3FNUZ> to vector<16xf32>
// BF16C:         arith.truncf %{{.*}} : vector<16xf32> to vector<16xbf16>
// BF16C-COUNT-32: amdgpu.mfma 16x16x16 {{.*}} : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
// BF16C-NOT:     amdgpu.mfma

// A dynamic pool: 32-bit buffer offsets when every paged buffer is below
// 2 GiB, else 64-bit global addresses. At D = 128 the 64-bit loop, like
// the 32-bit one, runs both M-tiles of the 32-row group (MTP 4 at GQA 8) in
// one tile loop: each K / V load serves both.
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d128-fp8-p16-plain-per_token-w0-q4g8 --chip gfx942 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefix=DYN
// DYN-LABEL:     gpu.func @pa_decode(
// Pages of 4096 bytes (K, V) and 128 bytes (scales) below 2^31 bytes:
// DYN:           arith.cmpi sle, %{{.*}}, %c524287_i64
// DYN:           arith.cmpi sle, %{{.*}}, %c524287_i64
// DYN:           arith.cmpi sle, %{{.*}}, %c16777215_i64
// DYN:           arith.cmpi sle, %{{.*}}, %c16777215_i64
// DYN:           %[[FITS:.*]] = arith.andi
// DYN:           scf.if %[[FITS]] -> (
// DYN:             scf.for {{.*}} iter_args({{.*}}) -> (index, f32, f32, f32, f32, f32, f32, f32, vector<4xf32>
// DYN-COUNT-64:      amdgpu.mfma 16x16x32
// DYN-NOT:           amdgpu.mfma
// DYN:           } else {
// The 64-bit loop's lane ids are its own (a ballot of every lane and
// mbcnt), not the prologue's kept live across the 32-bit loop.
// DYN-NEXT:        %[[EVERY:.*]] = arith.constant true
// DYN-NEXT:        rocdl.ballot %[[EVERY]] : i64
// DYN:             rocdl.mbcnt.lo
// DYN-NEXT:        rocdl.mbcnt.hi
// DYN-NOT:         scf.for
// DYN:             scf.for {{.*}} iter_args({{.*}}) -> (index, f32, f32, f32, f32, f32, f32, f32, vector<4xf32>
// DYN-COUNT-64:      amdgpu.mfma 16x16x32
// DYN-NOT:           amdgpu.mfma
// DYN-NOT:           fat_raw_buffer
// DYN:             scf.yield
// DYN-NOT:         scf.for {{.*}} iter_args
// DYN:           }

// At D = 256 both M-tiles' accumulators with 64-bit addresses would not fit
// the 32-bit loop's 2 waves: the 64-bit loop is one tile loop that a
// run-time loop runs once per M-tile, its first row and lane constants
// chosen by the M-tile.
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d256-fp8-p16-plain-per_token-w0-q4g8 --chip gfx942 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefix=DYN256
// DYN256-LABEL:   gpu.func @pa_decode(
// DYN256:           scf.if %{{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32, vector<4xf32>
// DYN256:             scf.for {{.*}} iter_args({{.*}}) -> (index, f32, f32, f32, f32, f32, f32, f32, vector<4xf32>
// DYN256-COUNT-128:     amdgpu.mfma
// DYN256-NOT:           amdgpu.mfma
// DYN256:           } else {
// DYN256:             rocdl.mbcnt.hi
// DYN256:             scf.for %[[MTILE:.*]] = %{{.*}} to %c2{{.*}} step %{{.*}} iter_args(
// DYN256:               %[[SECOND:.*]] = arith.cmpi eq, %[[MTILE]], %c1
// DYN256:               arith.muli %[[MTILE]], %c16
// DYN256:               arith.select %[[SECOND]], %{{.*}}, %{{.*}} : f32
// DYN256:               scf.for {{.*}} iter_args({{.*}}) -> (index, f32, f32, f32, f32, vector<4xf32>
// DYN256-COUNT-64:        amdgpu.mfma
// DYN256-NOT:             amdgpu.mfma
// DYN256-NOT:             fat_raw_buffer
// DYN256:               scf.yield
// DYN256-NOT:         scf.for {{.*}} iter_args
// DYN256:           }

// Query staging at D = 256, 32 rows: 8 rounds of 4 rows (a row per wave,
// 64 lanes of 4 values), as a run-time loop: each round's row maximum
// (6-step butterfly), fp8 quantization and residual, stored to LDS.
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d256-fp8-p16-plain-none-w0-q4g8-n64 --chip gfx942 \
// RUN:   | FileCheck %s --check-prefix=STAGEQ
// STAGEQ-LABEL:  gpu.func @pa_decode(
// STAGEQ:          scf.for %[[ROUND:.*]] = %{{.*}} to %c8 step %{{.*}} {
// STAGEQ:            arith.muli %[[ROUND]], %c4
// STAGEQ-COUNT-6:    gpu.shuffle xor
// STAGEQ:            arith.divf
// STAGEQ-COUNT-2:    amdgpu.packed_trunc_2xfp8
// STAGEQ:            vector.store
// STAGEQ-COUNT-2:    amdgpu.packed_trunc_2xfp8
// STAGEQ:            vector.store
// STAGEQ:            memref.store
// STAGEQ:          }
// STAGEQ:          gpu.barrier

// cache-offsets=64: only the 64-bit loop (no pool-size check, no buffer
// views), once per M-tile at D = 256 and one tile loop for both at D = 128
// (OFF64BOTH); with one M-tile, a plain tile loop.
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d256-fp8-p16-plain-per_token-w0-q4g8 --chip gfx942 --fp8-residual=none --cache-offsets=64 \
// RUN:   | FileCheck %s --check-prefix=OFF64
// OFF64-LABEL:    gpu.func @pa_decode(
// OFF64-NOT:      fat_raw_buffer_cast
// OFF64-NOT:      arith.cmpi sle
// The loop's lane ids are its own (a ballot of every lane and mbcnt), as in
// the dynamic pool's 64-bit branch (DYN): this is the kernel that CTest
// emulator-matrix-64bit-offsets runs.
// OFF64:          %[[EVERY:.*]] = arith.constant true
// OFF64-NEXT:     rocdl.ballot %[[EVERY]] : i64
// OFF64:          rocdl.mbcnt.lo
// OFF64-NEXT:     rocdl.mbcnt.hi
// OFF64-NOT:      amdgpu.mfma
// OFF64:          scf.for %[[MTILE:.*]] = %{{.*}} to %c2{{.*}} step %{{.*}} iter_args(
// OFF64:            scf.for {{.*}} iter_args({{.*}}) -> (index, f32, f32, f32, f32, vector<4xf32>
// OFF64-COUNT-64:     amdgpu.mfma
// OFF64-NOT:        amdgpu.mfma
// OFF64-NOT:        fat_raw_buffer
// OFF64:          gpu.return
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d128-fp8-p16-plain-per_token-w0-q4g8 --chip gfx942 --fp8-residual=none --cache-offsets=64 \
// RUN:   | FileCheck %s --check-prefix=OFF64BOTH
// OFF64BOTH-LABEL:  gpu.func @pa_decode(
// OFF64BOTH-NOT:    fat_raw_buffer
// OFF64BOTH-NOT:    scf.for {{.*}} to %c2{{.*}} iter_args(
// OFF64BOTH:        scf.for {{.*}} iter_args({{.*}}) -> (index, f32, f32, f32, f32, f32, f32, f32, vector<4xf32>
// OFF64BOTH-COUNT-64: amdgpu.mfma 16x16x32
// OFF64BOTH-NOT:      amdgpu.mfma
// OFF64BOTH-NOT:    fat_raw_buffer
// OFF64BOTH:        gpu.return
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d128-fp8-p16-plain-none-w0-q1g8 --chip gfx950 --fp8-residual=none --cache-offsets=64 \
// RUN:   | FileCheck %s --check-prefix=OFF64ONE
// OFF64ONE-LABEL:   gpu.func @pa_decode(
// OFF64ONE-NOT:     fat_raw_buffer
// OFF64ONE:         scf.for {{.*}} iter_args({{.*}}) -> (index, f32, f32, f32, vector<4xf32>
// OFF64ONE:           amdgpu.mfma
// OFF64ONE-NOT:     fat_raw_buffer
// OFF64ONE:         gpu.return

// Per-token scales, one M-tile (with the edge branch): each lane loads its
// own token's K and V scale (one f32 each), and its lane group's 16 reach
// their users as DPP row broadcasts (rocdl.update.dpp 0x150 + token,
// bound_ctrl so that the backend folds them into v_mul_f32_dpp). K's are
// checked first, once per token (k * 0 + k: NaN for an infinite one, which
// would give -inf scores that weigh 0 like masked ones); fp8 K elements
// cannot be infinite, so the scores themselves are not. V's are folded into
// P relative to the wave's largest (the V unit): DPP within rows, then two
// xor shuffles across them.
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d64-fp8-p64-transposed-per_token-w0-q1g8-n64 --chip gfx950 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefix=TOKEN
// TOKEN-LABEL:   gpu.func @pa_decode(
// TOKEN:         scf.for {{.*}} iter_args({{.*}}) -> (index, f32, f32, f32, f32, vector<4xf32>
// TOKEN:           amdgpu.mfma
// TOKEN:           %[[KS_RAW:.*]] = memref.load %{{.*}} : memref<64x2x64xf32, #amdgpu.address_space<fat_raw_buffer>>
// TOKEN:           %[[KS:.*]] = math.fma %[[KS_RAW]], %{{.*}}, %[[KS_RAW]] : f32
// TOKEN-NOT:       math.fma
// TOKEN:           %[[KS_BITS:.*]] = arith.bitcast %[[KS]] : f32 to i32
// TOKEN:           rocdl.update.dpp %[[KS_BITS]], %[[KS_BITS]] with 336, 15, 15, true : i32
// TOKEN-COUNT-15:  rocdl.update.dpp %{{.*}}, %{{.*}} with {{3[34][0-9]|35[01]}}, 15, 15, true : i32
// TOKEN:           %[[VS:.*]] = memref.load %{{.*}} : memref<64x2x64xf32, #amdgpu.address_space<fat_raw_buffer>>
// TOKEN:           scf.if
// TOKEN:             arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// TOKEN:           amdgpu.dpp {{.*}} quad_perm([1 : i32, 0 : i32, 3 : i32, 2 : i32]) {bound_ctrl = true} : f32
// TOKEN:           amdgpu.dpp {{.*}} quad_perm([2 : i32, 3 : i32, 0 : i32, 1 : i32]) {bound_ctrl = true} : f32
// TOKEN:           amdgpu.dpp {{.*}} row_half_mirror {bound_ctrl = true} : f32
// TOKEN:           amdgpu.dpp {{.*}} row_mirror {bound_ctrl = true} : f32
// TOKEN:           gpu.shuffle xor %{{.*}}, %c16_i32
// TOKEN:           gpu.shuffle xor %{{.*}}, %c32_i32
// TOKEN:           rocdl.update.dpp
// The used weights: the exact P of tokens whose P is not folded into the
// product (factor 0) only in a uniform branch that tiles without such a
// token skip (a ballot of the lanes whose token has factor 0).
// TOKEN:           %[[UNFOLDED_LANES:.*]] = rocdl.ballot %{{.*}} : i64
// TOKEN-NEXT:      arith.constant 0 : i64
// TOKEN-NEXT:      %[[NONE_UNFOLDED:.*]] = arith.cmpi eq, %[[UNFOLDED_LANES]], %{{.*}} : i64
// TOKEN-NEXT:      scf.if %[[NONE_UNFOLDED]] -> (f32) {
// TOKEN-NEXT:        scf.yield %[[USED:.*]] : f32
// TOKEN-NEXT:      } else {
// TOKEN-COUNT-16:      rocdl.update.dpp
// TOKEN:             arith.addf %[[USED]], %{{.*}} : f32
// TOKEN-NEXT:        scf.yield
// TOKEN-NEXT:      }
// TOKEN:           rocdl.ballot
// TOKEN:           scf.if %{{.*}} -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// TOKEN:           scf.yield

// Two M-tiles with the edge branch (D <= 128, 32-row groups) take the lane
// form too: a spread value costs an instruction per M-tile, the group's 16
// scales per lane cost more (docs/mfma-lowering.md).
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d64-fp8-p64-transposed-per_token-w0-q4g8-n64 --chip gfx950 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefix=TOKEN2M
// TOKEN2M-LABEL:   gpu.func @pa_decode(
// TOKEN2M:         scf.for {{.*}} iter_args(
// TOKEN2M-NOT:       vector<16xf32>
// TOKEN2M:           %[[KS_RAW:.*]] = memref.load %{{.*}} : memref<64x2x64xf32, #amdgpu.address_space<fat_raw_buffer>>
// TOKEN2M:           %[[KS:.*]] = math.fma %[[KS_RAW]], %{{.*}}, %[[KS_RAW]] : f32
// TOKEN2M:           %[[KS_BITS:.*]] = arith.bitcast %[[KS]] : f32 to i32
// TOKEN2M:           rocdl.update.dpp %[[KS_BITS]], %[[KS_BITS]] with 336, 15, 15, true : i32
// TOKEN2M:           %[[VS:.*]] = memref.load %{{.*}} : memref<64x2x64xf32, #amdgpu.address_space<fat_raw_buffer>>
// TOKEN2M-NOT:       vector.load {{.*}} memref<64x2x64xf32, {{.*}}>, vector<16xf32>
// TOKEN2M:           scf.yield
// Without the edge branch (two M-tiles at D > 128, at the register limit),
// each lane loads its group's 16 scales (16-byte loads).
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d256-fp8-p64-transposed-per_token-w0-q4g8-n64 --chip gfx950 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefix=TOKEN2
// TOKEN2-LABEL:   gpu.func @pa_decode(
// TOKEN2:         scf.for {{.*}} iter_args(
// TOKEN2:           %[[KS_RAW:.*]] = vector.load %{{.*}} : memref<64x2x64xf32, #amdgpu.address_space<fat_raw_buffer>>, vector<16xf32>
// TOKEN2:           %[[KS:.*]] = math.fma %[[KS_RAW]], %{{.*}}, %[[KS_RAW]] : vector<16xf32>
// TOKEN2:           vector.shuffle %[[KS]], %[[KS]] [0, 1, 2, 3]
// TOKEN2:           %[[VS:.*]] = vector.load %{{.*}} : memref<64x2x64xf32, #amdgpu.address_space<fat_raw_buffer>>, vector<16xf32>
// TOKEN2:           arith.select %{{.*}}, %[[VS]], %{{.*}} : vector<16xi1>, vector<16xf32>
// TOKEN2:           gpu.shuffle xor %{{.*}}, %c16_i32
// TOKEN2:           gpu.shuffle xor %{{.*}}, %c32_i32
// TOKEN2-NOT:       rocdl.update.dpp
// TOKEN2:           scf.yield

// fp8-residual=p: P's fp8 residual is quantized in registers and each PV
// step takes a second MFMA on it into the same accumulator; the query is
// stored once (D = 64, 16 rows: 8 QK + 2 x 8 PV MFMAs per tile, and the
// weights' sums of both of P's terms, 2 x 2 against fp8 ones).
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d64-fp8-p16-plain-none-w0-q1g8-n64 --chip gfx942 --fp8-residual=p \
// RUN:   | FileCheck %s --check-prefix=PRESIDUAL
// PRESIDUAL-LABEL: gpu.func @pa_decode(
// PRESIDUAL:        amdgpu.packed_trunc_2xfp8
// PRESIDUAL:        vector.store
// PRESIDUAL-NOT:    arith.subf
// PRESIDUAL:        scf.for {{.*}} iter_args(
// PRESIDUAL-COUNT-8: amdgpu.mfma 16x16x32 {{.*}} : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<4xf32>
// PRESIDUAL:        arith.subf
// PRESIDUAL-COUNT-16: amdgpu.mfma 16x16x32 %{{[0-9]+}} * {{.*}} : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<4xf32>
// PRESIDUAL-COUNT-4: amdgpu.mfma 16x16x32 %cst{{.*}} * {{.*}} : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<4xf32>
// PRESIDUAL-NOT:    amdgpu.mfma
// PRESIDUAL:        gpu.return

// fp8-residual=query-and-p (the default): the query's fp8 residual rows
// follow its rows in LDS and each K-step takes a second MFMA too: twice the
// MFMAs of the design (D = 64, 16 rows: 32 per tile loop, and 4 for the
// weights' sums).
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d64-fp8-p16-plain-none-w0-q1g8-n64 --chip gfx942 \
// RUN:   | FileCheck %s --check-prefix=RESIDUAL
// RESIDUAL-LABEL: gpu.func @pa_decode(
// RESIDUAL-SAME:   %{{.*}} : memref<2049xi32, #gpu.address_space<workgroup>>
// The value and the residual of each query row: 16 rows x 20 words apart.
// RESIDUAL:        amdgpu.packed_trunc_2xfp8
// RESIDUAL:        vector.store
// RESIDUAL:        arith.subf
// RESIDUAL:        amdgpu.packed_trunc_2xfp8
// RESIDUAL:        vector.store
// RESIDUAL:        scf.for {{.*}} iter_args(
// RESIDUAL-COUNT-32: amdgpu.mfma 16x16x32 %{{[0-9]+}} * {{.*}} : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<4xf32>
// RESIDUAL-COUNT-4: amdgpu.mfma 16x16x32 %cst{{.*}} * {{.*}} : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<4xf32>
// RESIDUAL-NOT:    amdgpu.mfma
// RESIDUAL:        gpu.return

// A large softmax scale (softmax_scale * sqrt(D) > 2: scale 1 at D = 64)
// adds the residual's own residual as a third term of the query: three
// sets of rows in LDS, three QK MFMAs per K-step (D = 64, 16 rows: 24 QK +
// 16 PV + 4 for the weights' sums per tile loop). At scale 0.25 (sqrt(D) *
// 0.25 = 2) two terms.
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d64-fp8-p16-plain-none-w0-q1g8-n64-sm1 --chip gfx942 \
// RUN:   | FileCheck %s --check-prefix=THREETERMS
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d64-fp8-p16-plain-none-w0-q1g8-n64-sm0.25 --chip gfx942 \
// RUN:   | FileCheck %s --check-prefix=RESIDUAL
// THREETERMS-LABEL: gpu.func @pa_decode(
// THREETERMS:        amdgpu.packed_trunc_2xfp8
// THREETERMS:        vector.store
// THREETERMS:        arith.subf
// THREETERMS:        amdgpu.packed_trunc_2xfp8
// THREETERMS:        vector.store
// THREETERMS:        arith.subf
// THREETERMS:        amdgpu.packed_trunc_2xfp8
// THREETERMS:        vector.store
// THREETERMS-NOT:    vector.store
// THREETERMS:        scf.for {{.*}} iter_args(
// THREETERMS-COUNT-40: amdgpu.mfma 16x16x32 %{{[0-9]+}} * {{.*}} : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<4xf32>
// THREETERMS-COUNT-4: amdgpu.mfma 16x16x32 %cst{{.*}} * {{.*}} : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<4xf32>
// THREETERMS-NOT:    amdgpu.mfma
// THREETERMS:        gpu.return

// P's residual x - fp8(x) where the weights' sums are the PV product's:
// gfx950's OCP fp8 has a negative zero, so the quantized bytes' sign bits
// flipped (one xor per 4 weights) are -fp8(x), and the residual is a
// vector add (LLVM's packed v_pk_add_f32; it has no packed subtraction);
// gfx942's fnuz (0x80 is NaN there) subtracts (RESIDUAL above).
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d64-fp8-p16-plain-none-w0-q1g8-n64 --chip gfx950 \
// RUN:   | FileCheck %s --check-prefix=NEGATED
// NEGATED-LABEL:  gpu.func @pa_decode(
// NEGATED:        scf.for {{.*}} iter_args(
// NEGATED:        amdgpu.packed_trunc_2xfp8
// NEGATED:        %[[SIGNS:.*]] = arith.constant dense<-2139062144> : vector<2xi32>
// NEGATED-NEXT:   %[[WORDS:.*]] = vector.bitcast %{{.*}} : vector<8xf8E4M3FN> to vector<2xi32>
// NEGATED-NEXT:   %[[FLIPPED:.*]] = arith.xori %[[WORDS]], %[[SIGNS]] : vector<2xi32>
// NEGATED-NEXT:   %[[MINUS_P:.*]] = vector.bitcast %[[FLIPPED]] : vector<2xi32> to vector<8xf8E4M3FN>
// NEGATED-NEXT:   %[[MINUS_USED:.*]] = arith.extf %[[MINUS_P]] : vector<8xf8E4M3FN> to vector<8xf32>
// NEGATED-NEXT:   arith.addf %{{.*}}, %[[MINUS_USED]] : vector<8xf32>
// NEGATED-NOT:    arith.subf %{{.*}} : vector<8xf32>
// NEGATED:        scf.yield

// A strided query (-sq: a view of a fused qkv tensor, strided<[?, D, 1]>):
// each row's values are one vector.load from the strided memref, whose
// row stride the kernel reads from its descriptor at run time.
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d64-fp8-p16-plain-none-w0-q1g8-n64-sq --chip gfx950 \
// RUN:   | FileCheck %s --check-prefix=STRIDED
// STRIDED-LABEL: gpu.func @pa_decode(
// STRIDED-SAME:    %[[QUERY:[^:]*]]: memref<?x16x64xbf16, strided<[?, 64, 1]>>
// STRIDED:         vector.load %[[QUERY]][%{{.*}}, %{{.*}}, %{{.*}}] : memref<?x16x64xbf16, strided<[?, 64, 1]>>, vector<4xbf16>
// STRIDED:         gpu.return

// nhd / hnd caches (K and V [N, P, Hkv, D] / [N, Hkv, P, D]): the K row of
// a lane's token is the same 16-byte load as in the packed layout, at the
// layout's address [page, slot, kv head, d] / [page, kv head, slot, d]
// (buildCacheElementIndices, shared with the host lowering); V keeps a
// token's head dims together, so a lane group's 16 tokens of one head dim
// are 16 element loads, packed into the words the PV operand takes.
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d64-fp8-p16-nhd-none-w0-q1g8-n64 --chip gfx942 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefixes=NHD,NHD942 -DFP8=f8E4M3FNUZ
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d64-fp8-p16-nhd-none-w0-q1g8-n64 --chip gfx950 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefixes=NHD,NHD950 -DFP8=f8E4M3FN
// NHD-LABEL:  gpu.func @pa_decode(
// NHD-SAME:     %[[KEYS:[^:]*]]: memref<64x16x2x64x[[FP8]]>, %[[VALUES:[^:]*]]: memref<64x16x2x64x[[FP8]]>
// NHD:        %[[KV:.*]] = gpu.block_id y
// NHD:        %[[KBUF:.*]] = amdgpu.fat_raw_buffer_cast %[[KEYS]] : memref<64x16x2x64x[[FP8]]> to
// NHD:        %[[VBUF:.*]] = amdgpu.fat_raw_buffer_cast %[[VALUES]] : memref<64x16x2x64x[[FP8]]> to
// NHD:        scf.for
// NHD-COUNT-4: vector.load %[[KBUF]][%{{.*}}, %{{.*}}, %[[KV]], %{{.*}}] : memref<64x16x2x64x[[FP8]], #amdgpu.address_space<fat_raw_buffer>>, vector<16x[[FP8]]>
// NHD-COUNT-16: memref.load %[[VBUF]][%{{.*}}, %{{.*}}, %[[KV]], %{{.*}}] : memref<64x16x2x64x[[FP8]], #amdgpu.address_space<fat_raw_buffer>>
// NHD:        %[[GROUP:.*]] = vector.from_elements {{.*}} : vector<16x[[FP8]]>
// NHD:        vector.bitcast %[[GROUP]] : vector<16x[[FP8]]> to vector<4xi32>
// NHD942:     amdgpu.mfma 16x16x32 {{.*}} : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<4xf32>
// NHD950:     amdgpu.mfma 16x16x32 {{.*}} : vector<8xf8E4M3FN>, vector<8xf8E4M3FN>, vector<4xf32>
// NHD:        gpu.return

// hnd, page size 1 (a token pool): every K block's token and every V
// token has its own page id (4 and 16 staged-id reads per lane), and the
// per-token scales [N, Hkv, 1] are 16 one-element loads.
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d64-fp8-p1-hnd-per_token-w0-q1g8 --chip gfx942 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefixes=PAGE1,PAGE1942 -DFP8=f8E4M3FNUZ
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d64-fp8-p1-hnd-per_token-w0-q1g8 --chip gfx950 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefixes=PAGE1,PAGE1950 -DFP8=f8E4M3FN
// PAGE1-LABEL:  gpu.func @pa_decode(
// PAGE1942-SAME:  workgroup(%[[IDS:.*]] : memref<2048xi32, #gpu.address_space<workgroup>>
// PAGE1950-SAME:  workgroup(%[[IDS:.*]] : memref<4096xi32, #gpu.address_space<workgroup>>
// PAGE1:        %[[KV:.*]] = gpu.block_id y
// PAGE1:        scf.for
// PAGE1-COUNT-4: memref.load %[[IDS]]
// PAGE1:        vector.load %{{.*}}[%{{.*}}, %[[KV]], %c0{{.*}}, %{{.*}}] : memref<?x2x1x64x[[FP8]], #amdgpu.address_space<fat_raw_buffer>>, vector<16x[[FP8]]>
// PAGE1-COUNT-16: vector.insert_strided_slice {{.*}} : vector<1xf32> into vector<16xf32>
// PAGE1:        vector.from_elements {{.*}} : vector<16x[[FP8]]>
// PAGE1:        gpu.return

// nhd, page size 1024 (a page spans four tiles): one page id per tile, the
// tile's slots from tile_start % 1024 on; K and V as strided views of one
// combined [N, 2, P, Hkv, D] cache (-cc): each buffer starts at its view's
// offset (resetOffset), and its 32-bit range is the pool times the page
// stride.
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d64-bf16-p1024-nhd-per_token-w17-q2g4-cc --chip gfx942 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefix=PAGE1024
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d64-bf16-p1024-nhd-per_token-w17-q2g4-cc --chip gfx950 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefix=PAGE1024
// PAGE1024-LABEL: gpu.func @pa_decode(
// PAGE1024-SAME:    %[[KEYS:[^:]*]]: memref<?x1024x2x64xbf16, strided<[262144, 128, 64, 1]>>, %[[VALUES:[^:]*]]: memref<?x1024x2x64xbf16, strided<[262144, 128, 64, 1], offset: 131072>>
// PAGE1024:       %c4095_i64 = arith.constant 4095 : i64
// PAGE1024-NEXT:  arith.cmpi sle, %{{.*}}, %c4095_i64
// PAGE1024:       amdgpu.fat_raw_buffer_cast %[[KEYS]] resetOffset
// PAGE1024:       amdgpu.fat_raw_buffer_cast %[[VALUES]] resetOffset
// PAGE1024:       scf.for
// PAGE1024:       arith.remui %{{.*}}, %c1024_i64{{.*}} : i64
// PAGE1024:       vector.from_elements {{.*}} : vector<8xbf16>
// PAGE1024:       gpu.return

// Head dim 80: the QK contraction in load chunks of 4 lane groups x 16
// bytes (64 fp8 / 32 bf16 head dims), the last one partial. Lane groups
// past D (fp8: j >= 1 of chunk 1; bf16: j >= 2 of chunk 2) read K at the
// row's last 16 bytes (K never past the row, the query never in LDS the
// staging did not write) and zero their K and query words. The query is staged by 4 lanes per row (20 values, 5 words of
// fp8); PV and the merge take the output in 16-wide blocks (5 of them;
// merge chunks of 16 head dims: 4 waves x 16 rows x 16 f32 of scratch);
// the weights' sums 2 K-steps against fp8 ones.
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d80-fp8-p16-plain-none-w0-q1g8-n64 --chip gfx942 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefix=D80
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d80-bf16-p16-plain-none-w0-q1g8-n64 --chip gfx950 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefix=B80
// D80-LABEL: gpu.func @pa_decode(
// D80-SAME:    workgroup(%{{.*}} : memref<2048xi32, #gpu.address_space<workgroup>>, %[[SCRATCH:.*]] : memref<1025xi32, #gpu.address_space<workgroup>>
// D80:         vector.load %{{.*}} : memref<?x16x80xbf16>, vector<20xbf16>
// D80:         vector.store %{{.*}}, %[[SCRATCH]][%{{.*}}] {alignment = 4 : i64} : memref<1025xi32, #gpu.address_space<workgroup>>, vector<5xi32>
// D80:         scf.for
// D80:         %[[INROW:.*]] = arith.cmpi ult, %[[GROUP:.*]], %c1{{[_0-9]*}} : index
// D80-COUNT-8: amdgpu.mfma 16x16x32
// D80:         arith.select %[[INROW]], %{{.*}}, %c64{{[_0-9]*}} : index
// D80:         %[[QW:.*]] = vector.load %[[SCRATCH]][%{{.*}}] {alignment = 16 : i64} : memref<1025xi32, #gpu.address_space<workgroup>>, vector<4xi32>
// D80:         arith.select %[[INROW]], %[[QW]], %{{.*}} : vector<4xi32>
// D80:         %[[FIRST:.*]] = arith.select %[[INROW]], %{{.*}}, %c64{{[_0-9]*}} : index
// D80:         %[[PACK:.*]] = arith.divui %[[FIRST]], %c16{{[_0-9]*}} : index
// D80:         %[[K:.*]] = vector.load %{{.*}}[%{{.*}}, %{{.*}}, %[[PACK]], %{{.*}}, %{{.*}}] : memref<64x2x5x16x16xf8E4M3FNUZ, #amdgpu.address_space<fat_raw_buffer>>, vector<16xf8E4M3FNUZ>
// D80:         %[[KW:.*]] = vector.bitcast %[[K]] : vector<16xf8E4M3FNUZ> to vector<4xi32>
// D80:         arith.select %[[INROW]], %[[KW]], %{{.*}} : vector<4xi32>
// D80-COUNT-8: amdgpu.mfma 16x16x32
// D80-COUNT-10: amdgpu.mfma 16x16x32
// D80-COUNT-2: amdgpu.mfma 16x16x32 %cst{{.*}} *
// D80-NOT:     amdgpu.mfma
// D80-COUNT-5: memref<2x?x8x80xf32>, vector<4xf32>
// D80:         gpu.func @pa_reduce
// B80-LABEL: gpu.func @pa_decode(
// B80-SAME:    workgroup(%{{.*}} : memref<4096xi32, #gpu.address_space<workgroup>>, %{{.*}} : memref<1025xi32, #gpu.address_space<workgroup>>
// B80:         %[[INROW:.*]] = arith.cmpi ult, %{{.*}}, %c2{{[_0-9]*}} : index
// B80-COUNT-16: amdgpu.mfma 16x16x16
// B80:         arith.select %[[INROW]], %{{.*}}, %{{.*}} : vector<4xi32>
// B80:         arith.select %[[INROW]], %{{.*}}, %c72{{[_0-9]*}} : index
// B80-COUNT-48: amdgpu.mfma 16x16x16
// B80-NOT:     amdgpu.mfma
// B80:         gpu.func @pa_reduce

// Partly seen tokens (MTP): with Q = 2 and a window, the tail token of
// position 1 and the head token of position 0's window are seen by some
// rows of the group only. They are kept out of the shared PV product (the
// edge tile's valid bounds stop at them), the edge tile writes each one's
// masked scores (-inf for rows that do not see it) to LDS, and the
// epilogue adds exp2(s - M) * v_scale * V / L for the rows that see it,
// V read at the token's page (block table, pool guard) and slot. LDS: the
// statistics grow by 2 slots x 16 rows of scores plus 16 merged maxima and
// 16 inverse normalizers (208 + 64 f32). The merge's scratch is 1024
// words (+1 zero word): a 16-row D 64 group on a packed cache that does not
// prefetch K (MTP rows) merges in chunks of 16 head dims, so that gfx942's
// LDS holds 4 workgroups (DecodeLowering's merge budget).
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d64-fp8-p16-plain-per_token-w257-q2g8-n64 --chip gfx942 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefixes=PARTLY,GFX942P -DFP8=f8E4M3FNUZ
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d64-fp8-p16-plain-per_token-w257-q2g8-n64 --chip gfx950 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefixes=PARTLY,GFX950P -DFP8=f8E4M3FN
// PARTLY-LABEL:  gpu.func @pa_decode(
// GFX942P-SAME:    workgroup(%{{.*}} : memref<2048xi32, #gpu.address_space<workgroup>>, %{{.*}} : memref<1025xi32, #gpu.address_space<workgroup>>, %[[STATS:.*]] : memref<272xf32, #gpu.address_space<workgroup>>)
// GFX950P-SAME:    workgroup(%{{.*}} : memref<4096xi32, #gpu.address_space<workgroup>>, %{{.*}} : memref<1025xi32, #gpu.address_space<workgroup>>, %[[STATS:.*]] : memref<272xf32, #gpu.address_space<workgroup>>)
// No score yet in any slot before the loop.
// PARTLY:          scf.for %{{.*}} = %{{.*}} to %c32 step %c256
// PARTLY-NEXT:       arith.constant 0xFF800000 : f32
// PARTLY-NEXT:       arith.constant 208 : index
// PARTLY-NEXT:       arith.addi
// PARTLY-NEXT:       memref.store %{{.*}}, %[[STATS]]
// PARTLY:          gpu.barrier
// PARTLY:          scf.for {{.*}} iter_args(
// In the edge branch: the tail run's tokens, then the head run's, each
// written by the lanes of its lane group (the score picked by a uniform
// position).
// PARTLY:            scf.if %{{.*}} -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, f32
// PARTLY-COUNT-2:    scf.for
// PARTLY:              scf.if
// PARTLY:                scf.if
// PARTLY:                  %[[SCORE:.*]] = vector.extract %{{.*}}[%{{.*}}] : f32 from vector<16xf32>
// PARTLY:                  memref.store %[[SCORE]], %[[STATS]]
// The epilogue: per output element, the slots a row sees (score not -inf,
// NaN included) add their share of V (4 elements of the token) times
// exp2(s - M), the inverse normalizer and the token's V scale.
// PARTLY:          %[[SHARE:.*]] = scf.for %{{.*}} = %c0{{.*}} to %c2{{.*}} step %c1{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<4xf32>) {
// PARTLY:            %[[S:.*]] = memref.load %[[STATS]]
// PARTLY:            %[[SEEN:.*]] = arith.cmpf une, %[[S]], %{{.*}} : f32
// PARTLY:            scf.if %[[SEEN]] -> (vector<4xf32>) {
// PARTLY:              memref.load %{{.*}} : memref<?x?xi32>
// PARTLY:              arith.cmpi ult, %{{.*}}, %{{.*}} : i32
// PARTLY-COUNT-4:      arith.extf %{{.*}} : [[FP8]] to f32
// PARTLY:              math.exp2
// PARTLY:              memref.load %{{.*}} : memref<64x2x16xf32>
// PARTLY:            } else {
// PARTLY:          arith.addf %{{.*}}, %[[SHARE]] : vector<4xf32>
// PARTLY:          gpu.return

// Two M-tiles at D >= 256 (no edge branch, at the 2-wave register limit)
// score the partly seen tokens after the tile loop instead of storing them
// from an edge tile: one run-time loop over the slots (Q = 4, G = 8: 3 per
// run, both runs; a copy per slot was a tenth of the kernel), in it a
// uniform branch for a token of this partition's tiles, where the 8 lanes
// of each of the 32 rows split its head dims (the query row read from
// global memory, K at the token's page by the block table), sum by DPP
// moves and take the loop's score steps (scale, the token's K scale); the
// row's mask decides what its slot holds. The merge's barrier orders the
// stores before the epilogue's share reads them. LDS: 416 statistics words,
// then 6 slots x 32 rows of scores and 32 + 32 (672 f32). The shares: after
// the output's chunks are stored, one run-time loop over each lane's stored
// elements (4 chunks x 2 passes) adds the slot loop's share to what the
// lane stored (a copy per element group was another tenth).
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d256-fp8-p16-plain-per_token-w300-q4g8-n64 --chip gfx942 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefix=PARTLY32
// PARTLY32-LABEL:  gpu.func @pa_decode(
// PARTLY32-SAME:     %[[STATS:[^ ]*]] : memref<672xf32, #gpu.address_space<workgroup>>)
// PARTLY32:          scf.for {{.*}} iter_args(
// PARTLY32-NOT:      memref.store %{{.*}}, %[[STATS]]
// PARTLY32:          scf.for %[[SLOT:.*]] = %c0{{.*}} to %c6 step %c1{{.*}} {
// PARTLY32:          scf.if %{{.*}} -> (f32) {
// PARTLY32:            memref.load %{{.*}} : memref<?x?xi32>
// PARTLY32:            scf.for %{{.*}} = %{{.*}} to %c32{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f32) {
// PARTLY32:              memref.load %{{.*}} : memref<?x16x256xbf16>
// PARTLY32:              memref.load %{{.*}} : memref<64x2x16x16x16xf8E4M3FNUZ>
// PARTLY32:            amdgpu.dpp %{{.*}} quad_perm([1 : i32, 0 : i32, 3 : i32, 2 : i32])
// PARTLY32:            amdgpu.dpp %{{.*}} quad_perm([2 : i32, 3 : i32, 0 : i32, 1 : i32])
// PARTLY32:            amdgpu.dpp %{{.*}} row_half_mirror
// PARTLY32-NEXT:       arith.addf
// PARTLY32-NEXT:       arith.mulf
// PARTLY32-NEXT:       memref.load %{{.*}} : memref<64x2x16xf32>
// PARTLY32:          } else {
// PARTLY32-NEXT:       arith.constant 0xFF800000 : f32
// PARTLY32:          %[[MASKED:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// PARTLY32:          arith.muli %[[SLOT]], %c32{{.*}} : index
// PARTLY32:          arith.constant 416 : index
// PARTLY32-NEXT:     arith.addi
// PARTLY32-NEXT:     scf.if
// PARTLY32-NEXT:       memref.store %[[MASKED]], %[[STATS]]
// PARTLY32-NOT:      scf.for %{{.*}} = %c0{{.*}} to %c6
// PARTLY32-NOT:      amdgpu.dpp %{{.*}} row_half_mirror
// PARTLY32:          gpu.barrier
// PARTLY32-NOT:      scf.for %{{.*}} = %c0{{.*}} to %c6
// PARTLY32:          scf.for %{{.*}} = %c0{{.*}} to %c8{{.*}} step %c1{{.*}} {
// PARTLY32:            %[[STORED:.*]] = vector.load %[[TMP:.*]][%{{.*}}, %{{.*}}, %[[ROW:.*]], %[[DIM:.*]]] : memref<2x?x32x256xf32>, vector<4xf32>
// PARTLY32:            %[[SHARE:.*]] = scf.for %{{.*}} = %c0{{.*}} to %c6{{.*}} step %c1{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<4xf32>) {
// PARTLY32:            %[[SUM:.*]] = arith.addf %[[STORED]], %[[SHARE]] : vector<4xf32>
// PARTLY32:            %[[CHECKED:.*]] = math.fma %[[SUM]], %{{.*}}, %[[SUM]] : vector<4xf32>
// PARTLY32-NEXT:       vector.store %[[CHECKED]], %[[TMP]][%{{.*}}, %{{.*}}, %[[ROW]], %[[DIM]]]
// PARTLY32-NOT:      scf.for %{{.*}} = %c0{{.*}} to %c6
// PARTLY32:          gpu.return

// Tiles past the staged page ids read the block table by the op's rule with
// 32-bit lane math: the tile-relative visible bounds are clamped to
// [-1, max(256, P)] once per tile (uniform), and the lane keeps only its page's
// first token and column in i32, so that no per-lane 64-bit value or
// pointer lives across the tile loop (gfx950, ALiBi at 32 rows, D 256:
// 262 -> 256 VGPRs, 1 -> 2 waves). With a window, a page is visible when
// it starts below the end and ends past the begin; without one, every page
// ends past token 0 and only the end is compared.
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d64-fp8-p16-plain-per_token-w257-q4g8-n64 --chip gfx950 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefix=FALLBACK
// FALLBACK-LABEL: gpu.func @pa_decode(
// FALLBACK:       %[[FIRSTPAGE:.*]] = arith.index_castui %{{.*}} : index to i32
// FALLBACK:       arith.maxsi %{{.*}}, %c-1_i64 : i64
// FALLBACK:       arith.minsi %{{.*}}, %c256_i64{{.*}} : i64
// FALLBACK-NEXT:  %[[END:.*]] = arith.trunci %{{.*}} : i64 to i32
// FALLBACK:       arith.minsi %{{.*}}, %c256_i64{{.*}} : i64
// FALLBACK-NEXT:  %[[BEGIN:.*]] = arith.trunci %{{.*}} : i64 to i32
// FALLBACK:       %[[BEFORE:.*]] = arith.subi %[[BEGIN]], %c16_i32{{.*}} : i32
// FALLBACK-NEXT:  %[[NONEMPTY:.*]] = arith.cmpi slt, %[[BEGIN]], %[[END]] : i32
// FALLBACK-NEXT:  %[[K:.*]] = arith.index_castui %{{.*}} : index to i32
// FALLBACK:       %[[PAGE:.*]] = arith.muli %[[K]], %c16_i32{{.*}} : i32
// FALLBACK-NEXT:  %[[BELOWEND:.*]] = arith.cmpi slt, %[[PAGE]], %[[END]] : i32
// FALLBACK-NEXT:  %[[PASTBEGIN:.*]] = arith.cmpi sgt, %[[PAGE]], %[[BEFORE]] : i32
// FALLBACK-NEXT:  %[[BOTH:.*]] = arith.andi %[[BELOWEND]], %[[PASTBEGIN]] : i1
// FALLBACK-NEXT:  %[[VISIBLE:.*]] = arith.andi %[[BOTH]], %[[NONEMPTY]] : i1
// FALLBACK-NEXT:  %[[COLUMN:.*]] = arith.addi %[[FIRSTPAGE]], %[[K]] : i32
// FALLBACK-NEXT:  %[[COLUMNINDEX:.*]] = arith.index_castui %[[COLUMN]] : i32 to index
// FALLBACK:       scf.if %[[VISIBLE]] -> (i32) {
// FALLBACK-NEXT:    memref.load %{{.*}}[%{{.*}}, %[[COLUMNINDEX]]] : memref<?x?xi32>
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d64-fp8-p16-plain-none-w0-q4g8-n64 --chip gfx942 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefix=FALLBACK0
// FALLBACK0-LABEL: gpu.func @pa_decode(
// FALLBACK0:       arith.maxsi %{{.*}}, %c-1_i64 : i64
// FALLBACK0:       arith.minsi %{{.*}}, %c256_i64{{.*}} : i64
// FALLBACK0-NEXT:  %[[END:.*]] = arith.trunci %{{.*}} : i64 to i32
// FALLBACK0-NEXT:  %[[K:.*]] = arith.index_castui %{{.*}} : index to i32
// FALLBACK0:       %[[PAGE:.*]] = arith.muli %[[K]], %c16_i32{{.*}} : i32
// FALLBACK0-NEXT:  %[[VISIBLE:.*]] = arith.cmpi slt, %[[PAGE]], %[[END]] : i32
// FALLBACK0-NEXT:  arith.addi %{{.*}}, %[[K]] : i32
// FALLBACK0:       scf.if %[[VISIBLE]] -> (i32) {
// FALLBACK0-NEXT:    memref.load
