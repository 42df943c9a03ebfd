"""pa-mlir's decode as a torch custom op, and the call signatures of
vLLM's ROCm paged_attention and aiter's pa_fwd_asm mapped onto it.

Importing this module imports torch (the rest of pa_mlir never does) and
registers torch.ops.pa_mlir.paged_decode (torch.library.Library): its
fake implementation and the mutation of `out` and `workspace` (in the
schema) are declared, so torch.compile(fullgraph=True) traces through a
model's decode step and CUDA (HIP) graphs capture it. The op finds its plan in a cache
keyed by the configuration and the addresses of the block tables, context
lengths and workspace (_plans.PlanCache), made on the first call outside a
capture.

    import pa_mlir.torch_ops
    torch.ops.pa_mlir.paged_decode(out, query, key_cache, value_cache,
                                   block_tables, context_lengths, workspace,
                                   k_scale, v_scale, None, "e4m3fn", 1, 0,
                                   None, "plain", "", 0, 0)
    # ALiBi slopes float32 [Hq], the log-sum-exp into lse [B*Q, Hq]:
    torch.ops.pa_mlir.paged_decode(..., alibi_slopes=slopes, lse=lse)
    # vLLM v1 / FlashInfer caches: K and V [N, P, Hkv, D] ("nhd") or
    # [N, Hkv, P, D] ("hnd"), e.g. the halves of a combined [N, 2, ...]
    # cache, read in place:
    torch.ops.pa_mlir.paged_decode(..., kv_layout="nhd")

vllm_paged_attention() and aiter_pa_fwd() take those libraries' arguments
(docs/user-guide.md has the table); the caches' layouts are pa-mlir's own
(vLLM's packed K [N, Hkv, D/x, P, x] and V [N, Hkv, D, P]; aiter's V
[N, Hkv, P/x, D, x], pa-mlir's "transposed"; with kv_layout="nhd" /
"hnd", vLLM v1's [N, P, Hkv, D] / FlashInfer's [N, Hkv, P, D], any page
stride), so nothing is copied. What
pa-mlir does not do (fp8 output scales, ragged query lengths) is refused
with a ValueError naming the argument.
"""

import torch

from . import _plans, _tensors
from .config import DecodeConfig


# The op's static key (shapes, dtypes, arguments) -> its DecodeConfig: a
# call validates no configuration it has seen.
_configs = {}


def _config(query, key_cache, value_cache, k_scale, sinks, kv_dtype,
            query_length, sliding_window, softmax_scale, v_layout, chip,
            budget, max_partitions, target, alibi, lse, kv_layout):
    """The DecodeConfig of the op's tensors and arguments (cached by what
    decides it)."""
    key = (query.shape[1:], query.dtype, key_cache.shape[1:],
           key_cache.dtype, None if k_scale is None else
           (k_scale.numel(), k_scale.dim()), sinks is None, kv_dtype,
           query_length, sliding_window, softmax_scale, v_layout, chip,
           budget, max_partitions, target, torch.cuda.current_device(),
           alibi, lse, kv_layout)
    found = _configs.get(key)
    if found is None:
        found = _configs[key] = _make_config(
            query, key_cache, value_cache, k_scale, sinks, kv_dtype,
            query_length, sliding_window, softmax_scale, v_layout, chip,
            budget, max_partitions, target, alibi, lse, kv_layout)
    return found


def _cache_geometry(key_cache, kv_layout):
    """(Hkv, page size) of a key cache in `kv_layout`; ValueError for an
    unknown layout."""
    if kv_layout == "nhd":  # [N, P, Hkv, D]
        return key_cache.shape[2], key_cache.shape[1]
    if kv_layout == "hnd":  # [N, Hkv, P, D]
        return key_cache.shape[1], key_cache.shape[2]
    if kv_layout == "packed":  # [N, Hkv, D/x, P, x]
        return key_cache.shape[1], key_cache.shape[3]
    raise ValueError(f"kv_layout must be one of packed, nhd, hnd, got "
                     f"{kv_layout!r}")


def _make_config(query, key_cache, value_cache, k_scale, sinks, kv_dtype,
                 query_length, sliding_window, softmax_scale, v_layout, chip,
                 budget, max_partitions, target, alibi, lse, kv_layout):
    """The DecodeConfig of the op's tensors and arguments."""
    if kv_layout == "packed" and key_cache.dim() == 4:
        # An unpacked key: the verifier explains what a packed one is.
        num_kv_heads, page_size = key_cache.shape[1], key_cache.shape[2]
    else:
        if key_cache.dim() != (5 if kv_layout == "packed" else 4):
            raise ValueError(
                f"key_cache must be {'5' if kv_layout == 'packed' else '4'}"
                f"-D for kv_layout={kv_layout!r}, got shape "
                f"{tuple(key_cache.shape)}")
        num_kv_heads, page_size = _cache_geometry(key_cache, kv_layout)
    packed = key_cache.dim() == 5
    kv = _tensors.kv_dtype_of(key_cache, kv_dtype or None)
    if k_scale is None:
        scale = "none"
    else:
        scale = "per_tensor" if k_scale.numel() == 1 and k_scale.dim() <= 1 \
            else "per_token"
    return DecodeConfig(
        num_query_heads=query.shape[1], num_kv_heads=num_kv_heads,
        head_dim=query.shape[2], page_size=page_size,
        query_length=query_length, kv_dtype=kv,
        query_dtype="bf16" if query.dtype == torch.bfloat16 else "f16",
        key_layout="packed" if packed or kv_layout != "packed"
        else "unpacked",
        v_layout=v_layout if kv_layout == "packed" else "plain",
        kv_layout=kv_layout,
        scale=scale, sliding_window=sliding_window,
        softmax_scale=softmax_scale, sinks=sinks is not None,
        chip=chip or _plans.default_chip(torch, target,
                                         torch.cuda.current_device()),
        budget=budget or None, max_partitions=max_partitions or None,
        alibi=alibi, return_lse=lse)


def run_decode(out, query, key_cache, value_cache, block_tables,
               context_lengths, workspace=None, k_scale=None, v_scale=None,
               sinks=None, kv_dtype=None, query_length=1, sliding_window=0,
               softmax_scale=None, v_layout="plain", chip=None, budget=None,
               max_partitions=None, alibi_slopes=None, lse=None,
               kv_layout="packed"):
    """The op's body, callable without the dispatcher: decode into `out`
    (and the log-sum-exp into `lse`, float32 [B*Q, Hq], when given)
    through the cached plan of these tensors; returns `out`. Per-tensor
    scales are float32 tensors [1]; alibi_slopes float32 [Hq] or None.
    kv_layout: "packed" (K [N, Hkv, D/x, P, x], V by v_layout), "nhd"
    (K and V [N, P, Hkv, D]) or "hnd" ([N, Hkv, P, D]); nhd / hnd caches
    may have any page stride (the halves of a combined [N, 2, ...]
    cache), read in place."""
    target = _tensors.tensor_target(torch)
    config = _config(query, key_cache, value_cache, k_scale, sinks, kv_dtype,
                     query_length, sliding_window, softmax_scale, v_layout,
                     chip, budget, max_partitions, target,
                     alibi_slopes is not None, lse is not None, kv_layout)
    plan = _plans.plans.get(torch, target, config, block_tables,
                            context_lengths, workspace)
    if k_scale is not None and k_scale.dim() == 0:
        k_scale, v_scale = k_scale.reshape(1), v_scale.reshape(1)
    plan.run(query, key_cache, value_cache, k_scale, v_scale, sinks, out,
             replan=True, alibi_slopes=alibi_slopes, lse=lse)
    return out


# The op is defined through torch.library.Library rather than
# torch.library.custom_op: custom_op adds Python kernels at the Autograd and
# ADInplaceOrView keys (each a boxed call of the 18 arguments, the second
# walking the schema to bump the mutated tensors' versions), which cost more
# per eager call than the decode's own host work. Here the one Python kernel
# is the op's body; the dispatcher's own fallbacks serve the other keys, and
# the schema's (a!) / (b!) annotations declare the mutations for
# torch.compile's functionalization.
_SCHEMA = (
    "paged_decode(Tensor(a!) out, Tensor query, Tensor key_cache, "
    "Tensor value_cache, Tensor block_tables, Tensor context_lengths, "
    "Tensor(b!) workspace, Tensor? k_scale, Tensor? v_scale, Tensor? sinks, "
    "str kv_dtype, int query_length, int sliding_window, "
    "float? softmax_scale, str v_layout, str chip, int budget, "
    "int max_partitions, Tensor? alibi_slopes=None, "
    "Tensor(c!)? lse=None, str kv_layout=\"packed\") -> ()")
_library = torch.library.Library("pa_mlir", "DEF")
_library.define(_SCHEMA)


def _paged_decode(out, query, key_cache, value_cache, block_tables,
                  context_lengths, workspace, k_scale, v_scale, sinks,
                  kv_dtype, query_length, sliding_window, softmax_scale,
                  v_layout, chip, budget, max_partitions, alibi_slopes=None,
                  lse=None, kv_layout="packed"):
    """Paged-attention decode into `out` ([B*Q, Hq, D], the query's
    dtype); `workspace` a uint8 tensor of at least workspace_bytes().
    kv_dtype "" infers it from float8/bfloat16 caches; chip "" the
    default; budget and max_partitions 0 the chip's defaults;
    alibi_slopes float32 [Hq] (ALiBi) or None; lse a float32 [B*Q, Hq]
    the log-sum-exp of every row is written into, or None; kv_layout
    "packed", "nhd" or "hnd" (run_decode)."""
    run_decode(out, query, key_cache, value_cache, block_tables,
               context_lengths, workspace, k_scale, v_scale, sinks,
               kv_dtype or None, query_length, sliding_window, softmax_scale,
               v_layout, chip or None, budget or None, max_partitions or None,
               alibi_slopes, lse, kv_layout)


_library.impl("paged_decode", _paged_decode, "CompositeExplicitAutograd")


@torch.library.register_fake("pa_mlir::paged_decode", lib=_library)
def _paged_decode_fake(out, query, key_cache, value_cache, block_tables,
                       context_lengths, workspace, k_scale, v_scale, sinks,
                       kv_dtype, query_length, sliding_window, softmax_scale,
                       v_layout, chip, budget, max_partitions,
                       alibi_slopes=None, lse=None, kv_layout="packed"):
    # Nothing returned: out, workspace and lse are mutated (the schema's
    # (a!), (b!), (c!)).
    return None


paged_decode = torch.ops.pa_mlir.paged_decode


def _refuse(name, value, why):
    if value is not None:
        raise ValueError(f"{name} is not supported by pa-mlir: {why}")


def _per_tensor(scale, name):
    """A float32 tensor [1] of a per-tensor scale (a tensor of one
    element, as both libraries pass), or None."""
    if scale is None:
        return None
    if not _tensors.is_tensor(scale) or scale.numel() != 1:
        raise ValueError(f"{name} must be a float32 tensor of one element "
                         f"(per-tensor)")
    return scale.reshape(1)


def _raw_fp8(cache, chip):
    """The fp8 flavour of a cache of raw bytes (uint8/int8): the chip's
    (gfx942: e4m3fnuz, others e4m3fn); None for float8 and bf16 caches,
    whose dtype says it."""
    if cache.dtype not in (torch.uint8, torch.int8):
        return None
    target = _tensors.tensor_target(torch)
    chip = chip or _plans.default_chip(torch, target,
                                       torch.cuda.current_device())
    return "e4m3fnuz" if chip == "gfx942" else "e4m3fn"


# vLLM's kv_cache_dtype strings and what they mean for the cache tensors.
_VLLM_KV = {"auto": "bf16", "bf16": "bf16", "fp8": None, "fp8_e4m3": None}


def vllm_paged_attention(out, exp_sums, max_logits, tmp_out, query,
                         key_cache, value_cache, num_kv_heads, scale,
                         block_tables, seq_lens, query_start_loc, block_size,
                         max_seq_len, alibi_slopes, kv_cache_dtype, k_scale,
                         v_scale, fp8_out_scale=None, partition_size=256,
                         mfma_type=None, *, chip=None, workspace=None,
                         kv_layout="packed"):
    """vLLM's ROCm paged_attention (ops.paged_attention_rocm) on pa-mlir.

    out, query [num_seqs, Hq, D]; key_cache [N, Hkv, D/x, P, x]; value_cache
    [N, Hkv, D, P]; or with kv_layout="nhd" (vLLM v1's cache) K and V
    [N, P, Hkv, D], "hnd" [N, Hkv, P, D], at any page stride (the halves
    of a combined [N, 2, ...] cache, read in place); block_tables, seq_lens
    int32; scale the softmax scale;
    k_scale, v_scale per-tensor (tensors of one element). exp_sums,
    max_logits and tmp_out (vLLM's split-K scratch) and partition_size are
    not used: pa-mlir plans its own partitions into `workspace` (or the
    plan's own). alibi_slopes: float32 [Hq] or None, as vLLM's (score of
    token t += slope * (t - seq_len + 1)). Refused: query_start_loc (a
    ragged batch), fp8_out_scale, kv_cache_dtype other than
    auto/bf16/fp8/fp8_e4m3.
    For fp8 caches held as uint8, chip decides the flavour (gfx942:
    e4m3fnuz, else e4m3fn); float8 tensors say it themselves.
    """
    _refuse("query_start_loc", query_start_loc,
            "ragged query lengths (pa-mlir decodes query_length rows per "
            "sequence; use run_decode with query_length=)")
    _refuse("fp8_out_scale", fp8_out_scale, "the output is bf16/f16")
    if kv_cache_dtype not in _VLLM_KV:
        raise ValueError(f"kv_cache_dtype {kv_cache_dtype!r} is not "
                         f"supported (auto, bf16, fp8, fp8_e4m3)")
    pattern = {"packed": "[N, Hkv, D/x, block_size, x]",
               "nhd": "[N, block_size, Hkv, D]",
               "hnd": "[N, Hkv, block_size, D]"}.get(kv_layout)
    if pattern is None:
        raise ValueError(f"kv_layout must be one of packed, nhd, hnd, got "
                         f"{kv_layout!r}")
    rank = 5 if kv_layout == "packed" else 4
    heads, page = (_cache_geometry(key_cache, kv_layout)
                   if key_cache.dim() == rank else (None, None))
    if page != block_size:
        raise ValueError(f"key_cache must be {pattern} with block_size "
                         f"{block_size}, got {tuple(key_cache.shape)}")
    if heads != num_kv_heads:
        raise ValueError(f"num_kv_heads {num_kv_heads} disagrees with "
                         f"key_cache's {heads}")
    kv_dtype = _VLLM_KV[kv_cache_dtype] or _raw_fp8(key_cache, chip)
    return run_decode(out, query, key_cache, value_cache, block_tables,
                      seq_lens, workspace,
                      _per_tensor(k_scale, "k_scale"),
                      _per_tensor(v_scale, "v_scale"), None, kv_dtype, 1, 0,
                      float(scale), "plain", chip, alibi_slopes=alibi_slopes,
                      kv_layout=kv_layout)


def aiter_pa_fwd(Q, K, V, block_tables, context_lens, block_tables_stride0,
                 max_qlen=1, K_QScale=None, V_QScale=None, out_=None,
                 qo_indptr=None, high_precision=1, kernelName=None, *,
                 softmax_scale=None, chip=None, workspace=None):
    """aiter's pa_fwd_asm on pa-mlir; returns the output.

    Q [B*max_qlen, Hq, D]; K [N, Hkv, D/x, P, x]; V [N, Hkv, P/x, D, x]
    (pa-mlir's transposed V); K_QScale, V_QScale per-token float32
    [N, Hkv, P] or per-tensor; out_ the output or None. Refused: qo_indptr
    (ragged query lengths), kernelName (pa-mlir compiles its own), a
    block_tables_stride0 other than the table's row stride. high_precision
    is accepted and ignored (pa-mlir accumulates in f32 throughout).
    """
    _refuse("qo_indptr", qo_indptr, "ragged query lengths (every sequence "
            "decodes max_qlen rows)")
    _refuse("kernelName", kernelName, "pa-mlir compiles its own kernels")
    if block_tables_stride0 != block_tables.stride(0):
        raise ValueError(f"block_tables_stride0 {block_tables_stride0} is "
                         f"not the table's row stride "
                         f"{block_tables.stride(0)} (a strided table would "
                         f"need a copy)")
    if (K_QScale is None) != (V_QScale is None):
        raise ValueError("K_QScale and V_QScale must be given together")
    if K_QScale is not None and K_QScale.numel() == 1:
        K_QScale, V_QScale = (_per_tensor(K_QScale, "K_QScale"),
                              _per_tensor(V_QScale, "V_QScale"))
    if out_ is None:
        out_ = torch.empty(Q.shape, dtype=Q.dtype, device=Q.device)
    return run_decode(out_, Q, K, V, block_tables, context_lens, workspace,
                      K_QScale, V_QScale, None, _raw_fp8(K, chip), max_qlen, 0,
                      softmax_scale, "transposed", chip)
