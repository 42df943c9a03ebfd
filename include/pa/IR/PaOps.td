//===- PaOps.td - pa.plan, pa.decode, pa.reduce ------------*- tablegen -*-===//
//
// Semantics: shared/spec/paged-attention-decode.md. Operands are memrefs
// (the ops read their inputs and write their outputs) or ranked tensors
// (destination-passing style: the outputs are the inits of tensor results).
//
//===----------------------------------------------------------------------===//

#ifndef PA_IR_PAOPS_TD
#define PA_IR_PAOPS_TD

include "pa/IR/PaBase.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Pa_Op<string mnemonic, list<Trait> traits = []>
    : Op<Pa_Dialect, mnemonic, !listconcat([Pa_KnownAttributesOnly], traits)>;

// Operand wrappers that state the memory effect of each operand.
class Pa_In<string desc, TypeConstraint type> : Arg<type, desc, [MemRead]>;
class Pa_Out<string desc, TypeConstraint type> : Arg<type, desc, [MemWrite]>;

// plan, decode and reduce take memrefs (no results) or ranked tensors in
// destination-passing style: each output operand is the init of a tensor
// result of the same type (DestinationStyleOpInterface); one-shot-bufferize
// turns the tensor form into the memref form (PaBufferization.cpp).
def Pa_TensorOrMemRef : Type<Or<[AnyRankedTensor.predicate,
                                 AnyMemRef.predicate]>,
                             "ranked tensor or memref", "::mlir::ShapedType">;
class Pa_ShapedIn<string desc, TypeConstraint type = Pa_TensorOrMemRef>
    : Pa_In<desc, type>;
class Pa_ShapedOut<string desc, TypeConstraint type = Pa_TensorOrMemRef>
    : Pa_Out<desc, type>;

//===----------------------------------------------------------------------===//
// Operand type constraints of plan, decode and reduce
//===----------------------------------------------------------------------===//

// Every operand is a buffer the caller hands in. A tensor must have no
// encoding (a sparse or otherwise encoded tensor is no dense row-major
// buffer once bufferized). A memref must be in the default memory space: the
// caller's global memory on a GPU, host memory on the host; the lowerings
// give it its target's address space, and any other space (LDS, a private
// or target-specific one) would be read as that space.
def Pa_NoEncodingPred : CPred<[{
    !::llvm::isa<::mlir::RankedTensorType>($_self) ||
    !::llvm::cast<::mlir::RankedTensorType>($_self).getEncoding()}]>;
def Pa_DefaultMemorySpacePred : CPred<[{
    !::llvm::isa<::mlir::MemRefType>($_self) ||
    !::llvm::cast<::mlir::MemRefType>($_self).getMemorySpace()}]>;
// The lowerings index most buffers row-major (the identity layout; tensors
// bufferize to it). The query and the nhd / hnd caches may also be strided
// views (of a fused qkv tensor, of a combined KV cache) whose innermost
// stride is 1: the lowerings read the outer strides from the memref.
def Pa_RowMajorPred : CPred<[{
    !::llvm::isa<::mlir::MemRefType>($_self) ||
    ::llvm::cast<::mlir::MemRefType>($_self).getLayout().isIdentity()}]>;
def Pa_UnitInnermostStridePred
    : CPred<"::mlir::pa::isRowMajorOrUnitInnermostStride($_self)">;

// A buffer of one of `ranks` with elements of `elementTypes`; `shape` and
// `elements` say so in the spec's symbols for the diagnostic. `strided`:
// strided views with a unit innermost stride are accepted too. Sizes that
// depend on other operands or on attributes are checked by the verifiers.
class Pa_Buffer<list<int> ranks, string shape, list<Type> elementTypes,
                string elements, bit strided = 0>
    : Type<And<[Pa_TensorOrMemRef.predicate, Pa_NoEncodingPred,
                Pa_DefaultMemorySpacePred, HasAnyRankOfPred<ranks>,
                SubstLeaves<"$_self",
                    "::llvm::cast<::mlir::ShapedType>($_self).getElementType()",
                    AnyTypeOf<elementTypes>.predicate>,
                !if(strided, Pa_UnitInnermostStridePred, Pa_RowMajorPred)]>,
           shape # " of " # elements # " (a ranked tensor without an "
           # "encoding, or a " # !if(strided, "row-major or strided (unit "
           # "innermost stride)", "row-major") # " memref in the default "
           # "memory space)",
           "::mlir::ShapedType"> {
  // The memref form's description, for Pa_MemRefOf.
  string memrefSummary = shape # " of " # elements # " (a "
      # !if(strided, "row-major or strided (unit innermost stride)",
            "row-major")
      # " memref in the default memory space)";
}

// The memref form of a Pa_Buffer: the tile ops, which read and write the
// same global buffers as pa.decode after bufferization, take no tensors.
class Pa_MemRefOf<Pa_Buffer buffer>
    : Type<And<[AnyMemRef.predicate, buffer.predicate]>, buffer.memrefSummary,
           "::mlir::MemRefType">;

def Pa_ContextLengths : Pa_Buffer<[1], "1-D context lengths [B]", [I32], "i32">;
def Pa_WorkInfo : Pa_Buffer<[2], "2-D work plan [capacity, 4]", [I32], "i32">;
def Pa_ReduceInfo : Pa_Buffer<[2], "2-D reducer index [B, 2]", [I32], "i32">;
def Pa_BlockTables
    : Pa_Buffer<[2], "2-D block tables [B, max_pages]", [I32], "i32">;
def Pa_Query : Pa_Buffer<[3], "3-D query [B*Q, Hq, D]", [BF16, F16],
                         "bf16 or f16", /*strided=*/1>;
// The query pa.tile.load_query reads: pa.decode's, or f32 (hand-written
// tiled IR; pa-lower-tile-to-loops and pa-to-mfma read f32 queries too,
// pa-to-nvvm leaves them to its thread-0 fallback).
def Pa_TileQuery : Pa_Buffer<[3], "3-D query [B*Q, Hq, D]", [BF16, F16, F32],
                             "bf16, f16 or f32", /*strided=*/1>;
// Rank 5 for the packed layout, 4 for nhd and hnd: which one, and that a
// packed cache is row-major, the decode verifier checks against kv_layout.
def Pa_KVCache
    : Pa_Buffer<[4, 5], "4-D (nhd, hnd) or 5-D (packed) KV cache",
                [F8E4M3FN, F8E4M3FNUZ, BF16], "f8E4M3FN, f8E4M3FNUZ or bf16",
                /*strided=*/1>;
def Pa_KVScales
    : Pa_Buffer<[1, 3], "1-D per-tensor [1] or 3-D per-token [N, Hkv, P] "
                        "scales", [F32], "f32">;
def Pa_AlibiSlopes : Pa_Buffer<[1], "1-D ALiBi slopes [Hq]", [F32], "f32">;
def Pa_RowStatistics
    : Pa_Buffer<[3], "3-D partial row statistics [Hkv, capacity, Q*G]",
                [F32], "f32">;
def Pa_PartialOutputs
    : Pa_Buffer<[4], "4-D partial outputs [Hkv, capacity, Q*G, D]", [F32],
                "f32">;
def Pa_Sinks : Pa_Buffer<[1], "1-D sink logits [Hq]", [F32, BF16, F16],
                         "f32, bf16 or f16">;
def Pa_Output : Pa_Buffer<[3], "3-D output [B*Q, Hq, D]", [BF16, F16],
                          "bf16 or f16">;
def Pa_LogSumExp : Pa_Buffer<[2], "2-D log-sum-exp [B*Q, Hq]", [F32], "f32">;

//===----------------------------------------------------------------------===//
// pa.plan
//===----------------------------------------------------------------------===//

def Pa_PlanOp : Pa_Op<"plan", [DestinationStyleOpInterface]> {
  let summary = "map the KV tiles of each sequence to workgroup slots";
  let description = [{
    Computes the split-K work plan from the context lengths only, so it can
    run on the device inside a captured graph and be replayed with new
    lengths. KV is cut into 256-token tiles; with a sliding window `W > 0`,
    tiles left of every row's window are skipped (first tile
    `max(0, C - (Q-1) - W) / 256`).

    - `work_info[capacity][4]`: per slot `(sequence, begin_tile,
      end_tile_exclusive, context_length)`; unused slots are all zero.
    - `reduce_info[B][2]`: per sequence `(first slot, partition count)`.

    Capacity is `min(B * max_partitions, max(B, ceil(budget / Hkv)))`; each
    non-empty sequence gets one slot and the rest are apportioned by tile
    counts with the spec's integer prefix-sum rule. `budget` defaults to twice
    the compute-unit count of the target chip and `max_partitions` to the
    compute-unit count; the lowering fills them in when absent.

    On ranked tensors (before bufferization) `work_info` and `reduce_info`
    are the initial values of the op's two results, the plan written
    (destination-passing style); one-shot-bufferize makes the memref form.

    Example:

    ```mlir
    pa.plan context_lengths(%lens : memref<?xi32>)
            work_info(%work : memref<?x4xi32>)
            reduce_info(%red : memref<?x2xi32>)
            {num_kv_heads = 2 : i64, query_length = 4 : i64,
             sliding_window = 257 : i64, budget = 512 : i64}
    ```
  }];

  let arguments = (ins
    Pa_ShapedIn<"context lengths `[B]` (i32)", Pa_ContextLengths>:$context_lengths,
    Pa_ShapedOut<"work plan `[capacity, 4]` (i32)", Pa_WorkInfo>:$work_info,
    Pa_ShapedOut<"reducer index `[B, 2]` (i32)", Pa_ReduceInfo>:$reduce_info,
    Pa_I64Attr:$num_kv_heads,
    DefaultValuedAttr<Pa_I64Attr, "1">:$query_length,
    DefaultValuedAttr<Pa_I64Attr, "0">:$sliding_window,
    OptionalAttr<Pa_I64Attr>:$budget,
    OptionalAttr<Pa_I64Attr>:$max_partitions
  );

  let assemblyFormat = [{
    `context_lengths` `(` $context_lengths `:` type($context_lengths) `)`
    `work_info` `(` $work_info `:` type($work_info) `)`
    `reduce_info` `(` $reduce_info `:` type($reduce_info) `)`
    attr-dict (`->` type($results)^)?
  }];
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let extraClassDeclaration = [{
    /// The destinations: work_info and reduce_info.
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return ::mlir::MutableOperandRange(getOperation(), 1, 2);
    }
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// pa.decode
//===----------------------------------------------------------------------===//

def Pa_DecodeOp : Pa_Op<"decode", [AttrSizedOperandSegments,
                                   DestinationStyleOpInterface,
                                   AllElementTypesMatch<["key_cache",
                                                         "value_cache"]>]> {
  let summary = "split-K paged-attention decode: partial results per slot";
  let description = [{
    For every slot of the work plan and every KV head `h`, attends the
    `R = Q * G` query rows of that KV head (row `r = q * G + g`, MTP position
    major; query head `h * G + g`) over the slot's 256-token tiles and writes
    the partial results of the spec's split-K section:
    `max_logits[h][slot][r]` (natural-log units, `-inf` if nothing visible),
    `exp_sums[h][slot][r]` and `tmp_out[h][slot][r][:]` (normalized, 0 if
    nothing visible). Sinks are not applied here (see `pa.reduce`).

    Token `t` is visible to MTP position `q` of a sequence with context
    length `C` when `t <= C - Q + q` and, with a sliding window `W > 0`,
    `t >= C - Q + q - W + 1`. Scores are
    `softmax_scale * dot(query_row, K_t)` with `softmax_scale` defaulting to
    `D^-0.5`. With `logits_soft_cap = cap > 0` (Gemma 2, Grok) a score `s`
    becomes `cap * tanh(s / cap)`, which bounds it to `(-cap, cap)`; `cap = 0`
    (the default) leaves scores as they are. With `alibi_slopes` (f32 `[Hq]`,
    ALiBi) the score of token `t` for query head `h` at MTP position `q`
    gains the linear position bias `alibi_slopes[h] * (t - (C - Q + q))`
    after the soft-cap (0 for the newest visible token, negative for older
    ones). Keys and values are dequantized by `scale`.

    Shapes (static: `Hq`, `Hkv`, `D`, `P`, `x`, `R`; dynamic: `B`, `N`,
    `max_pages`, `capacity`). The KV cache layout is the `kv_layout`
    attribute's `layout` (see `#pa.kv_layout`):

    | operand | shape | type |
    |---|---|---|
    | query | `[B*Q, Hq, D]` | bf16, f16 |
    | key_cache, packed | `[N, Hkv, D/x, P, x]` | f8E4M3FN, f8E4M3FNUZ, bf16 |
    | value_cache, packed | plain `[N, Hkv, D, P]`, transposed `[N, Hkv, P/x, D, x]` | as key_cache |
    | key_cache, value_cache, nhd | `[N, P, Hkv, D]` | as above |
    | key_cache, value_cache, hnd | `[N, Hkv, P, D]` | as above |
    | block_tables | `[B, max_pages]` | i32 |
    | context_lengths | `[B]` | i32 |
    | k_scale, v_scale | per_tensor `[1]`, per_token `[N, Hkv, P]` | f32 |
    | alibi_slopes | `[Hq]` | f32 |
    | work_info | `[capacity, 4]` | i32 |
    | exp_sums, max_logits | `[Hkv, capacity, R]` | f32 |
    | tmp_out | `[Hkv, capacity, R, D]` | f32 |

    Supported: `Hq % Hkv == 0`; head dim `D` any multiple of 16 from 64 to
    512, for fp8 and bf16 compute alike (the backends pad the products'
    contraction internally where an instruction needs it); page size 16, 64
    or 128 for the packed layout and any power of two from 1 to 1024 for
    `nhd` and `hnd`; `sliding_window >= -1` (0 and -1 mean no window);
    `logits_soft_cap` 0 or a finite positive number. K and V have the same
    element type. The query, and the K and V caches of the `nhd` and `hnd`
    layouts, may be strided views with a unit innermost stride (a slice of a
    fused qkv tensor; K and V of one combined cache `[2, N, P, Hkv, D]` or
    `[N, 2, P, Hkv, D]`); every other memref is row-major. Chip rules
    (gfx942 takes only `f8E4M3FNUZ`, gfx950 and sm_90a only `f8E4M3FN`) are
    diagnosed by the lowering passes. The log-sum-exp of each row, for
    merging with another attention result, is an optional output of
    `pa.reduce` (`lse`).

    When `work_info` is written by a `pa.plan` visible in the IR (the same
    buffer or a view of it, or on tensors its `work_info` result), the
    plan's `num_kv_heads`, `query_length` and
    `sliding_window` must equal the decode's: a plan made for other
    parameters covers other tiles. Every operand is in the default memory
    space (the caller's global memory), and attributes other than the ones
    below need a dialect prefix (for all pa ops).

    On ranked tensors (before bufferization) every operand is a tensor and
    `exp_sums`, `max_logits` and `tmp_out` are the initial values of the
    op's three results (destination-passing style, as for `pa.plan` and
    `pa.reduce`).

    Example, packed layout (gfx950, D = 256, fp8 KV with per-token scales,
    transposed V, GQA 8, two query tokens per sequence, sliding window):

    ```mlir
    pa.decode query(%q : memref<?x16x256xbf16>)
              key_cache(%k : memref<?x2x16x16x16xf8E4M3FN>)
              value_cache(%v : memref<?x2x1x256x16xf8E4M3FN>)
              block_tables(%bt : memref<?x?xi32>)
              context_lengths(%lens : memref<?xi32>)
              k_scale(%ks : memref<?x2x16xf32>)
              v_scale(%vs : memref<?x2x16xf32>)
              work_info(%work : memref<?x4xi32>)
              exp_sums(%es : memref<2x?x16xf32>)
              max_logits(%ml : memref<2x?x16xf32>)
              tmp_out(%out : memref<2x?x16x256xf32>)
              {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 16,
                                         v_layout = transposed>,
               scale = #pa.scale<per_token>, sliding_window = 257 : i64}
    ```

    Example, `nhd` layout (vLLM v1, SGLang: D = 128, bf16, page size 1, K
    and V strided views of one combined `[N, 2, P, Hkv, D]` cache, GQA 4,
    ALiBi and a soft-cap):

    ```mlir
    pa.decode query(%q : memref<?x8x128xbf16>)
              key_cache(%k : memref<?x1x2x128xbf16,
                                    strided<[?, 256, 128, 1], offset: ?>>)
              value_cache(%v : memref<?x1x2x128xbf16,
                                      strided<[?, 256, 128, 1], offset: ?>>)
              block_tables(%bt : memref<?x?xi32>)
              context_lengths(%lens : memref<?xi32>)
              alibi_slopes(%slopes : memref<8xf32>)
              work_info(%work : memref<?x4xi32>)
              exp_sums(%es : memref<2x?x4xf32>)
              max_logits(%ml : memref<2x?x4xf32>)
              tmp_out(%out : memref<2x?x4x128xf32>)
              {kv_layout = #pa.kv_layout<page_size = 1, layout = nhd>,
               logits_soft_cap = 30.0 : f64}
    ```

    Example, `hnd` layout (FlashInfer HND: D = 96, fp8 KV with per-tensor
    scales, page size 1024):

    ```mlir
    pa.decode query(%q : memref<?x8x96xbf16>)
              key_cache(%k : memref<?x2x1024x96xf8E4M3FN>)
              value_cache(%v : memref<?x2x1024x96xf8E4M3FN>)
              block_tables(%bt : memref<?x?xi32>)
              context_lengths(%lens : memref<?xi32>)
              k_scale(%ks : memref<1xf32>)
              v_scale(%vs : memref<1xf32>)
              work_info(%work : memref<?x4xi32>)
              exp_sums(%es : memref<2x?x4xf32>)
              max_logits(%ml : memref<2x?x4xf32>)
              tmp_out(%out : memref<2x?x4x96xf32>)
              {kv_layout = #pa.kv_layout<page_size = 1024, layout = hnd>,
               scale = #pa.scale<per_tensor>}
    ```
  }];

  let arguments = (ins
    Pa_ShapedIn<"query `[B*Q, Hq, D]`", Pa_Query>:$query,
    Pa_ShapedIn<"key cache, by kv_layout", Pa_KVCache>:$key_cache,
    Pa_ShapedIn<"value cache, by kv_layout", Pa_KVCache>:$value_cache,
    Pa_ShapedIn<"page ids `[B, max_pages]` (i32)", Pa_BlockTables>:$block_tables,
    Pa_ShapedIn<"context lengths `[B]` (i32)", Pa_ContextLengths>:$context_lengths,
    Pa_ShapedIn<"key scales", Optional<Pa_KVScales>>:$k_scale,
    Pa_ShapedIn<"value scales", Optional<Pa_KVScales>>:$v_scale,
    Pa_ShapedIn<"ALiBi slopes `[Hq]` (f32)", Optional<Pa_AlibiSlopes>>:$alibi_slopes,
    Pa_ShapedIn<"work plan `[capacity, 4]` (i32)", Pa_WorkInfo>:$work_info,
    Pa_ShapedOut<"partial exp sums `[Hkv, capacity, R]`", Pa_RowStatistics>:$exp_sums,
    Pa_ShapedOut<"partial row maxima `[Hkv, capacity, R]`", Pa_RowStatistics>:$max_logits,
    Pa_ShapedOut<"partial outputs `[Hkv, capacity, R, D]`", Pa_PartialOutputs>:$tmp_out,
    Pa_KVLayoutAttr:$kv_layout,
    DefaultValuedAttr<Pa_ScaleModeAttr, "::mlir::pa::ScaleMode::none">:$scale,
    DefaultValuedAttr<Pa_I64Attr, "0">:$sliding_window,
    OptionalAttr<Pa_F64Attr>:$softmax_scale,
    OptionalAttr<Pa_ComputeTypeAttr>:$compute,
    DefaultValuedAttr<Pa_F64Attr, "0.0">:$logits_soft_cap
  );

  let assemblyFormat = [{
    `query` `(` $query `:` type($query) `)`
    `key_cache` `(` $key_cache `:` type($key_cache) `)`
    `value_cache` `(` $value_cache `:` type($value_cache) `)`
    `block_tables` `(` $block_tables `:` type($block_tables) `)`
    `context_lengths` `(` $context_lengths `:` type($context_lengths) `)`
    (`k_scale` `(` $k_scale^ `:` type($k_scale) `)`)?
    (`v_scale` `(` $v_scale^ `:` type($v_scale) `)`)?
    (`alibi_slopes` `(` $alibi_slopes^ `:` type($alibi_slopes) `)`)?
    `work_info` `(` $work_info `:` type($work_info) `)`
    `exp_sums` `(` $exp_sums `:` type($exp_sums) `)`
    `max_logits` `(` $max_logits `:` type($max_logits) `)`
    `tmp_out` `(` $tmp_out `:` type($tmp_out) `)`
    attr-dict (`->` type($results)^)?
  }];
  let results = (outs Variadic<AnyRankedTensor>:$results);

  let extraClassDeclaration = [{
    /// Query heads `Hq`, from the query shape.
    int64_t getNumQueryHeads();
    /// KV heads `Hkv`, from the key cache shape.
    int64_t getNumKVHeads();
    /// Head dim `D`, from the query shape.
    int64_t getHeadDim();
    /// GQA group size `G = Hq / Hkv`.
    int64_t getGroupSize();
    /// Query rows per KV head, `R = Q * G`, from the partial buffers.
    int64_t getRowsPerKVHead();
    /// Query tokens per sequence `Q = R / G`.
    int64_t getQueryLength();
    /// Element type of the KV cache.
    ::mlir::Type getKVElementType();
    /// `softmax_scale`, or `D^-0.5` when absent.
    double getEffectiveSoftmaxScale();
    /// `compute`, or fp8 for fp8 caches and bf16 for bf16 caches when absent.
    ::mlir::pa::ComputeType getEffectiveComputeType();
    /// True when a positive sliding window restricts the visible tokens.
    bool hasSlidingWindow() { return getSlidingWindow() > 0; }
    /// True when scores are soft-capped (`logits_soft_cap > 0`).
    bool hasSoftCap() { return getLogitsSoftCap() > 0.0; }
    /// True when scores get the ALiBi position bias.
    bool hasAlibi() { return static_cast<bool>(getAlibiSlopes()); }
    /// The destinations: exp_sums, max_logits and tmp_out (consecutive).
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      unsigned first = getExpSumsMutable().getOperandNumber();
      unsigned last = getTmpOutMutable().getOperandNumber();
      return ::mlir::MutableOperandRange(getOperation(), first,
                                         last + 1 - first);
    }
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// pa.reduce
//===----------------------------------------------------------------------===//

def Pa_ReduceOp : Pa_Op<"reduce", [AttrSizedOperandSegments,
                                   DestinationStyleOpInterface]> {
  let summary = "merge split-K partitions (and attention sinks) into the output";
  let description = [{
    For each sequence `b` with `reduce_info[b] = (first, count)`, combines the
    partial results of slots `first .. first+count-1` for every KV head and
    row: `M = max(max_p max_logits_p, z)`,
    `w_p = exp_sums_p * exp(max_logits_p - M)` (0 when the partition saw
    nothing), `den = sum_p w_p + exp(z - M)`,
    `out = sum_p (w_p / den) * tmp_out_p`, and 0 when `den = 0`. `z` is the
    sink logit of the query head (not scaled by the softmax scale); without
    sinks the `exp(z - M)` term is dropped. Row `r = q * G + g` of KV head
    `h` goes to `output[b * Q + q][h * G + g]`; `Q` and `G` follow from the
    shapes (`G = Hq / Hkv`, `Q = R / G`). On ranked tensors `output` (and
    `lse` when present) are the initial values of the op's results
    (destination-passing style).

    With the optional `lse` operand (f32 `[B*Q, Hq]`) the op also writes the
    row's log-sum-exp `lse = M + log(den)` (natural log, the sink term
    included), `-inf` when `den = 0`: what a caller needs to merge this
    attention result with another one over other keys (cascade or shared
    prefixes, context parallelism).

    Example:

    ```mlir
    pa.reduce exp_sums(%es : memref<2x?x16xf32>)
              max_logits(%ml : memref<2x?x16xf32>)
              tmp_out(%part : memref<2x?x16x256xf32>)
              reduce_info(%red : memref<?x2xi32>)
              sinks(%sinks : memref<16xf32>)
              output(%out : memref<?x16x256xbf16>)
    ```
  }];

  let arguments = (ins
    Pa_ShapedIn<"partial exp sums `[Hkv, capacity, R]` (f32)", Pa_RowStatistics>:$exp_sums,
    Pa_ShapedIn<"partial row maxima `[Hkv, capacity, R]` (f32)", Pa_RowStatistics>:$max_logits,
    Pa_ShapedIn<"partial outputs `[Hkv, capacity, R, D]` (f32)", Pa_PartialOutputs>:$tmp_out,
    Pa_ShapedIn<"reducer index `[B, 2]` (i32)", Pa_ReduceInfo>:$reduce_info,
    Pa_ShapedIn<"sink logits `[Hq]` (f32, bf16 or f16)", Optional<Pa_Sinks>>:$sinks,
    Pa_ShapedOut<"output `[B*Q, Hq, D]` (bf16 or f16)", Pa_Output>:$output,
    Pa_ShapedOut<"log-sum-exp `[B*Q, Hq]` (f32)", Optional<Pa_LogSumExp>>:$lse
  );

  let assemblyFormat = [{
    `exp_sums` `(` $exp_sums `:` type($exp_sums) `)`
    `max_logits` `(` $max_logits `:` type($max_logits) `)`
    `tmp_out` `(` $tmp_out `:` type($tmp_out) `)`
    `reduce_info` `(` $reduce_info `:` type($reduce_info) `)`
    (`sinks` `(` $sinks^ `:` type($sinks) `)`)?
    `output` `(` $output `:` type($output) `)`
    (`lse` `(` $lse^ `:` type($lse) `)`)?
    attr-dict (`->` type($results)^)?
  }];
  let results = (outs Variadic<AnyRankedTensor>:$results);

  let extraClassDeclaration = [{
    int64_t getNumQueryHeads();
    int64_t getNumKVHeads();
    int64_t getHeadDim();
    int64_t getGroupSize();
    int64_t getRowsPerKVHead();
    int64_t getQueryLength();
    /// The destinations: output and, when present, lse (consecutive).
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return ::mlir::MutableOperandRange(
          getOperation(), getOutputMutable().getOperandNumber(),
          getLse() ? 2 : 1);
    }
  }];
  let hasVerifier = 1;
}

include "pa/IR/PaTileOps.td"

#endif // PA_IR_PAOPS_TD
