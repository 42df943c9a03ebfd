// A kernel whose s_waitcnt between a load and the use of its result is
// removed: the executor reports the wait-count hazard (vmcnt for a global
// load, lgkmcnt for a scalar load), naming the load; with the waits in
// place the same kernel runs. A second load issued after the first keeps
// the first outstanding under vmcnt(1) but not under vmcnt(0) (in order).
// RUN: llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj %s -o %t.o
// RUN: ld.lld -shared %t.o -o %t.hsaco
// RUN: pa-isa-run %t.hsaco --kernel with_waits --block 64 --buffer in:260:iota \
// RUN:   --buffer out:256 --arg ptr:in --arg ptr:out --dump out:u32 | FileCheck %s --check-prefix=OK
// RUN: not pa-isa-run %t.hsaco --kernel no_vmcnt --block 64 --buffer in:260:iota \
// RUN:   --buffer out:256 --arg ptr:in --arg ptr:out 2>&1 | FileCheck %s --check-prefix=VM
// RUN: not pa-isa-run %t.hsaco --kernel no_lgkmcnt --block 64 --buffer in:260:iota \
// RUN:   --buffer out:256 --arg ptr:in --arg ptr:out 2>&1 | FileCheck %s --check-prefix=LGKM
// RUN: not pa-isa-run %t.hsaco --kernel vmcnt_too_high --block 64 --buffer in:260:iota \
// RUN:   --buffer out:256 --arg ptr:in --arg ptr:out 2>&1 | FileCheck %s --check-prefix=VM1
// RUN: pa-isa-run %t.hsaco --kernel no_vmcnt --no-checks --block 64 --buffer in:260:iota \
// RUN:   --buffer out:256 --arg ptr:in --arg ptr:out --dump out:u32 | FileCheck %s --check-prefix=OK

// out[l] = in[l] + in[l + 1]... here in[l] * 2 + 1 (in = iota)
// OK: out: 1 3 5 7 9

// VM: error: no_vmcnt +0x{{[0-9a-f]+}} 'v_lshl_add_u32 v2, v2, 1, 1' workgroup (0, 0, 0) wave 0: wait-count hazard: reads v2 while the load at +0x{{[0-9a-f]+}} ('global_load_dword v2, v1, s[4:5]') writing it may still be outstanding (vmcnt)
// LGKM: error: no_lgkmcnt +0x{{[0-9a-f]+}} 'global_load_dword v2, v1, s[4:5]' {{.*}}: wait-count hazard: reads s4 while the load at +0x0 ('s_load_dwordx4 s[4:7], s[0:1], 0x0') writing it may still be outstanding (lgkmcnt)
// VM1: wait-count hazard: reads v2 {{.*}}(vmcnt)

  .text
  .macro kernel_body name, lgkm_wait, vm_wait
  .globl \name
  .p2align 8
  .type \name,@function
\name:
  s_load_dwordx4 s[4:7], s[0:1], 0x0     // in, out
  v_lshlrev_b32_e32 v1, 2, v0
  .if \lgkm_wait
  s_waitcnt lgkmcnt(0)
  .endif
  global_load_dword v2, v1, s[4:5]
  global_load_dword v3, v1, s[4:5] offset:4
  .if \vm_wait == 1
  s_waitcnt vmcnt(1)
  .elseif \vm_wait == 2
  s_waitcnt vmcnt(2)
  .endif
  v_lshl_add_u32 v2, v2, 1, 1
  global_store_dword v1, v2, s[6:7]
  s_waitcnt vmcnt(0)
  s_endpgm
  .size \name, .-\name
  .endm

  kernel_body with_waits, 1, 1
  kernel_body no_vmcnt, 1, 0
  kernel_body no_lgkmcnt, 0, 1
  kernel_body vmcnt_too_high, 1, 2

  .rodata
  .macro descriptor name
  .p2align 6
  .amdhsa_kernel \name
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_next_free_vgpr 8
    .amdhsa_next_free_sgpr 16
    .amdhsa_accum_offset 8
    .amdhsa_kernarg_size 16
  .end_amdhsa_kernel
  .endm
  descriptor with_waits
  descriptor no_vmcnt
  descriptor no_lgkmcnt
  descriptor vmcnt_too_high
