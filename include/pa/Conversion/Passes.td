//===- Passes.td - backend conversions of the tiled IR -----*- tablegen -*-===//
//
// A backend is one pass that distributes the workgroup programs of the tiled
// IR over lanes and emits the target's matrix instructions; the standard
// lowering (ROCDL / NVVM) follows.
//
//===----------------------------------------------------------------------===//

#ifndef PA_CONVERSION_PASSES_TD
#define PA_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def PaMFMALayout : Pass<"pa-mfma-layout", "::mlir::gpu::GPUModuleOp"> {
  let summary = "attach the MFMA lane mapping (#pa.mfma_layout) to each decode kernel";
  let description = [{
    Checks every decode kernel of the module (a `gpu.func` with `pa.tile.*`
    ops) as `pa-to-mfma` would, for the module's `pa.target` (gfx942 or
    gfx950), and attaches the lane mapping it lowers with as the kernel
    attribute `pa.mfma_layout = #pa.mfma_layout<...>`: the MFMA shapes of
    QK and PV, the 16-row M-tiles, the tokens each wave owns and the K
    load chunks. `pa-to-mfma` follows the attribute where
    it is present (and chooses the same mapping itself where not). Builds
    no other IR.
  }];
}

def PaToMFMA : Pass<"pa-to-mfma", "::mlir::gpu::GPUModuleOp"> {
  let summary = "distribute the tiled IR over wave64 lanes with MFMA (gfx942, gfx950)";
  let description = [{
    Rewrites the kernels of `gpu.module @pa_kernels` from workgroup programs
    into per-lane code for 4-wave (256-lane) workgroups: the decode kernel's
    `pa.tile.*` ops become `amdgpu.mfma` on fp8 (`v_mfma_f32_16x16x32_fp8_fp8`)
    or bf16 (`v_mfma_f32_16x16x16_bf16`) operands, K and V reaching the lanes
    through 16-byte buffer loads, P staying in registers, the query, page ids
    and the merge of the 4 waves going through LDS (docs/mfma-lowering.md,
    docs/performance.md); the reduce kernel's head-dim loops are spread over
    the lanes. The plan kernel is left as it is (pa-workgroup-to-lane0).

    The chip is the module's `pa.target` (gfx942 or gfx950). Per-chip
    rules: gfx942 takes `f8E4M3FNUZ` only, gfx950 `f8E4M3FN` only
    (and may use `v_mfma_f32_16x16x128_f8f6f4`); the wrong flavour is a
    diagnostic. A kernel's `pa.mfma_layout` (pa-mfma-layout), where present,
    is the lane mapping it lowers with.
  }];
  let options = [
    Option<"fp8Residual", "fp8-residual", "::mlir::pa::Fp8Residual",
           /*default=*/"::mlir::pa::kDefaultFp8Residual",
           "fp8 products whose operand's fp8 residual is multiplied too, by "
           "a second MFMA per step (2^-8 instead of 2^-4 relative "
           "quantization error): none, p, query-and-p (default)",
           "::mlir::pa::fp8ResidualValues()">,
    Option<"cacheOffsets", "cache-offsets", "::mlir::pa::CacheOffsets",
           /*default=*/"::mlir::pa::CacheOffsets::automatic",
           "how K, V and per-token scales are addressed: auto (32-bit "
           "buffer offsets when every paged buffer is below 2^31 bytes, "
           "64-bit global addresses otherwise; default) or 64",
           "::mlir::pa::cacheOffsetsValues()">,
    Option<"keyPrefetch", "key-prefetch", "::mlir::pa::KeyPrefetch",
           /*default=*/"::mlir::pa::KeyPrefetch::automatic",
           "whether the 32-bit tile loop loads the next tile's K while the "
           "current tile's softmax and PV run: auto (where its registers "
           "cost no wave, and gfx950's 16-row D = 128 kernels, which give "
           "their fourth wave for it; default), none, next-tile",
           "::mlir::pa::keyPrefetchValues()">
  ];
  let dependentDialects = ["::mlir::amdgpu::AMDGPUDialect", "::mlir::gpu::GPUDialect",
                           "::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::vector::VectorDialect", "::mlir::ROCDL::ROCDLDialect",
                           "::mlir::ub::UBDialect"];
}

def PaToNVVM : Pass<"pa-to-nvvm", "::mlir::gpu::GPUModuleOp"> {
  let summary = "distribute the tiled IR over warps for NVIDIA sm_90a";
  let description = [{
    Rewrites the kernels of `gpu.module @pa_kernels` into per-thread code for
    the module's `pa.target` NVIDIA chip (sm_90a; 4-warp workgroups), with warp-level MMA where implemented;
    fp8 conversions are lowered explicitly (MLIR 22 does not translate fp8
    `arith.extf`/`truncf` in NVVM kernels).
  }];
  let options = [
    Option<"fp8Products", "fp8-products", "std::string", /*default=*/"\"f16\"",
           "matrix products of fp8 KV: f16 (K and V converted exactly) or "
           "e4m3 (raw K and V, the query split into two e4m3 terms and P "
           "into three)">,
    Option<"keyAhead", "key-ahead", "int64_t", /*default=*/"0",
           "K blocks (4 16-byte chunks of the head dim per token) of the "
           "next tile copied into shared memory (cp.async) while the current "
           "tile's P V runs, read there by the next qk: 0 (none, the "
           "default: 3-15% slower at Q 1 on an H100) to 8; packed caches "
           "with pages of 16 tokens or more">,
    Option<"keyAheadInRegisters", "key-ahead-in-registers", "bool",
           /*default=*/"false",
           "key-ahead's chunks loaded into registers (carried by the tile "
           "loop to the next qk) instead of copied into shared memory">,
    Option<"keyAheadBulk", "key-ahead-bulk", "bool", /*default=*/"false",
           "key-ahead's blocks copied by the bulk-copy engine "
           "(cp.async.bulk, one copy per page piece of P x 16 contiguous "
           "bytes, issued by one warp, completion on an mbarrier) into a "
           "stage qk reads, instead of each thread's cp.async">,
    Option<"valueStage", "value-stage", "int64_t", /*default=*/"0",
           "V token blocks (4 16-byte chunks of tokens) at the start of "
           "each tile copied into shared memory by bulk copies "
           "(cp.async.bulk, completion on an mbarrier) when qk starts, read "
           "there by pv: 0 (none, the default) to 8; packed caches with "
           "pages of at most 256 tokens; capped at the tile's blocks and at "
           "two workgroups per SM">,
    Option<"valueAhead", "value-ahead", "int64_t", /*default=*/"1",
           "V token blocks pv requests ahead of the block whose products it "
           "issues: 1 (the default: two blocks of loads in flight) to 4; "
           "each more block holds its chunks in registers">,
    Option<"l2Prefetch", "l2-prefetch", "bool", /*default=*/"false",
           "each tile's V pages (when qk starts) and the next tile's K "
           "pages (when pv starts) prefetched into L2 "
           "(cp.async.bulk.prefetch.L2, one per page); packed caches with "
           "pages of 16 tokens or more">,
    Option<"l2PrefetchMinTiles", "l2-prefetch-min-tiles", "int64_t",
           /*default=*/"0",
           "with l2-prefetch: only partitions of at least this many tiles "
           "prefetch (a run-time test of the tile loop's trip count); 0 "
           "(the default): every partition">
  ];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect", "::mlir::gpu::GPUDialect",
                           "::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::vector::VectorDialect"];
}

def PaNVVMSinglePartitionOutput
    : Pass<"pa-nvvm-single-partition-output", "ModuleOp"> {
  let summary = "let the NVIDIA decode kernel write the output of a "
                "(sequence, KV head) the plan gives one partition, and the "
                "reduce skip it";
  let description = [{
    Where the plan gives a sequence one partition (every sequence at short
    contexts and large batches), the split-K reduce only rescales one
    partial: a second kernel, its launch and a round trip through the
    partials for nothing. For each decode launch whose partials
    (`tmp_out`) feed a reduce launch in the same block, with both kernels
    ones `pa-to-nvvm` distributes over warps, this pass appends the
    reduce's `reduce_info`, `output` and, where present, `sinks` and `lse`
    to the decode kernel's arguments (and its launch's operands, and
    `pa.arg_names`), and marks both kernels
    `pa.nvvm.single_partition_output`. `pa-to-nvvm` then has the decode
    read its sequence's partition count from `reduce_info` and, where it
    is 1, write the output (and lse) itself with the reduce's arithmetic,
    besides its partials (which it writes as always); the reduce returns
    at once for such a sequence. The count is the plan's, read at run time
    by both kernels, so they agree for any context lengths and under graph
    replay.

    Example (the decode launch before and after, operands abridged):

    ```mlir
    gpu.launch_func @pa_kernels::@pa_decode ... args(%q : ..., %tmp : ...)
    gpu.launch_func @pa_kernels::@pa_decode ...
        args(%q : ..., %tmp : ..., %reduce_info : memref<?x2xi32>,
             %out : memref<?x16x128xbf16>)
    ```

    Part of `pa-lower-to-nvvm`, right before `pa-to-nvvm`, which lowers
    what it marks (the AMD pipeline does not run it); kernels it does not
    pair are left alone.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

#endif // PA_CONVERSION_PASSES_TD
