// RUN: pa-opt %s -pa-set-target=chip=gfx950 -pa-lower-reduce -pa-lower-tiled-to-host \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | FileCheck %s

// Executes the reduce kernel on the host on hand-computed cases. Outputs are
// poisoned with NaN first, so an element the kernel does not write shows up.
// "Empty" partitions (max_logits = -inf) carry NaN in tmp_out, like a row no
// one wrote: their weight is 0 and they must not reach the sum. ln(1/2),
// ln(1/4) and ln(2) are the f32 values nearest to them; every expected
// output is exactly representable in bf16 and f16, so rounding cannot hide
// an error.

func.func private @printMemrefF16(memref<*xf16>) attributes {llvm.emit_c_interface}
func.func private @printMemrefBF16(memref<*xbf16>) attributes {llvm.emit_c_interface}

// A: no sinks, Hkv = 1, Hq = 1, Q = 1, D = 2, B = 5, capacity 7.
//   b0: slots 0, 1: M = 0, w = (1 * 1, 2 * 1/2) = (1, 1), den 2:
//       ([1, -2] + [3, 4]) / 2 = [2, 1]
//   b1: count 0: [0, 0]
//   b2: slot 2 empty (es 0, tmp NaN), slot 3 (max 0.5, es 4): [1.5, -0.25]
//   b3: slots 4, 5, the max in the second: w = (4 * 1/4, 1) = (1, 1):
//       ([8, 0] + [0, 8]) / 2 = [4, 4]
//   b4: slot 6 empty only: den 0, [0, 0]
memref.global "private" constant @a_max : memref<1x7x1xf32> =
    dense<[[[0.0], [-0.693147182], [0xFF800000], [0.5], [-1.38629436], [0.0],
            [0xFF800000]]]>
memref.global "private" constant @a_sums : memref<1x7x1xf32> =
    dense<[[[1.0], [2.0], [0.0], [4.0], [4.0], [1.0], [0.0]]]>
memref.global "private" constant @a_tmp : memref<1x7x1x2xf32> =
    dense<[[[[1.0, -2.0]], [[3.0, 4.0]], [[0x7FC00000, 0x7FC00000]],
            [[1.5, -0.25]], [[8.0, 0.0]], [[0.0, 8.0]],
            [[0x7FC00000, 0x7FC00000]]]]>
memref.global "private" constant @a_plan : memref<5x2xi32> =
    dense<[[0, 2], [2, 0], [2, 2], [4, 2], [6, 1]]>

// B: f32 sinks (-inf, +inf), Hkv = 1, Hq = 2 (G = 2), Q = 1, D = 2, B = 1;
// both rows hold A's b0. Sink -inf is no sink: [2, 1]; +inf: M = +inf, every
// w = 0, e_z = 1: [0, 0].
memref.global "private" constant @b_max : memref<1x2x2xf32> =
    dense<[[[0.0, 0.0], [-0.693147182, -0.693147182]]]>
memref.global "private" constant @b_sums : memref<1x2x2xf32> =
    dense<[[[1.0, 1.0], [2.0, 2.0]]]>
memref.global "private" constant @b_tmp : memref<1x2x2x2xf32> =
    dense<[[[[1.0, -2.0], [1.0, -2.0]], [[3.0, 4.0], [3.0, 4.0]]]]>
memref.global "private" constant @b_plan : memref<1x2xi32> = dense<[[0, 2]]>
memref.global "private" constant @b_sinks : memref<2xf32> =
    dense<[0xFF800000, 0x7F800000]>

// C: bf16 sink z = 0, Hkv = 1, Hq = 1, Q = 1, D = 2, B = 4.
//   b0: slot 0 (max 0, es 1): z == M, e_z = 1, den 2: [4, -8] / 2 = [2, -4]
//   b1: slot 1 (max ln 2, es 1.5): e_z = 1/2, den 2: 0.75 [4, -8] = [3, -6]
//   b2: count 0: den = e_z = 1, [0, 0]
//   b3: slot 2 empty: [0, 0]
memref.global "private" constant @c_max : memref<1x3x1xf32> =
    dense<[[[0.0], [0.693147182], [0xFF800000]]]>
memref.global "private" constant @c_sums : memref<1x3x1xf32> =
    dense<[[[1.0], [1.5], [0.0]]]>
memref.global "private" constant @c_tmp : memref<1x3x1x2xf32> =
    dense<[[[[4.0, -8.0]], [[4.0, -8.0]], [[0x7FC00000, 0x7FC00000]]]]>
memref.global "private" constant @c_plan : memref<4x2xi32> =
    dense<[[0, 1], [1, 1], [2, 0], [2, 1]]>
memref.global "private" constant @c_sinks : memref<1xbf16> = dense<[0.0]>

// D: row mapping. Hkv = 2, Hq = 4 (G = 2), Q = 2, D = 1, B = 2, one
// partition per sequence (slot b), weight 1, tmp_out[h][slot][r] =
// 100 h + 10 slot + r. Row r = 2q + g goes to output[2b + q][2h + g], so
// output[2b + q][2h + g] = 100 h + 10 b + 2 q + g.
memref.global "private" constant @d_max : memref<2x2x4xf32> = dense<0.0>
memref.global "private" constant @d_sums : memref<2x2x4xf32> = dense<1.0>
memref.global "private" constant @d_tmp : memref<2x2x4x1xf32> =
    dense<[[[[0.0], [1.0], [2.0], [3.0]], [[10.0], [11.0], [12.0], [13.0]]],
           [[[100.0], [101.0], [102.0], [103.0]],
            [[110.0], [111.0], [112.0], [113.0]]]]>
memref.global "private" constant @d_plan : memref<2x2xi32> =
    dense<[[0, 1], [1, 1]]>

func.func @poison_f16(%out: memref<?x?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %nan = arith.constant 0x7E00 : f16
  %n0 = memref.dim %out, %c0 : memref<?x?x?xf16>
  %n1 = memref.dim %out, %c1 : memref<?x?x?xf16>
  %n2 = memref.dim %out, %c2 : memref<?x?x?xf16>
  scf.for %i = %c0 to %n0 step %c1 {
    scf.for %j = %c0 to %n1 step %c1 {
      scf.for %k = %c0 to %n2 step %c1 {
        memref.store %nan, %out[%i, %j, %k] : memref<?x?x?xf16>
      }
    }
  }
  return
}

func.func @poison_bf16(%out: memref<?x?x?xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %nan = arith.constant 0x7FC0 : bf16
  %n0 = memref.dim %out, %c0 : memref<?x?x?xbf16>
  %n1 = memref.dim %out, %c1 : memref<?x?x?xbf16>
  %n2 = memref.dim %out, %c2 : memref<?x?x?xbf16>
  scf.for %i = %c0 to %n0 step %c1 {
    scf.for %j = %c0 to %n1 step %c1 {
      scf.for %k = %c0 to %n2 step %c1 {
        memref.store %nan, %out[%i, %j, %k] : memref<?x?x?xbf16>
      }
    }
  }
  return
}

func.func @main() {
  // A
  %a_max = memref.get_global @a_max : memref<1x7x1xf32>
  %a_sums = memref.get_global @a_sums : memref<1x7x1xf32>
  %a_tmp = memref.get_global @a_tmp : memref<1x7x1x2xf32>
  %a_plan = memref.get_global @a_plan : memref<5x2xi32>
  %a_out = memref.alloc() : memref<5x1x2xf16>
  %a_outd = memref.cast %a_out : memref<5x1x2xf16> to memref<?x?x?xf16>
  call @poison_f16(%a_outd) : (memref<?x?x?xf16>) -> ()
  pa.reduce exp_sums(%a_sums : memref<1x7x1xf32>)
            max_logits(%a_max : memref<1x7x1xf32>)
            tmp_out(%a_tmp : memref<1x7x1x2xf32>)
            reduce_info(%a_plan : memref<5x2xi32>)
            output(%a_out : memref<5x1x2xf16>)
  %a_print = memref.cast %a_out : memref<5x1x2xf16> to memref<*xf16>
  call @printMemrefF16(%a_print) : (memref<*xf16>) -> ()
  // CHECK:      sizes = [5, 1, 2]
  // CHECK-NEXT: {{\[\[\[}}2, 1]],
  // CHECK-NEXT: {{^ \[\[}}0, 0]],
  // CHECK-NEXT: {{^ \[\[}}1.5, -0.25]],
  // CHECK-NEXT: {{^ \[\[}}4, 4]],
  // CHECK-NEXT: {{^ \[\[}}0, 0]]]

  // B
  %b_max = memref.get_global @b_max : memref<1x2x2xf32>
  %b_sums = memref.get_global @b_sums : memref<1x2x2xf32>
  %b_tmp = memref.get_global @b_tmp : memref<1x2x2x2xf32>
  %b_plan = memref.get_global @b_plan : memref<1x2xi32>
  %b_sinks = memref.get_global @b_sinks : memref<2xf32>
  %b_out = memref.alloc() : memref<1x2x2xbf16>
  %b_outd = memref.cast %b_out : memref<1x2x2xbf16> to memref<?x?x?xbf16>
  call @poison_bf16(%b_outd) : (memref<?x?x?xbf16>) -> ()
  pa.reduce exp_sums(%b_sums : memref<1x2x2xf32>)
            max_logits(%b_max : memref<1x2x2xf32>)
            tmp_out(%b_tmp : memref<1x2x2x2xf32>)
            reduce_info(%b_plan : memref<1x2xi32>)
            sinks(%b_sinks : memref<2xf32>)
            output(%b_out : memref<1x2x2xbf16>)
  %b_print = memref.cast %b_out : memref<1x2x2xbf16> to memref<*xbf16>
  call @printMemrefBF16(%b_print) : (memref<*xbf16>) -> ()
  // CHECK:      sizes = [1, 2, 2]
  // CHECK-NEXT: {{\[\[\[}}2, 1],
  // CHECK-NEXT: {{^  \[}}0, 0]]]

  // C
  %c_max = memref.get_global @c_max : memref<1x3x1xf32>
  %c_sums = memref.get_global @c_sums : memref<1x3x1xf32>
  %c_tmp = memref.get_global @c_tmp : memref<1x3x1x2xf32>
  %c_plan = memref.get_global @c_plan : memref<4x2xi32>
  %c_sinks = memref.get_global @c_sinks : memref<1xbf16>
  %c_out = memref.alloc() : memref<4x1x2xf16>
  %c_outd = memref.cast %c_out : memref<4x1x2xf16> to memref<?x?x?xf16>
  call @poison_f16(%c_outd) : (memref<?x?x?xf16>) -> ()
  pa.reduce exp_sums(%c_sums : memref<1x3x1xf32>)
            max_logits(%c_max : memref<1x3x1xf32>)
            tmp_out(%c_tmp : memref<1x3x1x2xf32>)
            reduce_info(%c_plan : memref<4x2xi32>)
            sinks(%c_sinks : memref<1xbf16>)
            output(%c_out : memref<4x1x2xf16>)
  %c_print = memref.cast %c_out : memref<4x1x2xf16> to memref<*xf16>
  call @printMemrefF16(%c_print) : (memref<*xf16>) -> ()
  // CHECK:      sizes = [4, 1, 2]
  // CHECK-NEXT: {{\[\[\[}}2, -4]],
  // CHECK-NEXT: {{^ \[\[}}3, -6]],
  // CHECK-NEXT: {{^ \[\[}}0, 0]],
  // CHECK-NEXT: {{^ \[\[}}0, 0]]]

  // D
  %d_max = memref.get_global @d_max : memref<2x2x4xf32>
  %d_sums = memref.get_global @d_sums : memref<2x2x4xf32>
  %d_tmp = memref.get_global @d_tmp : memref<2x2x4x1xf32>
  %d_plan = memref.get_global @d_plan : memref<2x2xi32>
  %d_out = memref.alloc() : memref<4x4x1xf16>
  %d_outd = memref.cast %d_out : memref<4x4x1xf16> to memref<?x?x?xf16>
  call @poison_f16(%d_outd) : (memref<?x?x?xf16>) -> ()
  %d_plan_dyn = memref.cast %d_plan : memref<2x2xi32> to memref<?x2xi32>
  %d_out_dyn = memref.cast %d_out : memref<4x4x1xf16> to memref<?x4x1xf16>
  pa.reduce exp_sums(%d_sums : memref<2x2x4xf32>)
            max_logits(%d_max : memref<2x2x4xf32>)
            tmp_out(%d_tmp : memref<2x2x4x1xf32>)
            reduce_info(%d_plan_dyn : memref<?x2xi32>)
            output(%d_out_dyn : memref<?x4x1xf16>)
  %d_print = memref.cast %d_out : memref<4x4x1xf16> to memref<*xf16>
  call @printMemrefF16(%d_print) : (memref<*xf16>) -> ()
  // CHECK:      sizes = [4, 4, 1]
  // CHECK-NEXT: {{\[\[\[}}0],
  // CHECK-NEXT: {{^  \[}}1],
  // CHECK-NEXT: {{^  \[}}100],
  // CHECK-NEXT: {{^  \[}}101]],
  // CHECK-NEXT: {{^ \[\[}}2],
  // CHECK-NEXT: {{^  \[}}3],
  // CHECK-NEXT: {{^  \[}}102],
  // CHECK-NEXT: {{^  \[}}103]],
  // CHECK-NEXT: {{^ \[\[}}10],
  // CHECK-NEXT: {{^  \[}}11],
  // CHECK-NEXT: {{^  \[}}110],
  // CHECK-NEXT: {{^  \[}}111]],
  // CHECK-NEXT: {{^ \[\[}}12],
  // CHECK-NEXT: {{^  \[}}13],
  // CHECK-NEXT: {{^  \[}}112],
  // CHECK-NEXT: {{^  \[}}113]]]

  memref.dealloc %a_out : memref<5x1x2xf16>
  memref.dealloc %b_out : memref<1x2x2xbf16>
  memref.dealloc %c_out : memref<4x1x2xf16>
  memref.dealloc %d_out : memref<4x4x1xf16>
  return
}
