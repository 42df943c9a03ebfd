// The logits soft-cap in the lane code: every scores block (vector<4xf32>)
// becomes c - 2c / (exp2(s * 2 log2(e) / c) + 1) right after its scale and
// before the edge-tile masking, with one v_rcp (arcp, afn) per block; c =
// 30 log2(e), so 2 log2(e) / c = 1/15. Without the attribute none of it is
// emitted (the no-cap loop keeps its code).
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d64-fp8-p16-plain-none-w0-q1g8-n64-cap30 --chip gfx950 --fp8-residual=none \
// RUN:   | FileCheck %s
// RUN: %python %pa_src_root/test/Target/AMD/Inputs/mfma_lower.py pa-opt d64-fp8-p16-plain-none-w0-q1g8-n64 --chip gfx950 --fp8-residual=none \
// RUN:   | FileCheck %s --check-prefix=NOCAP

// CHECK-LABEL: gpu.func @pa_decode
// CHECK:         scf.for
// CHECK:           amdgpu.mfma 16x16x32
// CHECK:           %[[SCALED:.*]] = arith.mulf %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK:           %[[K:.*]] = arith.constant dense<0.0666666701> : vector<4xf32>
// CHECK:           %[[ARG:.*]] = arith.mulf %[[SCALED]], %[[K]] : vector<4xf32>
// CHECK:           %[[E:.*]] = math.exp2 %[[ARG]] : vector<4xf32>
// CHECK:           %[[DEN:.*]] = arith.addf %[[E]], %{{.*}} : vector<4xf32>
// CHECK:           %[[RCP:.*]] = arith.divf %{{.*}}, %[[DEN]] fastmath<arcp,afn> : vector<4xf32>
// CHECK:           %[[C:.*]] = arith.constant dense<43.2808495> : vector<4xf32>
// CHECK:           %[[TWO_C:.*]] = arith.constant dense<8.656170e+01> : vector<4xf32>
// CHECK:           %[[T:.*]] = arith.mulf %[[TWO_C]], %[[RCP]] : vector<4xf32>
// CHECK:           %[[CAPPED:.*]] = arith.subf %[[C]], %[[T]] : vector<4xf32>
// CHECK-COUNT-3:   math.exp2 %{{.*}} : vector<4xf32>
// The edge-tile branch yields the capped scores unchanged for full tiles.
// CHECK:           scf.if %{{.*}} -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xi32>) {
// CHECK-NEXT:        scf.yield %[[CAPPED]],

// NOCAP-LABEL: gpu.func @pa_decode
// NOCAP-NOT:     fastmath<arcp,afn> : vector<4xf32>
// NOCAP:         gpu.return
