// RUN: pa-opt %s -pa-lower-tiled-to-host | FileCheck %s
// RUN: pa-opt %s -pa-lower-to-host | FileCheck %s
// RUN: not pa-opt %s -pa-lower-to-host=chip=gfx1100 2>&1 | FileCheck %s --check-prefix=UNKNOWN-CHIP
//
// The whole pipeline on the example, for every chip, and JIT compilation of
// the result by mlir-runner (what the host runtime does with the
// ExecutionEngine):
// RUN: pa-opt %pa_src_root/examples/decode-d256-fp8.mlir -pa-lower-to-host | FileCheck %s --check-prefix=EXAMPLE
// RUN: cat %pa_src_root/examples/decode-d256-fp8.mlir %S/Inputs/jit-entry.mlir \
// RUN: | pa-opt -pa-lower-to-host=chip=gfx950 \
// RUN: | mlir-runner -e jit_compiled -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN: | FileCheck %s --check-prefix=JIT
// RUN: sed -e 's/f8E4M3FN>/f8E4M3FNUZ>/g' %pa_src_root/examples/decode-d256-fp8.mlir \
// RUN: | cat - %S/Inputs/jit-entry.mlir | pa-opt -pa-lower-to-host=chip=gfx942 \
// RUN: | mlir-runner -e jit_compiled -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN: | FileCheck %s --check-prefix=JIT

// UNKNOWN-CHIP: error: pa-set-target: unknown chip 'gfx1100'; expected one of gfx942, gfx950, sm_90a

// EXAMPLE-NOT: {{[^.a-z_](func|scf|arith|memref|vector|gpu|math|cf|affine|index|ub|pa)\.}}
// EXAMPLE:     llvm.func @decode_d256_fp8(
// EXAMPLE:     llvm.func @_mlir_ciface_decode_d256_fp8(
// EXAMPLE-NOT: {{[^.a-z_](func|scf|arith|memref|vector|gpu|math|cf|affine|index|ub|pa)\.}}

// JIT: JIT-compiled

// The host pipeline leaves only the LLVM dialect: the kernel is a private
// function called in a loop over the grid; public functions (the entry points
// the user wrote) get C interfaces (`_mlir_ciface_<name>`, what the
// ExecutionEngine calls), private ones and declarations do not.

// CHECK-NOT:   {{[^.a-z_](func|scf|arith|memref|vector|gpu|math|cf|affine|index|ub)\.}}
// CHECK:       llvm.func @scale(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: f32, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64) attributes {sym_visibility = "private"} {
// CHECK:         llvm.alloca %{{.*}} x f32 {alignment = 64 : i64} : (i64) -> !llvm.ptr
// CHECK:       llvm.func @entry(%{{.*}}) attributes {llvm.emit_c_interface} {
// CHECK:         llvm.call @scale(
// CHECK:       llvm.func @_mlir_ciface_entry(%{{.*}}: !llvm.ptr, %{{.*}}: f32) attributes {llvm.emit_c_interface} {
// CHECK-NEXT:    llvm.load
// CHECK:         llvm.call @entry(
// CHECK:       llvm.func @helper() attributes {sym_visibility = "private"} {
// CHECK:       llvm.func @external() attributes {sym_visibility = "private"}
// CHECK-NOT:   _mlir_ciface
// CHECK-NOT:   {{[^.a-z_](func|scf|arith|memref|vector|gpu|math|cf|affine|index|ub)\.}}
module attributes {gpu.container_module} {
  gpu.module @pa_kernels {
    gpu.func @scale(%data: memref<?xf32>, %factor: f32)
        workgroup(%tmp: memref<16xf32, #gpu.address_space<workgroup>>) kernel {
      %x = gpu.block_id x
      %c0 = arith.constant 0 : index
      %v = memref.load %data[%x] : memref<?xf32>
      %s = arith.mulf %v, %factor : f32
      memref.store %s, %tmp[%c0] : memref<16xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %t = memref.load %tmp[%c0] : memref<16xf32, #gpu.address_space<workgroup>>
      %h = arith.truncf %t : f32 to bf16
      %back = arith.extf %h : bf16 to f32
      memref.store %back, %data[%x] : memref<?xf32>
      gpu.return
    }
  }
  func.func @entry(%data: memref<?xf32>, %factor: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %n = memref.dim %data, %c0 : memref<?xf32>
    gpu.launch_func @pa_kernels::@scale blocks in (%n, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%data : memref<?xf32>, %factor : f32)
    call @helper() : () -> ()
    return
  }
  func.func private @helper() {
    call @external() : () -> ()
    return
  }
  func.func private @external()
}
