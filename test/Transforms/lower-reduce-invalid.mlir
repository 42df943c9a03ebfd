// RUN: pa-opt %s -pa-lower-reduce=chip=sm_80 -verify-diagnostics

// expected-error@+1 {{unknown chip 'sm_80'; expected one of gfx942, gfx950, sm_90a}}
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
