// Deep input to pa-opt and pa-compile: a diagnostic or a result, never a
// stack overflow. Both parse, verify, run passes and print on a thread with
// a 1 GiB stack of their own (so a small main-thread stack does not matter),
// and refuse text nested past 256 levels (brackets, or minus signs in a
// row) before parsing. Before, 5000 nested modules and a 7.6 KB affine
// expression of unary minus signs crashed pa-opt (SIGSEGV), the latter
// pa-compile too, and 255 nested modules crashed pa-opt under a 512 KiB
// stack.
//
// Under the limits, on a 256 KiB main-thread stack:
// RUN: %python %S/Inputs/deep_input.py modules 255 > %t.modules-255.mlir
// RUN: %python %S/Inputs/deep_input.py small-stack 256 pa-opt %t.modules-255.mlir | FileCheck %s --check-prefix=MODULES
// MODULES-COUNT-255: module {
// MODULES: func.func @f()
// RUN: %python %S/Inputs/deep_input.py minus 256 > %t.minus-256.mlir
// RUN: %python %S/Inputs/deep_input.py small-stack 256 pa-opt %t.minus-256.mlir | FileCheck %s --check-prefix=MINUS
// MINUS: #map = affine_map<(d0) -> (d0)>
// RUN: %python %S/Inputs/deep_input.py small-stack 256 not pa-compile %t.modules-255.mlir --chip=gfx950 -o %t.hsaco 2>&1 | FileCheck %s --check-prefix=NO-KERNELS
// NO-KERNELS: error: no gpu.module @pa_kernels to compile
//
// Past the limits:
// RUN: %python %S/Inputs/deep_input.py modules 5000 > %t.modules-5000.mlir
// RUN: not pa-opt %t.modules-5000.mlir 2>&1 | FileCheck %s --check-prefix=DEEP-MODULES
// RUN: not pa-compile %t.modules-5000.mlir --chip=gfx950 -o %t.hsaco 2>&1 | FileCheck %s --check-prefix=DEEP-MODULES
// DEEP-MODULES: modules-5000.mlir:257:8: error: brackets nested more than 256 levels deep (the parser recurses per level)
// RUN: %python %S/Inputs/deep_input.py minus 3800 > %t.minus-3800.mlir
// RUN: not pa-opt %t.minus-3800.mlir 2>&1 | FileCheck %s --check-prefix=DEEP-MINUS
// RUN: not pa-compile %t.minus-3800.mlir --chip=sm_90a -o %t.ptx 2>&1 | FileCheck %s --check-prefix=DEEP-MINUS
// DEEP-MINUS: minus-3800.mlir:1:540: error: more than 256 minus signs in a row (the parser recurses per level)
