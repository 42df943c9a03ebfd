// pa-lower-plan-to-threads: pa.plan as a planning kernel on the 128 threads
// of one workgroup (block scans by warp shuffles and 4 warp totals in
// shared memory, work_info rows over the threads, their search over a
// shared copy of reduce_info), which pa-to-nvvm leaves as it is.
// RUN: pa-opt %s --pa-set-target=chip=sm_90a --pa-lower-plan-to-threads | FileCheck %s
// RUN: pa-opt %s --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},pa-lower-plan-to-threads,gpu.module(pa-to-nvvm))' \
// RUN:   | FileCheck %s --check-prefix=KEPT

// CHECK-LABEL: func.func @plan
// CHECK:       gpu.launch_func  @pa_kernels::@pa_plan blocks in (%[[ONE:.*]], %[[ONE]], %[[ONE]]) threads in (%{{.*}}, %{{.*}}, %{{.*}})
// CHECK:       gpu.func @pa_plan(%{{.*}}: memref<?xi32>, %{{.*}}: memref<?x4xi32>, %{{.*}}: memref<?x2xi32>)
// CHECK-SAME:      workgroup(%[[TILES:.*]] : memref<4xi64, #gpu.address_space<workgroup>>, %[[NONEMPTY:.*]] : memref<4xi64, #gpu.address_space<workgroup>>, %[[COUNTS:.*]] : memref<4xi64, #gpu.address_space<workgroup>>, %[[ENTRIES:.*]] : memref<2048xi32, #gpu.address_space<workgroup>>)
// CHECK-SAME:      pa.distribution = #pa.distribution<threads>
// Thread i takes sequences [i C, (i + 1) C), C = ceil(B / 128).
// CHECK:         gpu.thread_id  x
// CHECK:         arith.ceildivui
// The window's first tile: max(0, C - (Q - 1) - W) / 256.
// CHECK:         arith.constant 4096 : i64
// The scan of the tiles and non-empty sequences: within the warp, lane
// (lane - 1, 2, ..., 16)'s sums, each i64 in two 32-bit shuffles; no
// barrier until lane 31 has stored the warp's totals.
// CHECK-NOT:     gpu.barrier
// CHECK-COUNT-4: gpu.shuffle  up %{{.*}}, %c1_i32{{.*}}, %c32_i32{{.*}} : i32
// CHECK-COUNT-4: gpu.shuffle  up %{{.*}}, %c2_i32{{.*}}, %c32_i32{{.*}} : i32
// CHECK-COUNT-4: gpu.shuffle  up %{{.*}}, %c4_i32{{.*}}, %c32_i32{{.*}} : i32
// CHECK-COUNT-4: gpu.shuffle  up %{{.*}}, %c8_i32{{.*}}, %c32_i32{{.*}} : i32
// CHECK-COUNT-4: gpu.shuffle  up %{{.*}}, %c16_i32{{.*}}, %c32_i32{{.*}} : i32
// CHECK-NOT:     gpu.barrier
// CHECK:         %[[LAST:.*]] = arith.cmpi eq, %{{.*}}, %c31{{.*}} : index
// CHECK-NEXT:    scf.if %[[LAST]] {
// CHECK-NEXT:      memref.store %{{.*}}, %[[TILES]][%[[WARP:.*]]] :
// CHECK-NEXT:      memref.store %{{.*}}, %[[NONEMPTY]][%[[WARP]]] :
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
// Then the warp totals: those of the warps before (warp > w) and all four.
// CHECK:         memref.load %[[TILES]][%c0{{.*}}]
// CHECK:         arith.cmpi ugt, %[[WARP]], %c0{{.*}} : index
// CHECK:         memref.load %[[TILES]][%c3{{.*}}]
// The partition counts' scan likewise, into their own buffer.
// CHECK:         scf.if
// CHECK-NEXT:      memref.store %{{.*}}, %[[COUNTS]]
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
// reduce_info, and its copy for the first 1024 sequences.
// CHECK:         memref.store %{{.*}}, %{{.*}}[%{{.*}}, %c0{{.*}}] : memref<?x2xi32>
// CHECK:         memref.store %{{.*}}, %{{.*}}[%{{.*}}, %c1{{.*}}] : memref<?x2xi32>
// CHECK:         %[[COPIED:.*]] = arith.cmpi ult, %{{.*}}, %c1024 : index
// CHECK-NEXT:    scf.if %[[COPIED]] {
// CHECK:           memref.store %{{.*}}, %[[ENTRIES]]
// CHECK:           memref.store %{{.*}}, %[[ENTRIES]]
// CHECK:         gpu.barrier
// CHECK:         %[[SHARED:.*]] = arith.cmpi sle, %{{.*}}, %c1024{{.*}} : i64
// A work_info row's sequence: a binary search over reduce_info's first
// slots, from the shared copy where B <= 1024.
// CHECK:         math.ctlz
// CHECK:         scf.for
// CHECK:           scf.if %[[SHARED]] -> (i32) {
// CHECK:             memref.load %[[ENTRIES]]
// CHECK:           } else {
// CHECK:             memref.load %{{.*}}[%{{.*}}, %c0{{.*}}] : memref<?x2xi32>
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
