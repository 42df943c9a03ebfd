// Scalar and vector ALU, the kernarg segment, workgroup and work-item ids,
// global stores: out[wg * 64 + lane] = (lane * 3 + k) ^ wg, plus a scalar sum.
// RUN: llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj %s -o %t.o
// RUN: ld.lld -shared %t.o -o %t.hsaco
// RUN: pa-isa-run %t.hsaco --list | FileCheck %s --check-prefix=LIST
// RUN: pa-isa-run %t.hsaco --kernel simple --grid 2 --block 64 \
// RUN:   --buffer out:512 --arg ptr:out --arg u32:7 --dump out:u32 --stats | FileCheck %s --check-prefixes=CHECK,STATS
// RUN: llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx950 -filetype=obj %s -o %t950.o
// RUN: ld.lld -shared %t950.o -o %t950.hsaco
// RUN: pa-isa-run %t950.hsaco --kernel simple --grid 2 --block 64 \
// RUN:   --buffer out:512 --arg ptr:out --arg u32:7 --dump out:u32 | FileCheck %s

// LIST: gfx942 simple: {{[0-9]+}} instructions, LDS 0 B, kernarg 16 B

// lane l of workgroup 0: 3 l + 7; workgroup 1: (3 l + 7) ^ 1
// CHECK: out: 7 10 13 16 19 22
// CHECK-SAME: 190 193 196 6 11 12 17 18
// STATS: stats: {{[0-9]+}} wave instructions (salu 2, smem 4, valu 14,

  .text
  .globl simple
  .p2align 8
  .type simple,@function
simple:
  s_load_dwordx2 s[0:1], s[2:3], 0x0      // out (s[0:1]: dispatch ptr)
  s_load_dword s2, s[2:3], 0x8            // k
  v_mul_u32_u24_e32 v1, 3, v0
  s_waitcnt lgkmcnt(0)
  v_add_u32_e32 v1, s2, v1
  v_xor_b32_e32 v1, s4, v1                // ^ workgroup id x
  s_lshl_b32 s3, s4, 6                    // wg * 64
  v_add_u32_e32 v2, s3, v0
  v_lshlrev_b32_e32 v2, 2, v2
  v_mov_b32_e32 v3, 0
  v_lshl_add_u64 v[4:5], s[0:1], 0, v[2:3]
  global_store_dword v[4:5], v1, off
  s_endpgm
  .size simple, .-simple

  .rodata
  .p2align 6
  .amdhsa_kernel simple
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_user_sgpr_dispatch_ptr 1
    .amdhsa_system_sgpr_workgroup_id_x 1
    .amdhsa_next_free_vgpr 8
    .amdhsa_next_free_sgpr 16
    .amdhsa_accum_offset 8
    .amdhsa_kernarg_size 16
  .end_amdhsa_kernel
