// RUN: pa-opt %s -split-input-file -allow-unregistered-dialect -pa-stage-page-ids | FileCheck %s
// RUN: pa-opt %s -split-input-file -allow-unregistered-dialect -pa-stage-page-ids="max-staged=64" | FileCheck %s --check-prefix=SMALL
// A staging buffer larger than workgroup memory, or of negative size, is an
// error (before, max-staged=2^40 was accepted and crashed the runner).
// RUN: not pa-opt %s -split-input-file -allow-unregistered-dialect -pa-stage-page-ids="max-staged=1099511627776" 2>&1 | FileCheck %s --check-prefix=TOO-MANY
// RUN: not pa-opt %s -split-input-file -allow-unregistered-dialect -pa-stage-page-ids="max-staged=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// TOO-MANY: error: pa-stage-page-ids: max-staged must be in [0, 16384] (page ids in 64 KiB of workgroup memory), got 1099511627776
// NEGATIVE: error: pa-stage-page-ids: max-staged must be in [0, 16384] (page ids in 64 KiB of workgroup memory), got -1

// A tile loop over [%begin, %end): page ids of up to 4096 / 16 = 256 tiles
// are staged in workgroup memory before the loop; each iteration loads its 16
// ids with one vector load, or reads the block table past the staged bound.
// CHECK-LABEL: gpu.func @tile_loop
// CHECK-SAME:    workgroup(%[[LDS:.*]] : memref<4096xi32, #gpu.address_space<workgroup>>)
// CHECK:         %[[TILES:.*]] = arith.subi %[[END:.*]], %[[BEGIN:.*]] : index
// CHECK:         %[[NONNEG:.*]] = arith.maxsi %[[TILES]], %c0{{.*}} : index
// CHECK:         %[[STAGED:.*]] = arith.minsi %[[NONNEG]], %c256 : index
// CHECK:         scf.for %[[J:.*]] = %c0{{.*}} to %[[STAGED]] step
// CHECK:           %[[T:.*]] = arith.addi %[[BEGIN]], %[[J]] : index
// CHECK:           %[[IDS:.*]] = pa.tile.page_ids %{{.*}}[%{{.*}}] tile %[[T]] visible[%{{.*}}, %{{.*}}] {direct, page_size = 16 : i64}
// CHECK:           %[[OFF:.*]] = arith.muli %[[J]], %c16 : index
// CHECK:           vector.store %[[IDS]], %[[LDS]][%[[OFF]]] : memref<4096xi32, #gpu.address_space<workgroup>>, vector<16xi32>
// CHECK:         scf.for %[[TILE:.*]] = %[[BEGIN]] to %[[END]]
// CHECK:           %[[REL:.*]] = arith.subi %[[TILE]], %[[BEGIN]] : index
// CHECK:           %[[IN:.*]] = arith.cmpi slt, %[[REL]], %[[STAGED]] : index
// CHECK:           %[[SEL:.*]] = scf.if %[[IN]] -> (vector<16xi32>) {
// CHECK:             %[[AT:.*]] = arith.muli %[[REL]], %c16{{.*}} : index
// CHECK:             %[[V:.*]] = vector.load %[[LDS]][%[[AT]]] : memref<4096xi32, #gpu.address_space<workgroup>>, vector<16xi32>
// CHECK:             scf.yield %[[V]]
// CHECK:           } else {
// CHECK:             %[[F:.*]] = pa.tile.page_ids %{{.*}} tile %[[TILE]] visible[%{{.*}}, %{{.*}}] {direct, page_size = 16 : i64}
// CHECK:             scf.yield %[[F]]
// CHECK:           }
// CHECK:           "test.use"(%[[SEL]])
// SMALL-LABEL: gpu.func @tile_loop
// SMALL-SAME:    workgroup(%{{.*}} : memref<64xi32, #gpu.address_space<workgroup>>)
// SMALL:         arith.minsi %{{.*}}, %c4 : index
gpu.module @pa_kernels {
  gpu.func @tile_loop(%bt: memref<?x?xi32>, %seq: index, %begin: index, %end: index,
                      %lo: i64, %hi: i64) kernel {
    %c1 = arith.constant 1 : index
    scf.for %tile = %begin to %end step %c1 {
      %ids = pa.tile.page_ids %bt[%seq] tile %tile visible [%lo, %hi] {page_size = 16 : i64}
          : memref<?x?xi32> -> vector<16xi32>
      "test.use"(%ids) : (vector<16xi32>) -> ()
    }
    gpu.return
  }
}

// -----

// 64-token pages: 4 ids per tile; max-staged=64 stages 16 tiles.
// CHECK-LABEL: gpu.func @page_64
// CHECK-SAME:    workgroup(%{{.*}} : memref<4096xi32, #gpu.address_space<workgroup>>)
// CHECK:         arith.minsi %{{.*}}, %c1024 : index
// CHECK:         vector.load %{{.*}} : memref<4096xi32, #gpu.address_space<workgroup>>, vector<4xi32>
// SMALL-LABEL: gpu.func @page_64
// SMALL-SAME:    workgroup(%{{.*}} : memref<64xi32, #gpu.address_space<workgroup>>)
// SMALL:         arith.minsi %{{.*}}, %c16 : index
gpu.module @pa_kernels {
  gpu.func @page_64(%bt: memref<?x?xi32>, %seq: index, %begin: index, %end: index,
                    %lo: i64, %hi: i64) kernel {
    %c1 = arith.constant 1 : index
    scf.for %tile = %begin to %end step %c1 {
      %ids = pa.tile.page_ids %bt[%seq] tile %tile visible [%lo, %hi] {page_size = 64 : i64}
          : memref<?x?xi32> -> vector<4xi32>
      "test.use"(%ids) : (vector<4xi32>) -> ()
    }
    gpu.return
  }
}

// -----

// A read whose tile is not a loop induction variable cannot be staged: it
// becomes a direct block-table read and no workgroup memory is added.
// CHECK-LABEL: gpu.func @not_in_loop
// CHECK-NOT:     workgroup
// CHECK:         pa.tile.page_ids {{.*}} {direct, page_size = 128 : i64}
// CHECK-NOT:     vector.load
gpu.module @pa_kernels {
  gpu.func @not_in_loop(%bt: memref<?x?xi32>, %seq: index, %tile: index,
                        %lo: i64, %hi: i64) kernel {
    %ids = pa.tile.page_ids %bt[%seq] tile %tile visible [%lo, %hi] {page_size = 128 : i64}
        : memref<?x?xi32> -> vector<2xi32>
    "test.use"(%ids) : (vector<2xi32>) -> ()
    gpu.return
  }
}

// -----

// The visible range is computed inside the loop: staging before the loop
// would read it before it exists, so the read stays direct.
// CHECK-LABEL: gpu.func @range_in_loop
// CHECK-NOT:     workgroup
// CHECK:         pa.tile.page_ids {{.*}} {direct, page_size = 16 : i64}
gpu.module @pa_kernels {
  gpu.func @range_in_loop(%bt: memref<?x?xi32>, %seq: index, %begin: index, %end: index,
                          %lo: i64) kernel {
    %c1 = arith.constant 1 : index
    scf.for %tile = %begin to %end step %c1 {
      %hi = arith.index_cast %tile : index to i64
      %ids = pa.tile.page_ids %bt[%seq] tile %tile visible [%lo, %hi] {page_size = 16 : i64}
          : memref<?x?xi32> -> vector<16xi32>
      "test.use"(%ids) : (vector<16xi32>) -> ()
    }
    gpu.return
  }
}
