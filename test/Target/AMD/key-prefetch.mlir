// The next tile's K in flight across the tile loop's back edge
// (pa-to-mfma's key-prefetch; docs/mfma-lowering.md, "K of the next tile"),
// read from the code objects: the main loop's VMEM loads per iteration and
// those first read more than half an iteration after they issue (counted
// around the loop, past its back edge; bench/amd_isa_stats.py's
// loads_ahead), whichever block LLVM made the loop's top.
//
// The 32-row kernels at D <= 128 take the prefetch by default (auto): their
// 8 K loads at D = 128 (4 at D = 64) are issued a tile ahead; with
// key-prefetch=none each tile's K is waited for next to its QK and no load
// is that far ahead. 16-row kernels take it for packed caches at query
// length 1 (aiter's query-length-1 configuration; with ALiBi, a soft cap
// and a window too) where the LDS allows no more than 3 waves (gfx942 at D
// 64 and 128) and at D 128 on gfx950, which then asks 3 waves instead of
// the 4 its LDS allows (at 4 the scheduler serialized K's loads, 2-4 in
// flight): not at D 64 on gfx950 nor D 80 (4 waves, each keeping a tile's
// K in flight), not for nhd caches or MTP rows (Q 2; the registers would
// cost a wave); forced (next-tile), their 8 K loads are ahead too. The loads per iteration are the same in every form: the prefetch
// moves loads, it adds none. nhd / hnd caches take it by default at D = 128
// with pages of 2 tokens or more (their 8 K loads ahead, beside V's 128 or
// more byte loads), not at page size 1 (1 wave already) nor at D = 64 (the
// registers would cost gfx950 its third wave). Per-token scales: at D = 128
// where each lane holds its own token's (pages of 16 or more: aiter's
// query-length-4 configuration), not where it holds its group's 16 (nhd
// page 8) nor at D = 64 (gfx950's third wave).
//
// RUN: %python %S/Inputs/mfma_code_object.py pa-compile llvm-objdump llvm-readelf --chip gfx942 --loop-loads \
// RUN:   d128-fp8-p16-plain-none-w0-q4g8 d64-fp8-p16-plain-none-w0-q4g8 d128-fp8-p16-plain-none-w0-q2g8 \
// RUN:   | FileCheck %s --check-prefix=AUTO -DCHIP=gfx942
// RUN: %python %S/Inputs/mfma_code_object.py pa-compile llvm-objdump llvm-readelf --chip gfx950 --loop-loads \
// RUN:   d128-fp8-p16-plain-none-w0-q4g8 d64-fp8-p16-plain-none-w0-q4g8 d128-fp8-p16-plain-none-w0-q2g8 \
// RUN:   | FileCheck %s --check-prefix=AUTO -DCHIP=gfx950
// RUN: %python %S/Inputs/mfma_code_object.py pa-compile llvm-objdump llvm-readelf --chip gfx942 --loop-loads \
// RUN:   d128-fp8-p16-nhd-none-w0-q4g8 d128-fp8-p8-hnd-none-w300-q4g8 d128-fp8-p1-nhd-none-w0-q4g8 d64-fp8-p16-nhd-none-w0-q4g8 \
// RUN:   | FileCheck %s --check-prefix=NHD -DCHIP=gfx942
// RUN: %python %S/Inputs/mfma_code_object.py pa-compile llvm-objdump llvm-readelf --chip gfx950 --loop-loads \
// RUN:   d128-fp8-p16-nhd-none-w0-q4g8 d128-fp8-p8-hnd-none-w300-q4g8 d128-fp8-p1-nhd-none-w0-q4g8 d64-fp8-p16-nhd-none-w0-q4g8 \
// RUN:   | FileCheck %s --check-prefix=NHD -DCHIP=gfx950
// RUN: %python %S/Inputs/mfma_code_object.py pa-compile llvm-objdump llvm-readelf --chip gfx942 --loop-loads \
// RUN:   d128-fp8-p16-transposed-per_token-w0-q4g8 d128-fp8-p8-nhd-per_token-w0-q4g8 d64-fp8-p16-plain-per_token-w0-q4g8 \
// RUN:   | FileCheck %s --check-prefix=TOKEN -DCHIP=gfx942
// RUN: %python %S/Inputs/mfma_code_object.py pa-compile llvm-objdump llvm-readelf --chip gfx950 --loop-loads \
// RUN:   d128-fp8-p16-transposed-per_token-w0-q4g8 d128-fp8-p8-nhd-per_token-w0-q4g8 d64-fp8-p16-plain-per_token-w0-q4g8 \
// RUN:   | FileCheck %s --check-prefix=TOKEN -DCHIP=gfx950
// RUN: %python %S/Inputs/mfma_code_object.py pa-compile llvm-objdump llvm-readelf --chip gfx942 --loop-loads \
// RUN:   d128-fp8-p16-transposed-per_token-w0-q1g8 d128-fp8-p64-plain-none-w300-q1g16-alibi-cap30 d64-fp8-p16-transposed-per_tensor-w0-q1g8 \
// RUN:   d80-fp8-p16-transposed-per_token-w0-q1g8 d128-fp8-p16-nhd-per_tensor-w0-q1g8 \
// RUN:   | FileCheck %s --check-prefix=ROWS16-GFX942
// RUN: %python %S/Inputs/mfma_code_object.py pa-compile llvm-objdump llvm-readelf --chip gfx950 --loop-loads \
// RUN:   d128-fp8-p16-transposed-per_token-w0-q1g8 d128-fp8-p64-plain-none-w300-q1g16-alibi-cap30 d64-fp8-p16-transposed-per_tensor-w0-q1g8 \
// RUN:   d80-fp8-p16-transposed-per_token-w0-q1g8 d128-fp8-p16-nhd-per_tensor-w0-q1g8 \
// RUN:   | FileCheck %s --check-prefix=ROWS16-GFX950
// RUN: %python %S/Inputs/mfma_code_object.py pa-compile llvm-objdump llvm-readelf --chip gfx942 --loop-loads --key-prefetch=none \
// RUN:   d128-fp8-p16-plain-none-w0-q4g8 d64-fp8-p16-plain-none-w0-q4g8 \
// RUN:   | FileCheck %s --check-prefix=NONE -DCHIP=gfx942
// RUN: %python %S/Inputs/mfma_code_object.py pa-compile llvm-objdump llvm-readelf --chip gfx950 --loop-loads --key-prefetch=none \
// RUN:   d128-fp8-p16-plain-none-w0-q4g8 d64-fp8-p16-plain-none-w0-q4g8 \
// RUN:   | FileCheck %s --check-prefix=NONE -DCHIP=gfx950
// RUN: %python %S/Inputs/mfma_code_object.py pa-compile llvm-objdump llvm-readelf --chip gfx950 --loop-loads --key-prefetch=next-tile \
// RUN:   d128-fp8-p16-plain-none-w0-q2g8 \
// RUN:   | FileCheck %s --check-prefix=FORCED -DCHIP=gfx950

// AUTO: d128-fp8-p16-plain-none-w0-q4g8 [[CHIP]]: loop_loads=18 ahead=8
// AUTO: d64-fp8-p16-plain-none-w0-q4g8 [[CHIP]]: loop_loads=10 ahead=4
// AUTO: d128-fp8-p16-plain-none-w0-q2g8 [[CHIP]]: loop_loads=18 ahead=0

// NHD: d128-fp8-p16-nhd-none-w0-q4g8 [[CHIP]]: loop_loads=138 ahead=8
// NHD: d128-fp8-p8-hnd-none-w300-q4g8 [[CHIP]]: loop_loads=142 ahead=8
// NHD: d128-fp8-p1-nhd-none-w0-q4g8 [[CHIP]]: loop_loads=156 ahead=0
// NHD: d64-fp8-p16-nhd-none-w0-q4g8 [[CHIP]]: loop_loads=70 ahead=0

// TOKEN: d128-fp8-p16-transposed-per_token-w0-q4g8 [[CHIP]]: loop_loads=20 ahead=8
// TOKEN: d128-fp8-p8-nhd-per_token-w0-q4g8 [[CHIP]]: loop_loads=150 ahead=0
// TOKEN: d64-fp8-p16-plain-per_token-w0-q4g8 [[CHIP]]: loop_loads=12 ahead=0

// ROWS16-GFX942: d128-fp8-p16-transposed-per_token-w0-q1g8 gfx942: loop_loads=20 ahead=8
// ROWS16-GFX942: d128-fp8-p64-plain-none-w300-q1g16-alibi-cap30 gfx942: loop_loads=18 ahead=8
// ROWS16-GFX942: d64-fp8-p16-transposed-per_tensor-w0-q1g8 gfx942: loop_loads=10 ahead=4
// ROWS16-GFX942: d80-fp8-p16-transposed-per_token-w0-q1g8 gfx942: loop_loads=17 ahead=0
// ROWS16-GFX942: d128-fp8-p16-nhd-per_tensor-w0-q1g8 gfx942: loop_loads=138 ahead=0

// ROWS16-GFX950: d128-fp8-p16-transposed-per_token-w0-q1g8 gfx950: loop_loads=20 ahead=8
// ROWS16-GFX950: d128-fp8-p64-plain-none-w300-q1g16-alibi-cap30 gfx950: loop_loads=18 ahead=8
// ROWS16-GFX950: d64-fp8-p16-transposed-per_tensor-w0-q1g8 gfx950: loop_loads=10 ahead=0
// ROWS16-GFX950: d80-fp8-p16-transposed-per_token-w0-q1g8 gfx950: loop_loads=17 ahead=0
// ROWS16-GFX950: d128-fp8-p16-nhd-per_tensor-w0-q1g8 gfx950: loop_loads=138 ahead=0

// NONE: d128-fp8-p16-plain-none-w0-q4g8 [[CHIP]]: loop_loads=18 ahead=0
// NONE: d64-fp8-p16-plain-none-w0-q4g8 [[CHIP]]: loop_loads=10 ahead=0

// FORCED: d128-fp8-p16-plain-none-w0-q2g8 [[CHIP]]: loop_loads=18 ahead=8

// The 64-bit loop (pools of 2 GiB or more; here alone, cache-offsets=64)
// of a 16-row kernel keeps the next tile's K in flight as the 32-bit loop
// does, except with per-token scales, a window and ALiBi together (those
// lost their third wave with it, beside the 32-bit loop). 32-row groups
// whose M-tiles share the 64-bit loop (D 128) prefetch too on packed caches
// (since 2026-12-04, seventeenth session; ahead=0 before), not on nhd / hnd
// ones (their loads in flight halved with it). in_flight counts the
// prefetch's global loads on the loop's full-tile path as the 32-bit loop's
// buffer loads are (bench/amd_isa_stats.py's fast_path took the branch
// around them before 2026-12-05: in_flight=4 / 8 for these rows).
// RUN: %python %S/Inputs/mfma_code_object.py pa-compile llvm-objdump llvm-readelf --chip gfx942 --loop-loads --cache-offsets=64 \
// RUN:   d128-fp8-p16-transposed-per_token-w0-q1g8 d128-fp8-p64-plain-none-w300-q1g16-alibi-cap30 \
// RUN:   d128-fp8-p16-transposed-per_token-w300-q1g8-alibi d128-fp8-p16-plain-none-w0-q4g8 \
// RUN:   d128-fp8-p16-transposed-per_token-w0-q4g8 d128-fp8-p16-nhd-none-w300-q4g8 \
// RUN:   | FileCheck %s --check-prefix=WIDE -DCHIP=gfx942
// RUN: %python %S/Inputs/mfma_code_object.py pa-compile llvm-objdump llvm-readelf --chip gfx950 --loop-loads --cache-offsets=64 \
// RUN:   d128-fp8-p16-transposed-per_token-w0-q1g8 d128-fp8-p64-plain-none-w300-q1g16-alibi-cap30 \
// RUN:   d128-fp8-p16-transposed-per_token-w300-q1g8-alibi d128-fp8-p16-plain-none-w0-q4g8 \
// RUN:   d128-fp8-p16-transposed-per_token-w0-q4g8 d128-fp8-p16-nhd-none-w300-q4g8 \
// RUN:   | FileCheck %s --check-prefix=WIDE -DCHIP=gfx950
// WIDE: d128-fp8-p16-transposed-per_token-w0-q1g8 [[CHIP]]: loop_loads=20 ahead=8 in_flight=9
// WIDE: d128-fp8-p64-plain-none-w300-q1g16-alibi-cap30 [[CHIP]]: loop_loads=18 ahead=8 in_flight=12
// WIDE: d128-fp8-p16-transposed-per_token-w300-q1g8-alibi [[CHIP]]: loop_loads=20 ahead=0
// WIDE: d128-fp8-p16-plain-none-w0-q4g8 [[CHIP]]: loop_loads=18 ahead=8 in_flight=16
// WIDE: d128-fp8-p16-transposed-per_token-w0-q4g8 [[CHIP]]: loop_loads=20 ahead=8 in_flight=9
// WIDE: d128-fp8-p16-nhd-none-w300-q4g8 [[CHIP]]: loop_loads=138 ahead=0
