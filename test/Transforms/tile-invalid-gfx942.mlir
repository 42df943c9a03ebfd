// RUN: pa-opt %s -pa-set-target=chip=gfx942 -pa-tile -verify-diagnostics

// gfx942's matrix units take FNUZ fp8 only.
func.func @ocp_on_gfx942(%q: memref<?x4x128xbf16>, %k: memref<?x1x8x64x16xf8E4M3FN>,
                %v: memref<?x1x128x64xf8E4M3FN>, %bt: memref<?x?xi32>, %lens: memref<?xi32>,
                %work: memref<?x4xi32>, %es: memref<1x?x4xf32>, %ml: memref<1x?x4xf32>,
                %part: memref<1x?x4x128xf32>) {
  // expected-error @+1 {{chip gfx942 takes f8E4M3FNUZ fp8 KV caches, got 'f8E4M3FN'}}
  pa.decode query(%q : memref<?x4x128xbf16>) key_cache(%k : memref<?x1x8x64x16xf8E4M3FN>)
            value_cache(%v : memref<?x1x128x64xf8E4M3FN>) block_tables(%bt : memref<?x?xi32>)
            context_lengths(%lens : memref<?xi32>) work_info(%work : memref<?x4xi32>)
            exp_sums(%es : memref<1x?x4xf32>) max_logits(%ml : memref<1x?x4xf32>)
            tmp_out(%part : memref<1x?x4x128xf32>)
            {kv_layout = #pa.kv_layout<page_size = 64, k_pack = 16, v_layout = plain>}
  return
}
