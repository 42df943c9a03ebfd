// RUN: pa-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(pa-workgroup-to-lane0))' -verify-diagnostics

gpu.module @pa_kernels {
  // expected-error @below {{expected a structured body (one block) to run on lane 0}}
  gpu.func @unstructured(%out: memref<?xf32>) kernel {
    cf.br ^exit
  ^exit:
    gpu.return
  }
}

// -----

gpu.module @pa_kernels {
  gpu.func @with_barrier(%out: memref<?xf32>) kernel {
    // expected-error @below {{a workgroup program run on lane 0 must not contain workgroup barriers}}
    gpu.barrier
    gpu.return
  }
}
