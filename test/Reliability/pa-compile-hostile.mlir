// Hostile input to pa-compile: every case is a diagnostic and exit status 1,
// never a crash.
//
// Brackets nested past 256 levels are refused before parsing: MLIR's parser
// recurses per level and a 16 KB line of '[' overflowed its stack.
// RUN: not pa-compile %S/Inputs/nested-300.mlir --chip=gfx950 -o %t.hsaco 2>&1 | FileCheck %s --check-prefix=DEEP
// DEEP: nested-300.mlir:2:287: error: brackets nested more than 256 levels deep (the parser recurses per level)
//
// RUN: not pa-compile %S/Inputs/does-not-exist.mlir --chip=gfx950 -o %t.hsaco 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: pa-compile: {{.*}}does-not-exist.mlir
//
// pa ops inside a nested module: a pa diagnostic on each op, not the
// internal errors of the passes that built kernels for the top-level module
// ("'gpu.launch_func' op expected the closest surrounding module to have the
// 'gpu.container_module' attribute", before).
// RUN: not pa-compile %S/Inputs/nested-module.mlir --chip=gfx950 -o %t.hsaco 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: not pa-compile %S/Inputs/nested-module.mlir --chip=sm_90a -o %t.ptx 2>&1 | FileCheck %s --check-prefix=NESTED
// NESTED: nested-module.mlir:19:3: error: 'pa.plan' op is inside a nested module (@inner); pa ops are compiled from the functions of the top-level module only
// NESTED: nested-module.mlir:24:3: error: 'pa.decode' op is inside a nested module (@inner)
// NESTED: nested-module.mlir:38:3: error: 'pa.reduce' op is inside a nested module (@inner)
// NESTED-NOT: gpu.container_module
//
// An empty file is a module without kernels.
// RUN: not pa-compile /dev/null --chip=gfx950 -o %t.hsaco 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: error: no gpu.module @pa_kernels to compile
//
// Bytes that are not MLIR.
// RUN: printf '\377\376\000garbage{{[[' > %t.bin
// RUN: not pa-compile %t.bin --chip=gfx950 -o %t.hsaco 2>&1 | FileCheck %s --check-prefix=BINARY
// BINARY: error:
//
// An output path that cannot be written.
// RUN: not pa-compile %pa_src_root/examples/decode-d256-fp8.mlir --chip=gfx950 -o %t.missing-dir/out.hsaco 2>&1 | FileCheck %s --check-prefix=UNWRITABLE
// UNWRITABLE: pa-compile: {{.*}}out.hsaco
//
// The tile-op verifier crash (0-D buffers) through pa-compile.
// RUN: not pa-compile %s --chip=gfx950 -o %t.hsaco 2>&1 | FileCheck %s --check-prefix=ZERO-D
// ZERO-D: pa-compile-hostile.mlir:[[# @LINE + 3]]:5: error: 'pa.tile.init_softmax' op operand #2 must be static 2-D f32 tile [M, D] or [M, 256], but got 'memref<f32>'
gpu.module @pa_kernels {
  gpu.func @init(%m: memref<16xf32>, %acc: memref<f32>) kernel {
    pa.tile.init_softmax %m, %m, %acc : memref<16xf32>, memref<16xf32>, memref<f32>
    gpu.return
  }
}
