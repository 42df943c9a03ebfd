// RUN: not pa-opt %s -pass-pipeline='builtin.module(pa-set-target{chip=gfx90a},gpu.module(pa-convert-kernels-to-rocdl))' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not pa-opt %s -pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},gpu.module(pa-convert-kernels-to-rocdl))' 2>&1 | FileCheck %s --check-prefix=NVIDIA

// RUN: not pa-opt %s -pass-pipeline='builtin.module(gpu.module(pa-convert-kernels-to-rocdl))' 2>&1 | FileCheck %s --check-prefix=NONE

// NONE: convert-kernels-to-rocdl-chip-invalid.mlir:[[@LINE+3]]:1: error: pa-convert-kernels-to-rocdl: no target chip: the module has no pa.target attribute
// UNKNOWN: error: pa-set-target: unknown chip 'gfx90a'; expected one of gfx942, gfx950, sm_90a
// NVIDIA: convert-kernels-to-rocdl-chip-invalid.mlir:[[@LINE+1]]:1: error: pa-convert-kernels-to-rocdl: sm_90a is not an AMD chip (the module's pa.target)
gpu.module @pa_kernels {
}
