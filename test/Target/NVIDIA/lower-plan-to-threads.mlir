// pa-lower-plan-to-threads: pa.plan as a planning kernel on the 128 threads
// of one workgroup (block scans in shared memory, work_info rows over the
// threads), which pa-to-nvvm leaves as it is.
// RUN: pa-opt %s --pa-set-target=chip=sm_90a --pa-lower-plan-to-threads | FileCheck %s
// RUN: pa-opt %s --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},pa-lower-plan-to-threads,gpu.module(pa-to-nvvm))' \
// RUN:   | FileCheck %s --check-prefix=KEPT

// CHECK-LABEL: func.func @plan
// CHECK:       gpu.launch_func  @pa_kernels::@pa_plan blocks in (%[[ONE:.*]], %[[ONE]], %[[ONE]]) threads in (%{{.*}}, %{{.*}}, %{{.*}})
// CHECK:       gpu.func @pa_plan(%{{.*}}: memref<?xi32>, %{{.*}}: memref<?x4xi32>, %{{.*}}: memref<?x2xi32>)
// CHECK-SAME:      workgroup(%{{.*}} : memref<128xi64, #gpu.address_space<workgroup>>, %{{.*}} : memref<128xi64, #gpu.address_space<workgroup>>, %{{.*}} : memref<128xi64, #gpu.address_space<workgroup>>)
// CHECK-SAME:      pa.distribution = #pa.distribution<threads>
// Thread i takes sequences [i C, (i + 1) C), C = ceil(B / 128).
// CHECK:         gpu.thread_id  x
// CHECK:         arith.ceildivui
// The window's first tile: max(0, C - (Q - 1) - W) / 256.
// CHECK:         arith.constant 4096 : i64
// CHECK:         gpu.barrier
// A work_info row's sequence: a binary search over reduce_info.
// CHECK:         math.ctlz
// CHECK-NOT:   pa.plan

// KEPT:        gpu.func @pa_plan(
// KEPT-SAME:       pa.distribution = #pa.distribution<threads>
// KEPT-NOT:    thread0
func.func @plan(%context_lengths: memref<?xi32>, %work_info: memref<?x4xi32>,
                %reduce_info: memref<?x2xi32>) {
  pa.plan context_lengths(%context_lengths : memref<?xi32>) work_info(%work_info : memref<?x4xi32>)
          reduce_info(%reduce_info : memref<?x2xi32>)
          {num_kv_heads = 2 : i64, query_length = 1 : i64, sliding_window = 4096 : i64}
  return
}
