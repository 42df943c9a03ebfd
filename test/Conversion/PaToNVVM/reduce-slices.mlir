// pa-to-nvvm's reduce kernel in slices of rows on grid z (ReduceToWarps.cpp),
// and pa-nvvm-launch-grids putting the slices on the launch and in pa.grid.
// RUN: pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},pa-lower-reduce,gpu.module(pa-to-nvvm),pa-nvvm-launch-grids,canonicalize,cse)' \
// RUN:   | FileCheck %s
// Without pa-nvvm-launch-grids the kernel asks for z = 4 where x * y <= 66,
// else the other slice count (pa.nvvm.grid_z, _limit, _otherwise), and its
// launch has z = 1.
// RUN: pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},pa-lower-reduce,gpu.module(pa-to-nvvm),canonicalize,cse)' \
// RUN:   | FileCheck %s --check-prefix=ASKS

// Q = 1, G = 8, D = 256 (the benchmark's fp8 / bf16 programs): 8 rows of 64
// output items. With B * Hkv <= 66 (2 workgroups per SM of the 132 at 4
// slices) 4 slices of 2 rows, one item per thread, up to 16 partitions'
// loads per round; else workgroup z = 0 takes all 8 rows (4 items per thread, 8
// partitions per round). The launch's grid z follows the same rule: 4
// where B * Hkv <= 66, else 1 (no workgroup launched only to return).
// CHECK-LABEL: func.func @reduce_d256
// CHECK-DAG:   %[[C66:.*]] = arith.constant 66 : index
// CHECK-DAG:   %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:   %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:   %[[C2:.*]] = arith.constant 2 : index
// CHECK:       %[[B:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<?x2xi32>
// CHECK:       %[[XY:.*]] = arith.muli %[[B]], %[[C2]] : index
// CHECK:       %[[FEWZ:.*]] = arith.cmpi ule, %[[XY]], %[[C66]] : index
// CHECK:       %[[Z:.*]] = arith.select %[[FEWZ]], %[[C4]], %[[C1]] : index
// CHECK:       gpu.launch_func @pa_kernels::@pa_reduce blocks in (%[[B]], %[[C2]], %[[Z]])
// CHECK:       gpu.func @pa_reduce(
// CHECK-SAME:      pa.distribution = #pa.distribution<warps>
// CHECK-SAME:      pa.grid = #pa.grid<x = reduce_info dim 0, y = 2, z = 4 if x * y le 66 else 1>
// CHECK-NOT:       pa.nvvm.grid_z
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C66:.*]] = arith.constant 66 : index
// CHECK:         %[[GX:.*]] = gpu.grid_dim  x
// CHECK:         %[[GY:.*]] = gpu.grid_dim  y
// CHECK:         %[[GROUPS:.*]] = arith.muli %[[GX]], %[[GY]] : index
// CHECK:         %[[FEW:.*]] = arith.cmpi ule, %[[GROUPS]], %[[C66]] : index
// CHECK:         scf.if %[[FEW]] {
// Workgroup z: slice z, rows 2z and 2z + 1.
// CHECK:           %[[SLICE:.*]] = gpu.block_id  z
// CHECK:           %[[FIRST:.*]] = arith.muli %[[SLICE]], %[[C2]] : index
// Phase 1: warp w < 2 takes row FIRST + w.
// CHECK:           scf.for %[[W:.*]] = %{{.*}} to %[[C2]] step %[[C4]] {
// CHECK:             %[[LOCAL:.*]] = arith.minui %[[W]], %{{.*}} : index
// CHECK:             %[[ROW:.*]] = arith.addi %[[FIRST]], %[[LOCAL]] : index
// CHECK:             memref.load %{{.*}}[%{{.*}}, %{{.*}}, %[[ROW]]] : memref<2x?x8xf32>
// CHECK:             gpu.shuffle  xor
// CHECK:             memref.store %{{.*}}, %{{.*}}[%[[ROW]]] : memref<8xf32, #gpu.address_space<workgroup>>
// CHECK:           gpu.barrier
// Phase 2: thread t's item t of the slice: row FIRST + t / 64, columns
// 4 (t % 64) + [0, 4).
// CHECK:           %[[ITEM:.*]] = arith.minui %{{.*}}, %[[C127:.*]] : index
// CHECK:           %[[IROW:.*]] = arith.divui %[[ITEM]], %[[C64:.*]] : index
// CHECK:           %[[OROW:.*]] = arith.addi %[[FIRST]], %[[IROW]] : index
// CHECK:           %[[ICOL:.*]] = arith.remui %[[ITEM]], %[[C64]] : index
// CHECK:           %[[COL:.*]] = arith.muli %[[ICOL]], %[[C4]] : index
// CHECK:           memref.load %{{.*}}[%[[OROW]]] : memref<8xf32, #gpu.address_space<workgroup>>
// A round of 16 partitions: its first (base < count) loaded at once, the
// other 15 only below count, in branches uniform over the workgroup (at
// one partition a round executes one partition's instructions), all loads
// before the products, which skip the partitions beyond count likewise.
// CHECK:           scf.for %{{.*}} = %{{.*}} to %[[COUNT:.*]] step %[[C16:.*]] iter_args
// CHECK:             vector.load %{{.*}}[%{{.*}}, %{{.*}}, %[[OROW]], %[[COL]]] {alignment = 16 : i64} : memref<2x?x8x256xf32>, vector<4xf32>
// CHECK:             %[[NEXT:.*]] = arith.cmpi ult, %{{.*}}, %[[COUNT]] : index
// CHECK-NEXT:        %[[LOADED:.*]]:3 = scf.if %[[NEXT]] -> (f32, f32, vector<4xf32>) {
// CHECK:               vector.load %{{.*}}[%{{.*}}, %{{.*}}, %[[OROW]], %[[COL]]] {alignment = 16 : i64} : memref<2x?x8x256xf32>, vector<4xf32>
// CHECK:             } else {
// CHECK-COUNT-14:    scf.if %{{.*}} -> (f32, f32, vector<4xf32>) {
// CHECK:               vector.load
// CHECK-NOT:         vector.load
// CHECK:             math.exp2
// CHECK:             scf.if %[[NEXT]] -> (f32, f32, f32, f32) {
// CHECK:               vector.extract %[[LOADED]]#2[0]
// CHECK-COUNT-14:    scf.if %{{.*}} -> (f32, f32, f32, f32) {
// CHECK-NOT:         vector.load
// CHECK:             scf.yield
// CHECK:           vector.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %[[COL]]] {alignment = 8 : i64} : memref<?x16x256xbf16>, vector<4xbf16>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[Z2:.*]] = gpu.block_id  z
// CHECK-NEXT:      %[[FIRSTZ:.*]] = arith.cmpi ult, %[[Z2]], %[[C1:.*]] : index
// CHECK-NEXT:      scf.if %[[FIRSTZ]] {
// CHECK:             gpu.barrier
// CHECK:             scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[C8:.*]] iter_args
// CHECK-COUNT-32:      vector.load %{{.*}} {alignment = 16 : i64} : memref<2x?x8x256xf32>, vector<4xf32>
// CHECK-NOT:           vector.load
// CHECK:               scf.yield
// CHECK-COUNT-4:     vector.store %{{.*}} : memref<?x16x256xbf16>, vector<4xbf16>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.return

// ASKS-LABEL: func.func @reduce_d256
// ASKS:       %[[ONE:.*]] = arith.constant 1 : index
// ASKS:       gpu.launch_func @pa_kernels::@pa_reduce blocks in (%{{.*}}, %{{.*}}, %[[ONE]])
// ASKS:       gpu.func @pa_reduce(
// ASKS-SAME:      pa.grid = #pa.grid<x = reduce_info dim 0, y = 2, z = 1>
// ASKS-SAME:      pa.nvvm.grid_z = 4 : i64
// ASKS-SAME:      pa.nvvm.grid_z_limit = 66 : i64
// ASKS-SAME:      pa.nvvm.grid_z_otherwise = 1 : i64
// ASKS:         gpu.block_id  z
func.func @reduce_d256(%exp_sums: memref<2x?x8xf32>, %max_logits: memref<2x?x8xf32>,
    %tmp_out: memref<2x?x8x256xf32>, %reduce_info: memref<?x2xi32>,
    %output: memref<?x16x256xbf16>) {
  pa.reduce exp_sums(%exp_sums : memref<2x?x8xf32>) max_logits(%max_logits : memref<2x?x8xf32>)
            tmp_out(%tmp_out : memref<2x?x8x256xf32>) reduce_info(%reduce_info : memref<?x2xi32>)
            output(%output : memref<?x16x256xbf16>)
  return
}

// -----

// D = 64, 8 rows: 128 items, one per thread already; no slices.
// CHECK-LABEL: func.func @reduce_d64
// CHECK:       %[[ONE:.*]] = arith.constant 1 : index
// CHECK:       gpu.launch_func @pa_kernels::@pa_reduce blocks in (%{{.*}}, %{{.*}}, %[[ONE]])
// CHECK:       gpu.func @pa_reduce(
// CHECK-SAME:      pa.grid = #pa.grid<x = reduce_info dim 0, y = 1, z = 1>
// CHECK-NOT:     gpu.block_id  z
// CHECK-NOT:     gpu.grid_dim
// CHECK:         gpu.return

// ASKS-LABEL: func.func @reduce_d64
// ASKS:       gpu.func @pa_reduce(
// ASKS-NOT:       pa.nvvm.grid_z
// ASKS:         gpu.return
func.func @reduce_d64(%exp_sums: memref<1x?x8xf32>, %max_logits: memref<1x?x8xf32>,
    %tmp_out: memref<1x?x8x64xf32>, %reduce_info: memref<?x2xi32>,
    %output: memref<?x8x64xbf16>) {
  pa.reduce exp_sums(%exp_sums : memref<1x?x8xf32>) max_logits(%max_logits : memref<1x?x8xf32>)
            tmp_out(%tmp_out : memref<1x?x8x64xf32>) reduce_info(%reduce_info : memref<?x2xi32>)
            output(%output : memref<?x8x64xbf16>)
  return
}

// -----

// Q = 4, G = 8, D = 128 with sinks: 32 rows of 32 items; with B * Hkv <= 66
// 4 slices of 8 rows (2 items per thread), each warp 2 rows of its slice
// per loop; else 2 slices of 16 rows (4 items per thread) on workgroups
// z = 0, 1, and the launch has z = 2 there.
// CHECK-LABEL: func.func @reduce_q4
// CHECK-DAG:   %[[C66:.*]] = arith.constant 66 : index
// CHECK-DAG:   %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:   %[[C2:.*]] = arith.constant 2 : index
// CHECK:       %[[B:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<?x2xi32>
// CHECK:       %[[FEWZ:.*]] = arith.cmpi ule, %[[B]], %[[C66]] : index
// CHECK:       %[[Z:.*]] = arith.select %[[FEWZ]], %[[C4]], %[[C2]] : index
// CHECK:       gpu.launch_func @pa_kernels::@pa_reduce blocks in (%[[B]], %{{.*}}, %[[Z]])
// CHECK:       gpu.func @pa_reduce(
// CHECK-SAME:      pa.grid = #pa.grid<x = reduce_info dim 0, y = 1, z = 4 if x * y le 66 else 2>
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG:     %[[C66:.*]] = arith.constant 66 : index
// CHECK:         %[[FEW:.*]] = arith.cmpi ule, %{{.*}}, %[[C66]] : index
// CHECK:         scf.if %[[FEW]] {
// CHECK:           %[[SLICE:.*]] = gpu.block_id  z
// CHECK:           arith.muli %[[SLICE]], %[[C8]] : index
// CHECK:           scf.for %{{.*}} = %{{.*}} to %[[C8]] step %{{.*}} {
// The else branch (the slice loop's rounds have their own branches):
// CHECK:           vector.store
// CHECK:         } else {
// CHECK-NEXT:      %[[Z2:.*]] = gpu.block_id  z
// CHECK-NEXT:      %[[TWO:.*]] = arith.cmpi ult, %[[Z2]], %[[C2]] : index
// CHECK-NEXT:      scf.if %[[TWO]] {
// CHECK-NEXT:        arith.muli %[[Z2]], %[[C16]] : index
// CHECK-NEXT:        scf.for %{{.*}} = %{{.*}} to %[[C16]] step %{{.*}} {
func.func @reduce_q4(%exp_sums: memref<1x?x32xf32>, %max_logits: memref<1x?x32xf32>,
    %tmp_out: memref<1x?x32x128xf32>, %reduce_info: memref<?x2xi32>,
    %sinks: memref<8xf32>, %output: memref<?x8x128xbf16>) {
  pa.reduce exp_sums(%exp_sums : memref<1x?x32xf32>) max_logits(%max_logits : memref<1x?x32xf32>)
            tmp_out(%tmp_out : memref<1x?x32x128xf32>) reduce_info(%reduce_info : memref<?x2xi32>)
            sinks(%sinks : memref<8xf32>) output(%output : memref<?x8x128xbf16>)
  return
}
