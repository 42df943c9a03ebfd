// RUN: pa-opt %s -split-input-file -pa-expand-float-casts | FileCheck %s
// RUN: pa-opt %s -split-input-file -pa-expand-float-casts | FileCheck %s --check-prefix=NOCAST

// No extf / truncf touching bf16, f16 or the fp8 flavours is left anywhere.
// NOCAST-NOT: arith.extf {{.*}}bf16
// NOCAST-NOT: arith.extf {{.*}}f16
// NOCAST-NOT: arith.extf {{.*}}f8E4M3
// NOCAST-NOT: arith.truncf {{.*}}bf16
// NOCAST-NOT: arith.truncf {{.*}}f16
// NOCAST-NOT: arith.truncf {{.*}}f8E4M3

// The bit patterns (execution: expand-float-casts-run.mlir) are rounded on
// integers: f8E4M3FN clamps the magnitude to 448 (0x43E00000 = 1138753536)
// first, and the result is narrowed to i8 and bitcast.

// CHECK-LABEL: func.func @trunc_fn
// CHECK-SAME:    (%[[X:.*]]: f32) -> f8E4M3FN
// CHECK:         %[[BITS:.*]] = arith.bitcast %[[X]] : f32 to i32
// CHECK:         %[[ABS:.*]] = arith.andi %[[BITS]], %{{.*}} : i32
// CHECK:         %[[MAX:.*]] = arith.constant 1138753536 : i32
// CHECK:         arith.minui %[[ABS]], %[[MAX]] : i32
// CHECK:         %[[NARROW:.*]] = arith.trunci %{{.*}} : i32 to i8
// CHECK:         %[[RESULT:.*]] = arith.bitcast %[[NARROW]] : i8 to f8E4M3FN
// CHECK:         return %[[RESULT]]
func.func @trunc_fn(%x: f32) -> f8E4M3FN {
  %r = arith.truncf %x : f32 to f8E4M3FN
  return %r : f8E4M3FN
}

// f8E4M3FNUZ saturates at 240 (0x43700000 = 1131413504).
// CHECK-LABEL: func.func @trunc_fnuz
// CHECK:         arith.constant 1131413504 : i32
// CHECK:         arith.minui
// CHECK:         arith.bitcast %{{.*}} : i8 to f8E4M3FNUZ
func.func @trunc_fnuz(%x: f32) -> f8E4M3FNUZ {
  %r = arith.truncf %x : f32 to f8E4M3FNUZ
  return %r : f8E4M3FNUZ
}

// bf16 does not saturate; overflow is capped at the infinity pattern
// (0x7F80 = 32640).
// CHECK-LABEL: func.func @trunc_bf16
// CHECK-NOT:     arith.constant 2139095039 : i32
// CHECK:         %[[INF:.*]] = arith.constant 32640 : i32
// CHECK-NEXT:    arith.minui %{{.*}}, %[[INF]] : i32
// CHECK:         arith.trunci %{{.*}} : i32 to i16
// CHECK:         arith.bitcast %{{.*}} : i16 to bf16
func.func @trunc_bf16(%x: f32) -> bf16 {
  %r = arith.truncf %x : f32 to bf16
  return %r : bf16
}

// An f64 source is rounded once, on i64.
// CHECK-LABEL: func.func @trunc_f64_to_f16
// CHECK:         arith.bitcast %{{.*}} : f64 to i64
// CHECK:         arith.trunci %{{.*}} : i64 to i16
// CHECK:         arith.bitcast %{{.*}} : i16 to f16
func.func @trunc_f64_to_f16(%x: f64) -> f16 {
  %r = arith.truncf %x : f64 to f16
  return %r : f16
}

// Vectors keep their shape; constants are splats.
// CHECK-LABEL: func.func @trunc_vector
// CHECK:         arith.bitcast %{{.*}} : vector<2x8xf32> to vector<2x8xi32>
// CHECK:         arith.constant dense<1138753536> : vector<2x8xi32>
// CHECK:         arith.trunci %{{.*}} : vector<2x8xi32> to vector<2x8xi8>
// CHECK:         arith.bitcast %{{.*}} : vector<2x8xi8> to vector<2x8xf8E4M3FN>
func.func @trunc_vector(%x: vector<2x8xf32>) -> vector<2x8xf8E4M3FN> {
  %r = arith.truncf %x : vector<2x8xf32> to vector<2x8xf8E4M3FN>
  return %r : vector<2x8xf8E4M3FN>
}

// fp8 denormals are normalized with an exact int->float conversion.
// CHECK-LABEL: func.func @ext_fn
// CHECK-SAME:    (%[[X:.*]]: f8E4M3FN) -> f32
// CHECK:         %[[NARROW:.*]] = arith.bitcast %[[X]] : f8E4M3FN to i8
// CHECK:         arith.extui %[[NARROW]] : i8 to i32
// CHECK:         arith.uitofp %{{.*}} : i32 to f32
// CHECK:         %[[RESULT:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK-NEXT:    return %[[RESULT]]
func.func @ext_fn(%x: f8E4M3FN) -> f32 {
  %r = arith.extf %x : f8E4M3FN to f32
  return %r : f32
}

// bf16 has f32's exponent: its denormals need no normalization.
// CHECK-LABEL: func.func @ext_bf16_vector
// CHECK-NOT:     arith.uitofp
// CHECK:         arith.extui %{{.*}} : vector<4xi16> to vector<4xi32>
// CHECK-NOT:     arith.uitofp
// CHECK:         arith.bitcast %{{.*}} : vector<4xi32> to vector<4xf32>
func.func @ext_bf16_vector(%x: vector<4xbf16>) -> vector<4xf32> {
  %r = arith.extf %x : vector<4xbf16> to vector<4xf32>
  return %r : vector<4xf32>
}

// Extension to f64 goes through f32; fp8 -> f16 through f32 and an exact
// (expanded) truncation.
// CHECK-LABEL: func.func @ext_to_wider
// CHECK:         %[[F32:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK-NEXT:    %[[F64:.*]] = arith.extf %[[F32]] : f32 to f64
// CHECK:         %[[HALF:.*]] = arith.bitcast %{{.*}} : i16 to f16
// CHECK:         return %[[F64]], %[[HALF]] : f64, f16
func.func @ext_to_wider(%x: f8E4M3FNUZ) -> (f64, f16) {
  %d = arith.extf %x : f8E4M3FNUZ to f64
  %h = arith.extf %x : f8E4M3FNUZ to f16
  return %d, %h : f64, f16
}

// -----

// Casts between other types are left alone.
// CHECK-LABEL: func.func @untouched
// CHECK-NEXT:    arith.extf %{{.*}} : f32 to f64
// CHECK-NEXT:    arith.truncf %{{.*}} : f64 to f32
// CHECK-NEXT:    arith.extf %{{.*}} : f8E5M2 to f32
// CHECK-NEXT:    return
func.func @untouched(%x: f32, %y: f64, %z: f8E5M2) -> (f64, f32, f32) {
  %a = arith.extf %x : f32 to f64
  %b = arith.truncf %y : f64 to f32
  %c = arith.extf %z : f8E5M2 to f32
  return %a, %b, %c : f64, f32, f32
}
