// RUN: pa-opt %s -split-input-file -pa-set-target=chip=gfx950 -pa-lower-reduce | FileCheck %s

// Hkv = 2, G = 4, Q = 2 (R = 8), D = 64, bf16 sinks and output. The whole
// kernel, in order.

// CHECK-LABEL: func.func @reduce_bf16_sinks
// CHECK-SAME:    %[[RED:[a-z0-9]+]]: memref<?x2xi32>
// CHECK-NOT:     pa.reduce
// CHECK:         %[[B:.*]] = memref.dim %[[RED]], %{{.*}} : memref<?x2xi32>
// CHECK:         %[[HKV:.*]] = arith.constant 2 : index
// CHECK:         %[[ONE:.*]] = arith.constant 1 : index
// CHECK:         gpu.launch_func @pa_kernels::@pa_reduce blocks in (%[[B]], %[[HKV]], %[[ONE]])

// CHECK:       gpu.func @pa_reduce(%[[ES:.*]]: memref<2x?x8xf32>, %[[ML:.*]]: memref<2x?x8xf32>, %[[TMP:.*]]: memref<2x?x8x64xf32>, %[[RI:.*]]: memref<?x2xi32>, %[[SINKS:.*]]: memref<8xbf16>, %[[OUT:.*]]: memref<?x8x64xbf16>)
// CHECK-SAME:    workgroup(%[[ACC:.*]] : memref<64xf32, #gpu.address_space<workgroup>>) kernel
// CHECK-NOT:     gpu.thread_id
// CHECK:         %[[SEQ:.*]] = gpu.block_id x
// CHECK:         %[[H:.*]] = gpu.block_id y
// CHECK:         %[[FIRST32:.*]] = memref.load %[[RI]][%[[SEQ]], %{{.*}}]
// CHECK:         %[[FIRST:.*]] = arith.index_cast %[[FIRST32]] : i32 to index
// CHECK:         %[[COUNT32:.*]] = memref.load %[[RI]][%[[SEQ]], %{{.*}}]
// CHECK:         %[[COUNT:.*]] = arith.index_cast %[[COUNT32]] : i32 to index
// Rows: q in [0, Q), g in [0, G); row q*G + g, query head h*G + g, output row b*Q + q.
// CHECK:         %[[QLEN:.*]] = arith.constant 2 : index
// CHECK:         scf.for %[[Q:.*]] = %{{.*}} to %[[QLEN]]
// CHECK:           %[[G4:.*]] = arith.constant 4 : index
// CHECK:           scf.for %[[G:.*]] = %{{.*}} to %[[G4]]
// CHECK:             %[[G4B:.*]] = arith.constant 4 : index
// CHECK:             %[[QG:.*]] = arith.muli %[[Q]], %[[G4B]] : index
// CHECK:             %[[ROW:.*]] = arith.addi %[[QG]], %[[G]] : index
// CHECK:             %[[HG:.*]] = arith.muli %[[H]], %[[G4B]] : index
// CHECK:             %[[HEAD:.*]] = arith.addi %[[HG]], %[[G]] : index
// CHECK:             %[[BQ:.*]] = arith.muli %[[SEQ]], %{{.*}} : index
// CHECK:             %[[OROW:.*]] = arith.addi %[[BQ]], %[[Q]] : index
// The sink, widened to f32, seeds the running max.
// CHECK:             %[[ZRAW:.*]] = memref.load %[[SINKS]][%[[HEAD]]] : memref<8xbf16>
// CHECK:             %[[Z:.*]] = arith.extf %[[ZRAW]] : bf16 to f32
// CHECK:             %[[M:.*]] = scf.for %[[P:.*]] = %{{.*}} to %[[COUNT]] step %{{.*}} iter_args(%[[MAX:.*]] = %[[Z]]) -> (f32)
// CHECK:               %[[SLOT:.*]] = arith.addi %[[FIRST]], %[[P]] : index
// CHECK:               %[[LOGIT:.*]] = memref.load %[[ML]][%[[H]], %[[SLOT]], %[[ROW]]]
// CHECK:               %[[NEWMAX:.*]] = arith.maximumf %[[MAX]], %[[LOGIT]] : f32
// CHECK:               scf.yield %[[NEWMAX]]
// Sink term: 0 for z = -inf, checked last so it wins; 1 for z == M; else exp2((z - M) * log2 e).
// CHECK:             %[[ZISMAX:.*]] = arith.cmpf oeq, %[[Z]], %[[M]] : f32
// CHECK:             %[[ONEF:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:             %[[ZM:.*]] = arith.subf %[[Z]], %[[M]] : f32
// CHECK:             %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// CHECK:             %[[ZMS:.*]] = arith.mulf %[[ZM]], %[[LOG2E]] : f32
// CHECK:             %[[EZ:.*]] = math.exp2 %[[ZMS]] : f32
// CHECK:             %[[T1:.*]] = arith.select %[[ZISMAX]], %[[ONEF]], %[[EZ]] : f32
// CHECK:             %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:             %[[ZOFF:.*]] = arith.cmpf oeq, %[[Z]], %[[NEGINF]] : f32
// CHECK:             %[[ZEROF:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:             %[[SINKTERM:.*]] = arith.select %[[ZOFF]], %[[ZEROF]], %[[T1]] : f32
// den = e_z + sum_p w_p, w_p = 0 for an empty partition (max_logits = -inf).
// CHECK:             %[[DEN:.*]] = scf.for %{{.*}} = %{{.*}} to %[[COUNT]] step %{{.*}} iter_args(%[[SUM:.*]] = %[[SINKTERM]]) -> (f32)
// CHECK:               %[[L:.*]] = memref.load %[[ML]]
// CHECK:               %[[E:.*]] = memref.load %[[ES]]
// CHECK:               %[[LM:.*]] = arith.subf %[[L]], %[[M]] : f32
// CHECK:               %[[LMS:.*]] = arith.mulf %[[LM]], %{{.*}} : f32
// CHECK:               %[[X:.*]] = math.exp2 %[[LMS]] : f32
// CHECK:               %[[W:.*]] = arith.mulf %[[E]], %[[X]] : f32
// CHECK:               %[[EMPTY:.*]] = arith.cmpf oeq, %[[L]], %{{.*}} : f32
// CHECK:               %[[W0:.*]] = arith.select %[[EMPTY]], %{{.*}}, %[[W]] : f32
// CHECK:               %[[SUM1:.*]] = arith.addf %[[SUM]], %[[W0]] : f32
// CHECK:               scf.yield %[[SUM1]]
// The accumulator is cleared, then each partition with w_p != 0 adds (w_p / den) * tmp_out_p.
// CHECK:             scf.parallel (%[[D0:.*]]) = (%{{.*}}) to (%{{.*}}) step
// CHECK:               memref.store %{{.*}}, %[[ACC]][%[[D0]]]
// CHECK:             scf.for %[[P2:.*]] = %{{.*}} to %[[COUNT]]
// CHECK:               %[[W2:.*]] = arith.select
// CHECK:               %[[NZ:.*]] = arith.cmpf une, %[[W2]], %{{.*}} : f32
// CHECK:               scf.if %[[NZ]]
// CHECK:                 %[[SCALE:.*]] = arith.divf %[[W2]], %[[DEN]] : f32
// CHECK:                 %[[SLOT2:.*]] = arith.addi %[[FIRST]], %[[P2]] : index
// CHECK:                 scf.parallel (%[[D:.*]]) = (%{{.*}}) to (%{{.*}}) step
// CHECK:                   %[[PART:.*]] = memref.load %[[TMP]][%[[H]], %[[SLOT2]], %[[ROW]], %[[D]]]
// CHECK:                   %[[OLD:.*]] = memref.load %[[ACC]][%[[D]]]
// CHECK:                   %[[CONTRIB:.*]] = arith.mulf %[[SCALE]], %[[PART]] : f32
// CHECK:                   %[[NEW:.*]] = arith.addf %[[OLD]], %[[CONTRIB]] : f32
// CHECK:                   memref.store %[[NEW]], %[[ACC]][%[[D]]]
// The output row, rounded to the output type.
// CHECK:             scf.parallel (%[[D1:.*]]) = (%{{.*}}) to (%{{.*}}) step
// CHECK:               %[[V:.*]] = memref.load %[[ACC]][%[[D1]]]
// CHECK:               %[[VT:.*]] = arith.truncf %[[V]] : f32 to bf16
// CHECK:               memref.store %[[VT]], %[[OUT]][%[[OROW]], %[[HEAD]], %[[D1]]] : memref<?x8x64xbf16>
// CHECK-NOT:     math.exp{{ }}
// CHECK:         gpu.return

func.func @reduce_bf16_sinks(%es: memref<2x?x8xf32>, %ml: memref<2x?x8xf32>,
                             %tmp: memref<2x?x8x64xf32>,
                             %red: memref<?x2xi32>, %sinks: memref<8xbf16>,
                             %out: memref<?x8x64xbf16>) {
  pa.reduce exp_sums(%es : memref<2x?x8xf32>)
            max_logits(%ml : memref<2x?x8xf32>)
            tmp_out(%tmp : memref<2x?x8x64xf32>)
            reduce_info(%red : memref<?x2xi32>)
            sinks(%sinks : memref<8xbf16>)
            output(%out : memref<?x8x64xbf16>)
  return
}

// -----

// No sinks: the max starts at -inf and den at 0, no sink loads; f16 output;
// f32 sinks need no extf.

// CHECK-LABEL: func.func @reduce_f16_no_sinks
// CHECK:         gpu.launch_func @pa_kernels::@pa_reduce blocks
// CHECK:         gpu.launch_func @pa_kernels::@pa_reduce_0 blocks
// CHECK:       gpu.func @pa_reduce(%{{.*}}: memref<1x?x4xf32>, %{{.*}}: memref<1x?x4xf32>, %{{.*}}: memref<1x?x4x128xf32>, %{{.*}}: memref<?x2xi32>, %{{.*}}: memref<?x4x128xf16>)
// CHECK-SAME:    workgroup(%{{.*}} : memref<128xf32, #gpu.address_space<workgroup>>)
// CHECK:         %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         scf.for %{{.*}} iter_args(%{{.*}} = %[[NEGINF]]) -> (f32)
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT:     arith.select
// CHECK:         scf.for %{{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (f32)
// CHECK:         arith.truncf %{{.*}} : f32 to f16
// CHECK:       gpu.func @pa_reduce_0(
// CHECK-SAME:    %[[S:[a-z0-9]+]]: memref<4xf32>
// CHECK:         %[[Z:.*]] = memref.load %[[S]]
// CHECK-NOT:     arith.extf
// CHECK:         scf.for %{{.*}} iter_args(%{{.*}} = %[[Z]]) -> (f32)

func.func @reduce_f16_no_sinks(%es: memref<1x?x4xf32>, %ml: memref<1x?x4xf32>,
                               %tmp: memref<1x?x4x128xf32>,
                               %red: memref<?x2xi32>, %sinks: memref<4xf32>,
                               %out: memref<?x4x128xf16>) {
  pa.reduce exp_sums(%es : memref<1x?x4xf32>)
            max_logits(%ml : memref<1x?x4xf32>)
            tmp_out(%tmp : memref<1x?x4x128xf32>)
            reduce_info(%red : memref<?x2xi32>)
            output(%out : memref<?x4x128xf16>)
  pa.reduce exp_sums(%es : memref<1x?x4xf32>)
            max_logits(%ml : memref<1x?x4xf32>)
            tmp_out(%tmp : memref<1x?x4x128xf32>)
            reduce_info(%red : memref<?x2xi32>)
            sinks(%sinks : memref<4xf32>)
            output(%out : memref<?x4x128xf16>)
  return
}

// -----

// The optional lse operand: after out, each row stores M + log(den) at
// lse[b*Q + q][h*G + g], -inf when den == 0 (log(0) = -inf would give
// NaN for M = +inf). lse is the kernel's last argument.

// CHECK-LABEL: func.func @reduce_lse
// CHECK:       gpu.func @pa_reduce(%{{.*}}: memref<1x?x4xf32>, %{{.*}}: memref<1x?x4xf32>, %{{.*}}: memref<1x?x4x64xf32>, %{{.*}}: memref<?x2xi32>, %{{.*}}: memref<?x4x64xbf16>, %[[LSE:.*]]: memref<?x4xf32>)
// CHECK-SAME:    pa.arg_names = ["exp_sums", "max_logits", "tmp_out", "reduce_info", "output", "lse"]
// CHECK:         %[[MAX:.*]] = scf.for {{.*}} -> (f32)
// CHECK:         %[[DEN:.*]] = scf.for {{.*}} -> (f32)
// CHECK:         %[[LOG:.*]] = math.log %[[DEN]] : f32
// CHECK:         %[[SUM:.*]] = arith.addf %[[MAX]], %[[LOG]] : f32
// CHECK:         %[[EMPTY:.*]] = arith.cmpf oeq, %[[DEN]], %{{.*}} : f32
// CHECK:         %[[VALUE:.*]] = arith.select %[[EMPTY]], %{{.*}}, %[[SUM]] : f32
// CHECK:         memref.store %[[VALUE]], %[[LSE]][%{{.*}}, %{{.*}}] : memref<?x4xf32>

func.func @reduce_lse(%es: memref<1x?x4xf32>, %ml: memref<1x?x4xf32>,
                      %tmp: memref<1x?x4x64xf32>, %red: memref<?x2xi32>,
                      %out: memref<?x4x64xbf16>, %lse: memref<?x4xf32>) {
  pa.reduce exp_sums(%es : memref<1x?x4xf32>)
            max_logits(%ml : memref<1x?x4xf32>)
            tmp_out(%tmp : memref<1x?x4x64xf32>)
            reduce_info(%red : memref<?x2xi32>)
            output(%out : memref<?x4x64xbf16>)
            lse(%lse : memref<?x4xf32>)
  return
}
