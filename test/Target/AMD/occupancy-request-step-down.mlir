// A kernel that asks for 3 waves per SIMD (at most 168 VGPRs; pa-to-mfma
// asks that of 16-row groups where the LDS allows it) but keeps about 200
// values live across a loop: the AMD backend's emit asks again for one wave
// fewer, 2 (at most 256), which it meets without spilling, so the code
// object has no scratch and between 169 and 256 registers.
// RUN: pa-compile %s --chip=gfx942 -o %t.hsaco --print-resources | FileCheck %s
// RUN: pa-compile %s --chip=gfx950 -o %t.hsaco --print-resources | FileCheck %s
// CHECK: pressure {{.*}} VGPR {{(169|1[7-9][0-9]|2[0-4][0-9]|25[0-6])}}, AGPR {{[0-9]+}}, SGPR {{[0-9]+}}, scratch 0 B
//
// The step down asks for exactly one wave fewer ("3,3"), not at least that
// many: gfx950's 16-row decode kernel at D 128 with per-token scales and
// without the K prefetch asks for 4 (its LDS allows them), spills (135
// VGPRs) and is generated again; asked for "3", the scheduler aimed at the 4
// the LDS allows again and serialized the tile's K loads to fit 128 VGPRs (4
// loads in flight on the loop's fast path, 135 VGPRs all the same), asked
// for "3,3" it keeps them in flight (9).
// RUN: %python %S/Inputs/mfma_code_object.py pa-compile llvm-objdump llvm-readelf --chip gfx950 --loop-loads --key-prefetch=none \
// RUN:   d128-fp8-p16-transposed-per_token-w0-q1g8 d128-fp8-p16-plain-per_token-w0-q1g8 \
// RUN:   | FileCheck %s --check-prefix=STEP-DOWN
// STEP-DOWN: d128-fp8-p16-transposed-per_token-w0-q1g8 gfx950: loop_loads=20 ahead=0 in_flight={{([89]|[1-9][0-9])$}}
// STEP-DOWN: d128-fp8-p16-plain-per_token-w0-q1g8 gfx950: loop_loads=20 ahead=0 in_flight={{([89]|[1-9][0-9])$}}

module attributes {gpu.container_module} {
  gpu.module @pa_kernels {
    gpu.func @pressure(%in: memref<1024xf32>, %out: memref<1024xf32>, %steps: index) kernel attributes {known_block_size = array<i32: 64, 1, 1>, passthrough = [["amdgpu-waves-per-eu", "3"]]} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %init = vector.load %in[%c0] : memref<1024xf32>, vector<100xf32>
      %r = scf.for %i = %c0 to %steps step %c1 iter_args(%v = %init) -> (vector<100xf32>) {
        %s = vector.shuffle %v, %v [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 0] : vector<100xf32>, vector<100xf32>
        %m = arith.mulf %v, %s : vector<100xf32>
        scf.yield %m : vector<100xf32>
      }
      vector.store %r, %out[%c0] : memref<1024xf32>, vector<100xf32>
      gpu.return
    }
  }
}
