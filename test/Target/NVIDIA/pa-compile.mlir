// pa-compile --chip=sm_90a: PTX and its launch metadata, in process.
// RUN: pa-compile %pa_src_root/examples/decode-d256-fp8.mlir --chip=sm_90a -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: FileCheck %s --check-prefix=JSON < %t.ptx.json
// RUN: FileCheck %s --check-prefix=NOL1 < %t.ptx
// RUN: FileCheck %s --check-prefix=EXTREMA < %t.ptx
// RUN: pa-compile %pa_src_root/examples/decode-d256-fp8.mlir --chip=sm_90a --emit=llvm -o - | FileCheck %s --check-prefix=NONTEMPORAL
// RUN: pa-compile %pa_src_root/examples/decode-d256-fp8.mlir --chip=sm_90a --through-api -o %t.api.ptx
// RUN: cmp %t.ptx %t.api.ptx
// RUN: pa-compile %pa_src_root/examples/decode-d256-fp8.mlir --chip=sm_90a --emit=llvm -o - | FileCheck %s --check-prefix=LLVM
// RUN: pa-compile %pa_src_root/examples/decode-d256-fp8.mlir --chip=sm_90a --emit=mlir -o - | FileCheck %s --check-prefix=MLIR
// RUN: not pa-compile %pa_src_root/examples/decode-d256-fp8.mlir --chip=sm_90a --format=sass -o %t.x 2>&1 | FileCheck %s --check-prefix=FORMAT
// Backend::compile's errors are text, in the same form for both vendors.
// RUN: not pa-compile %pa_src_root/examples/decode-d256-fp8-gfx942.mlir --chip=sm_90a --through-api -o %t.x 2>&1 | FileCheck %s --check-prefix=API-ERROR
// The AOT program directory: the same PTX and sidecar under program.json.
// RUN: rm -rf %t.paprog
// RUN: pa-compile %pa_src_root/examples/decode-d256-fp8.mlir --chip=sm_90a --emit=program -o %t.paprog
// RUN: cmp %t.paprog/kernels.ptx %t.ptx
// RUN: cmp %t.paprog/kernels.json %t.ptx.json
// RUN: FileCheck %s --check-prefix=PROGRAM < %t.paprog/program.json

// PROGRAM:      "format": "pa-mlir-program",
// PROGRAM-NEXT: "version": 4,
// PROGRAM-NEXT: "chip": "sm_90a",
// PROGRAM-NEXT: "code_format": "ptx",
// PROGRAM-NEXT: "code_object": "kernels.ptx",

// PTX:      .version 8.5
// PTX:      .target sm_90a
// PTX:      .address_size 64
// PTX:      .extern .shared .align 16 .b8 __dynamic_shmem__0[];
// Each kernel waits for its stream predecessor before its first global
// load (programmatic dependent launch); only the one-workgroup plan
// releases its dependents (the decode) at once.
// PTX:      .visible .entry pa_plan(
// PTX-NOT:  ld.global
// PTX:      griddepcontrol.wait;
// PTX-NEXT: griddepcontrol.launch_dependents;
// PTX:      .visible .entry pa_decode(
// PTX:      .maxntid 128, 1, 1
// Two workgroups per SM, as the decode is built for: ptxas may then use up
// to 255 registers (without it, it capped some at 168 for three).
// PTX-NEXT: .minnctapersm 2
// PTX-NOT:  ld.global
// PTX:      griddepcontrol.wait;
// PTX-NOT:  griddepcontrol.launch_dependents
// PTX:      mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX-NOT:  griddepcontrol.launch_dependents
// PTX:      .visible .entry pa_reduce(
// PTX-NOT:  ld.global
// PTX:      griddepcontrol.wait;
// PTX-NOT:  griddepcontrol.launch_dependents
// PTX-NOT:  .func

// Float maxima are one instruction each (LLVM's intrinsics, not
// arith-expand's compares and selects): the decode's softmax maxima drop NaN
// (max.f32; a NaN score still reaches its row's sum), the NaN-propagating
// ones are max.NaN.f32; the softmax weights are one ex2.approx.ftz.f32 each.
// EXTREMA:      .visible .entry pa_decode(
// EXTREMA:      max.f32
// EXTREMA:      ex2.approx.ftz.f32
// EXTREMA:      .visible .entry pa_reduce(
// EXTREMA:      max.NaN.f32

// The packed caches' K / V chunks are bytes the decode reads once:
// pa-to-nvvm marks their loads nontemporal and the target loads them without
// L1 lines (lib/Target/NVIDIA/NontemporalLoads.cpp), the constant part of
// the address in the instruction (`+128`), as the backend's own loads have
// it. The reduce's loads stay as they were.
// NONTEMPORAL: define ptx_kernel void @pa_decode(
// NONTEMPORAL: load <{{[0-9]+}} x {{[a-z0-9]+}}>, ptr %{{[^,]+}}, align 16, !nontemporal
// NONTEMPORAL: define ptx_kernel void @pa_reduce(
// NONTEMPORAL-NOT: !nontemporal
// NOL1-LABEL: .visible .entry pa_decode(
// NOL1:       ld.global.L1::no_allocate.v4.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [%rd{{[0-9]+}}];
// NOL1:       ld.global.L1::no_allocate.v4.b32 {{.*}}, [%rd{{[0-9]+}}+128];
// NOL1-LABEL: .visible .entry pa_reduce(
// NOL1-NOT:   no_allocate

// The kernels in launch order, each with what a launcher passes.
// JSON:      "target": "sm_90a",
// JSON:      "triple": "nvptx64-nvidia-cuda",
// JSON:      "ptx_version": "8.5",
// JSON:      "format": "ptx",
// JSON:      "name": "pa_plan",
// JSON:      "grid": "x = 1, y = 1, z = 1",
// JSON:      "distribution": "threads",
// JSON:      "block_size": [
// JSON-NEXT:   128,
// JSON:      "programmatic_launch": true,
// The plan's limits (the table's or the chip's), which the launcher checks
// the workspace's capacity against (the decode and reduce have none).
// JSON:      "plan_limits": {
// JSON-NEXT:   "budget": 264,
// JSON-NEXT:   "max_partitions": 132,
// JSON-NEXT:   "kv_heads": 2
// JSON:      "name": "pa_decode",
// JSON:      "grid": "x = work_info dim 0, y = 2, z = 1",
// JSON:      "distribution": "warps",
// JSON:      "programmatic_launch": true,
// The example's query and caches are row-major memrefs: no stride is read
// at run time.
// JSON-NEXT: "dynamic_strides": {},
// The widest access at one address of each operand, which a launcher
// checks views against: 16-byte K / V chunks, work_info rows and tmp_out
// items; 4 bf16 output columns; the query element by element.
// JSON:      "alignments": {
// JSON:        "key_cache": {
// JSON-NEXT:     "bytes": 16,
// JSON-NEXT:     "element_bytes": 1
// JSON:        "output": {
// JSON-NEXT:     "bytes": 8,
// JSON-NEXT:     "element_bytes": 2
// JSON:        "query": {
// JSON-NEXT:     "bytes": 2,
// JSON-NEXT:     "element_bytes": 2
// JSON:        "tmp_out": {
// JSON-NEXT:     "bytes": 16,
// JSON-NEXT:     "element_bytes": 4
// JSON:        "value_cache": {
// JSON-NEXT:     "bytes": 16,
// JSON-NEXT:     "element_bytes": 1
// JSON:        "work_info": {
// JSON-NEXT:     "bytes": 16,
// JSON-NEXT:     "element_bytes": 4
// JSON:      "meaning": "query.allocated_ptr"
// JSON:      "offset": 8,
// JSON-NEXT: "size": 8,
// JSON-NEXT: "meaning": "query.aligned_ptr"
// JSON:      "meaning": "key_cache.size[2]"
// JSON:      "meaning": "tmp_out.stride[3]"
// Then the reduce's reduce_info and output (pa-nvvm-single-partition-
// output: the decode writes the output of a sequence of one partition).
// JSON-NEXT: },
// JSON-NEXT: {
// JSON-NEXT:   "offset": 808,
// JSON-NEXT:   "size": 8,
// JSON-NEXT:   "meaning": "reduce_info.allocated_ptr"
// JSON:      "meaning": "output.stride[2]"
// JSON:      "param_bytes": 976
// JSON:      "name": "pa_reduce",
// The reduce in 4 slices of its 16 rows (ReduceToWarps.cpp) on grid z where
// the launch has at most 66 workgroups x * y (2 per SM of 132 at 4 slices),
// else in 2 (the fewest that keep a thread to one pass).
// JSON:      "grid": "x = reduce_info dim 0, y = 2, z = 4 if x * y le 66 else 2",
// JSON:      "distribution": "warps",
// JSON:      "programmatic_launch": true,

// LLVM: target triple = "nvptx64-nvidia-cuda"
// LLVM: @__dynamic_shmem__0 = external
// LLVM: define ptx_kernel void @pa_decode(
// LLVM: call { float, float, float, float } @llvm.nvvm.mma.m16n8k16.row.col.f32.f32(
// LLVM-NOT: declare {{.*}} @__nv_

// The host function keeps its launches; the kernels are LLVM / NVVM.
// MLIR: gpu.launch_func  @pa_kernels::@pa_plan
// MLIR: gpu.launch_func  @pa_kernels::@pa_decode
// MLIR: gpu.launch_func  @pa_kernels::@pa_reduce
// MLIR: gpu.module @pa_kernels
// MLIR: llvm.func @pa_decode(
// MLIR-SAME: pa.distribution = #pa.distribution<warps>

// FORMAT: pa-compile: --format must be ptx or cubin, got 'sass'
// API-ERROR: decode-d256-fp8-gfx942.mlir:27:3: error: 'pa.decode' op chip sm_90a takes f8E4M3FN fp8 KV caches, got 'f8E4M3FNUZ'
