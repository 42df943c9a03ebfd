// RUN: pa-opt %s -split-input-file -pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},gpu.module(convert-scf-to-cf,convert-math-to-llvm,pa-convert-kernels-to-nvvm,reconcile-unrealized-casts))' | FileCheck %s
// RUN: pa-opt %s -split-input-file -pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},gpu.module(convert-scf-to-cf,convert-math-to-llvm,pa-convert-kernels-to-nvvm,reconcile-unrealized-casts))' | FileCheck %s --check-prefix=NOCALL

// Workgroup buffers become 16-byte aligned views of the dynamic shared
// memory, declared external (an internal [0 x i8] definition would let LLVM
// treat every access as out of bounds); exp2 stays LLVM's intrinsic (no
// __nv_exp2f); the kernel records its PTX parameters' meanings, the
// strides it reads at run time (out's rows: `strided<[?, 1]>`) and the
// dynamic shared memory a launch must pass (16 f32, then at 64: 3 f32).
// The kernel first waits for its stream predecessor, before any load
// (programmatic dependent launch); a kernel of many workgroups keeps its
// dependents until it completes.
// CHECK:       gpu.module @pa_kernels attributes {llvm.data_layout = "e-p6:32:32-i64:64
// CHECK:         llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL:   llvm.func @scaled_exp(
// CHECK-SAME:        %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64,
// CHECK-SAME:        nvvm.kernel
// CHECK-SAME:        nvvm.maxntid = array<i32: 128, 1, 1>
// CHECK-SAME:        pa.dynamic_strides = {out = array<i64: 0>}
// CHECK-SAME:        pa.nvvm.programmatic_launch
// CHECK-SAME:        pa.param_fields = ["cache.allocated_ptr", "cache.aligned_ptr", "cache.offset", "cache.size[0]", "cache.stride[0]", "out.allocated_ptr", "out.aligned_ptr", "out.offset", "out.size[0]", "out.size[1]", "out.stride[0]", "out.stride[1]"]
// CHECK-SAME:        pa.shared_bytes = 76 : i64
// CHECK-SAME:        pa.static_layouts = {out = strided<[?, 1]>}
// CHECK-NOT:       llvm.load
// CHECK:           llvm.inline_asm has_side_effects "griddepcontrol.wait;", "~{memory}"
// CHECK:           llvm.mlir.addressof @__dynamic_shmem__0 : !llvm.ptr<3>
// CHECK:           nvvm.read.ptx.sreg.tid.x
// CHECK:           nvvm.read.ptx.sreg.ctaid.x
// CHECK:           llvm.intr.exp2(%{{.*}}) : (f32) -> f32
// CHECK:           llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK:           llvm.return
// NOCALL-NOT:  llvm.call @
// NOCALL-NOT:  __nv_
gpu.module @pa_kernels {
  gpu.func @scaled_exp(%cache: memref<?xf32>,
                       %out: memref<4x?xf32, strided<[?, 1]>>)
      workgroup(%a : memref<16xf32, #gpu.address_space<workgroup>>,
                %b : memref<3xf32, #gpu.address_space<workgroup>>)
      kernel attributes {known_block_size = array<i32: 128, 1, 1>,
                         pa.arg_names = ["cache", "out"],
                         pa.grid = #pa.grid<x = 4, y = 1, z = 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %wg = gpu.block_id x
    %x = memref.load %cache[%wg] : memref<?xf32>
    %e = math.exp2 %x : f32
    memref.store %e, %a[%tid] : memref<16xf32, #gpu.address_space<workgroup>>
    memref.store %e, %b[%c0] : memref<3xf32, #gpu.address_space<workgroup>>
    %back = memref.load %a[%c0] : memref<16xf32, #gpu.address_space<workgroup>>
    memref.store %back, %out[%wg, %tid] : memref<4x?xf32, strided<[?, 1]>>
    gpu.return
  }
}

// -----

// A kernel of one workgroup (the plan) lets its dependents be dispatched
// right after its wait.
// CHECK-LABEL:   llvm.func @one_workgroup(
// CHECK-SAME:        pa.nvvm.programmatic_launch
// CHECK-NOT:       llvm.load
// CHECK:           llvm.inline_asm has_side_effects "griddepcontrol.wait;\0A\09griddepcontrol.launch_dependents;", "~{memory}"
// CHECK:           llvm.load
gpu.module @pa_kernels {
  gpu.func @one_workgroup(%in: memref<4xf32>, %out: memref<4xf32>)
      kernel attributes {known_block_size = array<i32: 128, 1, 1>,
                         pa.arg_names = ["in", "out"],
                         pa.grid = #pa.grid<x = 1, y = 1, z = 1>} {
    %c0 = arith.constant 0 : index
    %x = memref.load %in[%c0] : memref<4xf32>
    memref.store %x, %out[%c0] : memref<4xf32>
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

// -----

// Float maxima and minima become LLVM's intrinsics: the NVPTX backend
// selects one max.NaN.f32 / max.f32 each, where upstream's GPU patterns
// call libdevice (__nv_fmaxf) and arith-expand makes compares and selects.
// A signed ceiling division, which LLVM has no instruction for, is
// expanded in the conversion.
// CHECK-LABEL:   llvm.func @extrema(
// CHECK:           %[[MAXIMUM:.*]] = llvm.intr.maximum(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
// CHECK:           %[[MAXNUM:.*]] = llvm.intr.maxnum(%[[MAXIMUM]], %{{.*}}) : (f32, f32) -> f32
// CHECK:           %[[MINIMUM:.*]] = llvm.intr.minimum(%[[MAXNUM]], %{{.*}}) : (f32, f32) -> f32
// CHECK:           llvm.intr.minnum(%[[MINIMUM]], %{{.*}}) : (f32, f32) -> f32
// CHECK:           llvm.sdiv
// CHECK-NOT:       arith.ceildivsi
// CHECK:           llvm.return
gpu.module @pa_kernels {
  gpu.func @extrema(%in: memref<4xf32>, %out: memref<4xf32>,
                    %n: memref<2xi64>, %q: memref<1xi64>)
      kernel attributes {known_block_size = array<i32: 128, 1, 1>,
                         pa.arg_names = ["in", "out", "n", "q"],
                         pa.grid = #pa.grid<x = 1, y = 1, z = 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %x = memref.load %in[%c0] : memref<4xf32>
    %y = memref.load %in[%c1] : memref<4xf32>
    %a = arith.maximumf %x, %y : f32
    %b = arith.maxnumf %a, %y : f32
    %c = arith.minimumf %b, %x : f32
    %d = arith.minnumf %c, %y : f32
    memref.store %d, %out[%c0] : memref<4xf32>
    %i = memref.load %n[%c0] : memref<2xi64>
    %j = memref.load %n[%c1] : memref<2xi64>
    %k = arith.ceildivsi %i, %j : i64
    memref.store %k, %q[%c0] : memref<1xi64>
    gpu.return
  }
}
