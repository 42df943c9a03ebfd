// RUN: pa-opt %s -pa-lower-reduce -verify-diagnostics

// The workgroup size comes from the chip: a module that states none is
// rejected.
// expected-error@+1 {{pa-lower-reduce: no target chip: the module has no pa.target attribute}}
module {
  func.func @reduce(%es: memref<1x?x1xf32>, %ml: memref<1x?x1xf32>,
                    %tmp: memref<1x?x1x64xf32>, %red: memref<?x2xi32>,
                    %out: memref<?x1x64xbf16>) {
    pa.reduce exp_sums(%es : memref<1x?x1xf32>)
              max_logits(%ml : memref<1x?x1xf32>)
              tmp_out(%tmp : memref<1x?x1x64xf32>)
              reduce_info(%red : memref<?x2xi32>)
              output(%out : memref<?x1x64xbf16>)
    return
  }
}
