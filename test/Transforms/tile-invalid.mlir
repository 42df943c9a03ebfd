// RUN: pa-opt %s -split-input-file -pa-set-target=chip=gfx950 -pa-tile -verify-diagnostics
// RUN: not pa-opt %s -split-input-file -pa-set-target=chip=gfx1100 -pa-tile 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not pa-opt %s -split-input-file -pa-tile 2>&1 | FileCheck %s --check-prefix=NONE

// UNKNOWN: error: pa-set-target: unknown chip 'gfx1100'; expected one of gfx942, gfx950, sm_90a
// NONE: error: pa-tile: no target chip: the module has no pa.target attribute

// gfx950's matrix units take OCP fp8 only.
func.func @fnuz_on_gfx950(%q: memref<?x4x128xbf16>, %k: memref<?x1x8x64x16xf8E4M3FNUZ>,
                %v: memref<?x1x128x64xf8E4M3FNUZ>, %bt: memref<?x?xi32>, %lens: memref<?xi32>,
                %work: memref<?x4xi32>, %es: memref<1x?x4xf32>, %ml: memref<1x?x4xf32>,
                %part: memref<1x?x4x128xf32>) {
  // expected-error @+1 {{chip gfx950 takes f8E4M3FN fp8 KV caches, got 'f8E4M3FNUZ'}}
  pa.decode query(%q : memref<?x4x128xbf16>) key_cache(%k : memref<?x1x8x64x16xf8E4M3FNUZ>)
            value_cache(%v : memref<?x1x128x64xf8E4M3FNUZ>) block_tables(%bt : memref<?x?xi32>)
            context_lengths(%lens : memref<?xi32>) work_info(%work : memref<?x4xi32>)
            exp_sums(%es : memref<1x?x4xf32>) max_logits(%ml : memref<1x?x4xf32>)
            tmp_out(%part : memref<1x?x4x128xf32>)
            {kv_layout = #pa.kv_layout<page_size = 64, k_pack = 16, v_layout = plain>}
  return
}

// -----

// bf16 caches are accepted on every chip.
func.func @bf16_anywhere(%q: memref<?x4x128xbf16>, %k: memref<?x1x16x64x8xbf16>,
                %v: memref<?x1x128x64xbf16>, %bt: memref<?x?xi32>, %lens: memref<?xi32>,
                %work: memref<?x4xi32>, %es: memref<1x?x4xf32>, %ml: memref<1x?x4xf32>,
                %part: memref<1x?x4x128xf32>) {
  pa.decode query(%q : memref<?x4x128xbf16>) key_cache(%k : memref<?x1x16x64x8xbf16>)
            value_cache(%v : memref<?x1x128x64xbf16>) block_tables(%bt : memref<?x?xi32>)
            context_lengths(%lens : memref<?xi32>) work_info(%work : memref<?x4xi32>)
            exp_sums(%es : memref<1x?x4xf32>) max_logits(%ml : memref<1x?x4xf32>)
            tmp_out(%part : memref<1x?x4x128xf32>)
            {kv_layout = #pa.kv_layout<page_size = 64, k_pack = 8, v_layout = plain>}
  return
}

// -----

// pa ops in a nested module: kernels go to the top-level module's
// gpu.module and are launched from where the op is, so that must be the
// top-level module (before: internal gpu.launch_func errors).
module {
  module @inner {
    func.func @nested(%q: memref<?x4x128xbf16>, %k: memref<?x1x8x64x16xf8E4M3FN>,
                      %v: memref<?x1x128x64xf8E4M3FN>, %bt: memref<?x?xi32>, %lens: memref<?xi32>,
                      %work: memref<?x4xi32>, %es: memref<1x?x4xf32>, %ml: memref<1x?x4xf32>,
                      %part: memref<1x?x4x128xf32>) {
      // expected-error @+1 {{'pa.decode' op is inside a nested module (@inner); pa ops are compiled from the functions of the top-level module only}}
      pa.decode query(%q : memref<?x4x128xbf16>) key_cache(%k : memref<?x1x8x64x16xf8E4M3FN>)
          value_cache(%v : memref<?x1x128x64xf8E4M3FN>) block_tables(%bt : memref<?x?xi32>)
          context_lengths(%lens : memref<?xi32>) work_info(%work : memref<?x4xi32>)
          exp_sums(%es : memref<1x?x4xf32>) max_logits(%ml : memref<1x?x4xf32>)
          tmp_out(%part : memref<1x?x4x128xf32>)
          {kv_layout = #pa.kv_layout<page_size = 64, k_pack = 16, v_layout = plain>}
      return
    }
  }
}
