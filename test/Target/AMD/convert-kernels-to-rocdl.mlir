// RUN: pa-opt %s -split-input-file -pass-pipeline='builtin.module(pa-set-target{chip=gfx950},gpu.module(convert-scf-to-cf,convert-math-to-llvm,pa-convert-kernels-to-rocdl,reconcile-unrealized-casts))' | FileCheck %s
// RUN: pa-opt %s -split-input-file -pass-pipeline='builtin.module(pa-set-target{chip=gfx950},gpu.module(convert-scf-to-cf,convert-math-to-llvm,pa-convert-kernels-to-rocdl,reconcile-unrealized-casts))' | FileCheck %s --check-prefix=NOCALL

// A workgroup program on lane 0: workgroup memory becomes an LDS global
// (address space 3), exp2 stays LLVM's intrinsic (no __ocml_exp2_f32), the
// OCP fp8 load is converted by the gfx950 instruction, and the kernel
// records what each of its LLVM-level arguments means and which strides it
// reads at run time (out's rows: `strided<[?, 1]>`; cache's is fixed).
// CHECK:       gpu.module @pa_kernels attributes {llvm.data_layout = "e-m:e-p:64:64-p1:64:64-p2:32:32-p3:32:32
// CHECK:         llvm.mlir.global internal @__wg_softmax_0() {addr_space = 3 : i32} : !llvm.array<16 x f32>
// CHECK-LABEL:   llvm.func @softmax(
// CHECK-SAME:        %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64,
// CHECK-SAME:        pa.arg_names = ["cache", "out"]
// CHECK-SAME:        pa.dynamic_strides = {out = array<i64: 0>}
// CHECK-SAME:        pa.grid = #pa.grid<x = 4, y = 1, z = 1>
// CHECK-SAME:        pa.kernarg_fields = ["cache.allocated_ptr", "cache.aligned_ptr", "cache.offset", "cache.size[0]", "cache.stride[0]", "out.allocated_ptr", "out.aligned_ptr", "out.offset", "out.size[0]", "out.size[1]", "out.stride[0]", "out.stride[1]"]
// CHECK-SAME:        pa.static_layouts = {out = strided<[?, 1]>}
// CHECK-SAME:        rocdl.flat_work_group_size = "256,256"
// CHECK-SAME:        rocdl.kernel
// CHECK-SAME:        rocdl.reqd_work_group_size = array<i32: 256, 1, 1>
// CHECK:           llvm.mlir.addressof @__wg_softmax_0 : !llvm.ptr<3>
// CHECK:           rocdl.workitem.id.x
// CHECK:           rocdl.workgroup.id.x
// CHECK:           rocdl.cvt.f32.fp8
// CHECK:           llvm.intr.exp2(%{{.*}}) : (f32) -> f32
// CHECK:           llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK:           llvm.return
// NOCALL-NOT:  llvm.call
// NOCALL-NOT:  __ocml
// NOCALL-NOT:  __ockl
gpu.module @pa_kernels {
  gpu.func @softmax(%cache: memref<?xf8E4M3FN>,
                    %out: memref<4x?xf32, strided<[?, 1]>>)
      workgroup(%lds : memref<16xf32, #gpu.address_space<workgroup>>)
      kernel attributes {known_block_size = array<i32: 256, 1, 1>,
                         pa.arg_names = ["cache", "out"],
                         pa.grid = #pa.grid<x = 4, y = 1, z = 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %lane0 = arith.cmpi eq, %tid, %c0 : index
    scf.if %lane0 {
      %wg = gpu.block_id x
      %dim = gpu.block_dim x
      %raw = memref.load %cache[%wg] : memref<?xf8E4M3FN>
      %x = arith.extf %raw : f8E4M3FN to f32
      %e = math.exp2 %x : f32
      memref.store %e, %lds[%c0] : memref<16xf32, #gpu.address_space<workgroup>>
      %back = memref.load %lds[%c0] : memref<16xf32, #gpu.address_space<workgroup>>
      memref.store %back, %out[%wg, %dim] : memref<4x?xf32, strided<[?, 1]>>
    }
    gpu.return
  }
}

// -----

// A layout that fixes strides other than the row-major ones (rows padded
// to 768) and an offset: the kernel reads neither from its descriptor, so
// it records them (pa.static_layouts, the sidecar's "static_strides" and
// "static_offsets") for the launcher to compare a view with. An identity
// layout (row-major by definition) is not recorded.
// CHECK-LABEL:   llvm.func @padded(
// CHECK-SAME:        pa.dynamic_strides = {}
// CHECK-SAME:        pa.static_layouts = {query = strided<[768, 64, 1], offset: 5>}
gpu.module @pa_kernels {
  gpu.func @padded(%query: memref<2x4x64xf32, strided<[768, 64, 1], offset: 5>>,
                   %out: memref<2x4xf32>)
      kernel attributes {known_block_size = array<i32: 64, 1, 1>,
                         pa.arg_names = ["query", "out"],
                         pa.grid = #pa.grid<x = 1, y = 1, z = 1>} {
    %c0 = arith.constant 0 : index
    %x = memref.load %query[%c0, %c0, %c0] : memref<2x4x64xf32, strided<[768, 64, 1], offset: 5>>
    memref.store %x, %out[%c0, %c0] : memref<2x4xf32>
    gpu.return
  }
}
