// LDS accesses between the two waves of a 128-item workgroup: wave 0
// produces LDS values, every wave consumes them. With the s_barrier between
// producer and consumer the kernel runs; with it removed the executor
// reports the race (wave 1 reads bytes wave 0 wrote since the last
// barrier), and so for the other orders: two waves writing the same bytes,
// a wave writing bytes another read since the last barrier, and a read of
// LDS nothing in the workgroup wrote. --no-checks runs the racy kernel.
// RUN: llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj %s -o %t.o
// RUN: ld.lld -shared %t.o -o %t.hsaco
// RUN: pa-isa-run %t.hsaco --kernel with_barrier --block 128 --buffer out:512 \
// RUN:   --arg ptr:out --dump out:u32 | FileCheck %s --check-prefix=OK
// RUN: not pa-isa-run %t.hsaco --kernel barrier_removed --block 128 --buffer out:512 \
// RUN:   --arg ptr:out 2>&1 | FileCheck %s --check-prefix=RAW
// RUN: not pa-isa-run %t.hsaco --kernel write_write --block 128 --buffer out:512 \
// RUN:   --arg ptr:out 2>&1 | FileCheck %s --check-prefix=WAW
// RUN: not pa-isa-run %t.hsaco --kernel write_after_read --block 128 --buffer out:512 \
// RUN:   --arg ptr:out 2>&1 | FileCheck %s --check-prefix=WAR
// RUN: not pa-isa-run %t.hsaco --kernel unwritten --block 128 --buffer out:512 \
// RUN:   --arg ptr:out 2>&1 | FileCheck %s --check-prefix=UNWRITTEN
// RUN: pa-isa-run %t.hsaco --kernel barrier_removed --no-checks --block 128 \
// RUN:   --buffer out:512 --arg ptr:out --dump out:u32 | FileCheck %s --check-prefix=OK

// out[i] = the value wave 0's lane i % 64 wrote: i % 64.
// OK: out: 0 1 2 {{.*}} 62 63 0 1 2 {{.*}} 62 63{{$}}

// RAW: error: barrier_removed +0x{{[0-9a-f]+}} 'ds_read_b32 v3, v2' workgroup (0, 0, 0) wave 1: lane 0: LDS race: reads byte 0, which wave 0 wrote (+0x{{[0-9a-f]+}} 'ds_write_b32 v1, v0'), with no s_barrier between them
// WAW: error: write_write +0x{{[0-9a-f]+}} 'ds_write_b32 v2, v0' workgroup (0, 0, 0) wave 1: lane 0: LDS race: writes byte 0, which wave 0 wrote (+0x{{[0-9a-f]+}} 'ds_write_b32 v2, v0'), with no s_barrier between them
// WAR: error: write_after_read +0x{{[0-9a-f]+}} 'ds_write_b32 v2, v0' workgroup (0, 0, 0) wave 1: lane 0: LDS race: writes byte 0, which wave 0 read, with no s_barrier between them
// UNWRITTEN: error: unwritten +0x{{[0-9a-f]+}} 'ds_read_b32 v3, v2' workgroup (0, 0, 0) wave 0: lane 0: reads LDS byte 0, which nothing in this workgroup wrote

  .text
  // kind 0: wave 0 writes its slots, s_barrier, every wave reads them;
  // 1: the same without the s_barrier; 2: every wave writes wave 0's
  // slots; 3: every wave writes and reads its own slots, s_barrier, wave 0
  // reads its slots and wave 1 then writes them; 4: reads without writes.
  .macro lds_kernel name, kind
  .globl \name
  .p2align 8
  .type \name,@function
\name:
  s_load_dwordx2 s[4:5], s[0:1], 0x0     // out
  v_lshlrev_b32_e32 v1, 2, v0            // this item's slot: 4 * id
  v_and_b32_e32 v2, 63, v0
  v_lshlrev_b32_e32 v2, 2, v2            // wave 0's slot of this lane
  v_and_b32_e32 v0, 63, v0               // the value: id % 64
  s_mov_b64 s[6:7], exec
  .if \kind <= 1
  v_cmp_gt_u32_e32 vcc, 0x100, v1        // wave 0 only (4 * id < 256)
  s_and_b64 exec, exec, vcc
  ds_write_b32 v1, v0
  s_mov_b64 exec, s[6:7]
  s_waitcnt lgkmcnt(0)
  .if \kind == 0
  s_barrier
  .endif
  .elseif \kind == 2
  ds_write_b32 v2, v0
  s_waitcnt lgkmcnt(0)
  s_barrier
  .elseif \kind == 3
  ds_write_b32 v1, v0
  s_waitcnt lgkmcnt(0)
  s_barrier
  ds_read_b32 v3, v1
  s_waitcnt lgkmcnt(0)
  v_cmp_le_u32_e32 vcc, 0x100, v1        // wave 1 only
  s_and_b64 exec, exec, vcc
  ds_write_b32 v2, v0
  s_mov_b64 exec, s[6:7]
  s_waitcnt lgkmcnt(0)
  .endif
  ds_read_b32 v3, v2
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v3, s[4:5]
  s_waitcnt vmcnt(0)
  s_endpgm
  .size \name, .-\name
  .endm

  lds_kernel with_barrier, 0
  lds_kernel barrier_removed, 1
  lds_kernel write_write, 2
  lds_kernel write_after_read, 3
  lds_kernel unwritten, 4

  .rodata
  .macro descriptor name
  .p2align 6
  .amdhsa_kernel \name
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_next_free_vgpr 8
    .amdhsa_next_free_sgpr 16
    .amdhsa_accum_offset 8
    .amdhsa_kernarg_size 8
    .amdhsa_group_segment_fixed_size 512
  .end_amdhsa_kernel
  .endm
  descriptor with_barrier
  descriptor barrier_removed
  descriptor write_write
  descriptor write_after_read
  descriptor unwritten
