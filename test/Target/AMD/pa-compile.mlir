// pa-compile turns both examples into one code object each (plan, decode
// and reduce kernels) with its JSON sidecar; no GPU and no ROCm involved.
//
// gfx950 (OCP fp8):
// RUN: pa-compile %pa_src_root/examples/decode-d256-fp8.mlir --chip=gfx950 -o %t-gfx950.hsaco
// RUN: llvm-readelf --notes %t-gfx950.hsaco | FileCheck %s --check-prefixes=NOTES,LDS-GFX950 -DCHIP=gfx950
// RUN: llvm-objdump -d --mcpu=gfx950 %t-gfx950.hsaco | FileCheck %s --check-prefix=DIS
// RUN: FileCheck %s --check-prefix=JSON -DCHIP=gfx950 --input-file=%t-gfx950.hsaco.json
// RUN: llvm-readelf -h %t-gfx950.hsaco | FileCheck %s --check-prefix=COV5
//
// gfx942 (f8E4M3FNUZ):
// RUN: pa-compile %pa_src_root/examples/decode-d256-fp8-gfx942.mlir --chip=gfx942 -o %t-gfx942.hsaco
// RUN: llvm-readelf --notes %t-gfx942.hsaco | FileCheck %s --check-prefixes=NOTES,LDS-GFX942 -DCHIP=gfx942
// RUN: llvm-objdump -d --mcpu=gfx942 %t-gfx942.hsaco | FileCheck %s --check-prefix=DIS
// RUN: FileCheck %s --check-prefix=JSON -DCHIP=gfx942 --input-file=%t-gfx942.hsaco.json
//
// The LLVM IR calls nothing outside the module; the ISA converts fp8 and
// computes exp2 with the chip's own instructions.
// RUN: pa-compile %pa_src_root/examples/decode-d256-fp8.mlir --chip=gfx950 --emit=llvm -o %t-gfx950.ll
// RUN: FileCheck %s --check-prefix=LLVM --input-file=%t-gfx950.ll
// RUN: FileCheck %s --check-prefix=NO-DEVICE-LIBS --input-file=%t-gfx950.ll
// RUN: pa-compile %pa_src_root/examples/decode-d256-fp8-gfx942.mlir --chip=gfx942 --emit=llvm | FileCheck %s --check-prefix=NO-DEVICE-LIBS
// RUN: pa-compile %pa_src_root/examples/decode-d256-fp8.mlir --chip=gfx950 --emit=isa | FileCheck %s --check-prefix=ISA
// RUN: pa-compile %pa_src_root/examples/decode-d256-fp8-gfx942.mlir --chip=gfx942 --emit=isa | FileCheck %s --check-prefix=ISA
//
// amdBackend().compile (the C API's single call) gives the same code object.
// RUN: pa-compile %pa_src_root/examples/decode-d256-fp8.mlir --chip=gfx950 --through-api -o %t-api.hsaco
// RUN: cmp %t-api.hsaco %t-gfx950.hsaco
// RUN: cmp %t-api.hsaco.json %t-gfx950.hsaco.json
//
// --emit=program: the AOT program directory the runtime library loads, the
// same code object and sidecar under a program.json manifest.
// RUN: rm -rf %t-gfx942.paprog
// RUN: pa-compile %pa_src_root/examples/decode-d256-fp8-gfx942.mlir --chip=gfx942 --emit=program -o %t-gfx942.paprog
// RUN: cmp %t-gfx942.paprog/kernels.hsaco %t-gfx942.hsaco
// RUN: cmp %t-gfx942.paprog/kernels.json %t-gfx942.hsaco.json
// RUN: FileCheck %s --check-prefix=PROGRAM --input-file=%t-gfx942.paprog/program.json
// RUN: pa-compile %pa_src_root/examples/decode-d256-fp8.mlir --chip=gfx950 --through-api --emit=program -o %t-api.paprog
// RUN: cmp %t-api.paprog/kernels.hsaco %t-gfx950.hsaco
//
// Code object v6 on request.
// RUN: pa-compile %pa_src_root/examples/decode-d256-fp8.mlir --chip=gfx950 --code-object-version=6 -o %t-v6.hsaco
// RUN: llvm-readelf -h %t-v6.hsaco | FileCheck %s --check-prefix=COV6
//
// --time-passes times LLVM's optimizer passes as well as code generation's
// (bench/compile_time.sh reads them), and leaves the code object as it is.
// RUN: pa-compile %pa_src_root/examples/decode-d256-fp8.mlir --chip=gfx950 --time-passes -o %t-timed.hsaco 2> %t-passes.txt
// RUN: FileCheck %s --check-prefix=TIME-PASSES --input-file=%t-passes.txt
// RUN: cmp %t-timed.hsaco %t-gfx950.hsaco

// PROGRAM:      "format": "pa-mlir-program",
// PROGRAM-NEXT: "version": 4,
// PROGRAM-NEXT: "chip": "gfx942",
// PROGRAM-NEXT: "code_format": "hsaco",
// PROGRAM-NEXT: "code_object": "kernels.hsaco",
// PROGRAM-NEXT: "code_object_bytes": {{[1-9][0-9]+}},
// PROGRAM-NEXT: "metadata": "kernels.json"
// PROGRAM-NEXT: }

// Per kernel: no scratch; LDS within the chip (<= 65536 bytes on gfx942,
// <= 163840 on gfx950); wave64; the known workgroup size.
// NOTES:        NT_AMDGPU_METADATA
// NOTES:        amdhsa.kernels:
// NOTES:          .group_segment_fixed_size: 0
// NOTES:          .max_flat_workgroup_size: 256
// NOTES-NEXT:     .name: pa_plan
// NOTES-NEXT:     .private_segment_fixed_size: 0
// NOTES-NEXT:     .reqd_workgroup_size:
// NOTES-NEXT:       - 256
// NOTES:          .symbol: pa_plan.kd
// NOTES:          .wavefront_size: 64
// LDS-GFX942:     .group_segment_fixed_size: {{([0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-6])$}}
// LDS-GFX950:     .group_segment_fixed_size: {{([0-9]{1,5}|1[0-5][0-9]{4}|16[0-2][0-9]{3}|163[0-7][0-9]{2}|1638[0-3][0-9]|163840)$}}
// NOTES:          .max_flat_workgroup_size: 256
// NOTES-NEXT:     .name: pa_decode
// NOTES-NEXT:     .private_segment_fixed_size: 0
// NOTES:          .symbol: pa_decode.kd
// NOTES:          .wavefront_size: 64
// LDS-GFX942:     .group_segment_fixed_size: {{([0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-6])$}}
// LDS-GFX950:     .group_segment_fixed_size: {{([0-9]{1,5}|1[0-5][0-9]{4}|16[0-2][0-9]{3}|163[0-7][0-9]{2}|1638[0-3][0-9]|163840)$}}
// NOTES:          .max_flat_workgroup_size: 256
// NOTES-NEXT:     .name: pa_reduce
// NOTES-NEXT:     .private_segment_fixed_size: 0
// NOTES:          .symbol: pa_reduce.kd
// NOTES:          .wavefront_size: 64
// NOTES:        amdhsa.target: amdgcn-amd-amdhsa--[[CHIP]]

// DIS:          <pa_plan>:
// DIS:            s_endpgm
// DIS:          <pa_decode>:
// DIS:            s_endpgm
// DIS:          <pa_reduce>:
// DIS:            s_endpgm

// COV5: ABI Version: 3
// COV6: ABI Version: 4

// The sidecar: one object per kernel with its launch shape, resources and
// each kernarg mapped back to the pa op operand it carries.
// JSON:      "target": "amdgcn-amd-amdhsa--[[CHIP]]",
// JSON:      "kernels": [
// JSON:          "name": "pa_plan",
// JSON-NEXT:     "symbol": "pa_plan.kd",
// JSON-NEXT:     "grid": "x = 1, y = 1, z = 1",
// JSON-NEXT:     "workgroup_size": [
// JSON-NEXT:       256,
// JSON-NEXT:       1,
// JSON-NEXT:       1
// JSON-NEXT:     ],
// JSON-NEXT:     "max_flat_workgroup_size": 256,
// JSON-NEXT:     "wavefront_size": 64,
// JSON-NEXT:     "lds_bytes": 0,
// JSON-NEXT:     "scratch_bytes": 0,
// JSON-NEXT:     "vgpr_count": {{[0-9]+}},
// JSON-NEXT:     "agpr_count": {{[0-9]+}},
// JSON-NEXT:     "sgpr_count": {{[0-9]+}},
// JSON-NEXT:     "vgpr_spill_count": 0,
// JSON-NEXT:     "sgpr_spill_count": 0,
// JSON-NEXT:     "kernarg_segment_size": {{[0-9]+}},
// JSON-NEXT:     "kernarg_segment_align": 8,
// JSON-NEXT:     "dynamic_strides": {},
// JSON-NEXT:     "static_strides": {},
// JSON-NEXT:     "static_offsets": {},
// The sizes each memref argument's type fixes (the plan's work_info
// [?, 4] and reduce_info [?, 2]), which a launcher compares a view with.
// JSON-NEXT:     "static_sizes": {
// JSON-NEXT:       "reduce_info": {
// JSON-NEXT:         "1": 2
// JSON-NEXT:       },
// JSON-NEXT:       "work_info": {
// JSON-NEXT:         "1": 4
// JSON-NEXT:       }
// JSON-NEXT:     },
// The limits the plan kernel plans with (the chip's defaults here: two
// workgroups per CU, as many partitions as CUs), which a launcher checks the
// workspace's capacity against.
// JSON-NEXT:     "plan_limits": {
// JSON-NEXT:       "budget": [[BUDGET:[0-9]+]],
// JSON-NEXT:       "max_partitions": [[CUS:[0-9]+]],
// JSON-NEXT:       "kv_heads": 2
// JSON-NEXT:     },
// JSON-NEXT:     "args": [
// JSON-NEXT:       {
// JSON-NEXT:         "offset": 0,
// JSON-NEXT:         "size": 8,
// JSON-NEXT:         "value_kind": "global_buffer",
// JSON-NEXT:         "address_space": "generic",
// JSON-NEXT:         "meaning": "context_lengths.allocated_ptr"
// JSON:              "meaning": "context_lengths.aligned_ptr"
// JSON:              "value_kind": "by_value",
// JSON-NEXT:         "meaning": "context_lengths.offset"
// JSON:              "meaning": "work_info.size[1]"
// JSON:              "meaning": "reduce_info.stride[1]"
// JSON:          "name": "pa_decode",
// JSON-NEXT:     "symbol": "pa_decode.kd",
// JSON-NEXT:     "grid": "x = work_info dim 0, y = 2, z = 1",
// JSON:          "lds_bytes": {{[1-9][0-9]*}},
// JSON-NEXT:     "scratch_bytes": 0,
// The example's query and caches are row-major memrefs: the kernels read
// no stride at run time.
// JSON:          "dynamic_strides": {},
// The packed key cache [?, Hkv = 2, D/x = 16, P = 16, x = 16]: every size
// but N is compiled in.
// JSON:          "static_sizes": {
// JSON:            "key_cache": {
// JSON-NEXT:         "1": 2,
// JSON-NEXT:         "2": 16,
// JSON-NEXT:         "3": 16,
// JSON-NEXT:         "4": 16
// JSON-NEXT:       },
// JSON:              "meaning": "query.allocated_ptr"
// JSON:              "meaning": "key_cache.size[4]"
// JSON:              "meaning": "value_cache.stride[4]"
// JSON:              "meaning": "block_tables.aligned_ptr"
// JSON:              "meaning": "context_lengths.aligned_ptr"
// JSON:              "meaning": "k_scale.aligned_ptr"
// JSON:              "meaning": "v_scale.aligned_ptr"
// JSON:              "meaning": "work_info.aligned_ptr"
// JSON:              "meaning": "exp_sums.aligned_ptr"
// JSON:              "meaning": "max_logits.aligned_ptr"
// JSON:              "meaning": "tmp_out.stride[3]"
// JSON:          "name": "pa_reduce",
// JSON-NEXT:     "symbol": "pa_reduce.kd",
// JSON-NEXT:     "grid": "x = reduce_info dim 0, y = 2, z = 1",
// JSON:          "scratch_bytes": 0,
// JSON:              "meaning": "exp_sums.allocated_ptr"
// JSON:              "meaning": "reduce_info.aligned_ptr"
// JSON:              "meaning": "sinks.aligned_ptr"
// JSON:              "meaning": "output.stride[2]"

// NO-DEVICE-LIBS-NOT: __ocml
// NO-DEVICE-LIBS-NOT: __ockl

// LLVM:         target triple = "amdgcn-amd-amdhsa"
// LLVM:         define amdgpu_kernel void @pa_plan(
// LLVM:         define amdgpu_kernel void @pa_decode(
// LLVM:         llvm.exp2.f32
// LLVM:         define amdgpu_kernel void @pa_reduce(
// Only intrinsics are declared (anything else would be an unresolved call).
// LLVM-NOT:     {{^declare .*@([^l]|l[^l]|ll[^v]|llv[^m]|llvm[^.])}}
// LLVM:         !{i32 1, !"amdhsa_code_object_version", i32 500}

// ISA:          .amdgcn_target "amdgcn-amd-amdhsa--gfx9{{42|50}}"
// ISA:          pa_decode:
// ISA:            v_cvt_pk_fp8_f32
// ISA:            v_mfma_f32_16x16x32_fp8_fp8
// ISA:            v_exp_f32
// ISA:          .end_amdgpu_metadata

// TIME-PASSES:     Pass execution timing report
// TIME-PASSES-DAG: InstCombinePass
// TIME-PASSES-DAG: GVNPass
// TIME-PASSES-DAG: Machine Instruction Scheduler
// TIME-PASSES-DAG: AMDGPU DAG->DAG Pattern Instruction Selection
