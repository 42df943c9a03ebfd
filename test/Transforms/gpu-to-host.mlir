// RUN: pa-opt %s -split-input-file -pa-gpu-to-host | FileCheck %s

// A kernel with a workgroup buffer becomes a private function taking the
// workgroup id; the buffer is a stack allocation without the address space,
// also in the types of views and vector accesses on it; barriers go away.
// The module loses gpu.container_module and pa.target: it targets no GPU.

// CHECK-LABEL: module {
// CHECK-NOT:     gpu.
// CHECK:         func.func private @write_ids(%[[OUT:.*]]: memref<4x3x2xi32>, %[[X:.*]]: index, %[[Y:.*]]: index, %[[Z:.*]]: index) {
// CHECK-NEXT:      %[[BUF:.*]] = memref.alloca() {alignment = 64 : i64} : memref<8xi32>
// CHECK:           %[[ZZ:.*]] = arith.muli %[[Z]], %{{.*}} : index
// CHECK:           %[[YY:.*]] = arith.muli %[[Y]], %{{.*}} : index
// CHECK:           %[[ZY:.*]] = arith.addi %[[ZZ]], %[[YY]] : index
// CHECK:           arith.addi %[[ZY]], %[[X]] : index
// CHECK:           %[[VIEW:.*]] = memref.subview %[[BUF]][2] [4] [1] : memref<8xi32> to memref<4xi32, strided<[1], offset: 2>>
// CHECK:           vector.store %{{.*}}, %[[VIEW]][%{{.*}}] : memref<4xi32, strided<[1], offset: 2>>, vector<4xi32>
// CHECK-NEXT:      %[[V:.*]] = vector.load %[[BUF]][%{{.*}}] : memref<8xi32>, vector<2xi32>
// CHECK-NEXT:      %[[E:.*]] = vector.extract %[[V]][0]
// CHECK-NEXT:      memref.store %[[E]], %[[OUT]][%[[Z]], %[[Y]], %[[X]]] : memref<4x3x2xi32>
// CHECK-NEXT:      return
// CHECK:         func.func @main(%[[ARG:.*]]: memref<4x3x2xi32>) {
// CHECK-DAG:       %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:       %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG:       %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:       %[[C0:.*]] = arith.constant 0 : index
// CHECK:           scf.for %[[IZ:.*]] = %[[C0]] to %[[C4]] step %[[STEP:.*]] {
// CHECK-NEXT:        scf.for %[[IY:.*]] = %[[C0]] to %[[C3]] step %[[STEP]] {
// CHECK-NEXT:          scf.for %[[IX:.*]] = %[[C0]] to %[[C2]] step %[[STEP]] {
// CHECK-NEXT:            func.call @write_ids(%[[ARG]], %[[IX]], %[[IY]], %[[IZ]]) : (memref<4x3x2xi32>, index, index, index) -> ()
// CHECK:           return
module attributes {gpu.container_module, pa.target = #pa.target<"gfx950">} {
  gpu.module @pa_kernels {
    gpu.func @write_ids(%out: memref<4x3x2xi32>)
        workgroup(%scratch: memref<8xi32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %x = gpu.block_id x
      %y = gpu.block_id y
      %z = gpu.block_id z
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %c100 = arith.constant 100 : index
      %c10 = arith.constant 10 : index
      %zz = arith.muli %z, %c100 : index
      %yy = arith.muli %y, %c10 : index
      %zy = arith.addi %zz, %yy : index
      %id = arith.addi %zy, %x : index
      %idi = arith.index_cast %id : index to i32
      %v = vector.broadcast %idi : i32 to vector<4xi32>
      %view = memref.subview %scratch[2] [4] [1]
          : memref<8xi32, #gpu.address_space<workgroup>>
          to memref<4xi32, strided<[1], offset: 2>, #gpu.address_space<workgroup>>
      vector.store %v, %view[%c0]
          : memref<4xi32, strided<[1], offset: 2>, #gpu.address_space<workgroup>>, vector<4xi32>
      gpu.barrier
      %pair = vector.load %scratch[%c2]
          : memref<8xi32, #gpu.address_space<workgroup>>, vector<2xi32>
      %r = vector.extract %pair[0] : i32 from vector<2xi32>
      memref.store %r, %out[%z, %y, %x] : memref<4x3x2xi32>
      gpu.return
    }
  }
  func.func @main(%out: memref<4x3x2xi32>) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    gpu.launch_func @pa_kernels::@write_ids blocks in (%c2, %c3, %c4)
        threads in (%c256, %c1, %c1) args(%out : memref<4x3x2xi32>)
    return
  }
}

// -----

// gpu.grid_dim becomes three more arguments, passed the launch's grid; a
// private attribution is a stack buffer too; two launches share the function.

// CHECK-LABEL: module {
// CHECK:         func.func private @grid(%[[OUT:.*]]: memref<?xindex>, %{{.*}}: index, %[[Y:.*]]: index, %{{.*}}: index, %[[GX:.*]]: index, %[[GY:.*]]: index, %[[GZ:.*]]: index) {
// CHECK-NEXT:      %[[PRIV:.*]] = memref.alloca() {alignment = 64 : i64} : memref<2xindex>
// CHECK:           memref.store %[[GX]], %[[PRIV]]
// CHECK:           arith.muli %[[GY]], %[[GZ]] : index
// CHECK:         func.func @two_launches(%[[ARG:.*]]: memref<?xindex>, %[[N:.*]]: index) {
// CHECK:           scf.for
// CHECK-NEXT:        scf.for
// CHECK-NEXT:          scf.for %[[IX:.*]] = %{{.*}} to %[[N]]
// CHECK-NEXT:            func.call @grid(%[[ARG]], %[[IX]], %{{.*}}, %{{.*}}, %[[N]], %[[C1:.*]], %[[C1]])
// CHECK:           scf.for
// CHECK-NEXT:        scf.for
// CHECK-NEXT:          scf.for
// CHECK-NEXT:            func.call @grid(%[[ARG]], %{{.*}}, %{{.*}}, %{{.*}}, %[[C1]], %[[N]], %[[C1]])
// CHECK-NOT:     gpu.
module attributes {gpu.container_module} {
  gpu.module @pa_kernels {
    gpu.func @grid(%out: memref<?xindex>)
        private(%tmp: memref<2xindex, #gpu.address_space<private>>) kernel {
      %c0 = arith.constant 0 : index
      %gx = gpu.grid_dim x
      %gy = gpu.grid_dim y
      %gz = gpu.grid_dim z
      %y = gpu.block_id y
      memref.store %gx, %tmp[%c0] : memref<2xindex, #gpu.address_space<private>>
      %t = memref.load %tmp[%c0] : memref<2xindex, #gpu.address_space<private>>
      %yz = arith.muli %gy, %gz : index
      %s = arith.addi %t, %yz : index
      memref.store %s, %out[%y] : memref<?xindex>
      gpu.return
    }
  }
  func.func @two_launches(%out: memref<?xindex>, %n: index) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @pa_kernels::@grid blocks in (%n, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%out : memref<?xindex>)
    gpu.launch_func @pa_kernels::@grid blocks in (%c1, %n, %c1)
        threads in (%c1, %c1, %c1) args(%out : memref<?xindex>)
    return
  }
}

// -----

// A host function with the kernel's name keeps it; the kernel's function is
// renamed and the launch calls the renamed one. A launch passing a constant
// zero dynamic shared memory size is accepted.

// CHECK-LABEL: module {
// CHECK:         func.func private @[[KERNEL:.*]](%{{.*}}: index, %{{.*}}: index, %{{.*}}: index)
// CHECK:         func.func @clash()
// CHECK:           func.call @[[KERNEL]](
// CHECK:         func.func @clash_user() {
// CHECK-NEXT:      call @clash() : () -> ()
module attributes {gpu.container_module} {
  gpu.module @pa_kernels {
    gpu.func @clash() kernel {
      gpu.return
    }
  }
  func.func @clash() {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : i32
    gpu.launch_func @pa_kernels::@clash blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) dynamic_shared_memory_size %c0
    return
  }
  func.func @clash_user() {
    call @clash() : () -> ()
    return
  }
}

// -----

// Without kernels the pass changes nothing (but the container attribute).

// CHECK-LABEL: module {
// CHECK-NEXT:    func.func @no_kernels(%{{.*}}: memref<4xf32>) {
// CHECK-NEXT:      return
module attributes {gpu.container_module} {
  func.func @no_kernels(%a: memref<4xf32>) {
    return
  }
}
