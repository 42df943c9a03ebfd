// RUN: not pa-opt %s --pass-pipeline='builtin.module(pa-set-target{chip=gfx950},gpu.module(pa-to-nvvm))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHIP
// RUN: not pa-opt %s --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},gpu.module(pa-to-nvvm{fp8-products=fp16}))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PRODUCTS

// RUN: not pa-opt %s --pass-pipeline='builtin.module(gpu.module(pa-to-nvvm))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NONE
// RUN: not pa-opt %s --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},gpu.module(pa-to-nvvm))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LOG

// NONE: error: pa-to-nvvm: no target chip: the module has no pa.target attribute
// CHIP: error: pa-to-nvvm: gfx950 is not an NVIDIA chip (the module's pa.target)
// PRODUCTS: error: pa-to-nvvm: fp8-products must be f16 or e4m3, got 'fp16'
// A natural log other than f32 has no lowering (lg2.approx.f32 only).
// LOG: error: 'math.log' op pa-to-nvvm: no natural log of 'f64' on NVIDIA (f32 only, as lg2.approx.f32)
gpu.module @pa_kernels {
  gpu.func @log_f64(%x: f64, %out: memref<1xf64>) kernel {
    %c0 = arith.constant 0 : index
    %y = math.log %x : f64
    memref.store %y, %out[%c0] : memref<1xf64>
    gpu.return
  }
}
