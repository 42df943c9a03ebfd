"""pa_mlir.decode: paged-attention decode on numpy arrays.

Semantics: docs/semantics.md. The static configuration
(head counts, head dim, page size, query length, dtypes, layouts, scales
mode, window, sinks, chip, budget) selects a compiled program, cached per
process; batch size, context lengths, block-table width and page-pool size
may change from call to call without recompiling.
"""

import collections
import ctypes

import numpy as np

from . import _capi, _ffi, _operands, _tensors, targets as _targets
from .config import DecodeConfig
from .dtypes import NAN_BITS, QUERY_DTYPES, bits_to_float32, float32_to_bits

# The targets registered when the package loads; targets.names() is live.
TARGETS = _targets.names()
KV_DTYPES = tuple(_capi.KV_TYPES)
V_LAYOUTS = tuple(_capi.V_LAYOUTS)
KV_LAYOUTS = tuple(_capi.KV_LAYOUTS)

# The raw storage of each KV dtype (elements are passed as bits).
_KV_STORAGE = {"e4m3fn": np.uint8, "e4m3fnuz": np.uint8, "bf16": np.uint16}

# Poison for the int32 plan buffers: the plan must overwrite every entry.
_PLAN_POISON = np.int32(-0x21524111)  # 0xDEADBEEF

DecodeResult = collections.namedtuple(
    "DecodeResult",
    ["output", "work_info", "reduce_info", "exp_sums", "max_logits",
     "tmp_out"])
DecodeResult.__doc__ = """Output and the split-K scratch of one decode.

output: float32 [B*Q, Hq, D] (values of the query dtype); work_info int32
[capacity, 4]; reduce_info int32 [B, 2]; exp_sums, max_logits float32
[Hkv, capacity, Q*G]; tmp_out float32 [Hkv, capacity, Q*G, D]."""

def compiled_program_count():
    """How many programs the compile cache holds."""
    return _targets.program_count()


def _choice(name, value, allowed):
    if value not in allowed:
        raise ValueError(
            f"{name} must be one of {', '.join(allowed)}, got {value!r}")


def _array(name, value, ndim, dtypes, dtype_text):
    if not isinstance(value, np.ndarray):
        raise ValueError(f"{name} must be a numpy array, got {type(value).__name__}")
    if value.dtype not in dtypes:
        raise ValueError(f"{name} must have dtype {dtype_text}, got {value.dtype}")
    if ndim is not None and value.ndim not in ndim:
        expected = " or ".join(str(n) for n in ndim)
        raise ValueError(
            f"{name} must be {expected}-D, got shape {value.shape}")
    return np.ascontiguousarray(value)


def _cache_array(name, value, ndim, storage, kv_dtype, unpacked):
    """(the cache array, its page stride in elements: 0 when contiguous),
    read in place: an nhd / hnd cache may have any page stride (dim 0; the
    K or V half of a combined [N, 2, ...] cache), the dims within a page
    row-major; a packed cache is contiguous. ValueError naming the cache
    for any other strides (never a silent copy of a cache)."""
    if not isinstance(value, np.ndarray):
        raise ValueError(f"{name} must be a numpy array, got {type(value).__name__}")
    if value.dtype != storage:
        raise ValueError(f"{name} must have dtype {storage} (raw {kv_dtype} "
                         f"bits), got {value.dtype}")
    if value.ndim not in ndim:
        expected = " or ".join(str(n) for n in ndim)
        raise ValueError(
            f"{name} must be {expected}-D, got shape {value.shape}")
    if value.flags.c_contiguous:
        return value, 0
    # Dims of one element may have any stride.
    item = value.itemsize
    within = 1
    row_major = True
    for extent, stride in reversed(list(zip(value.shape, value.strides))[1:]):
        row_major = row_major and (extent == 1 or stride == within * item)
        within *= extent
    page = value.strides[0]
    if unpacked and page == 0 and value.shape[0] > 1:
        # (np.broadcast_to of a page: page stride 0 would read as
        # "contiguous", N pages from a buffer of one.)
        raise ValueError(
            f"{name} has page stride 0 over {value.shape[0]} pages (one "
            f"page broadcast): the kernels read N distinct pages: pass "
            f"np.ascontiguousarray({name})")
    if (unpacked and row_major and page >= 0 and page % item == 0):
        return value, (page // item if value.shape[0] > 1 else 0)
    elements = tuple(stride // item if stride % item == 0 else stride / item
                     for stride in value.strides)
    rule = ("an nhd / hnd cache at any page stride (dim 0), the dims within "
            "a page row-major" if unpacked else "a packed cache contiguous "
            "(nhd / hnd caches may have any page stride)")
    raise ValueError(
        f"{name} has strides {elements} (elements) for shape {value.shape}; "
        f"the kernels read {rule}: pass np.ascontiguousarray({name})")


def _int32_array(name, value, ndim):
    if not isinstance(value, np.ndarray) or value.dtype.kind not in "iu":
        raise ValueError(f"{name} must be an integer numpy array")
    if value.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {value.shape}")
    if value.size and (value.min() < np.iinfo(np.int32).min
                       or value.max() > np.iinfo(np.int32).max):
        raise ValueError(f"{name} does not fit in int32")
    return np.ascontiguousarray(value, dtype=np.int32)


def _expect_shape(name, array, shape, pattern):
    if tuple(array.shape) != tuple(shape):
        raise ValueError(
            f"{name} must have shape {pattern} = {tuple(shape)}, got "
            f"{tuple(array.shape)}")


def _scales(k_scale, v_scale):
    """(mode, k array, v array) from None / a number / per-token arrays."""
    if k_scale is None and v_scale is None:
        return "none", None, None
    if k_scale is None or v_scale is None:
        raise ValueError("k_scale and v_scale must be given together")

    def kind(scale):
        if np.ndim(scale) == 0 or (isinstance(scale, np.ndarray)
                                   and scale.shape == (1,)):
            return "per_tensor"
        return "per_token"

    mode = kind(k_scale)
    if kind(v_scale) != mode:
        raise ValueError(
            "k_scale and v_scale must both be per-tensor (a float) or both "
            "per-token (float32 [N, Hkv, P])")
    if mode == "per_tensor":
        as_array = lambda s: np.asarray(s, dtype=np.float32).reshape(1)
        return mode, as_array(k_scale), as_array(v_scale)
    floats = (np.dtype(np.float32),)
    return (mode, _array("k_scale", k_scale, (3,), floats, "float32"),
            _array("v_scale", v_scale, (3,), floats, "float32"))


def _address(array):
    return None if array is None else array.ctypes.data_as(ctypes.c_void_p)


def decode(query, key_cache, value_cache, block_tables, context_lengths, *,
           query_length, kv_dtype=None, query_dtype="bf16", k_scale=None,
           v_scale=None, sliding_window=0, sinks=None, softmax_scale=None,
           v_layout="plain", chip="gfx950", target="host", budget=None,
           max_partitions=None, return_partials=False, out=None,
           logits_soft_cap=0.0, kv_layout="packed", return_lse=False,
           alibi_slopes=None):
    """Paged-attention decode.

    query: float32 [B*Q, Hq, D], rounded to `query_dtype` (RNE) before use.
    key_cache: packed K [N, Hkv, D/x, P, x] as raw bits (uint8 for the fp8
    dtypes, x = 16; uint16 for bf16, x = 8). value_cache: plain
    [N, Hkv, D, P] or transposed [N, Hkv, P/x, D, x], same storage.
    kv_layout: "packed" (the layouts above), "nhd" (K and V [N, P, Hkv, D],
    vLLM v1 / FlashInfer NHD / SGLang) or "hnd" (K and V [N, Hkv, P, D],
    FlashInfer HND), raw bits as for packed; nhd / hnd K and V may have any
    page stride (dim 0): the K and V halves of one combined cache
    ([N, 2, P, Hkv, D] or [2, N, P, Hkv, D], vLLM v1) are read in place,
    never copied; other strides (and non-contiguous packed caches) are a
    ValueError naming the cache. Non-contiguous per-token scales, block
    tables and context lengths are copied (they are small beside a cache).
    v_layout applies to "packed" only.
    block_tables: int [B, max_pages]; context_lengths: int [B].
    k_scale / v_scale: None, a float (per-tensor) or float32 [N, Hkv, P]
    (per-token). sinks: float32 [Hq] or None. logits_soft_cap: 0.0 for
    none; cap > 0 makes every score cap * tanh(score / cap) (Gemma 2,
    Grok; sinks are not capped). return_lse: also return the float32
    [B*Q, Hq] log-sum-exp of every row, M + log(den) in natural-log units
    with the sink term (-inf for a row with nothing visible and no sink),
    as (output, lse). alibi_slopes: float32 [Hq] or None (ALiBi): the
    score of token t for query head h at MTP position q gains
    alibi_slopes[h] * (t - (C - Q + q)) after the soft-cap, C the
    sequence's context length. target: "host" (the CPU),
    "hip" (an AMD GPU), "cuda" (an NVIDIA GPU; compiled for sm_90a),
    "emulate" (the AMD kernels of `chip` on the wave64 emulator), "isa"
    (the code object of `chip` on the instruction-level executor) or
    another registered target (pa_mlir.targets).

    Returns float32 [B*Q, Hq, D] holding `query_dtype` values, or a
    DecodeResult with the plan and the partial results when
    `return_partials`. Invalid arguments (including everything the dialect
    verifier rejects) raise ValueError.

    With target="cuda" (CUDA builds of torch) or target="hip" (ROCm
    builds, whose tensors torch also calls CUDA tensors) the arrays may
    instead all be PyTorch GPU tensors on the current device (contiguous;
    query float32 or of the query dtype, caches the raw bits as uint8 /
    int8, torch.float8_e4m3fn / float8_e4m3fnuz, or bfloat16 / int16,
    block_tables and context_lengths int32, scales floats or float32
    tensors): the kernels then run on torch.cuda.current_stream() on the
    tensors themselves, nothing is copied or waited for, and the output
    (and partials) are GPU tensors, the output of the query dtype, written
    into `out` when given. kv_dtype may then be left out for float8 and
    bfloat16 caches (inferred); a kv_dtype that disagrees with a float8
    cache is an error. alibi_slopes is then a float32 GPU tensor [Hq] and
    return_lse gives lse as a new float32 GPU tensor [B*Q, Hq] (where the
    target's compiler lowers it: a CompileError says when it does not).
    Lengths and page ids in tensors are
    not checked.
    Such a call may be captured in a CUDA (HIP) graph once a first call
    has loaded the program. Outputs and partials are poisoned (NaN) before
    the launch only in debug mode (PA_MLIR_DEBUG=1). For a decode step
    of many layers, pa_mlir.plan() and Plan.run() cost less per call.
    """
    factory = _targets.lookup(target)
    device = _tensors.tensor_call(
        dict(query=query, key_cache=key_cache, value_cache=value_cache,
             block_tables=block_tables, context_lengths=context_lengths,
             k_scale=k_scale, v_scale=v_scale, sinks=sinks,
             alibi_slopes=alibi_slopes), out)
    if device is not None:
        expected = _tensors.tensor_target(device.torch)
        if not getattr(factory, "takes_tensors", False):
            build = "ROCm" if expected == "hip" else "CUDA"
            raise ValueError(f"target {target!r} takes numpy arrays; {build} "
                             f"tensors need target={expected!r}")
        _tensors.check_target(device.torch, target)
        kv_dtype = device.kv_dtype(key_cache, kv_dtype)
    _choice("kv_dtype", kv_dtype, KV_DTYPES)
    _choice("query_dtype", query_dtype, QUERY_DTYPES)
    _choice("v_layout", v_layout, V_LAYOUTS)
    _choice("kv_layout", kv_layout, KV_LAYOUTS)
    unpacked = kv_layout != "packed"
    if not isinstance(chip, str):
        raise ValueError(f"chip must be a string, got {chip!r}")
    if "\0" in chip:  # the C string would silently end there
        raise ValueError(f"chip must not contain NUL, got {chip!r}")
    if not chip:
        raise ValueError("unknown chip '': give a chip name such as "
                         "'gfx950'")
    # int64 fields of PaDecodeConfig: checked before they cross (ctypes
    # would wrap 2**64 + 5 to 5).
    query_length = _ffi.checked_int(query_length, ctypes.c_int64,
                                    "query_length")
    sliding_window = _ffi.checked_int(sliding_window, ctypes.c_int64,
                                      "sliding_window")
    if budget is not None:
        budget = _ffi.checked_int(budget, ctypes.c_int64, "budget")
    if max_partitions is not None:
        max_partitions = _ffi.checked_int(max_partitions, ctypes.c_int64,
                                          "max_partitions")
    for name, value in (("budget", budget), ("max_partitions", max_partitions)):
        if value is not None and value < 1:
            raise ValueError(f"{name} must be >= 1, got {value}")

    if device is not None:
        (query, key_cache, value_cache, block_tables, context_lengths,
         scale_mode, k_scale, v_scale, sinks, out) = device.inputs(
             query, key_cache, value_cache, block_tables, context_lengths,
             k_scale, v_scale, sinks, kv_dtype, query_dtype,
             "plain" if unpacked else v_layout, out)
    else:
        storage = np.dtype(_KV_STORAGE[kv_dtype])
        query = _array("query", query, (3,), (np.dtype(np.float32),),
                       "float32")
        # A 4-D key cache goes to the verifier, which explains what it needs.
        key_cache, key_page_stride = _cache_array(
            "key_cache", key_cache, (4,) if unpacked else (4, 5), storage,
            kv_dtype, unpacked)
        value_ndim = 4 if v_layout == "plain" or unpacked else 5
        value_cache, value_page_stride = _cache_array(
            "value_cache", value_cache, (value_ndim,), storage, kv_dtype,
            unpacked)
        block_tables = _int32_array("block_tables", block_tables, 2)
        context_lengths = _int32_array("context_lengths", context_lengths, 1)
        scale_mode, k_scale, v_scale = _scales(k_scale, v_scale)
        if sinks is not None:
            if not isinstance(sinks, np.ndarray) or sinks.dtype.kind != "f":
                raise ValueError(
                    "sinks must be a floating-point numpy array [Hq]")
            sinks = np.ascontiguousarray(sinks, dtype=np.float32)
    if alibi_slopes is not None:
        if device is not None:
            alibi_slopes = _tensors._tensor("alibi_slopes", alibi_slopes,
                                            (1,), (device.torch.float32,))
        elif (not isinstance(alibi_slopes, np.ndarray)
                or alibi_slopes.dtype.kind != "f"):
            raise ValueError(
                "alibi_slopes must be a floating-point numpy array [Hq]")
        else:
            alibi_slopes = np.ascontiguousarray(alibi_slopes,
                                                dtype=np.float32)
    if softmax_scale is not None:
        softmax_scale = float(softmax_scale)
    if (isinstance(logits_soft_cap, bool)
            or not isinstance(logits_soft_cap, (int, float))):
        raise ValueError(f"logits_soft_cap must be a number, got "
                         f"{logits_soft_cap!r}")

    packed_key = key_cache.ndim == 5
    num_query_heads, head_dim = query.shape[1], query.shape[2]
    if kv_layout == "nhd":  # [N, P, Hkv, D]
        page_size, num_kv_heads = key_cache.shape[1], key_cache.shape[2]
    else:
        num_kv_heads = key_cache.shape[1]
        page_size = key_cache.shape[3] if packed_key else key_cache.shape[2]

    config = _capi.PaDecodeConfig()
    config.numQueryHeads = num_query_heads
    config.numKVHeads = num_kv_heads
    config.headDim = head_dim
    config.pageSize = page_size
    config.queryLength = int(query_length)
    config.kvType = _capi.KV_TYPES[kv_dtype]
    config.queryType = _capi.QUERY_TYPES[query_dtype]
    config.keyLayout = _capi.KEY_LAYOUTS["packed" if packed_key else "unpacked"]
    config.vLayout = _capi.V_LAYOUTS["plain" if unpacked else v_layout]
    config.kvLayout = _capi.KV_LAYOUTS[kv_layout]
    config.scaleMode = _capi.SCALE_MODES[scale_mode]
    config.computeType = _capi.COMPUTE_DEFAULT
    config.slidingWindow = int(sliding_window)
    config.hasSoftmaxScale = softmax_scale is not None
    config.softmaxScale = softmax_scale if softmax_scale is not None else 0.0
    config.hasSinks = sinks is not None
    config.hasAlibi = alibi_slopes is not None
    config.chip = chip.encode("utf-8")
    config.budget = int(budget) if budget is not None else 0
    config.maxPartitions = int(max_partitions) if max_partitions is not None else 0
    config.logitsSoftCap = float(logits_soft_cap)
    if not isinstance(return_lse, bool):
        raise ValueError(f"return_lse must be True or False, got "
                         f"{return_lse!r}")
    if return_lse and return_partials:
        raise ValueError("return_lse and return_partials cannot be "
                         "combined")
    config.returnLse = return_lse
    program = _targets.program(target, config)

    # The configuration compiled, so the static sizes are valid; now every
    # array must match them (the operand table of the program's
    # configuration: the shapes the kernels index).
    num_pages = key_cache.shape[0]
    batch = context_lengths.shape[0]
    if block_tables.shape[0] != batch:
        raise ValueError(
            f"block_tables has {block_tables.shape[0]} rows but "
            f"context_lengths has {batch} sequences")
    capacity = program.plan_capacity(batch)
    table = _operands.operand_table(DecodeConfig.from_c(config), batch,
                                    num_pages, block_tables.shape[1],
                                    capacity)
    named = dict(query=query, key_cache=key_cache, value_cache=value_cache,
                 block_tables=block_tables, context_lengths=context_lengths,
                 k_scale=k_scale, v_scale=v_scale, sinks=sinks,
                 alibi_slopes=alibi_slopes, output=out)
    for op in table:
        if op.read_only or op.name == "output" and out is not None:
            _expect_shape(op.name, named[op.name], op.shape, op.pattern)

    if device is not None:
        plan = _tensors.Plan(device.torch, target, program, program.config,
                             device.device, block_tables, context_lengths,
                             separate_buffers=return_partials)
        output = plan.run(query, key_cache, value_cache, k_scale, v_scale,
                          sinks, out, replan=True, alibi_slopes=alibi_slopes)
        if not return_partials:
            return output  # (output, lse) with return_lse
        return DecodeResult(output, *(plan.buffers[name] for name in
                                      DecodeResult._fields[1:]))

    query_bits = np.ascontiguousarray(float32_to_bits(query, query_dtype))
    rows_per_kv_head = int(query_length) * (num_query_heads // num_kv_heads)
    partial_shape = (num_kv_heads, capacity, rows_per_kv_head)
    # Poisoned so that anything the program leaves unwritten shows.
    work_info = np.full((capacity, 4), _PLAN_POISON, dtype=np.int32)
    reduce_info = np.full((batch, 2), _PLAN_POISON, dtype=np.int32)
    exp_sums = np.full(partial_shape, np.nan, dtype=np.float32)
    max_logits = np.full(partial_shape, np.nan, dtype=np.float32)
    tmp_out = np.full(partial_shape + (head_dim,), np.nan, dtype=np.float32)
    output_bits = np.full(query.shape, NAN_BITS[query_dtype], dtype=np.uint16)
    lse = (np.full(query.shape[:2], np.nan, dtype=np.float32) if return_lse
           else None)

    buffers = _capi.PaHostBuffers(
        batch=batch, numPages=num_pages,
        maxPagesPerSequence=block_tables.shape[1], capacity=capacity,
        query=_address(query_bits), keyCache=_address(key_cache),
        valueCache=_address(value_cache), blockTables=_address(block_tables),
        contextLengths=_address(context_lengths), kScale=_address(k_scale),
        vScale=_address(v_scale), sinks=_address(sinks),
        alibiSlopes=_address(alibi_slopes), workInfo=_address(work_info), reduceInfo=_address(reduce_info),
        expSums=_address(exp_sums), maxLogits=_address(max_logits),
        tmpOut=_address(tmp_out), output=_address(output_bits),
        lse=_address(lse), keyPageStride=key_page_stride,
        valuePageStride=value_page_stride)
    program.run(buffers)

    output = bits_to_float32(output_bits, query_dtype)
    if return_lse:
        return output, lse
    if not return_partials:
        return output
    return DecodeResult(output, work_info, reduce_info, exp_sums, max_logits,
                        tmp_out)
