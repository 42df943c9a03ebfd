// Code objects of the MFMA decode kernel over the feature matrix of issue 5
// (head dims 64 / 128 / 256 / 512, pages 16 / 64, plain and transposed V,
// no / per-tensor / per-token scales, windows on and off, 8 to 32 query
// rows, fp8 and bf16 KV, both chips). Per configuration (mfma_decode.py
// names it), mfma_code_object.py compiles plan + decode + reduce with
// pa-compile and prints what the decode kernel's disassembly and metadata
// hold: the MFMA instruction and count (both tile loops: 32-bit buffer
// offsets and the 64-bit fallback for pools of 2 GiB or more, which holds
// one M-tile's products and runs once per M-tile; fp8: the
// products with the query's and P's residuals, twice the design's minimum,
// plus, without per-token V scales where the edge branch is (one M-tile
// or D <= 128) or QK is 16x16x32, the weights' sums against fp8 ones: per
// loop, M-tiles x 2 K-steps x P's terms (d64 q1g8: 64 + 2 x 4; d128
// q2g12: 192 + 8 + 4; gfx942 d256 per-tensor q4g8: 384 + 8 + 4);
// gfx950 with D a multiple of 128: QK on v_mfma_f32_16x16x128_f8f6f4,
// except at D = 256 with 32 rows, where it would cost the second wave),
// 16-byte
// buffer loads of K and V, 16-byte LDS reads (query, merge) and writes
// (merge), barriers, no scratch (spill) instructions, no private segment,
// LDS within the chip (64 KiB gfx942, 160 KiB gfx950). Registers and
// occupancy are figures, not pass/fail: bench/amd_resources.sh.
//
// RUN: %python %S/Inputs/mfma_code_object.py pa-compile llvm-objdump llvm-readelf --chip gfx942 \
// RUN:   d64-fp8-p16-plain-none-w0-q1g8 \
// RUN:   d128-fp8-p64-transposed-per_tensor-w0-q2g8 \
// RUN:   d256-fp8-p16-transposed-per_token-w257-q2g8 \
// RUN:   d256-fp8-p64-plain-per_token-w4096-q3g8 \
// RUN:   d256-fp8-p16-plain-per_tensor-w0-q4g8 \
// RUN:   d128-fp8-p16-plain-none-w0-q2g12 \
// RUN:   d128-bf16-p16-transposed-none-w1-q1g16 \
// RUN:   d64-bf16-p64-plain-per_token-w0-q4g8 \
// RUN:   d256-fp8-p16-plain-none-w0-q1g8-bf16c \
// RUN:   d512-fp8-p16-transposed-per_token-w0-q1g8 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,GFX942 -DCHIP=gfx942
// RUN: %python %S/Inputs/mfma_code_object.py pa-compile llvm-objdump llvm-readelf --chip gfx950 \
// RUN:   d64-fp8-p16-plain-none-w0-q1g8 \
// RUN:   d128-fp8-p64-transposed-per_tensor-w0-q2g8 \
// RUN:   d256-fp8-p16-transposed-per_token-w257-q2g8 \
// RUN:   d256-fp8-p64-plain-per_token-w4096-q3g8 \
// RUN:   d256-fp8-p16-plain-per_tensor-w0-q4g8 \
// RUN:   d128-fp8-p16-plain-none-w0-q2g12 \
// RUN:   d128-bf16-p16-transposed-none-w1-q1g16 \
// RUN:   d64-bf16-p64-plain-per_token-w0-q4g8 \
// RUN:   d256-fp8-p16-plain-none-w0-q1g8-bf16c \
// RUN:   d512-fp8-p16-transposed-per_token-w0-q1g8 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,GFX950 -DCHIP=gfx950

// 8 query rows (one padded M-tile), page 16, plain V, no scales.
// CHECK:       d64-fp8-p16-plain-none-w0-q1g8 [[CHIP]]: mfma=v_mfma_f32_16x16x32_fp8_fp8x72 buffer_load_dwordx4={{[1-9][0-9]*}} ds_read_b128={{[1-9][0-9]*}} ds_write_b128={{[1-9][0-9]*}} s_barrier={{[1-9][0-9]*}} scratch_insts=0 private_segment=0
// GFX942-SAME:  lds={{([0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-6])}} vgprs={{[1-9][0-9]*}} global_load_dwordx4={{[0-9]+}}{{$}}
// GFX950-SAME:  lds={{([0-9]{1,5}|1[0-5][0-9]{4}|16[0-2][0-9]{3}|163[0-7][0-9]{2}|1638[0-3][0-9]|163840)}} vgprs={{[1-9][0-9]*}} global_load_dwordx4={{[0-9]+}}{{$}}

// 16 rows (MTP 2), page 64, transposed V, per-tensor scales.
// CHECK:       d128-fp8-p64-transposed-per_tensor-w0-q2g8 [[CHIP]]: mfma=
// GFX942-SAME:  v_mfma_f32_16x16x32_fp8_fp8x136 
// GFX950-SAME:  v_mfma_f32_16x16x128_f8f6f4x16,v_mfma_f32_16x16x32_fp8_fp8x72 
// CHECK-SAME:  buffer_load_dwordx4={{[1-9][0-9]*}} ds_read_b128={{[1-9][0-9]*}} ds_write_b128={{[1-9][0-9]*}} s_barrier={{[1-9][0-9]*}} scratch_insts=0 private_segment=0
// GFX942-SAME:  lds={{([0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-6])}} vgprs={{[1-9][0-9]*}} global_load_dwordx4={{[0-9]+}}{{$}}
// GFX950-SAME:  lds={{([0-9]{1,5}|1[0-5][0-9]{4}|16[0-2][0-9]{3}|163[0-7][0-9]{2}|1638[0-3][0-9]|163840)}} vgprs={{[1-9][0-9]*}} global_load_dwordx4={{[0-9]+}}{{$}}

// the example's shape: D 256, page 16, transposed V, per-token scales, window 257
// (16x16x32 QK on gfx950 too: with 16x16x128 it took 180 VGPRs, 2 waves).
// CHECK:       d256-fp8-p16-transposed-per_token-w257-q2g8 [[CHIP]]: mfma=v_mfma_f32_16x16x32_fp8_fp8x256 buffer_load_dwordx4={{[1-9][0-9]*}} ds_read_b128={{[1-9][0-9]*}} ds_write_b128={{[1-9][0-9]*}} s_barrier={{[1-9][0-9]*}} scratch_insts=0 private_segment=0
// GFX942-SAME:  lds={{([0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-6])}} vgprs={{[1-9][0-9]*}} global_load_dwordx4={{[0-9]+}}{{$}}
// GFX950-SAME:  lds={{([0-9]{1,5}|1[0-5][0-9]{4}|16[0-2][0-9]{3}|163[0-7][0-9]{2}|1638[0-3][0-9]|163840)}} vgprs={{[1-9][0-9]*}} global_load_dwordx4={{[0-9]+}}{{$}}

// 24 rows (a 32-row group with padding), page 64, per-token, window 4096.
// CHECK:       d256-fp8-p64-plain-per_token-w4096-q3g8 [[CHIP]]: mfma=v_mfma_f32_16x16x32_fp8_fp8x384 buffer_load_dwordx4={{[1-9][0-9]*}} ds_read_b128={{[1-9][0-9]*}} ds_write_b128={{[1-9][0-9]*}} s_barrier={{[1-9][0-9]*}} scratch_insts=0 private_segment=0
// GFX942-SAME:  lds={{([0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-6])}} vgprs={{[1-9][0-9]*}} global_load_dwordx4={{[0-9]+}}{{$}}
// GFX950-SAME:  lds={{([0-9]{1,5}|1[0-5][0-9]{4}|16[0-2][0-9]{3}|163[0-7][0-9]{2}|1638[0-3][0-9]|163840)}} vgprs={{[1-9][0-9]*}} global_load_dwordx4={{[0-9]+}}{{$}}

// 32 rows (two M-tiles sharing each K/V load in the 32-bit loop; the
// 64-bit loop holds one M-tile's products, run once per M-tile): 256 + 128
// on gfx942; gfx950's QK on 16x16x128 (two M-tiles at D = 256 without
// per-token scales), within the 256 VGPRs of 2 waves per SIMD.
// CHECK:       d256-fp8-p16-plain-per_tensor-w0-q4g8 [[CHIP]]: mfma=
// GFX942-SAME:  v_mfma_f32_16x16x32_fp8_fp8x396 
// GFX950-SAME:  v_mfma_f32_16x16x128_f8f6f4x48,v_mfma_f32_16x16x32_fp8_fp8x192 
// CHECK-SAME:  buffer_load_dwordx4={{[1-9][0-9]*}} ds_read_b128={{[1-9][0-9]*}} ds_write_b128={{[1-9][0-9]*}} s_barrier={{[1-9][0-9]*}} scratch_insts=0 private_segment=0
// GFX942-SAME:  lds={{([0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-6])}} vgprs={{([1-9][0-9]?|1[0-9][0-9]|2[0-4][0-9]|25[0-6])}} global_load_dwordx4={{[0-9]+}}{{$}}
// GFX950-SAME:  lds={{([0-9]{1,5}|1[0-5][0-9]{4}|16[0-2][0-9]{3}|163[0-7][0-9]{2}|1638[0-3][0-9]|163840)}} vgprs={{([1-9][0-9]?|1[0-9][0-9]|2[0-4][0-9]|25[0-6])}} global_load_dwordx4={{[0-9]+}}{{$}}

// 24 rows at GQA 12 (two M-tiles): at D = 128 the 64-bit loop holds both
// M-tiles' products too (each K/V load serves both), so both loops have
// the same count (68 per loop and M-tile on gfx942; with one M-tile's in
// the 64-bit loop: 204).
// CHECK:       d128-fp8-p16-plain-none-w0-q2g12 [[CHIP]]: mfma=
// GFX942-SAME:  v_mfma_f32_16x16x32_fp8_fp8x272 
// GFX950-SAME:  v_mfma_f32_16x16x128_f8f6f4x32,v_mfma_f32_16x16x32_fp8_fp8x144 
// CHECK-SAME:  buffer_load_dwordx4={{[1-9][0-9]*}} ds_read_b128={{[1-9][0-9]*}} ds_write_b128={{[1-9][0-9]*}} s_barrier={{[1-9][0-9]*}} scratch_insts=0 private_segment=0
// GFX942-SAME:  lds={{([0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-6])}} vgprs={{[1-9][0-9]*}} global_load_dwordx4={{[0-9]+}}{{$}}
// GFX950-SAME:  lds={{([0-9]{1,5}|1[0-5][0-9]{4}|16[0-2][0-9]{3}|163[0-7][0-9]{2}|1638[0-3][0-9]|163840)}} vgprs={{[1-9][0-9]*}} global_load_dwordx4={{[0-9]+}}{{$}}

// bf16 KV: 16 rows at GQA 16, transposed V (x = 8), window 1; P in two bf16
// terms (its truncation and what that missed): twice the PV products.
// CHECK:       d128-bf16-p16-transposed-none-w1-q1g16 [[CHIP]]: mfma=v_mfma_f32_16x16x16_bf16x192 buffer_load_dwordx4={{[1-9][0-9]*}} ds_read_b128={{[1-9][0-9]*}} ds_write_b128={{[1-9][0-9]*}} s_barrier={{[1-9][0-9]*}} scratch_insts=0 private_segment=0
// GFX942-SAME:  lds={{([0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-6])}} vgprs={{[1-9][0-9]*}} global_load_dwordx4={{[0-9]+}}{{$}}
// GFX950-SAME:  lds={{([0-9]{1,5}|1[0-5][0-9]{4}|16[0-2][0-9]{3}|163[0-7][0-9]{2}|1638[0-3][0-9]|163840)}} vgprs={{[1-9][0-9]*}} global_load_dwordx4={{[0-9]+}}{{$}}

// bf16 KV: 32 rows, page 64, per-token scales.
// CHECK:       d64-bf16-p64-plain-per_token-w0-q4g8 [[CHIP]]: mfma=v_mfma_f32_16x16x16_bf16x144 buffer_load_dwordx4={{[1-9][0-9]*}} ds_read_b128={{[1-9][0-9]*}} ds_write_b128={{[1-9][0-9]*}} s_barrier={{[1-9][0-9]*}} scratch_insts=0 private_segment=0
// GFX942-SAME:  lds={{([0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-6])}} vgprs={{[1-9][0-9]*}} global_load_dwordx4={{[0-9]+}}{{$}}
// GFX950-SAME:  lds={{([0-9]{1,5}|1[0-5][0-9]{4}|16[0-2][0-9]{3}|163[0-7][0-9]{2}|1638[0-3][0-9]|163840)}} vgprs={{[1-9][0-9]*}} global_load_dwordx4={{[0-9]+}}{{$}}

// bf16 compute on an fp8 cache.
// CHECK:       d256-fp8-p16-plain-none-w0-q1g8-bf16c [[CHIP]]: mfma=v_mfma_f32_16x16x16_bf16x256 buffer_load_dwordx4={{[1-9][0-9]*}} ds_read_b128={{[1-9][0-9]*}} ds_write_b128={{[1-9][0-9]*}} s_barrier={{[1-9][0-9]*}} scratch_insts=0 private_segment=0
// GFX942-SAME:  lds={{([0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-6])}} vgprs={{[1-9][0-9]*}} global_load_dwordx4={{[0-9]+}}{{$}}
// GFX950-SAME:  lds={{([0-9]{1,5}|1[0-5][0-9]{4}|16[0-2][0-9]{3}|163[0-7][0-9]{2}|1638[0-3][0-9]|163840)}} vgprs={{[1-9][0-9]*}} global_load_dwordx4={{[0-9]+}}{{$}}

// head dim 512 (16 rows).
// CHECK:       d512-fp8-p16-transposed-per_token-w0-q1g8 [[CHIP]]: mfma=
// GFX942-SAME:  v_mfma_f32_16x16x32_fp8_fp8x512 
// GFX950-SAME:  v_mfma_f32_16x16x128_f8f6f4x64,v_mfma_f32_16x16x32_fp8_fp8x256 
// CHECK-SAME:  buffer_load_dwordx4={{[1-9][0-9]*}} ds_read_b128={{[1-9][0-9]*}} ds_write_b128={{[1-9][0-9]*}} s_barrier={{[1-9][0-9]*}} scratch_insts=0 private_segment=0
// GFX942-SAME:  lds={{([0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-6])}} vgprs={{[1-9][0-9]*}} global_load_dwordx4={{[0-9]+}}{{$}}
// GFX950-SAME:  lds={{([0-9]{1,5}|1[0-5][0-9]{4}|16[0-2][0-9]{3}|163[0-7][0-9]{2}|1638[0-3][0-9]|163840)}} vgprs={{[1-9][0-9]*}} global_load_dwordx4={{[0-9]+}}{{$}}

// The other fp8-residual modes at the largest register footprint (D 256, 32
// rows; 32-bit loop + 64-bit loop): none is the design's MFMA minimum, p
// adds P's residual products.
// No spill in either; a kernel that would spill to meet its 2-waves-per-SIMD
// request is generated again without it (the AMD backend's emit).
// RUN: %python %S/Inputs/mfma_code_object.py pa-compile llvm-objdump llvm-readelf --chip gfx942 --fp8-residual=none \
// RUN:   d256-fp8-p16-plain-per_tensor-w0-q4g8 | FileCheck %s --check-prefixes=NONE,NONE-GFX942 -DCHIP=gfx942
// RUN: %python %S/Inputs/mfma_code_object.py pa-compile llvm-objdump llvm-readelf --chip gfx950 --fp8-residual=none \
// RUN:   d256-fp8-p16-plain-per_tensor-w0-q4g8 | FileCheck %s --check-prefixes=NONE,NONE-GFX950 -DCHIP=gfx950
// NONE: d256-fp8-p16-plain-per_tensor-w0-q4g8 [[CHIP]]: mfma=
// NONE-GFX942-SAME: v_mfma_f32_16x16x32_fp8_fp8x198 {{.*}} scratch_insts=0 private_segment=0
// NONE-GFX950-SAME: v_mfma_f32_16x16x128_f8f6f4x24,v_mfma_f32_16x16x32_fp8_fp8x96 {{.*}} scratch_insts=0 private_segment=0
// RUN: %python %S/Inputs/mfma_code_object.py pa-compile llvm-objdump llvm-readelf --chip gfx942 --fp8-residual=p \
// RUN:   d256-fp8-p16-plain-per_tensor-w0-q4g8 | FileCheck %s --check-prefixes=P,P-GFX942 -DCHIP=gfx942
// RUN: %python %S/Inputs/mfma_code_object.py pa-compile llvm-objdump llvm-readelf --chip gfx950 --fp8-residual=p \
// RUN:   d256-fp8-p16-plain-per_tensor-w0-q4g8 | FileCheck %s --check-prefixes=P,P-GFX950 -DCHIP=gfx950
// P: d256-fp8-p16-plain-per_tensor-w0-q4g8 [[CHIP]]: mfma=
// P-GFX942-SAME: v_mfma_f32_16x16x32_fp8_fp8x300 {{.*}} scratch_insts=0 private_segment=0
// P-GFX950-SAME: v_mfma_f32_16x16x128_f8f6f4x24,v_mfma_f32_16x16x32_fp8_fp8x192 {{.*}} scratch_insts=0 private_segment=0

// cache-offsets=64: only the 64-bit loop, one M-tile's products run once
// per M-tile; K and V through 16-byte global loads, no buffer loads; no
// spill at the largest footprint, both chips.
// RUN: %python %S/Inputs/mfma_code_object.py pa-compile llvm-objdump llvm-readelf --chip gfx942 --cache-offsets=64 \
// RUN:   d256-fp8-p16-plain-per_tensor-w0-q4g8 d256-fp8-p64-transposed-per_token-w257-q1g8 | FileCheck %s --check-prefixes=OFF64,OFF64-GFX942 -DCHIP=gfx942
// RUN: %python %S/Inputs/mfma_code_object.py pa-compile llvm-objdump llvm-readelf --chip gfx950 --cache-offsets=64 \
// RUN:   d256-fp8-p16-plain-per_tensor-w0-q4g8 d256-fp8-p64-transposed-per_token-w257-q1g8 | FileCheck %s --check-prefixes=OFF64,OFF64-GFX950 -DCHIP=gfx950
// OFF64: d256-fp8-p16-plain-per_tensor-w0-q4g8 [[CHIP]]: mfma=
// OFF64-GFX942-SAME: v_mfma_f32_16x16x32_fp8_fp8x132 buffer_load_dwordx4=0
// OFF64-GFX950-SAME: v_mfma_f32_16x16x128_f8f6f4x16,v_mfma_f32_16x16x32_fp8_fp8x64 buffer_load_dwordx4=0
// OFF64-SAME: {{.*}} scratch_insts=0 private_segment=0 {{.*}} global_load_dwordx4={{[1-9][0-9]*}}{{$}}
// OFF64: d256-fp8-p64-transposed-per_token-w257-q1g8 [[CHIP]]: mfma={{.*}} buffer_load_dwordx4=0 {{.*}} scratch_insts=0 private_segment=0 {{.*}} global_load_dwordx4={{[1-9][0-9]*}}{{$}}

// At 32 rows and D = 64 / 80 a kernel with the 64-bit loop alone runs both
// M-tiles in one tile loop, each K / V load serving both (since 2026-12-05;
// before, one M-tile at a time: x36 / x52, K and V read twice). The
// dynamic pool's 64-bit branch keeps one M-tile at a time there: both
// beside the 32-bit loop cost 48 of 192 kernels their third wave.
// RUN: %python %S/Inputs/mfma_code_object.py pa-compile llvm-objdump llvm-readelf --chip gfx942 --cache-offsets=64 \
// RUN:   d64-fp8-p16-plain-none-w0-q4g8 d80-fp8-p16-transposed-per_token-w0-q4g8 | FileCheck %s --check-prefix=BOTH64 -DCHIP=gfx942
// RUN: %python %S/Inputs/mfma_code_object.py pa-compile llvm-objdump llvm-readelf --chip gfx950 --cache-offsets=64 \
// RUN:   d64-fp8-p16-plain-none-w0-q4g8 d80-fp8-p16-transposed-per_token-w0-q4g8 | FileCheck %s --check-prefix=BOTH64 -DCHIP=gfx950
// BOTH64: d64-fp8-p16-plain-none-w0-q4g8 [[CHIP]]: mfma=v_mfma_f32_16x16x32_fp8_fp8x72 buffer_load_dwordx4=0 {{.*}} scratch_insts=0 private_segment=0
// BOTH64: d80-fp8-p16-transposed-per_token-w0-q4g8 [[CHIP]]: mfma=v_mfma_f32_16x16x32_fp8_fp8x104 buffer_load_dwordx4=0 {{.*}} scratch_insts=0 private_segment=0
