// pa-nvvm-single-partition-output: a decode launch whose partials feed a
// reduce launch gets the reduce's reduce_info, output (and sinks, lse)
// appended to its operands and arguments, both kernels marked; pa-to-nvvm
// then has the decode write the output of a sequence the plan gives one
// partition (its partials as always) and the reduce skip it. Prefix PASS
// checks the pass alone, NVVM with pa-to-nvvm after it.
// RUN: pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},pa-lower-plan,pa-tile,pa-lower-reduce,gpu.module(pa-stage-page-ids),pa-nvvm-single-partition-output)' \
// RUN:   | FileCheck %s --check-prefix=PASS
// RUN: pa-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},pa-lower-plan,pa-tile,pa-lower-reduce,gpu.module(pa-stage-page-ids),pa-nvvm-single-partition-output,gpu.module(pa-to-nvvm))' \
// RUN:   | FileCheck %s --check-prefix=NVVM

// fp8 KV, G = 8, Q = 1, sinks and lse: the decode takes reduce_info,
// output, sinks and lse, in that order, after its own operands.
// PASS-LABEL: func.func @decode_sinks_lse(
// PASS-SAME:      %[[RED:[a-z0-9_]+]]: memref<?x2xi32>
// PASS-SAME:      %[[SINKS:[a-z0-9_]+]]: memref<8xf32>
// PASS-SAME:      %[[TMP:[a-z0-9_]+]]: memref<1x?x8x128xf32>
// PASS-SAME:      %[[OUT:[a-z0-9_]+]]: memref<?x8x128xbf16>
// PASS-SAME:      %[[LSE:[a-z0-9_]+]]: memref<?x8xf32>
// PASS:         gpu.launch_func @pa_kernels::@pa_decode
// PASS-SAME:      %[[TMP]] : memref<1x?x8x128xf32>, %[[RED]] : memref<?x2xi32>, %[[OUT]] : memref<?x8x128xbf16>, %[[SINKS]] : memref<8xf32>, %[[LSE]] : memref<?x8xf32>)
// PASS:         gpu.launch_func @pa_kernels::@pa_reduce
// PASS:       gpu.func @pa_decode(
// PASS-SAME:      %{{.*}}: memref<?x2xi32>, %{{.*}}: memref<?x8x128xbf16>, %{{.*}}: memref<8xf32>, %{{.*}}: memref<?x8xf32>)
// PASS-SAME:      pa.arg_names = ["query", "key_cache", "value_cache", "block_tables", "context_lengths", "work_info", "exp_sums", "max_logits", "tmp_out", "reduce_info", "output", "sinks", "lse"]
// PASS-SAME:      pa.nvvm.single_partition_output
// PASS:       gpu.func @pa_reduce(
// PASS-SAME:      pa.nvvm.single_partition_output

// The decode reads its sequence's partition count from reduce_info after
// the query's loads are issued, on the last warp's first thread, into
// shared memory (store_partials' barrier publishes it); then the page ids.
// NVVM-LABEL: gpu.func @pa_decode(
// NVVM-SAME:      %[[D_RED:[a-z0-9_]+]]: memref<?x2xi32>, %[[D_OUT:[a-z0-9_]+]]: memref<?x8x128xbf16>, %[[D_SINKS:[a-z0-9_]+]]: memref<8xf32>, %[[D_LSE:[a-z0-9_]+]]: memref<?x8xf32>)
// NVVM-SAME:      workgroup(
// NVVM-SAME:      %[[COUNT_SLOT:[a-z0-9_]+]] : memref<1xi32, #gpu.address_space<workgroup>>
// NVVM:         %[[TID:.*]] = gpu.thread_id x
// NVVM:         memref.load %{{.*}} : memref<?x8x128xbf16>
// NVVM-NOT:     memref<?x2xi32>
// NVVM:         %[[READER:.*]] = arith.cmpi eq, %[[TID]], %c96{{[_0-9]*}} : index
// NVVM-NEXT:    scf.if %[[READER]] {
// NVVM:           %[[COUNT:.*]] = memref.load %[[D_RED]][%{{.*}}, %c1{{.*}}] : memref<?x2xi32>
// NVVM:           memref.store %[[COUNT]], %[[COUNT_SLOT]][%{{.*}}]
// NVVM-NEXT:    }
// NVVM:         memref.load %{{.*}} : memref<?x?xi32>
// At the end the partials, as always, and for one partition the output
// too, merged with the sink: per row M = max(z, m), w = s exp(m - M),
// den = w + e_z, lse = M + ln den, and w / den and whether w counts into
// the scores' bytes; a barrier; then per item of 4 columns the partial's
// 16-byte store and the output's 8-byte one.
// NVVM:         %[[N:.*]] = memref.load %[[COUNT_SLOT]][%{{.*}}]
// NVVM:         %[[SINGLE:.*]] = arith.cmpi eq, %[[N]], %c1_i32
// NVVM:         memref.store %{{.*}} : memref<1x?x8xf32>
// NVVM:         memref.store %{{.*}} : memref<1x?x8xf32>
// NVVM:         scf.if %[[SINGLE]] {
// NVVM:           memref.load %[[D_SINKS]][%{{.*}}] : memref<8xf32>
// NVVM:           arith.maximumf
// NVVM:           math.exp2
// NVVM:           memref.store %{{.*}}, %[[D_LSE]][%{{.*}}, %{{.*}}] : memref<?x8xf32>
// NVVM:           arith.cmpf une
// NVVM:         scf.if %[[SINGLE]] {
// NVVM-NEXT:      gpu.barrier
// NVVM-NEXT:    }
// NVVM:         scf.for %{{.*}} = %{{.*}} to %c256
// NVVM:           vector.store %{{.*}} : memref<1x?x8x128xf32>, vector<4xf32>
// NVVM-NEXT:      scf.if %[[SINGLE]] {
// NVVM:             vector.store %{{.*}}, %[[D_OUT]][%{{.*}}, %{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<?x8x128xbf16>, vector<4xbf16>
// NVVM-NOT:     memref<1x?x8x128xf32>
// NVVM:         gpu.return
// The reduce merges only where the count is not 1.
// NVVM-LABEL: gpu.func @pa_reduce(
// NVVM:         %[[R_N:.*]] = memref.load %{{.*}}[%{{.*}}, %c1] : memref<?x2xi32>
// NVVM-NEXT:    %[[R_COUNT:.*]] = arith.index_cast %[[R_N]] : i32 to index
// NVVM:         %[[MERGE:.*]] = arith.cmpi ne, %[[R_COUNT]], %c1{{[_0-9]*}} :
// NVVM-NEXT:    scf.if %[[MERGE]] {
// NVVM:           vector.load %{{.*}} : memref<1x?x8x128xf32>
func.func @decode_sinks_lse(%query: memref<?x8x128xbf16>, %key_cache: memref<?x1x8x16x16xf8E4M3FN>,
    %value_cache: memref<?x1x1x128x16xf8E4M3FN>, %block_tables: memref<?x?xi32>,
    %context_lengths: memref<?xi32>, %work_info: memref<?x4xi32>, %reduce_info: memref<?x2xi32>,
    %sinks: memref<8xf32>, %exp_sums: memref<1x?x8xf32>, %max_logits: memref<1x?x8xf32>,
    %tmp_out: memref<1x?x8x128xf32>, %output: memref<?x8x128xbf16>, %lse: memref<?x8xf32>) {
  pa.plan context_lengths(%context_lengths : memref<?xi32>) work_info(%work_info : memref<?x4xi32>)
          reduce_info(%reduce_info : memref<?x2xi32>) {num_kv_heads = 1 : i64, query_length = 1 : i64}
  pa.decode query(%query : memref<?x8x128xbf16>) key_cache(%key_cache : memref<?x1x8x16x16xf8E4M3FN>)
            value_cache(%value_cache : memref<?x1x1x128x16xf8E4M3FN>) block_tables(%block_tables : memref<?x?xi32>)
            context_lengths(%context_lengths : memref<?xi32>) work_info(%work_info : memref<?x4xi32>)
            exp_sums(%exp_sums : memref<1x?x8xf32>) max_logits(%max_logits : memref<1x?x8xf32>)
            tmp_out(%tmp_out : memref<1x?x8x128xf32>)
            {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = transposed>}
  pa.reduce exp_sums(%exp_sums : memref<1x?x8xf32>) max_logits(%max_logits : memref<1x?x8xf32>)
            tmp_out(%tmp_out : memref<1x?x8x128xf32>) reduce_info(%reduce_info : memref<?x2xi32>)
            sinks(%sinks : memref<8xf32>) output(%output : memref<?x8x128xbf16>) lse(%lse : memref<?x8xf32>)
  return
}

// -----

// A reduce of other partials than the decode's: nothing paired, nothing
// changed.
// PASS-LABEL: func.func @other_partials(
// PASS:         gpu.launch_func @pa_kernels::@pa_decode
// PASS-NOT:       memref<?x8x128xbf16>
// PASS-SAME:      )
// PASS:       gpu.func @pa_decode(
// PASS-NOT:       single_partition_output
// PASS:       gpu.func @pa_reduce(
// PASS-NOT:       single_partition_output
// PASS:         gpu.return
// NVVM-LABEL: gpu.func @pa_decode(
// NVVM-NOT:     memref<?x2xi32>
// NVVM:         gpu.return
// NVVM-LABEL: gpu.func @pa_reduce(
// NVVM-NOT:     arith.cmpi ne, %{{.*}}, %c1 :
// NVVM:         gpu.return
func.func @other_partials(%query: memref<?x8x128xbf16>, %key_cache: memref<?x1x8x16x16xf8E4M3FN>,
    %value_cache: memref<?x1x1x128x16xf8E4M3FN>, %block_tables: memref<?x?xi32>,
    %context_lengths: memref<?xi32>, %work_info: memref<?x4xi32>, %reduce_info: memref<?x2xi32>,
    %exp_sums: memref<1x?x8xf32>, %max_logits: memref<1x?x8xf32>,
    %tmp_out: memref<1x?x8x128xf32>, %other_tmp_out: memref<1x?x8x128xf32>,
    %output: memref<?x8x128xbf16>) {
  pa.plan context_lengths(%context_lengths : memref<?xi32>) work_info(%work_info : memref<?x4xi32>)
          reduce_info(%reduce_info : memref<?x2xi32>) {num_kv_heads = 1 : i64, query_length = 1 : i64}
  pa.decode query(%query : memref<?x8x128xbf16>) key_cache(%key_cache : memref<?x1x8x16x16xf8E4M3FN>)
            value_cache(%value_cache : memref<?x1x1x128x16xf8E4M3FN>) block_tables(%block_tables : memref<?x?xi32>)
            context_lengths(%context_lengths : memref<?xi32>) work_info(%work_info : memref<?x4xi32>)
            exp_sums(%exp_sums : memref<1x?x8xf32>) max_logits(%max_logits : memref<1x?x8xf32>)
            tmp_out(%tmp_out : memref<1x?x8x128xf32>)
            {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = transposed>}
  pa.reduce exp_sums(%exp_sums : memref<1x?x8xf32>) max_logits(%max_logits : memref<1x?x8xf32>)
            tmp_out(%other_tmp_out : memref<1x?x8x128xf32>) reduce_info(%reduce_info : memref<?x2xi32>)
            output(%output : memref<?x8x128xbf16>)
  return
}

// -----

// A long MTP query (Q = 40, G = 8: 320 rows of D = 128) whose reduce
// pa-to-nvvm leaves on pa-lower-reduce's loops (more output items than a
// thread's unrolled passes take): the reduce would not skip, so the
// decode keeps writing its partials.
// PASS-LABEL: func.func @reduce_on_loops(
// PASS:       gpu.func @pa_decode(
// PASS-NOT:       single_partition_output
// PASS:       gpu.func @pa_reduce(
// PASS-NOT:       single_partition_output
// PASS:         gpu.return
// NVVM-LABEL: gpu.func @pa_decode(
// NVVM-SAME:      pa.distribution = #pa.distribution<warps>
// NVVM-LABEL: gpu.func @pa_reduce(
// NVVM-SAME:      pa.distribution = #pa.distribution<"parallel-loops">
func.func @reduce_on_loops(%query: memref<?x8x128xbf16>, %key_cache: memref<?x1x8x16x16xf8E4M3FN>,
    %value_cache: memref<?x1x1x128x16xf8E4M3FN>, %block_tables: memref<?x?xi32>,
    %context_lengths: memref<?xi32>, %work_info: memref<?x4xi32>, %reduce_info: memref<?x2xi32>,
    %exp_sums: memref<1x?x320xf32>, %max_logits: memref<1x?x320xf32>,
    %tmp_out: memref<1x?x320x128xf32>, %output: memref<?x8x128xbf16>) {
  pa.plan context_lengths(%context_lengths : memref<?xi32>) work_info(%work_info : memref<?x4xi32>)
          reduce_info(%reduce_info : memref<?x2xi32>) {num_kv_heads = 1 : i64, query_length = 40 : i64}
  pa.decode query(%query : memref<?x8x128xbf16>) key_cache(%key_cache : memref<?x1x8x16x16xf8E4M3FN>)
            value_cache(%value_cache : memref<?x1x1x128x16xf8E4M3FN>) block_tables(%block_tables : memref<?x?xi32>)
            context_lengths(%context_lengths : memref<?xi32>) work_info(%work_info : memref<?x4xi32>)
            exp_sums(%exp_sums : memref<1x?x320xf32>) max_logits(%max_logits : memref<1x?x320xf32>)
            tmp_out(%tmp_out : memref<1x?x320x128xf32>)
            {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16, v_layout = transposed>}
  pa.reduce exp_sums(%exp_sums : memref<1x?x320xf32>) max_logits(%max_logits : memref<1x?x320xf32>)
            tmp_out(%tmp_out : memref<1x?x320x128xf32>) reduce_info(%reduce_info : memref<?x2xi32>)
            output(%output : memref<?x8x128xbf16>)
  return
}
