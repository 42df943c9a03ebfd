// RUN: pa-opt %s -pa-lower-tiled-to-host \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN: | FileCheck %s

// Runs the casts pa-expand-float-casts expands (inside the host pipeline,
// JIT-compiled) over every bit pattern of bf16, f16, f8E4M3FN, f8E4M3FNUZ:
//  - fp8: the f32 value of each of the 256 patterns of both flavours, and
//    bf16 / f16: a position-weighted checksum of the f32 values of all 65536
//    patterns, both against values computed from the format definitions by
//    Inputs/float-cast-expectations.py (which prints those CHECK lines);
//  - every format: truncf(extf(p)) == p for all patterns (NaN: made quiet);
//    for every two adjacent finite values both signs of the value, the
//    midpoint (ties to even), and one f32 ulp above and below it; vector
//    casts equal to scalar ones lane by lane;
//  - hand-derived bit patterns for saturation, overflow, NaN, denormals and
//    ties, f64 sources (rounded once) and fp8 <-> bf16 / f16 / f64.

// CHECK: f8E4M3FN{{$}}
// CHECK-NEXT: round trip mismatches: 0{{$}}
// CHECK-NEXT: rounding mismatches: 0{{$}}
// CHECK-NEXT: vector mismatches: 0{{$}}
// CHECK-NEXT: f8E4M3FN decode table:
// CHECK-NEXT: ( 0, 989855744, 998244352, 1002438656, 1006632960, 1008730112, 1010827264, 1012924416, 1015021568, 1016070144, 1017118720, 1018167296, 1019215872, 1020264448, 1021313024, 1022361600 )
// CHECK-NEXT: ( 1023410176, 1024458752, 1025507328, 1026555904, 1027604480, 1028653056, 1029701632, 1030750208, 1031798784, 1032847360, 1033895936, 1034944512, 1035993088, 1037041664, 1038090240, 1039138816 )
// CHECK-NEXT: ( 1040187392, 1041235968, 1042284544, 1043333120, 1044381696, 1045430272, 1046478848, 1047527424, 1048576000, 1049624576, 1050673152, 1051721728, 1052770304, 1053818880, 1054867456, 1055916032 )
// CHECK-NEXT: ( 1056964608, 1058013184, 1059061760, 1060110336, 1061158912, 1062207488, 1063256064, 1064304640, 1065353216, 1066401792, 1067450368, 1068498944, 1069547520, 1070596096, 1071644672, 1072693248 )
// CHECK-NEXT: ( 1073741824, 1074790400, 1075838976, 1076887552, 1077936128, 1078984704, 1080033280, 1081081856, 1082130432, 1083179008, 1084227584, 1085276160, 1086324736, 1087373312, 1088421888, 1089470464 )
// CHECK-NEXT: ( 1090519040, 1091567616, 1092616192, 1093664768, 1094713344, 1095761920, 1096810496, 1097859072, 1098907648, 1099956224, 1101004800, 1102053376, 1103101952, 1104150528, 1105199104, 1106247680 )
// CHECK-NEXT: ( 1107296256, 1108344832, 1109393408, 1110441984, 1111490560, 1112539136, 1113587712, 1114636288, 1115684864, 1116733440, 1117782016, 1118830592, 1119879168, 1120927744, 1121976320, 1123024896 )
// CHECK-NEXT: ( 1124073472, 1125122048, 1126170624, 1127219200, 1128267776, 1129316352, 1130364928, 1131413504, 1132462080, 1133510656, 1134559232, 1135607808, 1136656384, 1137704960, 1138753536, 2143289344 )
// CHECK-NEXT: ( -2147483648, -1157627904, -1149239296, -1145044992, -1140850688, -1138753536, -1136656384, -1134559232, -1132462080, -1131413504, -1130364928, -1129316352, -1128267776, -1127219200, -1126170624, -1125122048 )
// CHECK-NEXT: ( -1124073472, -1123024896, -1121976320, -1120927744, -1119879168, -1118830592, -1117782016, -1116733440, -1115684864, -1114636288, -1113587712, -1112539136, -1111490560, -1110441984, -1109393408, -1108344832 )
// CHECK-NEXT: ( -1107296256, -1106247680, -1105199104, -1104150528, -1103101952, -1102053376, -1101004800, -1099956224, -1098907648, -1097859072, -1096810496, -1095761920, -1094713344, -1093664768, -1092616192, -1091567616 )
// CHECK-NEXT: ( -1090519040, -1089470464, -1088421888, -1087373312, -1086324736, -1085276160, -1084227584, -1083179008, -1082130432, -1081081856, -1080033280, -1078984704, -1077936128, -1076887552, -1075838976, -1074790400 )
// CHECK-NEXT: ( -1073741824, -1072693248, -1071644672, -1070596096, -1069547520, -1068498944, -1067450368, -1066401792, -1065353216, -1064304640, -1063256064, -1062207488, -1061158912, -1060110336, -1059061760, -1058013184 )
// CHECK-NEXT: ( -1056964608, -1055916032, -1054867456, -1053818880, -1052770304, -1051721728, -1050673152, -1049624576, -1048576000, -1047527424, -1046478848, -1045430272, -1044381696, -1043333120, -1042284544, -1041235968 )
// CHECK-NEXT: ( -1040187392, -1039138816, -1038090240, -1037041664, -1035993088, -1034944512, -1033895936, -1032847360, -1031798784, -1030750208, -1029701632, -1028653056, -1027604480, -1026555904, -1025507328, -1024458752 )
// CHECK-NEXT: ( -1023410176, -1022361600, -1021313024, -1020264448, -1019215872, -1018167296, -1017118720, -1016070144, -1015021568, -1013972992, -1012924416, -1011875840, -1010827264, -1009778688, -1008730112, -4194304 )
// CHECK-NEXT: f8E4M3FN truncf cases: 0{{$}}
// CHECK-NEXT: f8E4M3FN extf cases: 0{{$}}
//
// CHECK: f8E4M3FNUZ{{$}}
// CHECK-NEXT: round trip mismatches: 0{{$}}
// CHECK-NEXT: rounding mismatches: 0{{$}}
// CHECK-NEXT: vector mismatches: 0{{$}}
// CHECK-NEXT: f8E4M3FNUZ decode table:
// CHECK-NEXT: ( 0, 981467136, 989855744, 994050048, 998244352, 1000341504, 1002438656, 1004535808, 1006632960, 1007681536, 1008730112, 1009778688, 1010827264, 1011875840, 1012924416, 1013972992 )
// CHECK-NEXT: ( 1015021568, 1016070144, 1017118720, 1018167296, 1019215872, 1020264448, 1021313024, 1022361600, 1023410176, 1024458752, 1025507328, 1026555904, 1027604480, 1028653056, 1029701632, 1030750208 )
// CHECK-NEXT: ( 1031798784, 1032847360, 1033895936, 1034944512, 1035993088, 1037041664, 1038090240, 1039138816, 1040187392, 1041235968, 1042284544, 1043333120, 1044381696, 1045430272, 1046478848, 1047527424 )
// CHECK-NEXT: ( 1048576000, 1049624576, 1050673152, 1051721728, 1052770304, 1053818880, 1054867456, 1055916032, 1056964608, 1058013184, 1059061760, 1060110336, 1061158912, 1062207488, 1063256064, 1064304640 )
// CHECK-NEXT: ( 1065353216, 1066401792, 1067450368, 1068498944, 1069547520, 1070596096, 1071644672, 1072693248, 1073741824, 1074790400, 1075838976, 1076887552, 1077936128, 1078984704, 1080033280, 1081081856 )
// CHECK-NEXT: ( 1082130432, 1083179008, 1084227584, 1085276160, 1086324736, 1087373312, 1088421888, 1089470464, 1090519040, 1091567616, 1092616192, 1093664768, 1094713344, 1095761920, 1096810496, 1097859072 )
// CHECK-NEXT: ( 1098907648, 1099956224, 1101004800, 1102053376, 1103101952, 1104150528, 1105199104, 1106247680, 1107296256, 1108344832, 1109393408, 1110441984, 1111490560, 1112539136, 1113587712, 1114636288 )
// CHECK-NEXT: ( 1115684864, 1116733440, 1117782016, 1118830592, 1119879168, 1120927744, 1121976320, 1123024896, 1124073472, 1125122048, 1126170624, 1127219200, 1128267776, 1129316352, 1130364928, 1131413504 )
// CHECK-NEXT: ( 2143289344, -1166016512, -1157627904, -1153433600, -1149239296, -1147142144, -1145044992, -1142947840, -1140850688, -1139802112, -1138753536, -1137704960, -1136656384, -1135607808, -1134559232, -1133510656 )
// CHECK-NEXT: ( -1132462080, -1131413504, -1130364928, -1129316352, -1128267776, -1127219200, -1126170624, -1125122048, -1124073472, -1123024896, -1121976320, -1120927744, -1119879168, -1118830592, -1117782016, -1116733440 )
// CHECK-NEXT: ( -1115684864, -1114636288, -1113587712, -1112539136, -1111490560, -1110441984, -1109393408, -1108344832, -1107296256, -1106247680, -1105199104, -1104150528, -1103101952, -1102053376, -1101004800, -1099956224 )
// CHECK-NEXT: ( -1098907648, -1097859072, -1096810496, -1095761920, -1094713344, -1093664768, -1092616192, -1091567616, -1090519040, -1089470464, -1088421888, -1087373312, -1086324736, -1085276160, -1084227584, -1083179008 )
// CHECK-NEXT: ( -1082130432, -1081081856, -1080033280, -1078984704, -1077936128, -1076887552, -1075838976, -1074790400, -1073741824, -1072693248, -1071644672, -1070596096, -1069547520, -1068498944, -1067450368, -1066401792 )
// CHECK-NEXT: ( -1065353216, -1064304640, -1063256064, -1062207488, -1061158912, -1060110336, -1059061760, -1058013184, -1056964608, -1055916032, -1054867456, -1053818880, -1052770304, -1051721728, -1050673152, -1049624576 )
// CHECK-NEXT: ( -1048576000, -1047527424, -1046478848, -1045430272, -1044381696, -1043333120, -1042284544, -1041235968, -1040187392, -1039138816, -1038090240, -1037041664, -1035993088, -1034944512, -1033895936, -1032847360 )
// CHECK-NEXT: ( -1031798784, -1030750208, -1029701632, -1028653056, -1027604480, -1026555904, -1025507328, -1024458752, -1023410176, -1022361600, -1021313024, -1020264448, -1019215872, -1018167296, -1017118720, -1016070144 )
// CHECK-NEXT: f8E4M3FNUZ truncf cases: 0{{$}}
// CHECK-NEXT: f8E4M3FNUZ extf cases: 0{{$}}
//
// CHECK: bf16{{$}}
// CHECK-NEXT: round trip mismatches: 0{{$}}
// CHECK-NEXT: rounding mismatches: 0{{$}}
// CHECK-NEXT: vector mismatches: 0{{$}}
// CHECK-NEXT: bf16 decode checksum: 6148940615561248768
// CHECK-NEXT: bf16 truncf cases: 0{{$}}
// CHECK-NEXT: bf16 extf cases: 0{{$}}
//
// CHECK: f16{{$}}
// CHECK-NEXT: round trip mismatches: 0{{$}}
// CHECK-NEXT: rounding mismatches: 0{{$}}
// CHECK-NEXT: vector mismatches: 0{{$}}
// CHECK-NEXT: f16 decode checksum: 5906191749134417920
// CHECK-NEXT: f16 truncf cases: 0{{$}}
// CHECK-NEXT: f16 extf cases: 0{{$}}
//
// CHECK-NEXT: f64 truncf cases: 0{{$}}
// CHECK-NEXT: 0{{$}}
// CHECK-NEXT: 0{{$}}
// CHECK-NEXT: 0{{$}}
// CHECK-NEXT: fp8 extf to wider cases: 0{{$}}
// CHECK-NEXT: 0{{$}}
// CHECK-NEXT: 0{{$}}
// CHECK-NEXT: 0{{$}}
// CHECK-NEXT: 16-bit truncf to fp8 cases: 0{{$}}
// CHECK-NEXT: 0{{$}}
// CHECK-NEXT: scalar f64 truncf: 16257{{$}}

!ext = (i32) -> f32
!trunc = (f32) -> i32
!ext_v = (vector<16xi32>) -> vector<16xf32>
!trunc_v = (vector<16xf32>) -> vector<16xi32>

//===----------------------------------------------------------------------===//
// The casts under test, one set per format: a pattern (low bits of an i32)
// to f32 and back, scalar and 16 lanes.
//===----------------------------------------------------------------------===//

func.func private @fn_ext(%p: i32) -> f32 {
  %narrow = arith.trunci %p : i32 to i8
  %x = arith.bitcast %narrow : i8 to f8E4M3FN
  %r = arith.extf %x : f8E4M3FN to f32
  return %r : f32
}
func.func private @fn_trunc(%x: f32) -> i32 {
  %t = arith.truncf %x : f32 to f8E4M3FN
  %narrow = arith.bitcast %t : f8E4M3FN to i8
  %r = arith.extui %narrow : i8 to i32
  return %r : i32
}
func.func private @fn_ext_v(%p: vector<16xi32>) -> vector<16xf32> {
  %narrow = arith.trunci %p : vector<16xi32> to vector<16xi8>
  %x = arith.bitcast %narrow : vector<16xi8> to vector<16xf8E4M3FN>
  %r = arith.extf %x : vector<16xf8E4M3FN> to vector<16xf32>
  return %r : vector<16xf32>
}
func.func private @fn_trunc_v(%x: vector<16xf32>) -> vector<16xi32> {
  %t = arith.truncf %x : vector<16xf32> to vector<16xf8E4M3FN>
  %narrow = arith.bitcast %t : vector<16xf8E4M3FN> to vector<16xi8>
  %r = arith.extui %narrow : vector<16xi8> to vector<16xi32>
  return %r : vector<16xi32>
}

func.func private @fnuz_ext(%p: i32) -> f32 {
  %narrow = arith.trunci %p : i32 to i8
  %x = arith.bitcast %narrow : i8 to f8E4M3FNUZ
  %r = arith.extf %x : f8E4M3FNUZ to f32
  return %r : f32
}
func.func private @fnuz_trunc(%x: f32) -> i32 {
  %t = arith.truncf %x : f32 to f8E4M3FNUZ
  %narrow = arith.bitcast %t : f8E4M3FNUZ to i8
  %r = arith.extui %narrow : i8 to i32
  return %r : i32
}
func.func private @fnuz_ext_v(%p: vector<16xi32>) -> vector<16xf32> {
  %narrow = arith.trunci %p : vector<16xi32> to vector<16xi8>
  %x = arith.bitcast %narrow : vector<16xi8> to vector<16xf8E4M3FNUZ>
  %r = arith.extf %x : vector<16xf8E4M3FNUZ> to vector<16xf32>
  return %r : vector<16xf32>
}
func.func private @fnuz_trunc_v(%x: vector<16xf32>) -> vector<16xi32> {
  %t = arith.truncf %x : vector<16xf32> to vector<16xf8E4M3FNUZ>
  %narrow = arith.bitcast %t : vector<16xf8E4M3FNUZ> to vector<16xi8>
  %r = arith.extui %narrow : vector<16xi8> to vector<16xi32>
  return %r : vector<16xi32>
}

func.func private @bf16_ext(%p: i32) -> f32 {
  %narrow = arith.trunci %p : i32 to i16
  %x = arith.bitcast %narrow : i16 to bf16
  %r = arith.extf %x : bf16 to f32
  return %r : f32
}
func.func private @bf16_trunc(%x: f32) -> i32 {
  %t = arith.truncf %x : f32 to bf16
  %narrow = arith.bitcast %t : bf16 to i16
  %r = arith.extui %narrow : i16 to i32
  return %r : i32
}
func.func private @bf16_ext_v(%p: vector<16xi32>) -> vector<16xf32> {
  %narrow = arith.trunci %p : vector<16xi32> to vector<16xi16>
  %x = arith.bitcast %narrow : vector<16xi16> to vector<16xbf16>
  %r = arith.extf %x : vector<16xbf16> to vector<16xf32>
  return %r : vector<16xf32>
}
func.func private @bf16_trunc_v(%x: vector<16xf32>) -> vector<16xi32> {
  %t = arith.truncf %x : vector<16xf32> to vector<16xbf16>
  %narrow = arith.bitcast %t : vector<16xbf16> to vector<16xi16>
  %r = arith.extui %narrow : vector<16xi16> to vector<16xi32>
  return %r : vector<16xi32>
}

func.func private @f16_ext(%p: i32) -> f32 {
  %narrow = arith.trunci %p : i32 to i16
  %x = arith.bitcast %narrow : i16 to f16
  %r = arith.extf %x : f16 to f32
  return %r : f32
}
func.func private @f16_trunc(%x: f32) -> i32 {
  %t = arith.truncf %x : f32 to f16
  %narrow = arith.bitcast %t : f16 to i16
  %r = arith.extui %narrow : i16 to i32
  return %r : i32
}
func.func private @f16_ext_v(%p: vector<16xi32>) -> vector<16xf32> {
  %narrow = arith.trunci %p : vector<16xi32> to vector<16xi16>
  %x = arith.bitcast %narrow : vector<16xi16> to vector<16xf16>
  %r = arith.extf %x : vector<16xf16> to vector<16xf32>
  return %r : vector<16xf32>
}
func.func private @f16_trunc_v(%x: vector<16xf32>) -> vector<16xi32> {
  %t = arith.truncf %x : vector<16xf32> to vector<16xf16>
  %narrow = arith.bitcast %t : vector<16xf16> to vector<16xi16>
  %r = arith.extui %narrow : vector<16xi16> to vector<16xi32>
  return %r : vector<16xi32>
}

//===----------------------------------------------------------------------===//
// Checks over all patterns, for any format through its codec functions.
//===----------------------------------------------------------------------===//

// Prints the f32 bits of the values of patterns 0..255, 16 per row.
func.func private @print_decode_table(%ext_v: !ext_v) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %lanes = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]> : vector<16xi32>
  scf.for %row = %c0 to %c16 step %c1 {
    %first = arith.muli %row, %c16 : index
    %first_i32 = arith.index_cast %first : index to i32
    %base = vector.broadcast %first_i32 : i32 to vector<16xi32>
    %patterns = arith.addi %base, %lanes : vector<16xi32>
    %values = func.call_indirect %ext_v(%patterns) : !ext_v
    %bits = arith.bitcast %values : vector<16xf32> to vector<16xi32>
    vector.print %bits : vector<16xi32>
  }
  return
}

// Sum over patterns p < n of bits(ext(p)) * (p + 1), wrapping in i64: a
// change of any value or a swap of two changes it.
func.func private @decode_checksum(%ext: !ext, %n: index) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %sum = scf.for %p = %c0 to %n step %c1 iter_args(%acc = %zero) -> (i64) {
    %pattern = arith.index_cast %p : index to i32
    %value = func.call_indirect %ext(%pattern) : !ext
    %bits = arith.bitcast %value : f32 to i32
    %bits_i64 = arith.extui %bits : i32 to i64
    %p_i64 = arith.index_cast %p : index to i64
    %weight = arith.addi %p_i64, %one : i64
    %term = arith.muli %bits_i64, %weight : i64
    %next = arith.addi %acc, %term : i64
    scf.yield %next : i64
  }
  return %sum : i64
}

// Failures (0, 1 or 2) of trunc(x) == want and trunc(-x) == -want, where
// -want sets the sign bit, except that a zero stays unsigned when
// `unsigned_zero` (f8E4M3FNUZ has no -0).
func.func private @signed_mismatches(%trunc: !trunc, %x: f32, %want: i32, %sign_bit: i32, %unsigned_zero: i1) -> i64 {
  %zero = arith.constant 0 : i32
  %got = func.call_indirect %trunc(%x) : !trunc
  %neg_x = arith.negf %x : f32
  %got_neg = func.call_indirect %trunc(%neg_x) : !trunc
  %signed = arith.ori %want, %sign_bit : i32
  %want_is_zero = arith.cmpi eq, %want, %zero : i32
  %keep_unsigned = arith.andi %want_is_zero, %unsigned_zero : i1
  %want_neg = arith.select %keep_unsigned, %want, %signed : i32
  %bad = arith.cmpi ne, %got, %want : i32
  %bad_neg = arith.cmpi ne, %got_neg, %want_neg : i32
  %bad_i64 = arith.extui %bad : i1 to i64
  %bad_neg_i64 = arith.extui %bad_neg : i1 to i64
  %count = arith.addi %bad_i64, %bad_neg_i64 : i64
  return %count : i64
}

// For every two adjacent finite patterns p, p + 1 (p < last_finite), both
// signs: value(p) rounds to p, the midpoint of the two values to the even
// one of them, one f32 ulp above / below the midpoint to p + 1 / p.
func.func private @rounding_mismatches(%ext: !ext, %trunc: !trunc, %last_finite: index, %sign_bit: i32, %unsigned_zero: i1) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i64
  %zero_i32 = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %half = arith.constant 0.5 : f32
  %sum = scf.for %p = %c0 to %last_finite step %c1 iter_args(%acc = %zero) -> (i64) {
    %lo = arith.index_cast %p : index to i32
    %hi = arith.addi %lo, %one : i32
    %a = func.call_indirect %ext(%lo) : !ext
    %b = func.call_indirect %ext(%hi) : !ext
    // Halves first: a + b could overflow; both halvings and the sum are exact.
    %a_half = arith.mulf %a, %half : f32
    %b_half = arith.mulf %b, %half : f32
    %mid = arith.addf %a_half, %b_half : f32
    %mid_bits = arith.bitcast %mid : f32 to i32
    %above_bits = arith.addi %mid_bits, %one : i32
    %below_bits = arith.subi %mid_bits, %one : i32
    %above = arith.bitcast %above_bits : i32 to f32
    %below = arith.bitcast %below_bits : i32 to f32
    %lo_parity = arith.andi %lo, %one : i32
    %lo_is_odd = arith.cmpi ne, %lo_parity, %zero_i32 : i32
    %even = arith.select %lo_is_odd, %hi, %lo : i32
    %m0 = func.call @signed_mismatches(%trunc, %a, %lo, %sign_bit, %unsigned_zero) : (!trunc, f32, i32, i32, i1) -> i64
    %m1 = func.call @signed_mismatches(%trunc, %mid, %even, %sign_bit, %unsigned_zero) : (!trunc, f32, i32, i32, i1) -> i64
    %m2 = func.call @signed_mismatches(%trunc, %above, %hi, %sign_bit, %unsigned_zero) : (!trunc, f32, i32, i32, i1) -> i64
    %m3 = func.call @signed_mismatches(%trunc, %below, %lo, %sign_bit, %unsigned_zero) : (!trunc, f32, i32, i32, i1) -> i64
    %s0 = arith.addi %acc, %m0 : i64
    %s1 = arith.addi %s0, %m1 : i64
    %s2 = arith.addi %s1, %m2 : i64
    %s3 = arith.addi %s2, %m3 : i64
    scf.yield %s3 : i64
  }
  return %sum : i64
}

// Patterns p < n with trunc(ext(p)) != p; a NaN comes back quiet: p | quiet_bit.
func.func private @round_trip_mismatches(%ext: !ext, %trunc: !trunc, %n: index, %quiet_bit: i32) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i64
  %sum = scf.for %p = %c0 to %n step %c1 iter_args(%acc = %zero) -> (i64) {
    %pattern = arith.index_cast %p : index to i32
    %value = func.call_indirect %ext(%pattern) : !ext
    %back = func.call_indirect %trunc(%value) : !trunc
    %is_nan = arith.cmpf uno, %value, %value : f32
    %quieted = arith.ori %pattern, %quiet_bit : i32
    %want = arith.select %is_nan, %quieted, %pattern : i32
    %bad = arith.cmpi ne, %back, %want : i32
    %bad_i64 = arith.extui %bad : i1 to i64
    %next = arith.addi %acc, %bad_i64 : i64
    scf.yield %next : i64
  }
  return %sum : i64
}

// Lanes where the vector casts differ (bitwise) from the scalar ones:
// extension of patterns 0..n-1, truncation of 2^16 x 16 f32 patterns spread
// over all of f32 (NaNs, infinities, denormals included).
func.func private @vector_mismatches(%ext: !ext, %trunc: !trunc, %ext_v: !ext_v, %trunc_v: !trunc_v, %n: index) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c65536 = arith.constant 65536 : index
  %zero = arith.constant 0 : i64
  %lanes = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]> : vector<16xi32>
  %stride = arith.constant 65537 : i32
  %lane_stride = arith.constant dense<4097> : vector<16xi32>
  %ext_bad = scf.for %first = %c0 to %n step %c16 iter_args(%acc = %zero) -> (i64) {
    %first_i32 = arith.index_cast %first : index to i32
    %base = vector.broadcast %first_i32 : i32 to vector<16xi32>
    %patterns = arith.addi %base, %lanes : vector<16xi32>
    %values = func.call_indirect %ext_v(%patterns) : !ext_v
    %bits = arith.bitcast %values : vector<16xf32> to vector<16xi32>
    %row_bad = scf.for %lane = %c0 to %c16 step %c1 iter_args(%acc2 = %acc) -> (i64) {
      %pattern = vector.extract %patterns[%lane] : i32 from vector<16xi32>
      %scalar = func.call_indirect %ext(%pattern) : !ext
      %scalar_bits = arith.bitcast %scalar : f32 to i32
      %lane_bits = vector.extract %bits[%lane] : i32 from vector<16xi32>
      %bad = arith.cmpi ne, %scalar_bits, %lane_bits : i32
      %bad_i64 = arith.extui %bad : i1 to i64
      %next = arith.addi %acc2, %bad_i64 : i64
      scf.yield %next : i64
    }
    scf.yield %row_bad : i64
  }
  %all_bad = scf.for %k = %c0 to %c65536 step %c1 iter_args(%acc = %ext_bad) -> (i64) {
    %k_i32 = arith.index_cast %k : index to i32
    %start = arith.muli %k_i32, %stride : i32
    %base = vector.broadcast %start : i32 to vector<16xi32>
    %offsets = arith.muli %lanes, %lane_stride : vector<16xi32>
    %bits = arith.addi %base, %offsets : vector<16xi32>
    %values = arith.bitcast %bits : vector<16xi32> to vector<16xf32>
    %narrow = func.call_indirect %trunc_v(%values) : !trunc_v
    %row_bad = scf.for %lane = %c0 to %c16 step %c1 iter_args(%acc2 = %acc) -> (i64) {
      %value = vector.extract %values[%lane] : f32 from vector<16xf32>
      %scalar = func.call_indirect %trunc(%value) : !trunc
      %lane_narrow = vector.extract %narrow[%lane] : i32 from vector<16xi32>
      %bad = arith.cmpi ne, %scalar, %lane_narrow : i32
      %bad_i64 = arith.extui %bad : i1 to i64
      %next = arith.addi %acc2, %bad_i64 : i64
      scf.yield %next : i64
    }
    scf.yield %row_bad : i64
  }
  return %all_bad : i64
}

// Prints the three counts above for one format.
func.func private @check_format(%ext: !ext, %trunc: !trunc, %ext_v: !ext_v, %trunc_v: !trunc_v,
                                %num_patterns: index, %quiet_bit: i32, %last_finite: index,
                                %sign_bit: i32, %unsigned_zero: i1) {
  vector.print str "  round trip mismatches: "
  %round_trip = func.call @round_trip_mismatches(%ext, %trunc, %num_patterns, %quiet_bit) : (!ext, !trunc, index, i32) -> i64
  vector.print %round_trip : i64
  vector.print str "  rounding mismatches: "
  %rounding = func.call @rounding_mismatches(%ext, %trunc, %last_finite, %sign_bit, %unsigned_zero) : (!ext, !trunc, index, i32, i1) -> i64
  vector.print %rounding : i64
  vector.print str "  vector mismatches: "
  %vector = func.call @vector_mismatches(%ext, %trunc, %ext_v, %trunc_v, %num_patterns) : (!ext, !trunc, !ext_v, !trunc_v, index) -> i64
  vector.print %vector : i64
  return
}

// Prints the number of lanes where `got` differs from `want` (and `got`
// when there are any).
func.func private @expect16(%got: vector<16xi32>, %want: vector<16xi32>) {
  %zero = arith.constant 0 : i32
  %ne = arith.cmpi ne, %got, %want : vector<16xi32>
  %ones = arith.extui %ne : vector<16xi1> to vector<16xi32>
  %count = vector.reduction <add>, %ones : vector<16xi32> into i32
  vector.print %count : i32
  %failed = arith.cmpi ne, %count, %zero : i32
  scf.if %failed {
    vector.print %got : vector<16xi32>
  }
  return
}

func.func private @expect4(%got: vector<4xi64>, %want: vector<4xi64>) {
  %zero = arith.constant 0 : i64
  %ne = arith.cmpi ne, %got, %want : vector<4xi64>
  %ones = arith.extui %ne : vector<4xi1> to vector<4xi64>
  %count = vector.reduction <add>, %ones : vector<4xi64> into i64
  vector.print %count : i64
  %failed = arith.cmpi ne, %count, %zero : i64
  scf.if %failed {
    vector.print %got : vector<4xi64>
  }
  return
}

//===----------------------------------------------------------------------===//
// Cases with hand-derived bit patterns (input f32 bits -> expected bits).
//===----------------------------------------------------------------------===//

func.func @main() {
  %c256 = arith.constant 256 : index
  %c65536 = arith.constant 65536 : index
  %sign8 = arith.constant 0x80 : i32
  %sign16 = arith.constant 0x8000 : i32
  %true = arith.constant true
  %false = arith.constant false
  %no_quiet_bit = arith.constant 0 : i32

  // f8E4M3FN: bias 7, S.1111.111 is NaN, max 448 = 0x7E, denormals m * 2^-9.
  %fn_ext = func.constant @fn_ext : !ext
  %fn_trunc = func.constant @fn_trunc : !trunc
  %fn_ext_v = func.constant @fn_ext_v : !ext_v
  %fn_trunc_v = func.constant @fn_trunc_v : !trunc_v
  %fn_last_finite = arith.constant 0x7E : index
  vector.print str "f8E4M3FN\n"
  func.call @check_format(%fn_ext, %fn_trunc, %fn_ext_v, %fn_trunc_v, %c256, %no_quiet_bit, %fn_last_finite, %sign8, %false)
      : (!ext, !trunc, !ext_v, !trunc_v, index, i32, index, i32, i1) -> ()
  vector.print str "f8E4M3FN decode table:\n"
  func.call @print_decode_table(%fn_ext_v) : (!ext_v) -> ()
  vector.print str "f8E4M3FN truncf cases: "
  %fn_trunc_in = arith.constant dense<[
      0x43E00000,  // 448 (max)                 -> 0x7E
      0x43E80000,  // 464, past max: saturates  -> 0x7E
      0x7149F2CA,  // 1e30                      -> 0x7E
      0x7F800000,  // +inf saturates            -> 0x7E
      0xFF800000,  // -inf                      -> 0xFE
      0xC3FA0000,  // -500                      -> 0xFE
      0x7FC00000,  // NaN                       -> 0x7F
      0xFFC00000,  // -NaN                      -> 0xFF
      0x80000000,  // -0                        -> 0x80
      0x3B000000,  // 2^-9, smallest denormal   -> 0x01
      0x3A800000,  // 2^-10: tie 0 / 2^-9       -> 0x00
      0x3B400000,  // 3 * 2^-10: tie 1 / 2      -> 0x02
      0x3F880000,  // 1.0625: tie 1 / 1.125     -> 0x38
      0x3F980000,  // 1.1875: tie 1.125 / 1.25  -> 0x3A
      0x800116C2,  // -1e-40 (f32 denormal)     -> 0x80
      0x3C800000   // 2^-6, smallest normal     -> 0x08
    ]> : vector<16xi32>
  %fn_trunc_want = arith.constant dense<[0x7E, 0x7E, 0x7E, 0x7E, 0xFE, 0xFE, 0x7F, 0xFF,
                                         0x80, 0x01, 0x00, 0x02, 0x38, 0x3A, 0x80, 0x08]> : vector<16xi32>
  %fn_trunc_f32 = arith.bitcast %fn_trunc_in : vector<16xi32> to vector<16xf32>
  %fn_trunc_got = func.call_indirect %fn_trunc_v(%fn_trunc_f32) : !trunc_v
  func.call @expect16(%fn_trunc_got, %fn_trunc_want) : (vector<16xi32>, vector<16xi32>) -> ()
  vector.print str "f8E4M3FN extf cases: "
  %fn_ext_in = arith.constant dense<[0x00, 0x80, 0x01, 0x07, 0x08, 0x38, 0x7E, 0x7F,
                                     0xFF, 0xFE, 0x78, 0xF8, 0x77, 0x81, 0x3F, 0x40]> : vector<16xi32>
  %fn_ext_want = arith.constant dense<[
      0x00000000,  // 0x00: 0
      0x80000000,  // 0x80: -0
      0x3B000000,  // 0x01: 2^-9
      0x3C600000,  // 0x07: 7 * 2^-9 = 1.75 * 2^-7
      0x3C800000,  // 0x08: 2^-6
      0x3F800000,  // 0x38: 1
      0x43E00000,  // 0x7E: 448
      0x7FC00000,  // 0x7F: NaN
      0xFFC00000,  // 0xFF: -NaN
      0xC3E00000,  // 0xFE: -448
      0x43800000,  // 0x78: 256 (top exponent, a normal number)
      0xC3800000,  // 0xF8: -256
      0x43700000,  // 0x77: 240
      0xBB000000,  // 0x81: -2^-9
      0x3FF00000,  // 0x3F: 1.875
      0x40000000   // 0x40: 2
    ]> : vector<16xi32>
  %fn_ext_f32 = func.call_indirect %fn_ext_v(%fn_ext_in) : !ext_v
  %fn_ext_got = arith.bitcast %fn_ext_f32 : vector<16xf32> to vector<16xi32>
  func.call @expect16(%fn_ext_got, %fn_ext_want) : (vector<16xi32>, vector<16xi32>) -> ()

  // f8E4M3FNUZ: bias 8, 0x80 is the only NaN, no -0, max 240 = 0x7F,
  // denormals m * 2^-10.
  %fnuz_ext = func.constant @fnuz_ext : !ext
  %fnuz_trunc = func.constant @fnuz_trunc : !trunc
  %fnuz_ext_v = func.constant @fnuz_ext_v : !ext_v
  %fnuz_trunc_v = func.constant @fnuz_trunc_v : !trunc_v
  %fnuz_last_finite = arith.constant 0x7F : index
  vector.print str "f8E4M3FNUZ\n"
  func.call @check_format(%fnuz_ext, %fnuz_trunc, %fnuz_ext_v, %fnuz_trunc_v, %c256, %no_quiet_bit, %fnuz_last_finite, %sign8, %true)
      : (!ext, !trunc, !ext_v, !trunc_v, index, i32, index, i32, i1) -> ()
  vector.print str "f8E4M3FNUZ decode table:\n"
  func.call @print_decode_table(%fnuz_ext_v) : (!ext_v) -> ()
  vector.print str "f8E4M3FNUZ truncf cases: "
  %fnuz_trunc_in = arith.constant dense<[
      0x43700000,  // 240 (max)                 -> 0x7F
      0x43780000,  // 248: tie 240 / 256        -> 0x7F (saturates)
      0x7149F2CA,  // 1e30                      -> 0x7F
      0x7F800000,  // +inf                      -> 0x7F
      0xFF800000,  // -inf                      -> 0xFF
      0xC3960000,  // -300                      -> 0xFF
      0x7FC00000,  // NaN                       -> 0x80
      0xFFC00000,  // -NaN                      -> 0x80
      0x80000000,  // -0 (no -0)                -> 0x00
      0x3A800000,  // 2^-10, smallest denormal  -> 0x01
      0x3A000000,  // 2^-11: tie 0 / 2^-10      -> 0x00
      0xBA000000,  // -2^-11                    -> 0x00
      0x3AC00000,  // 3 * 2^-11: tie 1 / 2      -> 0x02
      0x3F800000,  // 1                         -> 0x40
      0xBF800000,  // -1                        -> 0xC0
      0x3C000000   // 2^-7, smallest normal     -> 0x08
    ]> : vector<16xi32>
  %fnuz_trunc_want = arith.constant dense<[0x7F, 0x7F, 0x7F, 0x7F, 0xFF, 0xFF, 0x80, 0x80,
                                           0x00, 0x01, 0x00, 0x00, 0x02, 0x40, 0xC0, 0x08]> : vector<16xi32>
  %fnuz_trunc_f32 = arith.bitcast %fnuz_trunc_in : vector<16xi32> to vector<16xf32>
  %fnuz_trunc_got = func.call_indirect %fnuz_trunc_v(%fnuz_trunc_f32) : !trunc_v
  func.call @expect16(%fnuz_trunc_got, %fnuz_trunc_want) : (vector<16xi32>, vector<16xi32>) -> ()
  vector.print str "f8E4M3FNUZ extf cases: "
  %fnuz_ext_in = arith.constant dense<[0x00, 0x80, 0x01, 0x07, 0x08, 0x40, 0x7F, 0xFF,
                                       0x81, 0x78, 0xC0, 0x3F, 0x48, 0x0F, 0x10, 0xF0]> : vector<16xi32>
  %fnuz_ext_want = arith.constant dense<[
      0x00000000,  // 0x00: 0
      0x7FC00000,  // 0x80: NaN
      0x3A800000,  // 0x01: 2^-10
      0x3BE00000,  // 0x07: 7 * 2^-10 = 1.75 * 2^-8
      0x3C000000,  // 0x08: 2^-7
      0x3F800000,  // 0x40: 1
      0x43700000,  // 0x7F: 240
      0xC3700000,  // 0xFF: -240
      0xBA800000,  // 0x81: -2^-10
      0x43000000,  // 0x78: 128
      0xBF800000,  // 0xC0: -1
      0x3F700000,  // 0x3F: 0.9375
      0x40000000,  // 0x48: 2
      0x3C700000,  // 0x0F: 1.875 * 2^-7
      0x3C800000,  // 0x10: 2^-6
      0xC2800000   // 0xF0: -64
    ]> : vector<16xi32>
  %fnuz_ext_f32 = func.call_indirect %fnuz_ext_v(%fnuz_ext_in) : !ext_v
  %fnuz_ext_got = arith.bitcast %fnuz_ext_f32 : vector<16xf32> to vector<16xi32>
  func.call @expect16(%fnuz_ext_got, %fnuz_ext_want) : (vector<16xi32>, vector<16xi32>) -> ()

  // bf16: f32's exponent, 7 mantissa bits; overflow -> inf, NaN stays quiet.
  %bf16_ext = func.constant @bf16_ext : !ext
  %bf16_trunc = func.constant @bf16_trunc : !trunc
  %bf16_ext_v = func.constant @bf16_ext_v : !ext_v
  %bf16_trunc_v = func.constant @bf16_trunc_v : !trunc_v
  %bf16_last_finite = arith.constant 0x7F7F : index
  %bf16_quiet_bit = arith.constant 0x40 : i32
  vector.print str "bf16\n"
  func.call @check_format(%bf16_ext, %bf16_trunc, %bf16_ext_v, %bf16_trunc_v, %c65536, %bf16_quiet_bit, %bf16_last_finite, %sign16, %false)
      : (!ext, !trunc, !ext_v, !trunc_v, index, i32, index, i32, i1) -> ()
  vector.print str "bf16 decode checksum: "
  %bf16_checksum = func.call @decode_checksum(%bf16_ext, %c65536) : (!ext, index) -> i64
  vector.print %bf16_checksum : i64
  vector.print str "bf16 truncf cases: "
  %bf16_trunc_in = arith.constant dense<[
      0x3F808000,  // 1 + 2^-8: tie             -> 0x3F80
      0x3F818000,  // 1 + 3 * 2^-8: tie         -> 0x3F82
      0x7F7FFFFF,  // f32 max                   -> 0x7F80 (inf)
      0x7F7F8000,  // tie bf16 max / 2^128      -> 0x7F80 (inf)
      0x7F7F7FFF,  // just below that tie       -> 0x7F7F
      0x00008000,  // f32 denormal, tie 0 / 1   -> 0x0000
      0x00018000,  // tie 1 / 2                 -> 0x0002
      0x00010000,  // bf16 denormal             -> 0x0001
      0x7F800001,  // signaling NaN             -> 0x7FC0
      0xFFC00000,  // -NaN                      -> 0xFFC0
      0xFF800000,  // -inf                      -> 0xFF80
      0x80000000,  // -0                        -> 0x8000
      0x7FA00000,  // NaN with payload          -> 0x7FE0
      0x80008000,  // -tie 0 / 1                -> 0x8000
      0x40400000,  // 3                         -> 0x4040
      0x3F807FFF   // just below 1 + 2^-8       -> 0x3F80
    ]> : vector<16xi32>
  %bf16_trunc_want = arith.constant dense<[0x3F80, 0x3F82, 0x7F80, 0x7F80, 0x7F7F, 0x0000, 0x0002, 0x0001,
                                           0x7FC0, 0xFFC0, 0xFF80, 0x8000, 0x7FE0, 0x8000, 0x4040, 0x3F80]> : vector<16xi32>
  %bf16_trunc_f32 = arith.bitcast %bf16_trunc_in : vector<16xi32> to vector<16xf32>
  %bf16_trunc_got = func.call_indirect %bf16_trunc_v(%bf16_trunc_f32) : !trunc_v
  func.call @expect16(%bf16_trunc_got, %bf16_trunc_want) : (vector<16xi32>, vector<16xi32>) -> ()
  vector.print str "bf16 extf cases: "
  %bf16_ext_in = arith.constant dense<[0x0001, 0x007F, 0x0080, 0x7F7F, 0x7F80, 0xFF80, 0x7F81, 0x8000,
                                       0x3F80, 0xC040, 0x0000, 0x7FC0, 0xFFFF, 0x8001, 0x4049, 0x7F00]> : vector<16xi32>
  %bf16_ext_want = arith.constant dense<[
      0x00010000,  // smallest denormal stays an (f32) denormal
      0x007F0000, 0x00800000, 0x7F7F0000,
      0x7F800000,  // inf
      0xFF800000,  // -inf
      0x7FC10000,  // signaling NaN made quiet, payload kept
      0x80000000, 0x3F800000, 0xC0400000, 0x00000000, 0x7FC00000,
      0xFFFF0000,  // -NaN, all payload bits
      0x80010000, 0x40490000, 0x7F000000
    ]> : vector<16xi32>
  %bf16_ext_f32 = func.call_indirect %bf16_ext_v(%bf16_ext_in) : !ext_v
  %bf16_ext_got = arith.bitcast %bf16_ext_f32 : vector<16xf32> to vector<16xi32>
  func.call @expect16(%bf16_ext_got, %bf16_ext_want) : (vector<16xi32>, vector<16xi32>) -> ()

  // f16: bias 15, 10 mantissa bits, max 65504 = 0x7BFF, denormals m * 2^-24.
  %f16_ext = func.constant @f16_ext : !ext
  %f16_trunc = func.constant @f16_trunc : !trunc
  %f16_ext_v = func.constant @f16_ext_v : !ext_v
  %f16_trunc_v = func.constant @f16_trunc_v : !trunc_v
  %f16_last_finite = arith.constant 0x7BFF : index
  %f16_quiet_bit = arith.constant 0x200 : i32
  vector.print str "f16\n"
  func.call @check_format(%f16_ext, %f16_trunc, %f16_ext_v, %f16_trunc_v, %c65536, %f16_quiet_bit, %f16_last_finite, %sign16, %false)
      : (!ext, !trunc, !ext_v, !trunc_v, index, i32, index, i32, i1) -> ()
  vector.print str "f16 decode checksum: "
  %f16_checksum = func.call @decode_checksum(%f16_ext, %c65536) : (!ext, index) -> i64
  vector.print %f16_checksum : i64
  vector.print str "f16 truncf cases: "
  %f16_trunc_in = arith.constant dense<[
      0x477FE000,  // 65504 (max)               -> 0x7BFF
      0x477FEFFF,  // 65519.996, below the tie  -> 0x7BFF
      0x477FF000,  // 65520: tie max / 2^16     -> 0x7C00 (inf)
      0x7F800000,  // inf                       -> 0x7C00
      0xFF800000,  // -inf                      -> 0xFC00
      0x7FC00000,  // NaN                       -> 0x7E00
      0x7F800001,  // signaling NaN             -> 0x7E00
      0x7FA00000,  // NaN with payload          -> 0x7F00
      0x80000000,  // -0                        -> 0x8000
      0x33800000,  // 2^-24, smallest denormal  -> 0x0001
      0x33000000,  // 2^-25: tie 0 / 1          -> 0x0000
      0x33C00000,  // 3 * 2^-25: tie 1 / 2      -> 0x0002
      0x38800000,  // 2^-14, smallest normal    -> 0x0400
      0x3F801000,  // 1 + 2^-11: tie            -> 0x3C00
      0x3F803000,  // 1 + 3 * 2^-11: tie        -> 0x3C02
      0xFFC00000   // -NaN                      -> 0xFE00
    ]> : vector<16xi32>
  %f16_trunc_want = arith.constant dense<[0x7BFF, 0x7BFF, 0x7C00, 0x7C00, 0xFC00, 0x7E00, 0x7E00, 0x7F00,
                                          0x8000, 0x0001, 0x0000, 0x0002, 0x0400, 0x3C00, 0x3C02, 0xFE00]> : vector<16xi32>
  %f16_trunc_f32 = arith.bitcast %f16_trunc_in : vector<16xi32> to vector<16xf32>
  %f16_trunc_got = func.call_indirect %f16_trunc_v(%f16_trunc_f32) : !trunc_v
  func.call @expect16(%f16_trunc_got, %f16_trunc_want) : (vector<16xi32>, vector<16xi32>) -> ()
  vector.print str "f16 extf cases: "
  %f16_ext_in = arith.constant dense<[0x0001, 0x03FF, 0x0400, 0x7BFF, 0x7C00, 0xFC00, 0x7C01, 0x8000,
                                      0x3C00, 0xBC00, 0x0000, 0x8001, 0x7E00, 0xFE00, 0x3555, 0x0200]> : vector<16xi32>
  %f16_ext_want = arith.constant dense<[
      0x33800000,  // 2^-24
      0x387FC000,  // 1023 * 2^-24
      0x38800000,  // 2^-14
      0x477FE000,  // 65504
      0x7F800000, 0xFF800000,
      0x7FC02000,  // signaling NaN made quiet, payload kept
      0x80000000, 0x3F800000, 0xBF800000, 0x00000000,
      0xB3800000,  // -2^-24
      0x7FC00000, 0xFFC00000,
      0x3EAAA000,  // 0.333251953125
      0x38000000   // 2^-15
    ]> : vector<16xi32>
  %f16_ext_f32 = func.call_indirect %f16_ext_v(%f16_ext_in) : !ext_v
  %f16_ext_got = arith.bitcast %f16_ext_f32 : vector<16xf32> to vector<16xi32>
  func.call @expect16(%f16_ext_got, %f16_ext_want) : (vector<16xi32>, vector<16xi32>) -> ()

  // f64 sources round once: each target has an input just above one of its
  // ties that f32 cannot hold (through f32 it would round to even).
  vector.print str "f64 truncf cases: "
  %f64_in = arith.constant dense<[0x3FF0100000400000,   // 1 + 2^-8 + 2^-30
                                  0x3FF0020000001000,   // 1 + 2^-11 + 2^-40
                                  0x3FF1000000001000,   // 1 + 2^-4 + 2^-40
                                  0x7E37E43C8800759C]>  // 1e300
      : vector<4xi64>
  %f64_values = arith.bitcast %f64_in : vector<4xi64> to vector<4xf64>
  %f64_to_bf16 = arith.truncf %f64_values : vector<4xf64> to vector<4xbf16>
  %f64_to_f16 = arith.truncf %f64_values : vector<4xf64> to vector<4xf16>
  %f64_to_fn = arith.truncf %f64_values : vector<4xf64> to vector<4xf8E4M3FN>
  %f64_to_fnuz = arith.truncf %f64_values : vector<4xf64> to vector<4xf8E4M3FNUZ>
  %f64_bf16_bits = arith.bitcast %f64_to_bf16 : vector<4xbf16> to vector<4xi16>
  %f64_f16_bits = arith.bitcast %f64_to_f16 : vector<4xf16> to vector<4xi16>
  %f64_fn_bits = arith.bitcast %f64_to_fn : vector<4xf8E4M3FN> to vector<4xi8>
  %f64_fnuz_bits = arith.bitcast %f64_to_fnuz : vector<4xf8E4M3FNUZ> to vector<4xi8>
  %f64_bf16_got = arith.extui %f64_bf16_bits : vector<4xi16> to vector<4xi64>
  %f64_f16_got = arith.extui %f64_f16_bits : vector<4xi16> to vector<4xi64>
  %f64_fn_got = arith.extui %f64_fn_bits : vector<4xi8> to vector<4xi64>
  %f64_fnuz_got = arith.extui %f64_fnuz_bits : vector<4xi8> to vector<4xi64>
  %f64_bf16_want = arith.constant dense<[0x3F81, 0x3F80, 0x3F88, 0x7F80]> : vector<4xi64>
  %f64_f16_want = arith.constant dense<[0x3C04, 0x3C01, 0x3C40, 0x7C00]> : vector<4xi64>
  %f64_fn_want = arith.constant dense<[0x38, 0x38, 0x39, 0x7E]> : vector<4xi64>
  %f64_fnuz_want = arith.constant dense<[0x40, 0x40, 0x41, 0x7F]> : vector<4xi64>
  func.call @expect4(%f64_bf16_got, %f64_bf16_want) : (vector<4xi64>, vector<4xi64>) -> ()
  func.call @expect4(%f64_f16_got, %f64_f16_want) : (vector<4xi64>, vector<4xi64>) -> ()
  func.call @expect4(%f64_fn_got, %f64_fn_want) : (vector<4xi64>, vector<4xi64>) -> ()
  func.call @expect4(%f64_fnuz_got, %f64_fnuz_want) : (vector<4xi64>, vector<4xi64>) -> ()

  // fp8 -> f64 / f16 / bf16 and bf16 / f16 -> fp8 (exact through f32).
  vector.print str "fp8 extf to wider cases: "
  %fp8_patterns = arith.constant dense<[0x01, 0x7E, 0xFE, 0x7F]> : vector<4xi8>
  %fn_values = arith.bitcast %fp8_patterns : vector<4xi8> to vector<4xf8E4M3FN>
  %fn_as_f64 = arith.extf %fn_values : vector<4xf8E4M3FN> to vector<4xf64>
  %fn_f64_got = arith.bitcast %fn_as_f64 : vector<4xf64> to vector<4xi64>
  // 2^-9, 448, -448, NaN
  %fn_f64_want = arith.constant dense<[0x3F60000000000000, 0x407C000000000000, 0xC07C000000000000, 0x7FF8000000000000]> : vector<4xi64>
  func.call @expect4(%fn_f64_got, %fn_f64_want) : (vector<4xi64>, vector<4xi64>) -> ()
  %fn_as_f16 = arith.extf %fn_values : vector<4xf8E4M3FN> to vector<4xf16>
  %fn_f16_bits = arith.bitcast %fn_as_f16 : vector<4xf16> to vector<4xi16>
  %fn_f16_got = arith.extui %fn_f16_bits : vector<4xi16> to vector<4xi64>
  %fn_f16_want = arith.constant dense<[0x1800, 0x5F00, 0xDF00, 0x7E00]> : vector<4xi64>
  func.call @expect4(%fn_f16_got, %fn_f16_want) : (vector<4xi64>, vector<4xi64>) -> ()
  %fnuz_patterns = arith.constant dense<[0x01, 0x7F, 0x80, 0xFF]> : vector<4xi8>
  %fnuz_values = arith.bitcast %fnuz_patterns : vector<4xi8> to vector<4xf8E4M3FNUZ>
  %fnuz_as_bf16 = arith.extf %fnuz_values : vector<4xf8E4M3FNUZ> to vector<4xbf16>
  %fnuz_bf16_bits = arith.bitcast %fnuz_as_bf16 : vector<4xbf16> to vector<4xi16>
  %fnuz_bf16_got = arith.extui %fnuz_bf16_bits : vector<4xi16> to vector<4xi64>
  // 2^-10, 240, NaN, -240
  %fnuz_bf16_want = arith.constant dense<[0x3A80, 0x4370, 0x7FC0, 0xC370]> : vector<4xi64>
  func.call @expect4(%fnuz_bf16_got, %fnuz_bf16_want) : (vector<4xi64>, vector<4xi64>) -> ()
  %fnuz_as_f64 = arith.extf %fnuz_values : vector<4xf8E4M3FNUZ> to vector<4xf64>
  %fnuz_f64_got = arith.bitcast %fnuz_as_f64 : vector<4xf64> to vector<4xi64>
  %fnuz_f64_want = arith.constant dense<[0x3F50000000000000, 0x406E000000000000, 0x7FF8000000000000, 0xC06E000000000000]> : vector<4xi64>
  func.call @expect4(%fnuz_f64_got, %fnuz_f64_want) : (vector<4xi64>, vector<4xi64>) -> ()

  vector.print str "16-bit truncf to fp8 cases: "
  // f16 448, inf, 1, NaN -> f8E4M3FN 0x7E, 0x7E (saturates), 0x38, 0x7F
  %f16_patterns = arith.constant dense<[0x5F00, 0x7C00, 0x3C00, 0x7E00]> : vector<4xi16>
  %f16_values = arith.bitcast %f16_patterns : vector<4xi16> to vector<4xf16>
  %f16_as_fn = arith.truncf %f16_values : vector<4xf16> to vector<4xf8E4M3FN>
  %f16_fn_bits = arith.bitcast %f16_as_fn : vector<4xf8E4M3FN> to vector<4xi8>
  %f16_fn_got = arith.extui %f16_fn_bits : vector<4xi8> to vector<4xi64>
  %f16_fn_want = arith.constant dense<[0x7E, 0x7E, 0x38, 0x7F]> : vector<4xi64>
  func.call @expect4(%f16_fn_got, %f16_fn_want) : (vector<4xi64>, vector<4xi64>) -> ()
  // bf16 240, -inf, -0, 1 -> f8E4M3FNUZ 0x7F, 0xFF, 0x00, 0x40
  %bf16_patterns = arith.constant dense<[0x4370, 0xFF80, 0x8000, 0x3F80]> : vector<4xi16>
  %bf16_values = arith.bitcast %bf16_patterns : vector<4xi16> to vector<4xbf16>
  %bf16_as_fnuz = arith.truncf %bf16_values : vector<4xbf16> to vector<4xf8E4M3FNUZ>
  %bf16_fnuz_bits = arith.bitcast %bf16_as_fnuz : vector<4xf8E4M3FNUZ> to vector<4xi8>
  %bf16_fnuz_got = arith.extui %bf16_fnuz_bits : vector<4xi8> to vector<4xi64>
  %bf16_fnuz_want = arith.constant dense<[0x7F, 0xFF, 0x00, 0x40]> : vector<4xi64>
  func.call @expect4(%bf16_fnuz_got, %bf16_fnuz_want) : (vector<4xi64>, vector<4xi64>) -> ()

  // Scalar f64 -> bf16 (rounds once).
  vector.print str "scalar f64 truncf: "
  %f64_scalar_bits = arith.constant 0x3FF0100000400000 : i64
  %f64_scalar = arith.bitcast %f64_scalar_bits : i64 to f64
  %f64_scalar_bf16 = arith.truncf %f64_scalar : f64 to bf16
  %f64_scalar_got = arith.bitcast %f64_scalar_bf16 : bf16 to i16
  vector.print %f64_scalar_got : i16
  return
}
