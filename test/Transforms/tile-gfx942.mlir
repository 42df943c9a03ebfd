// The chip stated in the IR (pa.target) instead of by pa-set-target.
// RUN: pa-opt %s -pa-tile | FileCheck %s --check-prefix=GFX942

// gfx942 takes the FNUZ fp8 flavour; plain V, page 64, D 128, GQA 4, Q 1
// (4 rows padded to one 16-row M-tile).
// GFX942-LABEL: func.func @fnuz
// GFX942:         gpu.launch_func @pa_kernels::@pa_decode blocks in (%{{[^,]*}}, %c1{{[_0-9]*}}, %c1{{[_0-9]*}})
// GFX942:         gpu.func @pa_decode({{.*}}memref<?x1x8x64x16xf8E4M3FNUZ>
// GFX942-SAME:      workgroup(%{{.*}} : memref<16x128xf32, #gpu.address_space<workgroup>>
// GFX942:           pa.tile.qk {{.*}} {compute = #pa.compute<fp8>, page_size = 64 : i64, scale = #pa.scale<none>
// GFX942-SAME:        memref<?x1x8x64x16xf8E4M3FNUZ>, vector<4xi32>,
// GFX942:           pa.tile.store_partials {{.*}} {rows = 4 : i64}
module attributes {pa.target = #pa.target<"gfx942">} {
func.func @fnuz(%q: memref<?x4x128xbf16>, %k: memref<?x1x8x64x16xf8E4M3FNUZ>,
                %v: memref<?x1x128x64xf8E4M3FNUZ>, %bt: memref<?x?xi32>, %lens: memref<?xi32>,
                %work: memref<?x4xi32>, %es: memref<1x?x4xf32>, %ml: memref<1x?x4xf32>,
                %part: memref<1x?x4x128xf32>) {
  pa.decode query(%q : memref<?x4x128xbf16>) key_cache(%k : memref<?x1x8x64x16xf8E4M3FNUZ>)
            value_cache(%v : memref<?x1x128x64xf8E4M3FNUZ>) block_tables(%bt : memref<?x?xi32>)
            context_lengths(%lens : memref<?xi32>) work_info(%work : memref<?x4xi32>)
            exp_sums(%es : memref<1x?x4xf32>) max_logits(%ml : memref<1x?x4xf32>)
            tmp_out(%part : memref<1x?x4x128xf32>)
            {kv_layout = #pa.kv_layout<page_size = 64, k_pack = 16, v_layout = plain>}
  return
}
}
