// The tensor form of examples/decode-d256-fp8-gfx942.mlir (test/IR/bufferization.mlir): the
// destinations are the tensor inits, the results the tensors written.
func.func @decode_d256_fp8_gfx942(
    %query: tensor<?x16x256xbf16>,
    %key_cache: tensor<?x2x16x16x16xf8E4M3FNUZ>,
    %value_cache: tensor<?x2x1x256x16xf8E4M3FNUZ>,
    %block_tables: tensor<?x?xi32>,
    %context_lengths: tensor<?xi32>,
    %k_scale: tensor<?x2x16xf32>,
    %v_scale: tensor<?x2x16xf32>,
    %sinks: tensor<16xf32>,
    %work_info: tensor<?x4xi32>,
    %reduce_info: tensor<?x2xi32>,
    %exp_sums: tensor<2x?x16xf32>,
    %max_logits: tensor<2x?x16xf32>,
    %tmp_out: tensor<2x?x16x256xf32>,
    %output: tensor<?x16x256xbf16>) -> tensor<?x16x256xbf16> {
  %work, %reduce = pa.plan context_lengths(%context_lengths : tensor<?xi32>)
          work_info(%work_info : tensor<?x4xi32>)
          reduce_info(%reduce_info : tensor<?x2xi32>)
          {num_kv_heads = 2 : i64, query_length = 2 : i64,
           sliding_window = 257 : i64} -> tensor<?x4xi32>, tensor<?x2xi32>
  %es, %ml, %part = pa.decode query(%query : tensor<?x16x256xbf16>)
            key_cache(%key_cache : tensor<?x2x16x16x16xf8E4M3FNUZ>)
            value_cache(%value_cache : tensor<?x2x1x256x16xf8E4M3FNUZ>)
            block_tables(%block_tables : tensor<?x?xi32>)
            context_lengths(%context_lengths : tensor<?xi32>)
            k_scale(%k_scale : tensor<?x2x16xf32>)
            v_scale(%v_scale : tensor<?x2x16xf32>)
            work_info(%work : tensor<?x4xi32>)
            exp_sums(%exp_sums : tensor<2x?x16xf32>)
            max_logits(%max_logits : tensor<2x?x16xf32>)
            tmp_out(%tmp_out : tensor<2x?x16x256xf32>)
            {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16,
                                       v_layout = transposed>,
             scale = #pa.scale<per_token>, sliding_window = 257 : i64}
            -> tensor<2x?x16xf32>, tensor<2x?x16xf32>, tensor<2x?x16x256xf32>
  %out = pa.reduce exp_sums(%es : tensor<2x?x16xf32>)
            max_logits(%ml : tensor<2x?x16xf32>)
            tmp_out(%part : tensor<2x?x16x256xf32>)
            reduce_info(%reduce : tensor<?x2xi32>)
            sinks(%sinks : tensor<16xf32>)
            output(%output : tensor<?x16x256xbf16>) -> tensor<?x16x256xbf16>
  return %out : tensor<?x16x256xbf16>
}
