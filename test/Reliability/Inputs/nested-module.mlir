// pa ops in a function of a module nested in the top-level one.
module {
  module @inner {
func.func @decode_d256_fp8(
    %query: memref<?x16x256xbf16>,
    %key_cache: memref<?x2x16x16x16xf8E4M3FN>,
    %value_cache: memref<?x2x1x256x16xf8E4M3FN>,
    %block_tables: memref<?x?xi32>,
    %context_lengths: memref<?xi32>,
    %k_scale: memref<?x2x16xf32>,
    %v_scale: memref<?x2x16xf32>,
    %sinks: memref<16xf32>,
    %work_info: memref<?x4xi32>,
    %reduce_info: memref<?x2xi32>,
    %exp_sums: memref<2x?x16xf32>,
    %max_logits: memref<2x?x16xf32>,
    %tmp_out: memref<2x?x16x256xf32>,
    %output: memref<?x16x256xbf16>) {
  pa.plan context_lengths(%context_lengths : memref<?xi32>)
          work_info(%work_info : memref<?x4xi32>)
          reduce_info(%reduce_info : memref<?x2xi32>)
          {num_kv_heads = 2 : i64, query_length = 2 : i64,
           sliding_window = 257 : i64}
  pa.decode query(%query : memref<?x16x256xbf16>)
            key_cache(%key_cache : memref<?x2x16x16x16xf8E4M3FN>)
            value_cache(%value_cache : memref<?x2x1x256x16xf8E4M3FN>)
            block_tables(%block_tables : memref<?x?xi32>)
            context_lengths(%context_lengths : memref<?xi32>)
            k_scale(%k_scale : memref<?x2x16xf32>)
            v_scale(%v_scale : memref<?x2x16xf32>)
            work_info(%work_info : memref<?x4xi32>)
            exp_sums(%exp_sums : memref<2x?x16xf32>)
            max_logits(%max_logits : memref<2x?x16xf32>)
            tmp_out(%tmp_out : memref<2x?x16x256xf32>)
            {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16,
                                       v_layout = transposed>,
             scale = #pa.scale<per_token>, sliding_window = 257 : i64}
  pa.reduce exp_sums(%exp_sums : memref<2x?x16xf32>)
            max_logits(%max_logits : memref<2x?x16xf32>)
            tmp_out(%tmp_out : memref<2x?x16x256xf32>)
            reduce_info(%reduce_info : memref<?x2xi32>)
            sinks(%sinks : memref<16xf32>)
            output(%output : memref<?x16x256xbf16>)
  return
}

  }
}
