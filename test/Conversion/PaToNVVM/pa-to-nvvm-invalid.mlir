// RUN: not pa-opt %s --pass-pipeline='builtin.module(pa-set-target{chip=gfx950},gpu.module(pa-to-nvvm))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHIP
// RUN: not pa-opt %s --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},gpu.module(pa-to-nvvm{fp8-products=fp16}))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PRODUCTS

// RUN: not pa-opt %s --pass-pipeline='builtin.module(gpu.module(pa-to-nvvm))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NONE

// NONE: error: pa-to-nvvm: no target chip: the module has no pa.target attribute
// CHIP: error: pa-to-nvvm: gfx950 is not an NVIDIA chip (the module's pa.target)
// PRODUCTS: error: pa-to-nvvm: fp8-products must be f16 or e4m3, got 'fp16'
gpu.module @pa_kernels {
}
