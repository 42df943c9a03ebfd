// A small decode (Hq = 8, Hkv = 1, D = 64, P = 16, Q = 1, e4m3fn KV with
// per-tensor scales, plain V, plan budget 4 and 2 partitions) that
// test/CAPI compiles to PTX with pa-compile --chip=sm_90a for the runtime
// C API test (pa-c/Cuda.h); the shapes are written out there. The query
// rows are at a run-time stride (a fused qkv tensor's), as the APIs'
// programs take them: the sidecar lists query stride 0 as read at run time.
func.func @decode_small(
    %query: memref<?x8x64xbf16, strided<[?, 64, 1]>>,
    %key_cache: memref<?x1x4x16x16xf8E4M3FN>,
    %value_cache: memref<?x1x64x16xf8E4M3FN>,
    %block_tables: memref<?x?xi32>,
    %context_lengths: memref<?xi32>,
    %k_scale: memref<1xf32>,
    %v_scale: memref<1xf32>,
    %work_info: memref<?x4xi32>,
    %reduce_info: memref<?x2xi32>,
    %exp_sums: memref<1x?x8xf32>,
    %max_logits: memref<1x?x8xf32>,
    %tmp_out: memref<1x?x8x64xf32>,
    %output: memref<?x8x64xbf16>) {
  pa.plan context_lengths(%context_lengths : memref<?xi32>)
          work_info(%work_info : memref<?x4xi32>)
          reduce_info(%reduce_info : memref<?x2xi32>)
          {num_kv_heads = 1 : i64, query_length = 1 : i64,
           sliding_window = 0 : i64, budget = 4 : i64, max_partitions = 2 : i64}
  pa.decode query(%query : memref<?x8x64xbf16, strided<[?, 64, 1]>>)
            key_cache(%key_cache : memref<?x1x4x16x16xf8E4M3FN>)
            value_cache(%value_cache : memref<?x1x64x16xf8E4M3FN>)
            block_tables(%block_tables : memref<?x?xi32>)
            context_lengths(%context_lengths : memref<?xi32>)
            k_scale(%k_scale : memref<1xf32>)
            v_scale(%v_scale : memref<1xf32>)
            work_info(%work_info : memref<?x4xi32>)
            exp_sums(%exp_sums : memref<1x?x8xf32>)
            max_logits(%max_logits : memref<1x?x8xf32>)
            tmp_out(%tmp_out : memref<1x?x8x64xf32>)
            {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16,
                                       v_layout = plain>,
             scale = #pa.scale<per_tensor>}
  pa.reduce exp_sums(%exp_sums : memref<1x?x8xf32>)
            max_logits(%max_logits : memref<1x?x8xf32>)
            tmp_out(%tmp_out : memref<1x?x8x64xf32>)
            reduce_info(%reduce_info : memref<?x2xi32>)
            output(%output : memref<?x8x64xbf16>)
  return
}
