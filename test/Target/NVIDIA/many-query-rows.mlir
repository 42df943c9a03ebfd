// sm_90a compile cost does not grow with the query rows R = Q * G past a
// register tile: the reduce kernel's warp distribution unrolls per item of
// its rows, so past kMaxWarpReduceItems items per thread it takes the
// parallel-loops distribution (rows in a run-time loop). Before, Q = 10^4
// took 2.5 GB and 25 s, and this module (Q = 10^5) 24 GB and then
// std::bad_alloc. The CPU-time limit makes the old behaviour a failure.
// RUN: %python %pa_src_root/test/Reliability/Inputs/deep_input.py cpu-limit 60 pa-compile %s --chip=sm_90a -o %t.ptx
// RUN: FileCheck %s < %t.ptx.json
// CHECK: "name": "pa_decode",
// CHECK: "distribution": "warps",
// CHECK: "name": "pa_reduce",
// CHECK: "distribution": "parallel-loops",

func.func @decode_many_rows(
    %query: memref<?x1x64xbf16>,
    %key_cache: memref<?x1x4x16x16xf8E4M3FN>,
    %value_cache: memref<?x1x64x16xf8E4M3FN>,
    %block_tables: memref<?x?xi32>,
    %context_lengths: memref<?xi32>,
    %work_info: memref<?x4xi32>,
    %reduce_info: memref<?x2xi32>,
    %exp_sums: memref<1x?x100000xf32>,
    %max_logits: memref<1x?x100000xf32>,
    %tmp_out: memref<1x?x100000x64xf32>,
    %output: memref<?x1x64xbf16>) {
  pa.plan context_lengths(%context_lengths : memref<?xi32>)
          work_info(%work_info : memref<?x4xi32>)
          reduce_info(%reduce_info : memref<?x2xi32>)
          {num_kv_heads = 1 : i64, query_length = 100000 : i64}
  pa.decode query(%query : memref<?x1x64xbf16>)
            key_cache(%key_cache : memref<?x1x4x16x16xf8E4M3FN>)
            value_cache(%value_cache : memref<?x1x64x16xf8E4M3FN>)
            block_tables(%block_tables : memref<?x?xi32>)
            context_lengths(%context_lengths : memref<?xi32>)
            work_info(%work_info : memref<?x4xi32>)
            exp_sums(%exp_sums : memref<1x?x100000xf32>)
            max_logits(%max_logits : memref<1x?x100000xf32>)
            tmp_out(%tmp_out : memref<1x?x100000x64xf32>)
            {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16,
                                       v_layout = plain>}
  pa.reduce exp_sums(%exp_sums : memref<1x?x100000xf32>)
            max_logits(%max_logits : memref<1x?x100000xf32>)
            tmp_out(%tmp_out : memref<1x?x100000x64xf32>)
            reduce_info(%reduce_info : memref<?x2xi32>)
            output(%output : memref<?x1x64xbf16>)
  return
}
