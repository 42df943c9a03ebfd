// Every failure of pa-compile is a diagnostic with a location and a
// non-zero exit status, never a crash.
//
// RUN: not pa-compile %pa_src_root/examples/decode-d256-fp8.mlir --chip=gfx90a -o %t.hsaco 2>&1 | FileCheck %s --check-prefix=UNKNOWN-CHIP
// UNKNOWN-CHIP: decode-d256-fp8.mlir:{{[0-9]+}}:{{[0-9]+}}: error: unknown AMD chip 'gfx90a'; AMD code objects are built for gfx942 and gfx950 (known chips: gfx942, gfx950, sm_90a)
//
// OCP fp8 caches for gfx942 and FNUZ caches for gfx950 are rejected at the op.
// RUN: not pa-compile %pa_src_root/examples/decode-d256-fp8.mlir --chip=gfx942 -o %t.hsaco 2>&1 | FileCheck %s --check-prefix=OCP-ON-GFX942
// OCP-ON-GFX942: decode-d256-fp8.mlir:27:3: error: 'pa.decode' op chip gfx942 takes f8E4M3FNUZ fp8 KV caches, got 'f8E4M3FN'
// RUN: not pa-compile %pa_src_root/examples/decode-d256-fp8-gfx942.mlir --chip=gfx950 -o %t.hsaco 2>&1 | FileCheck %s --check-prefix=FNUZ-ON-GFX950
// FNUZ-ON-GFX950: decode-d256-fp8-gfx942.mlir:27:3: error: 'pa.decode' op chip gfx950 takes f8E4M3FN fp8 KV caches, got 'f8E4M3FNUZ'
//
// The same through amdBackend().compile, whose errors are text.
// RUN: not pa-compile %pa_src_root/examples/decode-d256-fp8.mlir --chip=gfx942 --through-api -o %t.hsaco 2>&1 | FileCheck %s --check-prefix=OCP-ON-GFX942
// RUN: not pa-compile %pa_src_root/examples/decode-d256-fp8.mlir --chip=gfx90a --through-api -o %t.hsaco 2>&1 | FileCheck %s --check-prefix=UNKNOWN-CHIP
//
// RUN: not pa-compile %S/Inputs/unparseable.mlir --chip=gfx950 -o %t.hsaco 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: unparseable.mlir:3:29: error: expected ':'
//
// RUN: not pa-compile %pa_src_root/examples/decode-d256-fp8.mlir --code-object-version=4 -o %t.hsaco 2>&1 | FileCheck %s --check-prefix=VERSION
// VERSION: error: unsupported code object version 4; expected 5 or 6
//
// A module without pa ops has no kernels to compile.
// RUN: not pa-compile %s --chip=gfx950 -o %t.hsaco 2>&1 | FileCheck %s --check-prefix=NO-KERNELS
// NO-KERNELS: pa-compile-invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: no gpu.module @pa_kernels to compile (the module has no pa ops?)
//
// RUN: not pa-compile %pa_src_root/examples/decode-d256-fp8.mlir --chip=gfx950 2>&1 | FileCheck %s --check-prefix=NO-OUTPUT
// NO-OUTPUT: pa-compile: --emit=hsaco needs an output file (-o OUT.hsaco)
// RUN: not pa-compile %pa_src_root/examples/decode-d256-fp8.mlir --chip=gfx950 --emit=program 2>&1 | FileCheck %s --check-prefix=NO-PROGRAM-OUTPUT
// RUN: not pa-compile %pa_src_root/examples/decode-d256-fp8.mlir --chip=sm_90a --emit=program 2>&1 | FileCheck %s --check-prefix=NO-PROGRAM-OUTPUT
// NO-PROGRAM-OUTPUT: pa-compile: --emit=program needs an output directory (-o OUT.paprog)
//
// A program directory that cannot be created is a message, not a crash.
// RUN: not pa-compile %pa_src_root/examples/decode-d256-fp8.mlir --chip=gfx950 --emit=program -o /nonexistent/dir/x.paprog 2>&1 | FileCheck %s --check-prefix=PROGRAM-DIR
// PROGRAM-DIR: pa-compile: cannot create the directory /nonexistent/dir/x.paprog: No such file or directory
func.func @nothing_to_compile() {
  return
}
