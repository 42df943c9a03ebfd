// Reads of never-written VGPRs, and copies of them. LLVM copies a 64-bit
// register pair whole (v_mov_b64, v_pk_mov_b32) also where one half holds
// no value (an i64 of which only the low half is used keeps an undefined
// high half); the copy is harmless as long as nothing reads the copied
// half. The executor lets the copy through, marks the destination half
// unwritten, and reports whatever reads it later.
// - copy_overwritten: v[4:5] = v[2:3] with v3 never written, then v5
//   written before any read: runs (out[l] = 2 l + 7).
// - copy_then_use: the same without writing v5: the add reading v5 fails.
// - pk_copy_then_use: v_pk_mov_b32 taking the unwritten v3 as its high
//   half, then a read of that half: fails the same way.
// - direct_use: an add reading v3 itself fails.
// RUN: llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj %s -o %t.o
// RUN: ld.lld -shared %t.o -o %t.hsaco
// RUN: pa-isa-run %t.hsaco --kernel copy_overwritten --block 64 \
// RUN:   --buffer out:256 --arg ptr:out --dump out:u32 | FileCheck %s --check-prefix=OK
// RUN: not pa-isa-run %t.hsaco --kernel copy_then_use --block 64 \
// RUN:   --buffer out:256 --arg ptr:out 2>&1 | FileCheck %s --check-prefix=COPY
// RUN: not pa-isa-run %t.hsaco --kernel pk_copy_then_use --block 64 \
// RUN:   --buffer out:256 --arg ptr:out 2>&1 | FileCheck %s --check-prefix=PK
// RUN: not pa-isa-run %t.hsaco --kernel direct_use --block 64 \
// RUN:   --buffer out:256 --arg ptr:out 2>&1 | FileCheck %s --check-prefix=DIRECT
// RUN: pa-isa-run %t.hsaco --kernel copy_then_use --no-checks --block 64 \
// RUN:   --buffer out:256 --arg ptr:out

// OK: out: 7 9 11 13 15
// COPY: error: copy_then_use +0x{{[0-9a-f]+}} 'v_add_u32_e32 v6, v4, v5' workgroup (0, 0, 0) wave 0: lane 0: reads v5, which this lane never wrote (nor copied from a register it wrote)
// PK: error: pk_copy_then_use +0x{{[0-9a-f]+}} 'v_add_u32_e32 v6, v4, v5' {{.*}}: lane 0: reads v5, which this lane never wrote
// DIRECT: error: direct_use +0x{{[0-9a-f]+}} 'v_add_u32_e32 v6, v2, v3' {{.*}}: lane 0: reads v3, which this lane never wrote

  .text
  // mode 0: v_mov_b64, v5 overwritten; 1: v_mov_b64, v5 read;
  // 2: v_pk_mov_b32, v5 read; 3: v3 read directly.
  .macro kernel_body name, mode
  .globl \name
  .p2align 8
  .type \name,@function
\name:
  s_load_dwordx2 s[4:5], s[0:1], 0x0      // out
  v_mov_b32_e32 v2, v0                    // v2 = lane; v3 never written
  .if \mode == 0
  v_mov_b64_e32 v[4:5], v[2:3]
  v_add_u32_e32 v5, 7, v2                 // the copied half overwritten
  v_add_u32_e32 v6, v4, v5
  .elseif \mode == 1
  v_mov_b64_e32 v[4:5], v[2:3]
  v_add_u32_e32 v6, v4, v5
  .elseif \mode == 2
  v_pk_mov_b32 v[4:5], v[2:3], v[2:3] op_sel:[0,1]
  v_add_u32_e32 v6, v4, v5
  .else
  v_add_u32_e32 v6, v2, v3
  .endif
  v_lshlrev_b32_e32 v2, 2, v0
  s_waitcnt lgkmcnt(0)
  global_store_dword v2, v6, s[4:5]
  s_endpgm
  .size \name, .-\name
  .endm

  kernel_body copy_overwritten, 0
  kernel_body copy_then_use, 1
  kernel_body pk_copy_then_use, 2
  kernel_body direct_use, 3

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
  descriptor copy_overwritten
  descriptor copy_then_use
  descriptor pk_copy_then_use
  descriptor direct_use
