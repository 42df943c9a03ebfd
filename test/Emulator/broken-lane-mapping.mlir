// A deliberately broken MFMA lane mapping is caught. @matmul computes
// D = A B (16x32 by 32x16, OCP fp8) with v_mfma_f32_16x16x32_fp8_fp8 and
// the operand layout of AMD's tables (lane l holds A[l % 16][8 (l / 16) + e],
// B[8 (l / 16) + e][l % 16] and D[4 (l / 16) + r][l % 16]); the host checks
// every element against a scalar product. @matmul_broken_mapping differs
// in one line: its A operand takes row l / 4 and k-group l % 4 (the lane
// grid transposed), and the same check fails.
// RUN: pa-emulate %s | FileCheck %s --check-prefix=CORRECT
// RUN: not pa-emulate %s --entry=broken 2>&1 | FileCheck %s --check-prefix=BROKEN
// CORRECT: ok
// BROKEN: emulator: assertion failed: D = A x B
// BROKEN-NEXT: at 'cf.assert'
// BROKEN-NEXT: in host function @check

module attributes {gpu.container_module} {
  gpu.module @k {
    // The tables' mapping.
    gpu.func @matmul(%a: memref<16x32xf8E4M3FN>, %b: memref<32x16xf8E4M3FN>, %d: memref<16x16xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %lane = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %c6 = arith.constant 6 : index
      %c7 = arith.constant 7 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %i = arith.remui %lane, %c16 : index
      %g = arith.divui %lane, %c16 : index
      %k0 = arith.muli %g, %c8 : index
      %ai = arith.remui %lane, %c16 : index
      %ag = arith.divui %lane, %c16 : index
      %ak = arith.muli %ag, %c8 : index
      %va = vector.load %a[%ai, %ak] : memref<16x32xf8E4M3FN>, vector<8xf8E4M3FN>
      %kb0 = arith.addi %k0, %c0 : index
      %b0 = memref.load %b[%kb0, %i] : memref<32x16xf8E4M3FN>
      %kb1 = arith.addi %k0, %c1 : index
      %b1 = memref.load %b[%kb1, %i] : memref<32x16xf8E4M3FN>
      %kb2 = arith.addi %k0, %c2 : index
      %b2 = memref.load %b[%kb2, %i] : memref<32x16xf8E4M3FN>
      %kb3 = arith.addi %k0, %c3 : index
      %b3 = memref.load %b[%kb3, %i] : memref<32x16xf8E4M3FN>
      %kb4 = arith.addi %k0, %c4 : index
      %b4 = memref.load %b[%kb4, %i] : memref<32x16xf8E4M3FN>
      %kb5 = arith.addi %k0, %c5 : index
      %b5 = memref.load %b[%kb5, %i] : memref<32x16xf8E4M3FN>
      %kb6 = arith.addi %k0, %c6 : index
      %b6 = memref.load %b[%kb6, %i] : memref<32x16xf8E4M3FN>
      %kb7 = arith.addi %k0, %c7 : index
      %b7 = memref.load %b[%kb7, %i] : memref<32x16xf8E4M3FN>
      %vb = vector.from_elements %b0, %b1, %b2, %b3, %b4, %b5, %b6, %b7 : vector<8xf8E4M3FN>
      %zero = arith.constant dense<0.0> : vector<4xf32>
      %vd = amdgpu.mfma 16x16x32 %va * %vb + %zero blgp = none : vector<8xf8E4M3FN>, vector<8xf8E4M3FN>, vector<4xf32>
      %row0 = arith.muli %g, %c4 : index
      scf.for %r = %c0 to %c4 step %c1 {
        %row = arith.addi %row0, %r : index
        %v = vector.extract %vd[%r] : f32 from vector<4xf32>
        memref.store %v, %d[%row, %i] : memref<16x16xf32>
      }
      gpu.return
    }
    // The injected bug: A's lanes as a 16 x 4 grid instead of 4 x 16.
    gpu.func @matmul_broken_mapping(%a: memref<16x32xf8E4M3FN>, %b: memref<32x16xf8E4M3FN>, %d: memref<16x16xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %lane = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %c6 = arith.constant 6 : index
      %c7 = arith.constant 7 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %i = arith.remui %lane, %c16 : index
      %g = arith.divui %lane, %c16 : index
      %k0 = arith.muli %g, %c8 : index
      %ai = arith.divui %lane, %c4 : index
      %ag = arith.remui %lane, %c4 : index
      %ak = arith.muli %ag, %c8 : index
      %va = vector.load %a[%ai, %ak] : memref<16x32xf8E4M3FN>, vector<8xf8E4M3FN>
      %kb0 = arith.addi %k0, %c0 : index
      %b0 = memref.load %b[%kb0, %i] : memref<32x16xf8E4M3FN>
      %kb1 = arith.addi %k0, %c1 : index
      %b1 = memref.load %b[%kb1, %i] : memref<32x16xf8E4M3FN>
      %kb2 = arith.addi %k0, %c2 : index
      %b2 = memref.load %b[%kb2, %i] : memref<32x16xf8E4M3FN>
      %kb3 = arith.addi %k0, %c3 : index
      %b3 = memref.load %b[%kb3, %i] : memref<32x16xf8E4M3FN>
      %kb4 = arith.addi %k0, %c4 : index
      %b4 = memref.load %b[%kb4, %i] : memref<32x16xf8E4M3FN>
      %kb5 = arith.addi %k0, %c5 : index
      %b5 = memref.load %b[%kb5, %i] : memref<32x16xf8E4M3FN>
      %kb6 = arith.addi %k0, %c6 : index
      %b6 = memref.load %b[%kb6, %i] : memref<32x16xf8E4M3FN>
      %kb7 = arith.addi %k0, %c7 : index
      %b7 = memref.load %b[%kb7, %i] : memref<32x16xf8E4M3FN>
      %vb = vector.from_elements %b0, %b1, %b2, %b3, %b4, %b5, %b6, %b7 : vector<8xf8E4M3FN>
      %zero = arith.constant dense<0.0> : vector<4xf32>
      %vd = amdgpu.mfma 16x16x32 %va * %vb + %zero blgp = none : vector<8xf8E4M3FN>, vector<8xf8E4M3FN>, vector<4xf32>
      %row0 = arith.muli %g, %c4 : index
      scf.for %r = %c0 to %c4 step %c1 {
        %row = arith.addi %row0, %r : index
        %v = vector.extract %vd[%r] : f32 from vector<4xf32>
        memref.store %v, %d[%row, %i] : memref<16x16xf32>
      }
      gpu.return
    }
  }

  // A[i][k] = ((7 i + 3 k) % 11 - 5) / 4 and B[k][j] = ((5 k + 2 j) % 9 - 4) / 4:
  // exact in fp8, and so are all products and sums in f32.
  func.func @fill(%a: memref<16x32xf8E4M3FN>, %b: memref<32x16xf8E4M3FN>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %i2 = arith.constant 2 : i64
    %i3 = arith.constant 3 : i64
    %i4 = arith.constant 4 : i64
    %i5 = arith.constant 5 : i64
    %i7 = arith.constant 7 : i64
    %i9 = arith.constant 9 : i64
    %i11 = arith.constant 11 : i64
    %quarter = arith.constant 0.25 : f32
    scf.for %r = %c0 to %c16 step %c1 {
      scf.for %k = %c0 to %c32 step %c1 {
        %ri = arith.index_cast %r : index to i64
        %ki = arith.index_cast %k : index to i64
        %x7 = arith.muli %ri, %i7 : i64
        %k3 = arith.muli %ki, %i3 : i64
        %s = arith.addi %x7, %k3 : i64
        %m = arith.remsi %s, %i11 : i64
        %v = arith.subi %m, %i5 : i64
        %f = arith.sitofp %v : i64 to f32
        %q = arith.mulf %f, %quarter : f32
        %e = arith.truncf %q : f32 to f8E4M3FN
        memref.store %e, %a[%r, %k] : memref<16x32xf8E4M3FN>
        %k5 = arith.muli %ki, %i5 : i64
        %j2 = arith.muli %ri, %i2 : i64
        %t = arith.addi %k5, %j2 : i64
        %n = arith.remsi %t, %i9 : i64
        %w = arith.subi %n, %i4 : i64
        %g = arith.sitofp %w : i64 to f32
        %h = arith.mulf %g, %quarter : f32
        %be = arith.truncf %h : f32 to f8E4M3FN
        memref.store %be, %b[%k, %r] : memref<32x16xf8E4M3FN>
      }
    }
    return
  }

  func.func @check(%a: memref<16x32xf8E4M3FN>, %b: memref<32x16xf8E4M3FN>, %d: memref<16x16xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0.0 : f32
    scf.for %i = %c0 to %c16 step %c1 {
      scf.for %j = %c0 to %c16 step %c1 {
        %sum = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %zero) -> (f32) {
          %x = memref.load %a[%i, %k] : memref<16x32xf8E4M3FN>
          %y = memref.load %b[%k, %j] : memref<32x16xf8E4M3FN>
          %xf = arith.extf %x : f8E4M3FN to f32
          %yf = arith.extf %y : f8E4M3FN to f32
          %p = arith.mulf %xf, %yf : f32
          %n = arith.addf %acc, %p : f32
          scf.yield %n : f32
        }
        %got = memref.load %d[%i, %j] : memref<16x16xf32>
        %ok = arith.cmpf oeq, %got, %sum : f32
        cf.assert %ok, "D = A x B"
      }
    }
    return
  }

  func.func @main() {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %a = memref.alloc() : memref<16x32xf8E4M3FN>
    %b = memref.alloc() : memref<32x16xf8E4M3FN>
    %d = memref.alloc() : memref<16x16xf32>
    func.call @fill(%a, %b) : (memref<16x32xf8E4M3FN>, memref<32x16xf8E4M3FN>) -> ()
    gpu.launch_func @k::@matmul blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%a : memref<16x32xf8E4M3FN>, %b : memref<32x16xf8E4M3FN>, %d : memref<16x16xf32>)
    func.call @check(%a, %b, %d) : (memref<16x32xf8E4M3FN>, memref<32x16xf8E4M3FN>, memref<16x16xf32>) -> ()
    return
  }

  func.func @broken() {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %a = memref.alloc() : memref<16x32xf8E4M3FN>
    %b = memref.alloc() : memref<32x16xf8E4M3FN>
    %d = memref.alloc() : memref<16x16xf32>
    func.call @fill(%a, %b) : (memref<16x32xf8E4M3FN>, memref<32x16xf8E4M3FN>) -> ()
    gpu.launch_func @k::@matmul_broken_mapping blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%a : memref<16x32xf8E4M3FN>, %b : memref<32x16xf8E4M3FN>, %d : memref<16x16xf32>)
    func.call @check(%a, %b, %d) : (memref<16x32xf8E4M3FN>, memref<32x16xf8E4M3FN>, memref<16x16xf32>) -> ()
    return
  }
}
