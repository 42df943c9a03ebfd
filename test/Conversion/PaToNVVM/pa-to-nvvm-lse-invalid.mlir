// The log-sum-exp output needs a natural log, which the NVPTX backend cannot
// select without libdevice: pa-to-nvvm reports it instead of leaving LLVM a
// fatal error.
// RUN: not pa-opt %s --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},pa-lower-reduce,gpu.module(pa-to-nvvm))' 2>&1 \
// RUN:   | FileCheck %s

// CHECK: error: 'math.log' op pa-to-nvvm: the log-sum-exp output (pa.reduce lse) is not supported on NVIDIA yet (no log lowering without libdevice)
func.func @lse(%es: memref<1x?x4xf32>, %ml: memref<1x?x4xf32>,
               %tmp: memref<1x?x4x64xf32>, %red: memref<?x2xi32>,
               %out: memref<?x4x64xbf16>, %lse: memref<?x4xf32>) {
  pa.reduce exp_sums(%es : memref<1x?x4xf32>) max_logits(%ml : memref<1x?x4xf32>)
            tmp_out(%tmp : memref<1x?x4x64xf32>) reduce_info(%red : memref<?x2xi32>)
            output(%out : memref<?x4x64xbf16>) lse(%lse : memref<?x4xf32>)
  return
}
