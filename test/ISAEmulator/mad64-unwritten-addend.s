// v_mad_u64_u32 / v_mad_i64_i32 with a never-written high addend dword.
// LLVM selects a 32-bit multiply-add (an i32 offset computed as the low
// half of an i64 sum, then truncated) as v_mad_u64_u32 whose 64-bit
// addend has an undefined high half. The result's low dword is
// (S0 * S1 + S2) mod 2^32, which no bit of S2's high dword reaches; only
// the result's high dword and the carry-out depend on it. The executor
// runs such a mad, marks the high result dword and the carry-out
// never-written, and reports whatever reads them.
// - low_used: v[4:5] = v2 * 3 + v[2:3], v3 never written, v4 stored: runs
//   (out[l] = 4 l).
// - signed_low_used: the same with v_mad_i64_i32 and -3: out[l] = -2 l
//   (as u32).
// - high_used: the result's high dword v5 read: fails.
// - carry_used: the carry-out s[6:7] read: fails.
// - low_addend_unwritten: the addend's low dword (v4 of v[4:5]) never
//   written: fails.
// - carry_defined: a defined addend; v_mad_u64_u32's carry-out is bit 64
//   of S0 * S1 + S2. 0xffffffff * 0xffffffff = 0xfffffffe_00000001; even
//   lanes add 0xffffffff_ffffffff: 0x1_fffffffe_00000000 (carry 1, high
//   dword 0xfffffffe = 4294967294), odd lanes 0x00000000_ffffffff:
//   0xffffffff_00000000 (carry 0, high dword 4294967295). out[l] = the
//   carry through v_cndmask, out[64 + l] = the high dword.
// - signed_carry_used: v_mad_i64_i32's carry-out (the ISA does not say
//   what it is for signed operands) read with a defined addend: fails.
// RUN: llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj %s -o %t.o
// RUN: ld.lld -shared %t.o -o %t.hsaco
// RUN: pa-isa-run %t.hsaco --kernel low_used --block 64 \
// RUN:   --buffer out:256 --arg ptr:out --dump out:u32 | FileCheck %s --check-prefix=LOW
// RUN: pa-isa-run %t.hsaco --kernel signed_low_used --block 64 \
// RUN:   --buffer out:256 --arg ptr:out --dump out:u32 | FileCheck %s --check-prefix=SIGNED
// RUN: not pa-isa-run %t.hsaco --kernel high_used --block 64 \
// RUN:   --buffer out:256 --arg ptr:out 2>&1 | FileCheck %s --check-prefix=HIGH
// RUN: not pa-isa-run %t.hsaco --kernel carry_used --block 64 \
// RUN:   --buffer out:256 --arg ptr:out 2>&1 | FileCheck %s --check-prefix=CARRY
// RUN: not pa-isa-run %t.hsaco --kernel low_addend_unwritten --block 64 \
// RUN:   --buffer out:256 --arg ptr:out 2>&1 | FileCheck %s --check-prefix=LOWADDEND
// RUN: pa-isa-run %t.hsaco --kernel carry_defined --block 64 \
// RUN:   --buffer out:512 --arg ptr:out --dump out:u32 | FileCheck %s --check-prefix=CARRYDEF
// RUN: not pa-isa-run %t.hsaco --kernel signed_carry_used --block 64 \
// RUN:   --buffer out:512 --arg ptr:out 2>&1 | FileCheck %s --check-prefix=SIGNEDCARRY

// CARRYDEF: out: 1 0 1 0 1 0
// CARRYDEF-SAME: 1 0 4294967294 4294967295 4294967294 4294967295 4294967294
// SIGNEDCARRY: error: signed_carry_used +0x{{[0-9a-f]+}} 'v_cndmask_b32_e64 v6, 0, 1, s[6:7]' {{.*}}: reads s6, which was never written
// LOW: out: 0 4 8 12 16
// SIGNED: out: 0 4294967294 4294967292 4294967290 4294967288
// HIGH: error: high_used +0x{{[0-9a-f]+}} 'v_add_u32_e32 v6, v4, v5' workgroup (0, 0, 0) wave 0: lane 0: reads v5, which this lane never wrote
// CARRY: error: carry_used +0x{{[0-9a-f]+}} 'v_cndmask_b32_e64 v6, 0, 1, s[6:7]' {{.*}}: reads s6, which was never written
// LOWADDEND: error: low_addend_unwritten +0x{{[0-9a-f]+}} 'v_mad_u64_u32 v[6:7], s[6:7], v2, 3, v[4:5]' {{.*}}: lane 0: reads v4, which this lane never wrote

  .text
  // mode 0: low dword used; 1: v_mad_i64_i32, low dword used; 2: high
  // dword used; 3: carry-out used; 4: addend's low dword never written.
  .macro kernel_body name, mode
  .globl \name
  .p2align 8
  .type \name,@function
\name:
  s_load_dwordx2 s[4:5], s[0:1], 0x0      // out
  v_mov_b32_e32 v2, v0                    // v2 = lane; v3 never written
  .if \mode == 0
  v_mad_u64_u32 v[4:5], s[6:7], v2, 3, v[2:3]
  v_mov_b32_e32 v6, v4
  .elseif \mode == 1
  v_mad_i64_i32 v[4:5], s[6:7], v2, -3, v[2:3]
  v_mov_b32_e32 v6, v4
  .elseif \mode == 2
  v_mad_u64_u32 v[4:5], s[6:7], v2, 3, v[2:3]
  v_add_u32_e32 v6, v4, v5
  .elseif \mode == 3
  v_mad_u64_u32 v[4:5], s[6:7], v2, 3, v[2:3]
  v_cndmask_b32_e64 v6, 0, 1, s[6:7]
  .else
  v_mad_u64_u32 v[6:7], s[6:7], v2, 3, v[4:5]
  .endif
  v_lshlrev_b32_e32 v2, 2, v0
  s_waitcnt lgkmcnt(0)
  global_store_dword v2, v6, s[4:5]
  s_endpgm
  .size \name, .-\name
  .endm

  kernel_body low_used, 0
  kernel_body signed_low_used, 1
  kernel_body high_used, 2
  kernel_body carry_used, 3
  kernel_body low_addend_unwritten, 4

  // v[4:5] = 0xffffffff * 0xffffffff + v[8:9], v8 = 0xffffffff, v9 =
  // 0xffffffff in even lanes and 0 in odd ones; out[l] = carry, out[64 +
  // l] = v5. mode 0: v_mad_u64_u32; 1: v_mad_i64_i32.
  .macro carry_body name, mode
  .globl \name
  .p2align 8
  .type \name,@function
\name:
  s_load_dwordx2 s[4:5], s[0:1], 0x0      // out
  v_mov_b32_e32 v2, -1
  v_mov_b32_e32 v8, -1
  v_and_b32_e32 v9, 1, v0
  v_add_u32_e32 v9, -1, v9                // even: 0xffffffff, odd: 0
  .if \mode == 0
  v_mad_u64_u32 v[4:5], s[6:7], v2, v2, v[8:9]
  .else
  v_mad_i64_i32 v[4:5], s[6:7], v2, v2, v[8:9]
  .endif
  v_cndmask_b32_e64 v6, 0, 1, s[6:7]
  v_lshlrev_b32_e32 v2, 2, v0
  s_waitcnt lgkmcnt(0)
  global_store_dword v2, v6, s[4:5]
  global_store_dword v2, v5, s[4:5] offset:256
  s_endpgm
  .size \name, .-\name
  .endm

  carry_body carry_defined, 0
  carry_body signed_carry_used, 1

  .rodata
  .macro descriptor name
  .p2align 6
  .amdhsa_kernel \name
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_next_free_vgpr 8
    .amdhsa_next_free_sgpr 16
    .amdhsa_accum_offset 8
    .amdhsa_kernarg_size 8
  .end_amdhsa_kernel
  .endm
  descriptor low_used
  descriptor signed_low_used
  descriptor high_used
  descriptor carry_used
  descriptor low_addend_unwritten
  descriptor carry_defined
  descriptor signed_carry_used
