// ALiBi in the lane code: after each scores block's scale (and before the
// edge-tile masking) the block gains slope * f32(distance), the distance of
// its 4 tokens (16 j + 4 b + [0, 4) of the wave's quarter) from the row's
// own token: the tile start (i32) plus a loop-invariant lane offset plus
// [4b, 4b + 4). The slope is loaded once, outside the loop, and multiplied
// by log2(e). Without slopes none of it is emitted.
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d64-fp8-p16-plain-none-w0-q1g8-n64-alibi --chip gfx950 --fp8-residual=none \
// RUN:   | FileCheck %s
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d64-fp8-p16-plain-none-w0-q1g8-n64 --chip gfx950 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefix=NOALIBI

// CHECK-LABEL: gpu.func @pa_decode
// CHECK-SAME:    (%{{.*}}, %[[SLOPES:arg[0-9]+]]: memref<16xf32>,
// CHECK:         %[[SLOPE:.*]] = memref.load %[[SLOPES]][%{{.*}}] : memref<16xf32>
// CHECK:         %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// CHECK:         %[[SLOPE2:.*]] = arith.mulf %[[SLOPE]], %[[LOG2E]] : f32
// CHECK:         scf.for
// CHECK:           amdgpu.mfma 16x16x32
// CHECK:           %[[START:.*]] = arith.trunci %{{.*}} : i64 to i32
// CHECK:           %[[SCALED:.*]] = arith.mulf %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK:           %[[FIRST:.*]] = arith.addi %[[START]], %{{.*}} : i32
// CHECK:           %[[SPLAT:.*]] = vector.broadcast %[[FIRST]] : i32 to vector<4xi32>
// CHECK:           %[[OFFSETS:.*]] = arith.constant dense<[0, 1, 2, 3]> : vector<4xi32>
// CHECK:           %[[DIST:.*]] = arith.addi %[[SPLAT]], %[[OFFSETS]] : vector<4xi32>
// CHECK:           %[[SLOPES4:.*]] = vector.broadcast %[[SLOPE2]] : f32 to vector<4xf32>
// CHECK:           %[[DISTF:.*]] = arith.sitofp %[[DIST]] : vector<4xi32> to vector<4xf32>
// CHECK:           %[[BIAS:.*]] = arith.mulf %[[SLOPES4]], %[[DISTF]] : vector<4xf32>
// CHECK:           %[[BIASED:.*]] = arith.addf %[[SCALED]], %[[BIAS]] : vector<4xf32>
// CHECK:           arith.constant dense<[4, 5, 6, 7]> : vector<4xi32>
// CHECK:           arith.constant dense<[8, 9, 10, 11]> : vector<4xi32>
// CHECK:           arith.constant dense<[12, 13, 14, 15]> : vector<4xi32>
// The edge-tile branch yields the biased scores unchanged for full tiles.
// CHECK:           scf.if %{{.*}} -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xi32>) {
// CHECK-NEXT:        scf.yield %[[BIASED]],

// NOALIBI-LABEL: gpu.func @pa_decode
// NOALIBI-NOT:     arith.sitofp %{{.*}} : vector<4xi32> to vector<4xf32>
// NOALIBI:         gpu.return
