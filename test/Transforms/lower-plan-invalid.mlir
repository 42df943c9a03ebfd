// RUN: pa-opt %s -pa-lower-plan=chip=gfx000 -verify-diagnostics

// expected-error@+1 {{unknown chip 'gfx000'; expected one of gfx942, gfx950, sm_90a}}
module {
  func.func @plan(%lens: memref<?xi32>, %work: memref<?x4xi32>,
                  %red: memref<?x2xi32>) {
    pa.plan context_lengths(%lens : memref<?xi32>)
            work_info(%work : memref<?x4xi32>)
            reduce_info(%red : memref<?x2xi32>)
            {num_kv_heads = 1 : i64}
    return
  }
}
