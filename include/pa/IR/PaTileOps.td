//===- PaTileOps.td - the tiled IR: workgroup tile operations -*- tablegen -*-===//
//
// pa-tile lowers pa.decode to a workgroup program built from these ops. Each
// describes the math of one step on a 256-token KV tile for a row group of
// M = 16 or 32 query rows (one or two 16-row M-tiles) of one KV head, on
// tile buffers in workgroup memory. Backends decide how the tiles map to
// lanes and registers (pa-to-mfma, pa-to-nvvm); pa-lower-tile-to-loops is the
// sequential reference lowering that the host executor runs.
//
//===----------------------------------------------------------------------===//

#ifndef PA_IR_PATILEOPS_TD
#define PA_IR_PATILEOPS_TD

include "pa/IR/PaBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Pa_TileOp<string mnemonic, list<Trait> traits = []>
    : Op<Pa_Dialect, "tile." # mnemonic,
         !listconcat([Pa_KnownAttributesOnly], traits)>;

// A tile buffer: a static f32 memref of `rank` (in workgroup memory after
// pa-tile; any space in hand-written tiled IR). How its sizes relate to the
// op's other tiles (M rows, 256 tokens, D) the op verifiers check.
class Pa_Tile<int rank, string shape>
    : Type<And<[MemRefRankOf<[F32], [rank]>.predicate, HasStaticShapePred]>,
           "static " # rank # "-D f32 tile " # shape, "::mlir::MemRefType">;
def Pa_RowTile : Pa_Tile<1, "[M]">;
def Pa_MatrixTile : Pa_Tile<2, "[M, D] or [M, 256]">;

def Pa_TilePageIdsOp : Pa_TileOp<"page_ids"> {
  let summary = "page ids of one 256-token KV tile";
  let description = [{
    Returns the ids of the `256 / page_size` pages of KV tile `tile` of
    sequence `sequence` (one page when `page_size > 256`: the tile lies in
    page `tile * 256 / P`): element `k` is `block_tables[sequence][tile *
    256 / P + k]` when page `k` holds a token of the visible range
    `[visible_begin, visible_end)` (absolute token indices, i64), and 0
    otherwise; block-table entries of pages with no visible token are never
    read. `pa-stage-page-ids` serves these reads from workgroup memory; an
    op with `direct` set always reads the block table (the staging pass
    uses it to fill workgroup memory and as its fallback).

    ```mlir
    %ids = pa.tile.page_ids %block_tables[%seq] tile %tile
             visible [%lo, %hi] {page_size = 16 : i64}
             : memref<?x?xi32> -> vector<16xi32>
    ```
  }];
  let arguments = (ins Arg<Pa_MemRefOf<Pa_BlockTables>, "block table", [MemRead]>:$block_tables,
                       Index:$sequence, Index:$tile, I64:$visible_begin,
                       I64:$visible_end, Pa_I64Attr:$page_size,
                       UnitAttr:$direct);
  let results = (outs VectorOfRankAndType<[1], [I32]>:$page_ids);
  let assemblyFormat = [{
    $block_tables `[` $sequence `]` `tile` $tile
    `visible` `[` $visible_begin `,` $visible_end `]` attr-dict
    `:` type($block_tables) `->` type($page_ids)
  }];
  let hasVerifier = 1;
}

def Pa_TileLoadQueryOp : Pa_TileOp<"load_query"> {
  let summary = "gather a row group of query rows into a tile";
  let description = [{
    `query_tile[m][d] = query[sequence * Q + r / G][kv_head * G + r % G][d]`
    for rows `r = row_base + m < Q * G` (as f32), and 0 for padding rows.
    Rows are ordered MTP position major (`r = q * G + g`). A row holding a
    NaN or infinity is NaN as a whole (every element plus `0 * q`, summed
    over the row), so that all its scores are NaN: an infinite element
    would otherwise give `-inf` scores, which weigh 0 (spec, non-finite
    inputs).

    ```mlir
    pa.tile.load_query %query[%seq, %kv_head, %row_base] into %q_tile
        {query_length = 2 : i64, group_size = 8 : i64}
        : memref<?x16x256xbf16>, memref<16x256xf32, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins Arg<Pa_MemRefOf<Pa_TileQuery>, "query [B*Q, Hq, D]", [MemRead]>:$query,
                       Index:$sequence, Index:$kv_head, Index:$row_base,
                       Arg<Pa_MatrixTile, "query tile [M, D]", [MemWrite]>:$query_tile,
                       Pa_I64Attr:$query_length, Pa_I64Attr:$group_size);
  let assemblyFormat = [{
    $query `[` $sequence `,` $kv_head `,` $row_base `]` `into` $query_tile
    attr-dict `:` type($query) `,` type($query_tile)
  }];
  let hasVerifier = 1;
}

def Pa_TileInitSoftmaxOp : Pa_TileOp<"init_softmax"> {
  let summary = "reset the online-softmax state of a row group";
  let description = [{
    `row_max = -inf`, `row_sum = 0`, `acc = 0`.

    ```mlir
    pa.tile.init_softmax %row_max, %row_sum, %acc
        : memref<16xf32, 3>, memref<16xf32, 3>, memref<16x256xf32, 3>
    ```
  }];
  let arguments = (ins Arg<Pa_RowTile, "row maxima [M]", [MemWrite]>:$row_max,
                       Arg<Pa_RowTile, "row sums [M]", [MemWrite]>:$row_sum,
                       Arg<Pa_MatrixTile, "accumulator [M, D]", [MemWrite]>:$acc);
  let assemblyFormat = [{
    $row_max `,` $row_sum `,` $acc attr-dict `:` type($row_max) `,`
    type($row_sum) `,` type($acc)
  }];
  let hasVerifier = 1;
}

def Pa_TileQKOp : Pa_TileOp<"qk"> {
  let summary = "scores of a row group against one KV tile";
  let description = [{
    For the 256 tokens `t` of the tile starting at absolute token
    `tile_start` whose index lies in `[valid_begin, valid_end)`:
    `scores[m][t] = score_scale * k_scale(t) * sum_d query_tile[m][d] * K_t[d]`
    with `K_t[d]` element `d` of the key of token `t`: for `cache_layout`
    `packed` (the default) `key_cache[page][kv_head][d / x][s][d % x]`, for
    `nhd` `key_cache[page][s][kv_head][d]`, for `hnd`
    `key_cache[page][kv_head][s][d]`, where `s = t % P` and `page =
    page_ids[t / P]` (for `P > 256` a tile lies inside one page: `page =
    page_ids[0]`, `s = (tile_start + t) % P`); and `k_scale(t)` 1, `k_scale[0]` or `k_scale[page][kv_head][t % P]` by
    `scale`. Columns outside the valid range are unspecified (their keys are
    never read); the softmax masks them. `score_scale` folds the softmax
    scale and `log2(e)` (scores are in the exp2 domain). With `soft_cap = c`
    (the decode's `logits_soft_cap` times `log2(e)`, so in the same domain)
    each score `s` of a valid column becomes `c * tanh(s / c)`; backends
    evaluate it as `c - 2c / (exp2(s * 2 log2(e) / c) + 1)`, which saturates
    to `+-c` for large `|s|` and keeps NaN. `compute` is the element type of
    the product on the GPU (fp8: the query tile is quantized per row).

    ```mlir
    pa.tile.qk %q_tile, %key_cache[%ids, %kv_head] tile_start %t0
        valid [%lo, %hi] into %scores
        {page_size = 16 : i64, score_scale = 0.0901 : f32,
         scale = #pa.scale<none>, compute = #pa.compute<fp8>}
        : memref<16x256xf32, 3>, memref<?x2x16x16x16xf8E4M3FN>,
          vector<16xi32>, memref<16x256xf32, 3>
    ```
  }];
  let arguments = (ins Arg<Pa_MatrixTile, "query tile [M, D]", [MemRead]>:$query_tile,
                       Arg<Pa_MemRefOf<Pa_KVCache>, "key cache", [MemRead]>:$key_cache,
                       VectorOfRankAndType<[1], [I32]>:$page_ids,
                       Index:$kv_head, I64:$tile_start, I64:$valid_begin,
                       I64:$valid_end,
                       Arg<Optional<Pa_MemRefOf<Pa_KVScales>>, "key scales", [MemRead]>:$k_scale,
                       Arg<Pa_MatrixTile, "scores [M, 256]", [MemWrite]>:$scores,
                       Pa_I64Attr:$page_size, F32Attr:$score_scale,
                       Pa_ScaleModeAttr:$scale, Pa_ComputeTypeAttr:$compute,
                       OptionalAttr<F32Attr>:$soft_cap,
                       DefaultValuedAttr<Pa_CacheLayoutAttr,
                           "::mlir::pa::CacheLayout::packed">:$cache_layout);
  let assemblyFormat = [{
    $query_tile `,` $key_cache `[` $page_ids `,` $kv_head `]`
    `tile_start` $tile_start `valid` `[` $valid_begin `,` $valid_end `]`
    (`k_scale` `(` $k_scale^ `:` type($k_scale) `)`)? `into` $scores attr-dict
    `:` type($query_tile) `,` type($key_cache) `,` type($page_ids) `,`
    type($scores)
  }];
  let hasVerifier = 1;
}

def Pa_TileAlibiOp : Pa_TileOp<"alibi"> {
  let summary = "add the ALiBi position bias to one tile of scores";
  let description = [{
    For each row `m` (row `r = row_base + m`, MTP position `q = r / G`,
    query head `h = kv_head * G + r % G`) and tile column `t` (absolute
    token `tile_start + t`):
    `scores[m][t] += log2(e) * alibi_slopes[h] * (token - (C - Q + q))`
    with `C` = `context_length` (i64): the decode's ALiBi bias in the exp2
    domain of the scores. It comes after `pa.tile.qk` (so after the
    soft-cap) and before `pa.tile.softmax`, which masks the columns no row
    sees; the bias of such columns and of padding rows `r >= Q * G` is
    unspecified. The distance is exact in f32 for tokens below 2^24.

    ```mlir
    pa.tile.alibi %scores, %slopes[%kv_head] context %ctx tile_start %t0
        row_base %r0 {query_length = 2 : i64, group_size = 8 : i64}
        : memref<16x256xf32, 3>, memref<16xf32>
    ```
  }];
  let arguments = (ins Arg<Pa_MatrixTile, "scores [M, 256]", [MemRead, MemWrite]>:$scores,
                       Arg<MemRefRankOf<[F32], [1]>, "ALiBi slopes [Hq] (f32)", [MemRead]>:$alibi_slopes,
                       Index:$kv_head, I64:$context_length, I64:$tile_start,
                       Index:$row_base, Pa_I64Attr:$query_length,
                       Pa_I64Attr:$group_size);
  let assemblyFormat = [{
    $scores `,` $alibi_slopes `[` $kv_head `]` `context` $context_length
    `tile_start` $tile_start `row_base` $row_base attr-dict `:`
    type($scores) `,` type($alibi_slopes)
  }];
  let hasVerifier = 1;
}

def Pa_TileSoftmaxOp : Pa_TileOp<"softmax"> {
  let summary = "mask one tile of scores and update the online softmax";
  let description = [{
    For each row `m` (row `r = row_base + m`, MTP position `q = r / G`) and
    tile column `t` (absolute token `tile_start + t`), the token is visible
    when `r < Q * G`, `token < C - Q + 1 + q` and, for a window `W > 0`,
    `token >= C - Q + 1 + q - W` (`C` = `context_length`, i64). Masked
    scores become `-inf` (by selection, so garbage never propagates). Then,
    in the exp2 domain: `m' = max(row_max, max_t s)`,
    `alpha = exp2(row_max - m')`, `p_t = exp2(s_t - m')` (both 0-safe: a row
    whose `m'` is `-inf` keeps `alpha = 1`, `p = 0`), `row_sum = row_sum *
    alpha + sum_t p_t`, `acc *= alpha`, `row_max = m'`, and `scores` is
    overwritten with `p`.

    ```mlir
    pa.tile.softmax %scores, %row_max, %row_sum, %acc context %ctx
        tile_start %t0 row_base %r0
        {query_length = 2 : i64, group_size = 8 : i64, sliding_window = 0 : i64}
        : memref<16x256xf32, 3>, memref<16xf32, 3>, memref<16xf32, 3>,
          memref<16x256xf32, 3>
    ```
  }];
  let arguments = (ins Arg<Pa_MatrixTile, "scores -> P [M, 256]", [MemRead, MemWrite]>:$scores,
                       Arg<Pa_RowTile, "row maxima [M]", [MemRead, MemWrite]>:$row_max,
                       Arg<Pa_RowTile, "row sums [M]", [MemRead, MemWrite]>:$row_sum,
                       Arg<Pa_MatrixTile, "accumulator [M, D]", [MemRead, MemWrite]>:$acc,
                       I64:$context_length, I64:$tile_start, Index:$row_base,
                       Pa_I64Attr:$query_length, Pa_I64Attr:$group_size,
                       Pa_I64Attr:$sliding_window);
  let assemblyFormat = [{
    $scores `,` $row_max `,` $row_sum `,` $acc `context` $context_length
    `tile_start` $tile_start `row_base` $row_base attr-dict `:`
    type($scores) `,` type($row_max) `,` type($row_sum) `,` type($acc)
  }];
  let hasVerifier = 1;
}

def Pa_TilePVOp : Pa_TileOp<"pv"> {
  let summary = "accumulate probabilities times one tile of values";
  let description = [{
    `acc[m][d] += sum_t p[m][t] * v_scale(t) * V_t[d]` over the tokens of the
    tile whose absolute index lies in `[valid_begin, valid_end)`; values of
    other tokens are never read (so garbage in unwritten cache slots cannot
    reach the sum, not even as `0 * NaN`). `V_t[d]` is
    `value_cache[page][kv_head][d][s]` (plain) or
    `value_cache[page][kv_head][s / x][d][s % x]` (transposed) for
    `cache_layout` `packed`, and as for keys for `nhd` / `hnd` (`v_layout`
    is then ignored), with `page` and `s` as for keys; `v_scale(t)` as for
    keys. `compute` fp8 means
    P is quantized for the product on the GPU.

    ```mlir
    pa.tile.pv %scores, %value_cache[%ids, %kv_head] tile_start %t0
        valid [%lo, %hi] into %acc
        {page_size = 16 : i64, v_layout = #pa.v_layout<transposed>, ...}
    ```
  }];
  let arguments = (ins Arg<Pa_MatrixTile, "P [M, 256]", [MemRead]>:$probs,
                       Arg<Pa_MemRefOf<Pa_KVCache>, "value cache", [MemRead]>:$value_cache,
                       VectorOfRankAndType<[1], [I32]>:$page_ids,
                       Index:$kv_head, I64:$tile_start, I64:$valid_begin,
                       I64:$valid_end,
                       Arg<Optional<Pa_MemRefOf<Pa_KVScales>>, "value scales", [MemRead]>:$v_scale,
                       Arg<Pa_MatrixTile, "accumulator [M, D]", [MemRead, MemWrite]>:$acc,
                       Pa_I64Attr:$page_size, Pa_VLayoutAttr:$v_layout,
                       Pa_ScaleModeAttr:$scale, Pa_ComputeTypeAttr:$compute,
                       DefaultValuedAttr<Pa_CacheLayoutAttr,
                           "::mlir::pa::CacheLayout::packed">:$cache_layout);
  let assemblyFormat = [{
    $probs `,` $value_cache `[` $page_ids `,` $kv_head `]`
    `tile_start` $tile_start `valid` `[` $valid_begin `,` $valid_end `]`
    (`v_scale` `(` $v_scale^ `:` type($v_scale) `)`)? `into` $acc attr-dict
    `:` type($probs) `,` type($value_cache) `,` type($page_ids) `,` type($acc)
  }];
  let hasVerifier = 1;
}

def Pa_TileStorePartialsOp : Pa_TileOp<"store_partials"> {
  let summary = "write a row group's partial results";
  let description = [{
    For rows `r = row_base + m < rows`:
    `max_logits[kv_head][slot][r] = row_max[m] * ln(2)` (back to natural-log
    units), `exp_sums[...][r] = row_sum[m]`,
    `tmp_out[...][r][d] = acc[m][d] / row_sum[m]`; a row that saw nothing
    (`row_sum = 0`) writes `-inf`, 0 and 0. A row whose `row_sum` is NaN (a
    non-finite input reached it) writes `max_logits = NaN` whatever its
    `row_max` (a maximum may have dropped the NaN), so that the reducer
    keeps the partition and the row comes out NaN.

    ```mlir
    pa.tile.store_partials %row_max, %row_sum, %acc into %exp_sums,
        %max_logits, %tmp_out [%kv_head, %slot, %row_base] {rows = 16 : i64}
        : ...
    ```
  }];
  let arguments = (ins Arg<Pa_RowTile, "row maxima [M]", [MemRead]>:$row_max,
                       Arg<Pa_RowTile, "row sums [M]", [MemRead]>:$row_sum,
                       Arg<Pa_MatrixTile, "accumulator [M, D]", [MemRead]>:$acc,
                       Arg<Pa_MemRefOf<Pa_RowStatistics>, "exp sums", [MemWrite]>:$exp_sums,
                       Arg<Pa_MemRefOf<Pa_RowStatistics>, "max logits", [MemWrite]>:$max_logits,
                       Arg<Pa_MemRefOf<Pa_PartialOutputs>, "partial outputs", [MemWrite]>:$tmp_out,
                       Index:$kv_head, Index:$slot, Index:$row_base,
                       Pa_I64Attr:$rows);
  let assemblyFormat = [{
    $row_max `,` $row_sum `,` $acc `into` $exp_sums `,` $max_logits `,`
    $tmp_out `[` $kv_head `,` $slot `,` $row_base `]` attr-dict `:`
    type($row_max) `,` type($row_sum) `,` type($acc) `,` type($exp_sums) `,`
    type($max_logits) `,` type($tmp_out)
  }];
  let hasVerifier = 1;
}

#endif // PA_IR_PATILEOPS_TD
