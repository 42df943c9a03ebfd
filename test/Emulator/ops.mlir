// The semantics of each dialect's ops, one host function per dialect
// (the host runs the same handlers as a kernel lane), values worked out by
// hand; then the per-op run-time errors, each with the op's location.
// RUN: pa-emulate %s --entry=arith_integers | FileCheck %s --check-prefix=OK
// RUN: pa-emulate %s --entry=arith_floats | FileCheck %s --check-prefix=OK
// RUN: pa-emulate %s --entry=math | FileCheck %s --check-prefix=OK
// RUN: pa-emulate %s --entry=vector | FileCheck %s --check-prefix=OK
// RUN: pa-emulate %s --entry=affine_and_scf | FileCheck %s --check-prefix=OK
// RUN: pa-emulate %s --entry=memref_metadata | FileCheck %s --check-prefix=OK
// OK: ok
// RUN: not pa-emulate %s --entry=fptosi_out_of_range 2>&1 | FileCheck %s --check-prefix=FPTOSI
// FPTOSI: emulator: float to integer conversion of 3000000000.000000 is out of range (poison)
// RUN: not pa-emulate %s --entry=shift_by_width 2>&1 | FileCheck %s --check-prefix=SHIFT
// SHIFT: emulator: shift by at least the bit width (poison)
// RUN: not pa-emulate %s --entry=signed_division_overflow 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// OVERFLOW: emulator: signed division by zero or overflow
// RUN: not pa-emulate %s --entry=vector_position 2>&1 | FileCheck %s --check-prefix=POSITION
// POSITION: emulator: vector position out of range
// RUN: not pa-emulate %s --entry=subview_out_of_bounds 2>&1 | FileCheck %s --check-prefix=SUBVIEW
// SUBVIEW: emulator: subview [6, size 4, stride 1] of dim 0 (size 8) is out of bounds
// RUN: not pa-emulate %s --entry=load_out_of_bounds 2>&1 | FileCheck %s --check-prefix=LOAD
// LOAD: emulator: out-of-bounds load from 'memref.alloc #1'[2, 5] of a memref with sizes [4, 4] (dim 1)

module attributes {gpu.container_module} {
  func.func @arith_integers() {
    %m7 = arith.constant -7 : i32
    %c2 = arith.constant 2 : i32
    %ceil = arith.ceildivsi %m7, %c2 : i32
    %floor = arith.floordivsi %m7, %c2 : i32
    %rem = arith.remsi %m7, %c2 : i32
    %div = arith.divsi %m7, %c2 : i32
    %m3 = arith.constant -3 : i32
    %m4 = arith.constant -4 : i32
    %m1 = arith.constant -1 : i32
    %ok0 = arith.cmpi eq, %ceil, %m3 : i32
    cf.assert %ok0, "ceildivsi -7, 2 = -3"
    %ok1 = arith.cmpi eq, %floor, %m4 : i32
    cf.assert %ok1, "floordivsi -7, 2 = -4"
    %ok2 = arith.cmpi eq, %rem, %m1 : i32
    cf.assert %ok2, "remsi -7, 2 = -1"
    %ok3 = arith.cmpi eq, %div, %m3 : i32
    cf.assert %ok3, "divsi -7, 2 = -3"
    %c7 = arith.constant 7 : i32
    %c4 = arith.constant 4 : i32
    %ceilu = arith.ceildivui %c7, %c2 : i32
    %ok4 = arith.cmpi eq, %ceilu, %c4 : i32
    cf.assert %ok4, "ceildivui 7, 2 = 4"
    // i8: 0x80 >> 1 signed / unsigned
    %min8 = arith.constant -128 : i8
    %one8 = arith.constant 1 : i8
    %sra = arith.shrsi %min8, %one8 : i8
    %srl = arith.shrui %min8, %one8 : i8
    %m64 = arith.constant -64 : i8
    %p64 = arith.constant 64 : i8
    %ok5 = arith.cmpi eq, %sra, %m64 : i8
    cf.assert %ok5, "shrsi"
    %ok6 = arith.cmpi eq, %srl, %p64 : i8
    cf.assert %ok6, "shrui"
    %mone8 = arith.constant -1 : i8
    %maxs = arith.maxsi %mone8, %one8 : i8
    %maxu = arith.maxui %mone8, %one8 : i8
    %ok7 = arith.cmpi eq, %maxs, %one8 : i8
    cf.assert %ok7, "maxsi -1, 1 = 1"
    %ok8 = arith.cmpi eq, %maxu, %mone8 : i8
    cf.assert %ok8, "maxui 255, 1 = 255"
    %x1ff = arith.constant 511 : i32
    %t8 = arith.trunci %x1ff : i32 to i8
    %ok9 = arith.cmpi eq, %t8, %mone8 : i8
    cf.assert %ok9, "trunci 0x1ff = 0xff"
    %sext = arith.extsi %mone8 : i8 to i32
    %zext = arith.extui %mone8 : i8 to i32
    %c255 = arith.constant 255 : i32
    %ok10 = arith.cmpi eq, %sext, %m1 : i32
    cf.assert %ok10, "extsi"
    %ok11 = arith.cmpi eq, %zext, %c255 : i32
    cf.assert %ok11, "extui"
    %m5 = arith.constant -5 : i32
    %idx = arith.index_cast %m5 : i32 to index
    %idxu = arith.index_castui %m5 : i32 to index
    %m5i = arith.constant -5 : index
    %u5 = arith.constant 4294967291 : index
    %ok12 = arith.cmpi eq, %idx, %m5i : index
    cf.assert %ok12, "index_cast sign-extends"
    %ok13 = arith.cmpi eq, %idxu, %u5 : index
    cf.assert %ok13, "index_castui zero-extends"
    %lt = arith.cmpi slt, %m5, %c2 : i32
    %ltu = arith.cmpi ult, %m5, %c2 : i32
    %notltu = arith.xori %ltu, %lt : i1
    cf.assert %notltu, "slt true, ult false"
    return
  }

  func.func @arith_floats() {
    %nan = arith.constant 0x7FC00000 : f32
    %one = arith.constant 1.0 : f32
    %pz = arith.constant 0.0 : f32
    %nz = arith.constant -0.0 : f32
    %maximum = arith.maximumf %nan, %one : f32
    %isnan = arith.cmpf uno, %maximum, %maximum : f32
    cf.assert %isnan, "maximumf propagates NaN"
    %maxnum = arith.maxnumf %nan, %one : f32
    %ok0 = arith.cmpf oeq, %maxnum, %one : f32
    cf.assert %ok0, "maxnumf ignores NaN"
    %minimum = arith.minimumf %pz, %nz : f32
    %bits = arith.bitcast %minimum : f32 to i32
    %signbit = arith.constant -2147483648 : i32
    %ok1 = arith.cmpi eq, %bits, %signbit : i32
    cf.assert %ok1, "minimumf +0, -0 = -0"
    %ueq = arith.cmpf ueq, %nan, %one : f32
    cf.assert %ueq, "ueq with NaN is true"
    %f29 = arith.constant -2.9 : f32
    %i = arith.fptosi %f29 : f32 to i32
    %m2 = arith.constant -2 : i32
    %ok2 = arith.cmpi eq, %i, %m2 : i32
    cf.assert %ok2, "fptosi truncates toward zero"
    %m3 = arith.constant -3 : i32
    %f = arith.sitofp %m3 : i32 to f64
    %m3f = arith.constant -3.0 : f64
    %ok3 = arith.cmpf oeq, %f, %m3f : f64
    cf.assert %ok3, "sitofp"
    // truncf to fp8 saturates to the largest finite value (448 in E4M3FN)
    %big = arith.constant 1000.0 : f32
    %f8 = arith.truncf %big : f32 to f8E4M3FN
    %back = arith.extf %f8 : f8E4M3FN to f32
    %c448 = arith.constant 448.0 : f32
    %ok4 = arith.cmpf oeq, %back, %c448 : f32
    cf.assert %ok4, "truncf saturates"
    %x = arith.constant 7.0 : f32
    %y = arith.constant 2.0 : f32
    %r = arith.remf %x, %y : f32
    %ok5 = arith.cmpf oeq, %r, %one : f32
    cf.assert %ok5, "remf 7, 2 = 1"
    %cond = arith.constant dense<[true, false]> : vector<2xi1>
    %a = arith.constant dense<[1.0, 2.0]> : vector<2xf32>
    %b = arith.constant dense<[3.0, 4.0]> : vector<2xf32>
    %sel = arith.select %cond, %a, %b : vector<2xi1>, vector<2xf32>
    %want = arith.constant dense<[1.0, 4.0]> : vector<2xf32>
    %eq = arith.cmpf oeq, %sel, %want : vector<2xf32>
    %all = vector.reduction <and>, %eq : vector<2xi1> into i1
    cf.assert %all, "select per element"
    return
  }

  func.func @math() {
    %x = arith.constant dense<[16.0, -1.5, 2.5, 3.0]> : vector<4xf32>
    %sqrt = math.sqrt %x : vector<4xf32>
    %floor = math.floor %x : vector<4xf32>
    %even = math.roundeven %x : vector<4xf32>
    %round = math.round %x : vector<4xf32>
    %exp2 = math.exp2 %x : vector<4xf32>
    %c0 = arith.constant 0 : index
    %sqrt0 = vector.extract %sqrt[0] : f32 from vector<4xf32>
    %floor1 = vector.extract %floor[1] : f32 from vector<4xf32>
    %even2 = vector.extract %even[2] : f32 from vector<4xf32>
    %round2 = vector.extract %round[2] : f32 from vector<4xf32>
    %exp23 = vector.extract %exp2[3] : f32 from vector<4xf32>
    %c4 = arith.constant 4.0 : f32
    %cm2 = arith.constant -2.0 : f32
    %c2 = arith.constant 2.0 : f32
    %c3 = arith.constant 3.0 : f32
    %c8 = arith.constant 8.0 : f32
    %ok0 = arith.cmpf oeq, %sqrt0, %c4 : f32
    cf.assert %ok0, "sqrt 16 = 4"
    %ok1 = arith.cmpf oeq, %floor1, %cm2 : f32
    cf.assert %ok1, "floor -1.5 = -2"
    %ok2 = arith.cmpf oeq, %even2, %c2 : f32
    cf.assert %ok2, "roundeven 2.5 = 2"
    %ok3 = arith.cmpf oeq, %round2, %c3 : f32
    cf.assert %ok3, "round 2.5 = 3"
    %ok4 = arith.cmpf oeq, %exp23, %c8 : f32
    cf.assert %ok4, "exp2 3 = 8"
    %fma = math.fma %c2, %c3, %c4 : f32
    %c10 = arith.constant 10.0 : f32
    %ok5 = arith.cmpf oeq, %fma, %c10 : f32
    cf.assert %ok5, "fma 2 * 3 + 4 = 10"
    %rsqrt = math.rsqrt %c4 : f32
    %half = arith.constant 0.5 : f32
    %ok6 = arith.cmpf oeq, %rsqrt, %half : f32
    cf.assert %ok6, "rsqrt 4 = 0.5"
    %abs = math.absf %cm2 : f32
    %ok7 = arith.cmpf oeq, %abs, %c2 : f32
    cf.assert %ok7, "absf -2 = 2"
    %sign = math.copysign %c2, %cm2 : f32
    %ok8 = arith.cmpf oeq, %sign, %cm2 : f32
    cf.assert %ok8, "copysign 2, -2 = -2"
    return
  }

  func.func @vector() {
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %c4 = arith.constant 4 : i32
    %v = vector.from_elements %c1, %c2, %c3, %c4 : vector<4xi32>
    %sum = vector.reduction <add>, %v : vector<4xi32> into i32
    %c10 = arith.constant 10 : i32
    %ok0 = arith.cmpi eq, %sum, %c10 : i32
    cf.assert %ok0, "reduction add = 10"
    %c20 = arith.constant 20 : i32
    %max = vector.reduction <maxsi>, %v, %c20 : vector<4xi32> into i32
    %ok1 = arith.cmpi eq, %max, %c20 : i32
    cf.assert %ok1, "reduction maxsi with accumulator 20"
    %slice = vector.extract_strided_slice %v {offsets = [1], sizes = [2], strides = [1]} : vector<4xi32> to vector<2xi32>
    %s1 = vector.extract %slice[1] : i32 from vector<2xi32>
    %ok2 = arith.cmpi eq, %s1, %c3 : i32
    cf.assert %ok2, "extract_strided_slice [1, 3) element 1 = 3"
    %c9 = arith.constant 9 : i32
    %ins = vector.insert %c9, %v [0] : i32 into vector<4xi32>
    %back = vector.insert_strided_slice %slice, %ins {offsets = [2], strides = [1]} : vector<2xi32> into vector<4xi32>
    %want = arith.constant dense<[9, 2, 2, 3]> : vector<4xi32>
    %eq = arith.cmpi eq, %back, %want : vector<4xi32>
    %all = vector.reduction <and>, %eq : vector<4xi1> into i1
    cf.assert %all, "insert, insert_strided_slice"
    %sh = vector.shuffle %v, %want [7, 0] : vector<4xi32>, vector<4xi32>
    %want2 = arith.constant dense<[3, 1]> : vector<2xi32>
    %eq2 = arith.cmpi eq, %sh, %want2 : vector<2xi32>
    %all2 = vector.reduction <and>, %eq2 : vector<2xi1> into i1
    cf.assert %all2, "shuffle"
    %halves = arith.constant dense<[1, 2]> : vector<2xi16>
    %word = vector.bitcast %halves : vector<2xi16> to vector<1xi32>
    %w = vector.extract %word[0] : i32 from vector<1xi32>
    %c131073 = arith.constant 131073 : i32
    %ok3 = arith.cmpi eq, %w, %c131073 : i32
    cf.assert %ok3, "bitcast little endian: 1 | 2 << 16"
    %b = vector.broadcast %c2 : i32 to vector<2x2xi32>
    %b11 = vector.extract %b[1, 1] : i32 from vector<2x2xi32>
    %ok4 = arith.cmpi eq, %b11, %c2 : i32
    cf.assert %ok4, "broadcast"
    return
  }

  func.func @affine_and_scf() {
    %c7 = arith.constant 7 : index
    %m5 = arith.constant -5 : index
    %min = affine.min affine_map<(d0) -> (d0, 5)>(%c7)
    %c5 = arith.constant 5 : index
    %ok0 = arith.cmpi eq, %min, %c5 : index
    cf.assert %ok0, "affine.min (7, 5) = 5"
    %fdiv = affine.apply affine_map<(d0) -> (d0 floordiv 4)>(%m5)
    %mod = affine.apply affine_map<(d0) -> (d0 mod 4)>(%m5)
    %m2 = arith.constant -2 : index
    %c3 = arith.constant 3 : index
    %ok1 = arith.cmpi eq, %fdiv, %m2 : index
    cf.assert %ok1, "-5 floordiv 4 = -2"
    %ok2 = arith.cmpi eq, %mod, %c3 : index
    cf.assert %ok2, "-5 mod 4 = 3"
    // while: double from 1 until >= 100 -> 128
    %c1 = arith.constant 1 : index
    %c100 = arith.constant 100 : index
    %r = scf.while (%x = %c1) : (index) -> index {
      %go = arith.cmpi ult, %x, %c100 : index
      scf.condition(%go) %x : index
    } do {
    ^bb0(%y: index):
      %d = arith.addi %y, %y : index
      scf.yield %d : index
    }
    %c128 = arith.constant 128 : index
    %ok3 = arith.cmpi eq, %r, %c128 : index
    cf.assert %ok3, "while doubles to 128"
    // for with an iteration argument: 0 + 1 + ... + 6 = 21
    %c0 = arith.constant 0 : index
    %s = scf.for %i = %c0 to %c7 step %c1 iter_args(%acc = %c0) -> (index) {
      %n = arith.addi %acc, %i : index
      scf.yield %n : index
    }
    %c21 = arith.constant 21 : index
    %ok4 = arith.cmpi eq, %s, %c21 : index
    cf.assert %ok4, "for sums to 21"
    %t = arith.cmpi eq, %s, %c21 : index
    %picked = scf.if %t -> (index) {
      scf.yield %c1 : index
    } else {
      scf.yield %c0 : index
    }
    %ok5 = arith.cmpi eq, %picked, %c1 : index
    cf.assert %ok5, "if yields the then value"
    return
  }

  func.func @fptosi_out_of_range() {
    %big = arith.constant 3.0e9 : f32
    // FPTOSI-NEXT: at 'arith.fptosi' loc("{{.*}}ops.mlir":[[@LINE+1]]:{{[0-9]+}})
    %i = arith.fptosi %big : f32 to i32
    return
  }

  func.func @shift_by_width() {
    %one = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    // SHIFT-NEXT: at 'arith.shli' loc("{{.*}}ops.mlir":[[@LINE+1]]:{{[0-9]+}})
    %s = arith.shli %one, %c32 : i32
    return
  }

  func.func @signed_division_overflow() {
    %min = arith.constant -128 : i8
    %m1 = arith.constant -1 : i8
    // OVERFLOW-NEXT: at 'arith.divsi' loc("{{.*}}ops.mlir":[[@LINE+1]]:{{[0-9]+}})
    %d = arith.divsi %min, %m1 : i8
    return
  }

  func.func @vector_position() {
    %v = arith.constant dense<[1, 2]> : vector<2xi32>
    %c2 = arith.constant 2 : index
    // POSITION-NEXT: at 'vector.extract' loc("{{.*}}ops.mlir":[[@LINE+1]]:{{[0-9]+}})
    %e = vector.extract %v[%c2] : i32 from vector<2xi32>
    return
  }

  // memref.extract_strided_metadata reads a view's offset, sizes and
  // strides (a kernel reading a run-time page stride).
  func.func @memref_metadata() {
    %m = memref.alloc() : memref<4x6xf32>
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c6 = arith.constant 6 : index
    %c7 = arith.constant 7 : index
    %s = memref.subview %m[%c1, %c1] [2, 3] [1, 2] : memref<4x6xf32> to memref<2x3xf32, strided<[6, 2], offset: ?>>
    %d = memref.cast %s : memref<2x3xf32, strided<[6, 2], offset: ?>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
    %base, %offset, %sizes:2, %strides:2 = memref.extract_strided_metadata %d : memref<?x?xf32, strided<[?, ?], offset: ?>> -> memref<f32>, index, index, index, index, index
    %ok0 = arith.cmpi eq, %offset, %c7 : index
    cf.assert %ok0, "offset 1 * 6 + 1 = 7"
    %ok1 = arith.cmpi eq, %sizes#0, %c2 : index
    cf.assert %ok1, "size 0 = 2"
    %ok2 = arith.cmpi eq, %sizes#1, %c3 : index
    cf.assert %ok2, "size 1 = 3"
    %ok3 = arith.cmpi eq, %strides#0, %c6 : index
    cf.assert %ok3, "stride 0 = 6"
    %ok4 = arith.cmpi eq, %strides#1, %c2 : index
    cf.assert %ok4, "stride 1 = 1 * 2"
    return
  }

  func.func @subview_out_of_bounds() {
    %m = memref.alloc() : memref<8xf32>
    %c6 = arith.constant 6 : index
    // SUBVIEW-NEXT: at 'memref.subview' loc("{{.*}}ops.mlir":[[@LINE+1]]:{{[0-9]+}})
    %s = memref.subview %m[%c6] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: ?>>
    return
  }

  func.func @load_out_of_bounds() {
    %m = memref.alloc() : memref<4x4xf32>
    %c2 = arith.constant 2 : index
    %c5 = arith.constant 5 : index
    // LOAD-NEXT: at 'memref.load' loc("{{.*}}ops.mlir":[[@LINE+2]]:{{[0-9]+}})
    // LOAD-NEXT: in host function @load_out_of_bounds
    %v = memref.load %m[%c2, %c5] : memref<4x4xf32>
    return
  }
}
