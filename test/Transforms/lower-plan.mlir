// RUN: pa-opt %s -split-input-file -pa-set-target=chip=gfx950 -pa-lower-plan | FileCheck %s
// RUN: pa-opt %s -split-input-file -pa-set-target=chip=gfx942 -pa-lower-plan | FileCheck %s --check-prefix=GFX942

// A sliding window, an explicit budget, the default max_partitions (gfx950:
// 256 CUs). The whole kernel, in order.

// CHECK-LABEL: func.func @plan_window
// CHECK-SAME:    (%[[LENS:.*]]: memref<?xi32>, %[[WORK:.*]]: memref<?x4xi32>, %[[RED:.*]]: memref<?x2xi32>)
// CHECK-NOT:     pa.plan
// CHECK:         %[[ONE:.*]] = arith.constant 1 : index
// CHECK:         gpu.launch_func @pa_kernels::@pa_plan blocks in (%[[ONE]], %[[ONE]], %[[ONE]])
// CHECK-SAME:      args(%[[LENS]] : memref<?xi32>, %[[WORK]] : memref<?x4xi32>, %[[RED]] : memref<?x2xi32>)

// CHECK:       gpu.module @pa_kernels
// CHECK:       gpu.func @pa_plan(%[[L:.*]]: memref<?xi32>, %[[W:.*]]: memref<?x4xi32>, %[[R:.*]]: memref<?x2xi32>) kernel
// The limits it plans with, for the launcher's check of the workspace:
// budget, max_partitions, KV heads.
// CHECK-SAME:    pa.plan_limits = array<i64: 512, 256, 2>
// CHECK-NOT:     gpu.thread_id
// CHECK:         %[[B:.*]] = memref.dim %[[L]], %{{.*}} : memref<?xi32>
// CHECK:         %[[ROWS:.*]] = memref.dim %[[W]], %{{.*}} : memref<?x4xi32>
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : i32
// Zeroing: every row of the work_info buffer, all four fields.
// CHECK:         scf.for %[[S:.*]] = %{{.*}} to %[[ROWS]] step
// CHECK-COUNT-4:   memref.store %[[ZERO]], %[[W]][%[[S]], %{{.*}}]
// CHECK-NEXT:    }
// First pass: tile totals and non-empty sequences. Negative lengths read as 0.
// CHECK:         %[[SUMS:.*]]:2 = scf.for %[[SEQ:.*]] = %{{.*}} to %[[B]] step %{{.*}} iter_args(%[[TOT:.*]] = %{{.*}}, %[[NE:.*]] = %{{.*}}) -> (i64, i64)
// CHECK:           %[[RAW:.*]] = memref.load %[[L]][%[[SEQ]]]
// CHECK:           %[[EXT:.*]] = arith.extsi %[[RAW]] : i32 to i64
// CHECK:           %[[C:.*]] = arith.maxsi %[[EXT]], %{{.*}} : i64
// first = max(0, C - (Q-1) - W) / 256 with Q - 1 = 3, W = 257.
// CHECK:           %[[Q1:.*]] = arith.constant 3 : i64
// CHECK:           %[[END0:.*]] = arith.subi %[[C]], %[[Q1]] : i64
// CHECK:           %[[WIN:.*]] = arith.constant 257 : i64
// CHECK:           %[[BACK:.*]] = arith.subi %[[END0]], %[[WIN]] : i64
// CHECK:           %[[CLAMP:.*]] = arith.maxsi %[[BACK]], %{{.*}} : i64
// CHECK:           %[[FIRST:.*]] = arith.divsi %[[CLAMP]], %{{.*}} : i64
// end = (C + 255) / 256
// CHECK:           arith.constant 255 : i64
// CHECK:           %[[END:.*]] = arith.divsi
// CHECK:           %[[N:.*]] = arith.subi %[[END]], %[[FIRST]] : i64
// CHECK:           %[[TILES:.*]] = arith.maxsi %[[N]], %{{.*}} : i64
// CHECK:           arith.cmpi sgt, %[[TILES]]
// CHECK:           scf.yield
// Capacity: min(B * 256, max(B, ceil(512 / 2))).
// CHECK:         %[[BI:.*]] = arith.index_cast %[[B]] : index to i64
// CHECK:         %[[BUDGET:.*]] = arith.constant 512 : i64
// CHECK:         %[[BUDGETUP:.*]] = arith.addi %[[BUDGET]], %{{.*}} : i64
// CHECK:         %[[HKV:.*]] = arith.constant 2 : i64
// CHECK:         %[[PERHEAD:.*]] = arith.divsi %[[BUDGETUP]], %[[HKV]] : i64
// CHECK:         %[[MAXP:.*]] = arith.constant 256 : i64
// CHECK:         %[[ALL:.*]] = arith.muli %[[BI]], %[[MAXP]] : i64
// CHECK:         %[[ATLEASTB:.*]] = arith.maxsi %[[BI]], %[[PERHEAD]] : i64
// CHECK:         %[[CAP:.*]] = arith.minsi %[[ALL]], %[[ATLEASTB]] : i64
// CHECK:         %[[REM:.*]] = arith.subi %[[CAP]], %[[SUMS]]#1 : i64
// CHECK:         %[[T:.*]] = arith.maxsi %[[SUMS]]#0, %{{.*}} : i64
// CHECK:         %[[MAXPARTS:.*]] = arith.constant 256 : i64
// Second pass: prefix-sum apportioning with i64 products.
// CHECK:         scf.for %[[SEQ2:.*]] = %{{.*}} to %[[B]] step %{{.*}} iter_args(%[[CUMB:.*]] = %{{.*}}, %[[NEXT:.*]] = %{{.*}}) -> (i64, i64)
// CHECK:           %[[CUM:.*]] = arith.addi %[[CUMB]], %[[TILES2:.*]] : i64
// CHECK:           %[[P1:.*]] = arith.muli %[[CUM]], %[[REM]] : i64
// CHECK:           %[[Q1:.*]] = arith.divsi %[[P1]], %[[T]] : i64
// CHECK:           %[[P0:.*]] = arith.muli %[[CUMB]], %[[REM]] : i64
// CHECK:           %[[Q0:.*]] = arith.divsi %[[P0]], %[[T]] : i64
// CHECK:           %[[EXTRA:.*]] = arith.subi %[[Q1]], %[[Q0]] : i64
// CHECK:           %[[ONEMORE:.*]] = arith.addi %[[EXTRA]], %{{.*}} : i64
// CHECK:           %[[CAPPED:.*]] = arith.minsi %[[ONEMORE]], %[[TILES2]] : i64
// CHECK:           %[[COUNT:.*]] = arith.minsi %[[CAPPED]], %[[MAXPARTS]] : i64
// Only the slots work_info holds are written and counted in reduce_info.
// CHECK:           %[[ROOM:.*]] = arith.subi %{{.*}}, %[[NEXT]] : i64
// CHECK:           %[[FITS:.*]] = arith.minsi %[[COUNT]], %[[ROOM]] : i64
// CHECK:           %[[STORABLE:.*]] = arith.maxsi %[[FITS]], %{{.*}} : i64
// CHECK:           %[[NEXT32:.*]] = arith.trunci %[[NEXT]] : i64 to i32
// CHECK:           memref.store %[[NEXT32]], %[[R]][%[[SEQ2]], %{{.*}}]
// CHECK:           %[[STORABLE32:.*]] = arith.trunci %[[STORABLE]] : i64 to i32
// CHECK:           memref.store %[[STORABLE32]], %[[R]][%[[SEQ2]], %{{.*}}]
// CHECK:           scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step
// CHECK:             %[[KI:.*]] = arith.index_cast %[[K]] : index to i64
// CHECK:             %[[KN:.*]] = arith.muli %[[KI]], %[[TILES2]] : i64
// CHECK:             %[[KNC:.*]] = arith.divsi %[[KN]], %[[COUNT]] : i64
// CHECK:             %[[BEGIN:.*]] = arith.addi %{{.*}}, %[[KNC]] : i64
// CHECK:             %[[SLOT:.*]] = arith.addi %[[NEXT]], %[[KI]] : i64
// CHECK:             %[[SLOTIDX:.*]] = arith.index_cast %[[SLOT]] : i64 to index
// CHECK-COUNT-4:     memref.store %{{.*}}, %[[W]][%[[SLOTIDX]], %{{.*}}] : memref<?x4xi32>
// CHECK:           %[[NEXTSLOT:.*]] = arith.addi %[[NEXT]], %[[COUNT]] : i64
// CHECK:           scf.yield %[[CUM]], %[[NEXTSLOT]] : i64, i64
// CHECK:         gpu.return

// GFX942-LABEL: func.func @plan_window
// GFX942:       gpu.func @pa_plan
// GFX942-SAME:    pa.plan_limits = array<i64: 512, 304, 2>
// GFX942:         arith.constant 512 : i64
// GFX942:         arith.constant 304 : i64

func.func @plan_window(%lens: memref<?xi32>, %work: memref<?x4xi32>,
                       %red: memref<?x2xi32>) {
  pa.plan context_lengths(%lens : memref<?xi32>)
          work_info(%work : memref<?x4xi32>)
          reduce_info(%red : memref<?x2xi32>)
          {num_kv_heads = 2 : i64, query_length = 4 : i64,
           sliding_window = 257 : i64, budget = 512 : i64}
  return
}

// -----

// No window (first tile 0, no window arithmetic); both defaults come from the
// chip: budget 2 * CUs, max_partitions CUs. Static shapes; two plans get two
// kernels.

// CHECK-LABEL: func.func @plan_defaults
// CHECK:         gpu.launch_func @pa_kernels::@pa_plan blocks
// CHECK:         gpu.launch_func @pa_kernels::@pa_plan_0 blocks
// CHECK:       gpu.func @pa_plan(
// CHECK:         memref.dim %{{.*}} : memref<5xi32>
// CHECK:         scf.for
// CHECK:           arith.extsi
// CHECK-NEXT:      arith.constant 0 : i64
// CHECK-NEXT:      arith.maxsi
// CHECK-NEXT:      arith.constant 0 : i64
// CHECK-NEXT:      arith.constant 255 : i64
// CHECK-NEXT:      arith.addi
// CHECK-NEXT:      arith.constant 256 : i64
// CHECK-NEXT:      arith.divsi
// CHECK-NEXT:      arith.subi
// CHECK:         arith.constant 512 : i64
// CHECK:         arith.constant 256 : i64
// CHECK:       gpu.func @pa_plan_0(
// CHECK-SAME:    pa.plan_limits = array<i64: 512, 7, 1>
// CHECK:         arith.constant 512 : i64
// CHECK:         arith.constant 7 : i64

// GFX942-LABEL: func.func @plan_defaults
// GFX942:       gpu.func @pa_plan(
// GFX942-SAME:    pa.plan_limits = array<i64: 608, 304, 1>
// GFX942:         arith.constant 608 : i64
// GFX942:         arith.constant 304 : i64

func.func @plan_defaults(%lens: memref<5xi32>, %work: memref<512x4xi32>,
                         %red: memref<5x2xi32>) {
  pa.plan context_lengths(%lens : memref<5xi32>)
          work_info(%work : memref<512x4xi32>)
          reduce_info(%red : memref<5x2xi32>)
          {num_kv_heads = 1 : i64}
  pa.plan context_lengths(%lens : memref<5xi32>)
          work_info(%work : memref<512x4xi32>)
          reduce_info(%red : memref<5x2xi32>)
          {num_kv_heads = 1 : i64, max_partitions = 7 : i64}
  return
}
