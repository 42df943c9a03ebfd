// RUN: pa-opt %s -pa-lower-plan -verify-diagnostics

// The plan defaults come from the chip: a module that states none is
// rejected (pa-set-target or a pa.target attribute states it).
// expected-error@+1 {{pa-lower-plan: no target chip: the module has no pa.target attribute}}
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
