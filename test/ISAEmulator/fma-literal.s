// v_fmamk_f32 (D = S0 * K + S1) and v_fmaak_f32 (D = S0 * S1 + K) with
// their 32-bit literal K: LLVM emits v_fmamk_f32 in the bf16 D = 192
// decode kernel of both chips (the matrix's bf16-d192 program failed to
// load before they had semantics).
// RUN: llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj %s -o %t.o
// RUN: ld.lld -shared %t.o -o %t.hsaco
// RUN: pa-isa-run %t.hsaco --kernel fma_literal --block 64 --buffer out:512 \
// RUN:   --arg ptr:out --dump out:f32 | FileCheck %s

// out[0..63] = lane * -12 + 1; out[64..127] = lane * 2 + 0.5.
// CHECK: out: 1 -11 -23 -35
// CHECK-SAME: -755{{ }}
// CHECK-SAME: 0.5 2.5 4.5 6.5
// CHECK-SAME: 126.5{{$}}

  .text
  .globl fma_literal
  .p2align 8
  .type fma_literal,@function
fma_literal:
  s_load_dwordx2 s[2:3], s[0:1], 0x0
  v_lshlrev_b32_e32 v1, 2, v0
  v_cvt_f32_u32_e32 v6, v0
  v_mov_b32_e32 v2, 1.0
  v_fmamk_f32 v2, v6, 0xc1400000, v2    // lane * -12.0 + 1.0
  v_mov_b32_e32 v7, 2.0
  v_fmaak_f32 v3, v6, v7, 0x3f000000    // lane * 2.0 + 0.5
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v2, s[2:3]
  global_store_dword v1, v3, s[2:3] offset:256
  s_endpgm
  .size fma_literal, .-fma_literal

  .rodata
  .p2align 6
  .amdhsa_kernel fma_literal
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_next_free_vgpr 8
    .amdhsa_next_free_sgpr 8
    .amdhsa_accum_offset 8
    .amdhsa_kernarg_size 8
  .end_amdhsa_kernel
