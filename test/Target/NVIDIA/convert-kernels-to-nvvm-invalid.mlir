// RUN: pa-opt %s -split-input-file -pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},gpu.module(convert-scf-to-cf,convert-math-to-llvm,pa-convert-kernels-to-nvvm))' -verify-diagnostics
// RUN: not pa-opt %s -split-input-file -pass-pipeline='builtin.module(pa-set-target{chip=gfx950},gpu.module(pa-convert-kernels-to-nvvm))' 2>&1 | FileCheck %s --check-prefix=AMD

// RUN: not pa-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(pa-convert-kernels-to-nvvm))' 2>&1 | FileCheck %s --check-prefix=NONE

// NONE: error: pa-convert-kernels-to-nvvm: no target chip: the module has no pa.target attribute
// AMD: error: pa-convert-kernels-to-nvvm: gfx950 is not an NVIDIA chip (the module's pa.target)

// More shared memory than sm_90a gives one block (227 KiB).
gpu.module @pa_kernels {
  // expected-error @below {{kernel 'too_much_shared' needs 241600 bytes of shared memory; sm_90a has 232448 per block}}
  gpu.func @too_much_shared(%out: memref<?xf32>)
      // expected-note @below {{workgroup buffer 'memref<60000xf32, #gpu.address_space<workgroup>>'}}
      workgroup(%a : memref<60000xf32, #gpu.address_space<workgroup>>,
      // expected-note @below {{workgroup buffer 'memref<400xf32, #gpu.address_space<workgroup>>'}}
                %b : memref<400xf32, #gpu.address_space<workgroup>>) kernel {
    gpu.return
  }
}

// -----

// math without an LLVM intrinsic (math.erf) would become a libdevice
// call, which the PTX does not link.
gpu.module @pa_kernels {
  gpu.func @device_library(%out: memref<?xf32>) kernel {
    %c0 = arith.constant 0 : index
    %x = memref.load %out[%c0] : memref<?xf32>
    // expected-error @below {{kernels call external function '__nv_erff', which the PTX does not link (a libdevice function}}
    %y = math.erf %x : f32
    memref.store %y, %out[%c0] : memref<?xf32>
    gpu.return
  }
}
