// RUN: not pa-opt %s -pass-pipeline='builtin.module(gpu.module(pa-convert-kernels-to-rocdl{chip=gfx90a}))' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not pa-opt %s -pass-pipeline='builtin.module(gpu.module(pa-convert-kernels-to-rocdl{chip=sm_90a}))' 2>&1 | FileCheck %s --check-prefix=NVIDIA

// UNKNOWN: convert-kernels-to-rocdl-chip-invalid.mlir:[[@LINE+2]]:1: error: unknown AMD chip 'gfx90a'; AMD code objects are built for gfx942 and gfx950 (known chips: gfx942, gfx950, sm_90a)
// NVIDIA: convert-kernels-to-rocdl-chip-invalid.mlir:[[@LINE+1]]:1: error: chip 'sm_90a' is not an AMD chip; AMD code objects are built for gfx942 and gfx950
gpu.module @pa_kernels {
}
