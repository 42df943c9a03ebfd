// pa.plan / pa.decode / pa.reduce on tensors go through one-shot-bufferize
// into the memref form, in place on the function's buffers, and on to the
// same code objects as the memref form of the examples (byte for byte).
// RUN: pa-opt %S/Inputs/decode-d256-fp8-tensors.mlir --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" -o %t-gfx950.mlir
// RUN: FileCheck %s --input-file=%t-gfx950.mlir
// RUN: pa-compile %t-gfx950.mlir --chip=gfx950 -o %t-gfx950.hsaco
// RUN: pa-compile %pa_src_root/examples/decode-d256-fp8.mlir --chip=gfx950 -o %t-memref-gfx950.hsaco
// RUN: cmp %t-gfx950.hsaco %t-memref-gfx950.hsaco
// RUN: cmp %t-gfx950.hsaco.json %t-memref-gfx950.hsaco.json
// RUN: pa-compile %t-gfx950.mlir --chip=gfx950 --emit=isa | FileCheck %s --check-prefixes=ISA,ISA-GFX950
// RUN: pa-opt %S/Inputs/decode-d256-fp8-gfx942-tensors.mlir --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" -o %t-gfx942.mlir
// RUN: pa-compile %t-gfx942.mlir --chip=gfx942 -o %t-gfx942.hsaco
// RUN: pa-compile %pa_src_root/examples/decode-d256-fp8-gfx942.mlir --chip=gfx942 -o %t-memref-gfx942.hsaco
// RUN: cmp %t-gfx942.hsaco %t-memref-gfx942.hsaco
// RUN: pa-compile %t-gfx942.mlir --chip=gfx942 --emit=isa | FileCheck %s --check-prefixes=ISA,ISA-GFX942
// What addBufferizeToMemRefForm (Builders.h) adds: a private function then
// returns nothing, as the memref example (upstream's
// drop-equivalent-buffer-results leaves public signatures alone).
// RUN: sed -e 's/^func.func @/func.func private @/' %S/Inputs/decode-d256-fp8-tensors.mlir \
// RUN: | pa-opt --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --drop-equivalent-buffer-results \
// RUN: | FileCheck %s --check-prefix=DROPPED
// The lowerings take the memref form only.
// RUN: not pa-opt %S/Inputs/decode-d256-fp8-tensors.mlir -pa-lower-to-rocdl="chip=gfx950" 2>&1 | FileCheck %s --check-prefix=UNBUFFERIZED

// The function's buffers, written in place: no allocation, no copy.
// CHECK-LABEL: func.func @decode_d256_fp8(
// CHECK-SAME:    %[[Q:[a-z0-9]+]]: memref<?x16x256xbf16>
// CHECK-SAME:    %[[LENS:[a-z0-9]+]]: memref<?xi32>
// CHECK-SAME:    %[[WORK:[a-z0-9]+]]: memref<?x4xi32>, %[[RED:[a-z0-9]+]]: memref<?x2xi32>
// CHECK-SAME:    %[[ES:[a-z0-9]+]]: memref<2x?x16xf32>, %[[ML:[a-z0-9]+]]: memref<2x?x16xf32>, %[[PART:[a-z0-9]+]]: memref<2x?x16x256xf32>
// CHECK-SAME:    %[[OUT:[a-z0-9]+]]: memref<?x16x256xbf16>) -> memref<?x16x256xbf16> {
// CHECK-NOT:   memref.alloc
// CHECK-NOT:   memref.copy
// CHECK:       pa.plan context_lengths(%[[LENS]] : memref<?xi32>) work_info(%[[WORK]] : memref<?x4xi32>) reduce_info(%[[RED]] : memref<?x2xi32>)
// CHECK-NOT:   ->
// CHECK:       pa.decode query(%[[Q]] : memref<?x16x256xbf16>)
// CHECK-SAME:    work_info(%[[WORK]] : memref<?x4xi32>) exp_sums(%[[ES]] : memref<2x?x16xf32>) max_logits(%[[ML]] : memref<2x?x16xf32>) tmp_out(%[[PART]] : memref<2x?x16x256xf32>)
// CHECK:       pa.reduce exp_sums(%[[ES]] : memref<2x?x16xf32>) max_logits(%[[ML]] : memref<2x?x16xf32>) tmp_out(%[[PART]] : memref<2x?x16x256xf32>) reduce_info(%[[RED]] : memref<?x2xi32>)
// CHECK-SAME:    output(%[[OUT]] : memref<?x16x256xbf16>)
// CHECK-NOT:   memref.copy
// CHECK:       return %[[OUT]] : memref<?x16x256xbf16>

// DROPPED-LABEL: func.func private @decode_d256_fp8(
// DROPPED-SAME:    %{{.*}}: memref<?x16x256xbf16>) {
// DROPPED-NOT:   memref.alloc
// DROPPED:       pa.reduce
// DROPPED-NEXT:  return{{$}}

// ISA-GFX950:  .amdgcn_target "amdgcn-amd-amdhsa--gfx950"
// ISA-GFX942:  .amdgcn_target "amdgcn-amd-amdhsa--gfx942"
// ISA:         pa_decode:
// ISA:           v_cvt_pk_fp8_f32
// ISA:           v_mfma_f32_16x16x32_fp8_fp8
// ISA:           v_exp_f32
// ISA:         .end_amdgpu_metadata

// UNBUFFERIZED: error: 'pa.plan' op takes tensors: bufferize it first (one-shot-bufferize) to lower it
