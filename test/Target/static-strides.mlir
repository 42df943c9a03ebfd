// A query whose type fixes its row stride at 768 (rows padded past the 512
// elements of 8 heads x 64) instead of reading it at run time: the sidecar
// lists the strides and offset the type fixes, so that a launcher compares
// a view with them (a row-major view, rows of 512, would be read at 768).
// RUN: sed 's/strided<\[?, 64, 1\]>/strided<[768, 64, 1]>/g' %pa_src_root/test/CAPI/Inputs/decode-small.mlir > %t.mlir
// RUN: pa-compile %t.mlir --chip=gfx950 -o %t.hsaco
// RUN: FileCheck %s --input-file=%t.hsaco.json
// RUN: pa-compile %t.mlir --chip=sm_90a -o %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx.json

// CHECK:      "name": "pa_decode",
// CHECK:      "dynamic_strides": {},
// CHECK-NEXT: "static_strides": {
// CHECK-NEXT:   "query": {
// CHECK-NEXT:     "0": 768,
// CHECK-NEXT:     "1": 64,
// CHECK-NEXT:     "2": 1
// CHECK-NEXT:   }
// CHECK-NEXT: },
// CHECK-NEXT: "static_offsets": {
// CHECK-NEXT:   "query": 0
// CHECK-NEXT: },
// The sizes the types fix, on both targets (one writer): the query
// [?, 8, 64], the packed key cache [?, 1, 4, 16, 16].
// CHECK-NEXT: "static_sizes": {
// CHECK:        "key_cache": {
// CHECK-NEXT:     "1": 1,
// CHECK-NEXT:     "2": 4,
// CHECK-NEXT:     "3": 16,
// CHECK-NEXT:     "4": 16
// CHECK-NEXT:   },
// CHECK:        "query": {
// CHECK-NEXT:     "1": 8,
// CHECK-NEXT:     "2": 64
// CHECK-NEXT:   },
