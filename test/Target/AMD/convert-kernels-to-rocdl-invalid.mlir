// RUN: pa-opt %s -split-input-file -pass-pipeline='builtin.module(pa-set-target{chip=gfx942},gpu.module(convert-scf-to-cf,convert-math-to-llvm,pa-convert-kernels-to-rocdl))' -verify-diagnostics

// OCP fp8 on gfx942 is diagnosed before any upstream fp8 conversion runs
// (MLIR 22's arith-to-amdgpu crashes on it).
gpu.module @pa_kernels {
  gpu.func @ocp_fp8(%cache: memref<?xf8E4M3FN>, %out: memref<?xf32>) kernel {
    %c0 = arith.constant 0 : index
    // expected-error @below {{chip gfx942 converts f8E4M3FNUZ fp8 values natively, not f8E4M3FN}}
    %raw = memref.load %cache[%c0] : memref<?xf8E4M3FN>
    %x = arith.extf %raw : f8E4M3FN to f32
    memref.store %x, %out[%c0] : memref<?xf32>
    gpu.return
  }
}

// -----

// More workgroup memory than gfx942's 64 KiB of LDS.
gpu.module @pa_kernels {
  // expected-error @below {{kernel 'too_much_lds' needs 69632 bytes of workgroup memory (LDS); gfx942 has 65536}}
  gpu.func @too_much_lds(%out: memref<?xf32>)
      // expected-note @below {{workgroup buffer 'memref<16384xf32, #gpu.address_space<workgroup>>'}}
      workgroup(%a : memref<16384xf32, #gpu.address_space<workgroup>>,
      // expected-note @below {{workgroup buffer 'memref<1024xf32, #gpu.address_space<workgroup>>'}}
                %b : memref<1024xf32, #gpu.address_space<workgroup>>) kernel {
    gpu.return
  }
}

// -----

// math without an LLVM intrinsic (math.erf) would become a ROCm
// device-library call, which no code object links.
gpu.module @pa_kernels {
  gpu.func @device_library(%out: memref<?xf32>) kernel {
    %c0 = arith.constant 0 : index
    %x = memref.load %out[%c0] : memref<?xf32>
    // expected-error @below {{kernels call external function '__ocml_erf_f32', which no code object links (a ROCm device-library function}}
    %y = math.erf %x : f32
    memref.store %y, %out[%c0] : memref<?xf32>
    gpu.return
  }
}
