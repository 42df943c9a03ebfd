// RUN: pa-opt %pa_src_root/examples/decode-d256-fp8.mlir -pa-lower-to-rocdl="chip=gfx950" | FileCheck %s
// RUN: pa-opt %pa_src_root/examples/decode-d256-fp8-gfx942.mlir -pa-lower-to-rocdl="chip=gfx942" | FileCheck %s --check-prefix=GFX942

// The host function keeps its three launches; the kernels are LLVM/ROCDL
// functions that remember the pa operand behind each argument and their grid.
// CHECK-LABEL: func.func @decode_d256_fp8
// CHECK:         gpu.launch_func @pa_kernels::@pa_plan
// CHECK:         gpu.launch_func @pa_kernels::@pa_decode
// CHECK:         gpu.launch_func @pa_kernels::@pa_reduce
// CHECK:       gpu.module @pa_kernels attributes {llvm.data_layout =
// CHECK-NOT:     gpu.func
// CHECK:         llvm.func @pa_plan(
// CHECK-SAME:        pa.arg_names = ["context_lengths", "work_info", "reduce_info"], pa.dynamic_strides = {}, pa.grid = #pa.grid<x = 1, y = 1, z = 1>
// CHECK-SAME:        rocdl.kernel
// Lane 0 runs the workgroup program.
// CHECK:           rocdl.workitem.id.x
// CHECK:           llvm.icmp "eq"
// CHECK:         llvm.mlir.global internal @__wg_pa_decode_{{[0-9]+}}() {addr_space = 3 : i32}
// CHECK:         llvm.func @pa_decode(
// CHECK-SAME:        pa.arg_names = ["query", "key_cache", "value_cache", "block_tables", "context_lengths", "k_scale", "v_scale", "work_info", "exp_sums", "max_logits", "tmp_out"], pa.dynamic_strides = {}, pa.grid = #pa.grid<x = work_info dim 0, y = 2, z = 1>
// CHECK-SAME:        rocdl.kernel
// CHECK:           rocdl.cvt.pk.fp8.f32
// CHECK:           rocdl.mfma.f32.16x16x32.fp8.fp8
// CHECK:           llvm.intr.exp2
// CHECK:         llvm.func @pa_reduce(
// CHECK-SAME:        pa.arg_names = ["exp_sums", "max_logits", "tmp_out", "reduce_info", "sinks", "output"], pa.dynamic_strides = {}, pa.grid = #pa.grid<x = reduce_info dim 0, y = 2, z = 1>
// CHECK-SAME:        rocdl.kernel
// Nothing but LLVM and ROCDL is left in the kernels.
// CHECK-NOT:     {{(scf|memref|arith|math|vector|gpu|amdgpu|cf|pa)\.[a-z_]+ }}
// CHECK-NOT:     llvm.call

// The staged page ids shrink to 2048 on gfx942 so that the MFMA decode
// kernel stays within 32 KiB of LDS (two workgroups per CU).
// GFX942:        llvm.mlir.global internal @__wg_pa_decode_{{[0-9]+}}() {addr_space = 3 : i32} : !llvm.array<2048 x i32>
// GFX942:        llvm.func @pa_decode(
// GFX942:          rocdl.mfma.f32.16x16x32.fp8.fp8
