// The next tile's K in flight across the tile loop's back edge
// (pa-to-mfma's key-prefetch; docs/mfma-lowering.md, "K of the next tile"),
// read from the code objects: the main loop's VMEM loads per iteration and
// those whose registers are read only after the back edge (loads the next
// iteration consumes; bench/amd_isa_stats.py's carried_loads).
//
// The 32-row kernels at D <= 128 take the prefetch by default (auto): 8 K
// loads at D = 128 (4 at D = 64) are carried beside the 8 (4) V loads that
// LLVM's loop layout already places at the iteration's end (the loop's top
// block is PV's), twice what key-prefetch=none leaves. The 16-row kernel
// keeps its own tile's K (auto: the registers would cost a wave); forced
// (next-tile), its 8 K loads are carried too. The loads per iteration are
// the same in every form: the prefetch moves loads, it adds none.
//
// RUN: %python %S/Inputs/mfma_code_object.py pa-compile llvm-objdump llvm-readelf --chip gfx942 --loop-loads \
// RUN:   d128-fp8-p16-plain-none-w0-q4g8 d64-fp8-p16-plain-none-w0-q4g8 d128-fp8-p16-plain-none-w0-q2g8 \
// RUN:   | FileCheck %s --check-prefix=AUTO -DCHIP=gfx942
// RUN: %python %S/Inputs/mfma_code_object.py pa-compile llvm-objdump llvm-readelf --chip gfx950 --loop-loads \
// RUN:   d128-fp8-p16-plain-none-w0-q4g8 d64-fp8-p16-plain-none-w0-q4g8 d128-fp8-p16-plain-none-w0-q2g8 \
// RUN:   | FileCheck %s --check-prefix=AUTO -DCHIP=gfx950
// RUN: %python %S/Inputs/mfma_code_object.py pa-compile llvm-objdump llvm-readelf --chip gfx942 --loop-loads --key-prefetch=none \
// RUN:   d128-fp8-p16-plain-none-w0-q4g8 d64-fp8-p16-plain-none-w0-q4g8 \
// RUN:   | FileCheck %s --check-prefix=NONE -DCHIP=gfx942
// RUN: %python %S/Inputs/mfma_code_object.py pa-compile llvm-objdump llvm-readelf --chip gfx950 --loop-loads --key-prefetch=none \
// RUN:   d128-fp8-p16-plain-none-w0-q4g8 d64-fp8-p16-plain-none-w0-q4g8 \
// RUN:   | FileCheck %s --check-prefix=NONE -DCHIP=gfx950
// RUN: %python %S/Inputs/mfma_code_object.py pa-compile llvm-objdump llvm-readelf --chip gfx950 --loop-loads --key-prefetch=next-tile \
// RUN:   d128-fp8-p16-plain-none-w0-q2g8 \
// RUN:   | FileCheck %s --check-prefix=FORCED -DCHIP=gfx950

// AUTO: d128-fp8-p16-plain-none-w0-q4g8 [[CHIP]]: loop_loads=18 carried=16
// AUTO: d64-fp8-p16-plain-none-w0-q4g8 [[CHIP]]: loop_loads=10 carried=8
// AUTO: d128-fp8-p16-plain-none-w0-q2g8 [[CHIP]]: loop_loads=18 carried=0

// NONE: d128-fp8-p16-plain-none-w0-q4g8 [[CHIP]]: loop_loads=18 carried=8
// NONE: d64-fp8-p16-plain-none-w0-q4g8 [[CHIP]]: loop_loads=10 carried=4

// FORCED: d128-fp8-p16-plain-none-w0-q2g8 [[CHIP]]: loop_loads=18 carried=8
