// The decode kernel's occupancy request (amdgpu-waves-per-eu, pa-to-mfma's
// requestedWaves) skips waves its registers never give: a request the
// allocator cannot meet spills, and the AMD backend's emit then generates
// the kernel again asking one wave fewer (occupancy-request-step-down.mlir),
// a second code generation for nothing (docs/performance.md, seventeenth
// session: 0.58-0.60 s CPU for gfx950's 16-row D 512 kernel, 0.37 without).
//
// D 512, 16 rows: 223-255 VGPRs, never the 168 of 3 waves; gfx950's LDS
// allows 3, the request is 2 (gfx942's LDS allows 2 anyway).
// RUN: %python %S/Inputs/mfma_decode.py d512-fp8-p16-plain-none-w0-q2g8 --chip gfx950 -o %t-d512.mlir
// RUN: pa-compile %t-d512.mlir --chip=gfx950 --emit=llvm -o - | FileCheck %s --check-prefix=TWO
// RUN: %python %S/Inputs/mfma_decode.py d512-bf16-p64-hnd-none-w4096-q1g8 --chip gfx950 -o %t-d512-hnd.mlir
// RUN: pa-compile %t-d512-hnd.mlir --chip=gfx950 --emit=llvm -o - | FileCheck %s --check-prefix=TWO
//
// D 256, 16 rows, per-token scales on nhd / hnd caches: 230-239 VGPRs.
// RUN: %python %S/Inputs/mfma_decode.py d256-fp8-p16-nhd-per_token-w0-q1g8 --chip gfx942 -o %t-nhd.mlir
// RUN: pa-compile %t-nhd.mlir --chip=gfx942 --emit=llvm -o - | FileCheck %s --check-prefix=TWO
// RUN: %python %S/Inputs/mfma_decode.py d256-fp8-p64-hnd-per_token-w4096-q2g8 --chip gfx950 -o %t-hnd.mlir
// RUN: pa-compile %t-hnd.mlir --chip=gfx950 --emit=llvm -o - | FileCheck %s --check-prefix=TWO
// TWO: "amdgpu-waves-per-eu"="2"
//
// The same at D 80-128 (148-170 VGPRs): 3, not the 4 their LDS allows.
// RUN: %python %S/Inputs/mfma_decode.py d112-fp8-p16-nhd-per_token-w0-q1g8 --chip gfx942 -o %t-d112.mlir
// RUN: pa-compile %t-d112.mlir --chip=gfx942 --emit=llvm -o - | FileCheck %s --check-prefix=THREE
// RUN: %python %S/Inputs/mfma_decode.py d128-fp8-p16-hnd-per_token-w300-q2g8 --chip gfx950 -o %t-d128.mlir
// RUN: pa-compile %t-d128.mlir --chip=gfx950 --emit=llvm -o - | FileCheck %s --check-prefix=THREE
// and at D 64, which does fit 4 on gfx950 (127-164 VGPRs, 10 of 14 at 4):
// RUN: %python %S/Inputs/mfma_decode.py d64-fp8-p16-nhd-per_token-w0-q1g8 --chip gfx950 -o %t-d64.mlir
// RUN: pa-compile %t-d64.mlir --chip=gfx950 --emit=llvm -o - | FileCheck %s --check-prefix=FOUR
// FOUR: "amdgpu-waves-per-eu"="4"
//
// Beside them, kernels that do meet 3 still ask 3: D 256 per-token on the
// packed cache (166-168 VGPRs), nhd at D 192 with per-token scales
// (161-168) and nhd at D 256 without them (164-168).
// RUN: %python %S/Inputs/mfma_decode.py d256-fp8-p64-plain-per_token-w0-q1g8 --chip gfx950 -o %t-packed.mlir
// RUN: pa-compile %t-packed.mlir --chip=gfx950 --emit=llvm -o - | FileCheck %s --check-prefix=THREE
// RUN: %python %S/Inputs/mfma_decode.py d192-fp8-p16-nhd-per_token-w0-q1g8 --chip gfx950 -o %t-d192.mlir
// RUN: pa-compile %t-d192.mlir --chip=gfx950 --emit=llvm -o - | FileCheck %s --check-prefix=THREE
// RUN: %python %S/Inputs/mfma_decode.py d256-fp8-p16-nhd-none-w0-q1g8 --chip gfx942 -o %t-nhd-none.mlir
// RUN: pa-compile %t-nhd-none.mlir --chip=gfx942 --emit=llvm -o - | FileCheck %s --check-prefix=THREE
// THREE: "amdgpu-waves-per-eu"="3"
//
// 32-row groups of bf16 caches at D >= 96 ask for exactly 2 waves ("2,2"):
// asked for at least 2, the scheduler aimed at the waves the LDS allows and
// kept 5 K / V loads in flight on the loop's full-tile path (12-16 now).
// At D 80 the open request stays (it gives those a third wave), and so it
// does for fp8.
// RUN: %python %S/Inputs/mfma_decode.py d128-bf16-p16-plain-none-w0-q4g8 --chip gfx950 -o %t-bf16.mlir
// RUN: pa-compile %t-bf16.mlir --chip=gfx950 --emit=llvm -o - | FileCheck %s --check-prefix=EXACT
// EXACT: "amdgpu-waves-per-eu"="2,2"
// RUN: %python %S/Inputs/mfma_decode.py d80-bf16-p16-plain-none-w0-q4g8 --chip gfx942 -o %t-bf16-d80.mlir
// RUN: pa-compile %t-bf16-d80.mlir --chip=gfx942 --emit=llvm -o - | FileCheck %s --check-prefix=OPEN
// RUN: %python %S/Inputs/mfma_decode.py d128-fp8-p16-plain-none-w0-q4g8 --chip gfx950 -o %t-fp8.mlir
// RUN: pa-compile %t-fp8.mlir --chip=gfx950 --emit=llvm -o - | FileCheck %s --check-prefix=OPEN
// OPEN: "amdgpu-waves-per-eu"="2"{{$|[^,]}}
// RUN: %python %S/Inputs/mfma_code_object.py pa-compile llvm-objdump llvm-readelf --chip gfx950 --loop-loads \
// RUN:   d128-bf16-p16-plain-none-w0-q4g8 | FileCheck %s --check-prefix=FLIGHT -DCHIP=gfx950
// RUN: %python %S/Inputs/mfma_code_object.py pa-compile llvm-objdump llvm-readelf --chip gfx942 --loop-loads \
// RUN:   d112-bf16-p16-plain-none-w0-q4g8 | FileCheck %s --check-prefix=FLIGHT -DCHIP=gfx942
// FLIGHT: [[CHIP]]: loop_loads={{[0-9]+}} ahead=0 in_flight={{(1[0-9]|[2-9][0-9])$}}
