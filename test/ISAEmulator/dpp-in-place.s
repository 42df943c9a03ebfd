// A DPP instruction reads every lane's source before any lane writes:
// `v_add_f32_dpp v1, v1, v1 quad_perm:[1,0,3,2]` sums lane pairs in place
// (pa-to-mfma's DPP row sums do), so lanes 2k and 2k + 1 both hold
// 2k + (2k + 1). An executor that wrote lane 2k before lane 2k + 1 read it
// gave lane 2k + 1 the sum twice (4k + 2 + 2k + 1); maxima (the same
// instruction with v_max_f32) hid it, as max(x, max(x, y)) = max(x, y).
// The second pass (row_half_mirror, lane i and 7 - i within 8) pairs the
// pair sums of each group of 8 into its sum, 4 (16k + 7)... for k = 0: 28.
// RUN: llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj %s -o %t.o
// RUN: ld.lld -shared %t.o -o %t.hsaco
// RUN: pa-isa-run %t.hsaco --kernel dpp_in_place --block 64 --buffer out:512 \
// RUN:   --arg ptr:out --dump out:f32 | FileCheck %s

// out[0..63]: pair sums (lane 2k and 2k + 1: 4k + 1); out[64..127]: the
// sums of each aligned group of 8 lanes (8 lanes from 8g: 64g + 28).
// CHECK: out: 1 1 5 5 9 9 13 13 17 17
// CHECK-SAME: 28 28 28 28 28 28 28 28 92 92 92 92 92 92 92 92 156

  .text
  .globl dpp_in_place
  .p2align 8
  .type dpp_in_place,@function
dpp_in_place:
  s_load_dwordx2 s[2:3], s[0:1], 0x0
  v_lshlrev_b32_e32 v2, 2, v0
  v_cvt_f32_u32_e32 v1, v0
  s_nop 1
  v_add_f32_dpp v1, v1, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
  v_mov_b32_e32 v3, v1
  s_nop 1
  v_add_f32_dpp v3, v3, v3 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1
  s_nop 1
  v_add_f32_dpp v3, v3, v3 row_half_mirror row_mask:0xf bank_mask:0xf bound_ctrl:1
  s_waitcnt lgkmcnt(0)
  global_store_dword v2, v1, s[2:3]
  global_store_dword v2, v3, s[2:3] offset:256
  s_endpgm
  .size dpp_in_place, .-dpp_in_place

  .rodata
  .p2align 6
  .amdhsa_kernel dpp_in_place
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_next_free_vgpr 8
    .amdhsa_next_free_sgpr 8
    .amdhsa_accum_offset 8
    .amdhsa_kernarg_size 8
  .end_amdhsa_kernel
