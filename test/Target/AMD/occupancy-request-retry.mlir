// A kernel that asks for 2 waves per SIMD (amdgpu-waves-per-eu, as
// pa-to-mfma's decode kernel does) but keeps more than 256 values live
// across a loop cannot meet the request without spilling: the AMD backend's
// emit generates it again without the request, so the code object has no
// scratch and more than 256 registers (1 wave per SIMD).
// RUN: pa-compile %s --chip=gfx942 -o %t.hsaco --print-resources | FileCheck %s
// RUN: pa-compile %s --chip=gfx950 -o %t.hsaco --print-resources | FileCheck %s
// CHECK: pressure {{.*}} VGPR {{(2[6-9][0-9]|[3-5][0-9][0-9])}}, AGPR {{[0-9]+}}, SGPR {{[0-9]+}}, scratch 0 B

module attributes {gpu.container_module} {
  gpu.module @pa_kernels {
    gpu.func @pressure(%in: memref<1024xf32>, %out: memref<1024xf32>, %steps: index) kernel attributes {known_block_size = array<i32: 64, 1, 1>, passthrough = [["amdgpu-waves-per-eu", "2"]]} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %init = vector.load %in[%c0] : memref<1024xf32>, vector<150xf32>
      %r = scf.for %i = %c0 to %steps step %c1 iter_args(%v = %init) -> (vector<150xf32>) {
        %s = vector.shuffle %v, %v [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 138, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149, 0] : vector<150xf32>, vector<150xf32>
        %m = arith.mulf %v, %s : vector<150xf32>
        scf.yield %m : vector<150xf32>
      }
      vector.store %r, %out[%c0] : memref<1024xf32>, vector<150xf32>
      gpu.return
    }
  }
}
