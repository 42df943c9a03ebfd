// An in-place DPP instruction checks its sources' never-written bits as
// they were before any lane of the instruction wrote: the values are
// copied first (dpp-in-place.s), and the written bits must be too.
// - shr_unwritten: v1 written in lanes 1..63 only; `v_mov_b32_dpp v1, v1
//   row_shr:1 bound_ctrl:1`: lane 0 (no source in its row) writes 0 to
//   v1[0], then lane 1 reads lane 0's v1 as it was before the
//   instruction, never written: fails. An executor that checked the live
//   written bit saw lane 0's new write and let lane 1 read it.
// - shr_ror_defined: v1 = v3 = lane in every lane; in place, row_shr:1
//   (lane i of a row reads lane i - 1, lane 0 of a row gets 0) and
//   row_ror:1 (lane i of a row reads lane (i - 1) mod 16): out[0..63] =
//   0 0 1 2 ... 14 0 16 17 ..., out[64..127] = 15 0 1 ... 14 31 16 ...
// RUN: llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj %s -o %t.o
// RUN: ld.lld -shared %t.o -o %t.hsaco
// RUN: not pa-isa-run %t.hsaco --kernel shr_unwritten --block 64 \
// RUN:   --buffer out:512 --arg ptr:out 2>&1 | FileCheck %s --check-prefix=UNWRITTEN
// RUN: pa-isa-run %t.hsaco --kernel shr_ror_defined --block 64 \
// RUN:   --buffer out:512 --arg ptr:out --dump out:u32 | FileCheck %s --check-prefix=DEFINED

// UNWRITTEN: error: shr_unwritten +0x{{[0-9a-f]+}} 'v_mov_b32_dpp v1, v1 row_shr:1 {{.*}}' {{.*}}: lane 0: reads v1, which this lane never wrote
// DEFINED: out: 0 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 0 32
// DEFINED-SAME: 62 15 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 31 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 47 32

  .text
  .globl shr_unwritten
  .p2align 8
  .type shr_unwritten,@function
shr_unwritten:
  s_load_dwordx2 s[2:3], s[0:1], 0x0
  s_mov_b64 exec, -2                      // lanes 1..63
  v_mov_b32_e32 v1, v0
  s_mov_b64 exec, -1
  v_lshlrev_b32_e32 v2, 2, v0
  s_nop 1
  v_mov_b32_dpp v1, v1 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1
  s_waitcnt lgkmcnt(0)
  global_store_dword v2, v1, s[2:3]
  s_endpgm
  .size shr_unwritten, .-shr_unwritten

  .globl shr_ror_defined
  .p2align 8
  .type shr_ror_defined,@function
shr_ror_defined:
  s_load_dwordx2 s[2:3], s[0:1], 0x0
  v_mov_b32_e32 v1, v0
  v_mov_b32_e32 v3, v0
  v_lshlrev_b32_e32 v2, 2, v0
  s_nop 1
  v_mov_b32_dpp v1, v1 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1
  v_mov_b32_dpp v3, v3 row_ror:1 row_mask:0xf bank_mask:0xf
  s_waitcnt lgkmcnt(0)
  global_store_dword v2, v1, s[2:3]
  global_store_dword v2, v3, s[2:3] offset:256
  s_endpgm
  .size shr_ror_defined, .-shr_ror_defined

  .rodata
  .macro descriptor name
  .p2align 6
  .amdhsa_kernel \name
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_next_free_vgpr 8
    .amdhsa_next_free_sgpr 8
    .amdhsa_accum_offset 8
    .amdhsa_kernarg_size 8
  .end_amdhsa_kernel
  .endm
  descriptor shr_unwritten
  descriptor shr_ror_defined
