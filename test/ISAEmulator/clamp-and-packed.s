// Integer clamp saturates (the plan kernel's usub.sat: windowed tile
// ranges went wrong when it wrapped), and a packed f32 operation reads only
// the dwords op_sel / op_sel_hi select (v5 is never written here; reading
// it would be reported).
// RUN: llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj %s -o %t.o
// RUN: ld.lld -shared %t.o -o %t.hsaco
// RUN: pa-isa-run %t.hsaco --kernel clamp_packed --block 64 --buffer out:768 \
// RUN:   --arg ptr:out --dump out:u32 | FileCheck %s

// out[0..63]: lane - 40 saturated at 0; out[64..127]: lane + 0xfffffff0
// saturated at 2^32 - 1; out[128..191]: float bits of 3.0 * lane (both halves
// of the pk_mul use v4 = 3.0 since op_sel_hi selects the low dword).
// CHECK: out: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 2 3
// CHECK-SAME: 4294967280 4294967281
// CHECK-SAME: 4294967294 4294967295 4294967295 4294967295
// CHECK-SAME: 0 1077936128 1086324736

  .text
  .globl clamp_packed
  .p2align 8
  .type clamp_packed,@function
clamp_packed:
  s_load_dwordx2 s[2:3], s[0:1], 0x0
  v_lshlrev_b32_e32 v1, 2, v0
  v_subrev_u32_e64 v2, 40, v0 clamp
  v_mov_b32_e32 v10, 0xfffffff0
  v_add_u32_e64 v3, v10, v0 clamp
  v_cvt_f32_u32_e32 v6, v0
  v_mov_b32_e32 v7, 0
  v_mov_b32_e32 v4, 0x40400000          // 3.0; v5 stays unwritten
  v_pk_mul_f32 v[8:9], v[6:7], v[4:5] op_sel_hi:[1,0]
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v2, s[2:3]
  global_store_dword v1, v3, s[2:3] offset:256
  global_store_dword v1, v8, s[2:3] offset:512
  s_endpgm
  .size clamp_packed, .-clamp_packed

  .rodata
  .p2align 6
  .amdhsa_kernel clamp_packed
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_next_free_vgpr 16
    .amdhsa_next_free_sgpr 16
    .amdhsa_accum_offset 16
    .amdhsa_kernarg_size 8
  .end_amdhsa_kernel
