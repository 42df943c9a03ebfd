// RUN: not pa-opt %s --pass-pipeline='builtin.module(gpu.module(pa-to-nvvm{chip=gfx950}))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHIP
// RUN: not pa-opt %s --pass-pipeline='builtin.module(gpu.module(pa-to-nvvm{fp8-products=fp16}))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PRODUCTS

// CHIP: error: pa-to-nvvm: 'gfx950' is not an NVIDIA chip pa-mlir knows (sm_90a)
// PRODUCTS: error: pa-to-nvvm: fp8-products must be f16 or e4m3, got 'fp16'
gpu.module @pa_kernels {
}
