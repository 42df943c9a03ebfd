"""pa_mlir.decode against a float64 numpy reference written from the spec
(docs/semantics.md), independent of the C++ oracle, and
the package's argument checking.
"""

import numpy as np
import pytest

import pa_mlir

TOLERANCE = {"e4m3fn": 5e-3, "e4m3fnuz": 5e-3, "bf16": 2e-3}


# ---------------------------------------------------------------------------
# Reference (float64, from the spec)
# ---------------------------------------------------------------------------

def fp8_values(bits, flavour):
    """float64 values of fp8 bit patterns (NaN patterns decode to NaN)."""
    bits = bits.astype(np.int64)
    sign = np.where(bits & 0x80, -1.0, 1.0)
    exponent = (bits >> 3) & 0xF
    mantissa = (bits & 0x7).astype(np.float64)
    bias = 7 if flavour == "e4m3fn" else 8
    normal = (1.0 + mantissa / 8.0) * np.exp2(exponent.astype(np.float64) - bias)
    subnormal = mantissa / 8.0 * np.exp2(1.0 - bias)
    values = sign * np.where(exponent == 0, subnormal, normal)
    if flavour == "e4m3fn":
        nan = (bits & 0x7F) == 0x7F
    else:
        nan = bits == 0x80
        values = np.where(bits == 0, 0.0, values)
    return np.where(nan, np.nan, values)


def cache_values(bits, kv_dtype):
    if kv_dtype == "bf16":
        return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return fp8_values(bits, kv_dtype)


def reference_decode(query, key_cache, value_cache, block_tables,
                     context_lengths, *, query_length, kv_dtype, v_layout,
                     k_scale=None, v_scale=None, sliding_window=0, sinks=None,
                     softmax_scale=None, logits_soft_cap=0.0,
                     return_lse=False, alibi_slopes=None):
    """Attention of every query row over its visible tokens, in float64;
    with return_lse also each row's log(sum_t e^s_t + e^z); with
    alibi_slopes each score gains slope[head] * (t - (C - Q + q))."""
    rows, hq, d = query.shape
    pages, hkv, _, p, x = key_cache.shape
    group = hq // hkv
    # Keys and values as [N, Hkv, P, D].
    keys = cache_values(key_cache, kv_dtype).transpose(0, 1, 3, 2, 4).reshape(
        pages, hkv, p, d)
    values = cache_values(value_cache, kv_dtype)
    if v_layout == "plain":
        values = values.transpose(0, 1, 3, 2)
    else:
        values = values.transpose(0, 1, 2, 4, 3).reshape(pages, hkv, p, d)
    for scale, cache in ((k_scale, keys), (v_scale, values)):
        if scale is None:
            continue
        scale = np.asarray(scale, dtype=np.float64)
        cache *= scale[..., None] if scale.ndim == 3 else scale
    scale = d ** -0.5 if softmax_scale is None else softmax_scale
    out = np.zeros((rows, hq, d))
    lse = np.full((rows, hq), -np.inf)
    if sinks is not None:
        lse[:] = np.asarray(sinks, dtype=np.float64)[None, :]
    for b, length in enumerate(context_lengths):
        tokens = np.arange(length)
        page_ids = block_tables[b, tokens // p]
        k_tokens = keys[page_ids, :, tokens % p, :]    # [C, Hkv, D]
        v_tokens = values[page_ids, :, tokens % p, :]
        for q in range(query_length):
            end = length - query_length + 1 + q
            begin = max(0, end - sliding_window) if sliding_window > 0 else 0
            if end <= 0:
                continue  # nothing visible: exactly 0
            for head in range(hq):
                h = head // group
                row = query[b * query_length + q, head].astype(np.float64)
                s = scale * (k_tokens[begin:end, h] @ row)
                if logits_soft_cap > 0:
                    s = logits_soft_cap * np.tanh(s / logits_soft_cap)
                if alibi_slopes is not None:
                    own = length - query_length + q
                    s = s + float(alibi_slopes[head]) * (
                        np.arange(begin, end) - own)
                m = s.max()
                z = None if sinks is None else float(sinks[head])
                if z is not None:
                    m = max(m, z)
                if np.isinf(m) and m > 0:
                    continue  # a +inf sink takes all the weight
                w = np.exp(s - m)
                denominator = w.sum() + (np.exp(z - m) if z is not None else 0)
                out[b * query_length + q, head] = (
                    w @ v_tokens[begin:end, h]) / denominator
                lse[b * query_length + q, head] = m + np.log(denominator)
    return (out, lse) if return_lse else out


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------

def random_cache_bits(rng, shape, kv_dtype):
    """Finite values of moderate size (|v| in [2^-4, 2)) as raw bits."""
    if kv_dtype == "bf16":
        values = rng.uniform(-0.5, 0.5, shape).astype(np.float32)
        return (values.view(np.uint32) >> 16).astype(np.uint16)
    bias = 7 if kv_dtype == "e4m3fn" else 8
    exponent = rng.integers(bias - 4, bias + 1, shape)
    mantissa = rng.integers(0, 8, shape)
    sign = rng.integers(0, 2, shape)
    return ((sign << 7) | (exponent << 3) | mantissa).astype(np.uint8)


def representable_query(rng, shape, query_dtype):
    values = rng.uniform(-0.5, 0.5, shape).astype(np.float32)
    if query_dtype == "f16":
        return values.astype(np.float16).astype(np.float32)
    return (values.view(np.uint32) & 0xFFFF0000).view(np.float32)


def make_case(rng, *, hq, hkv, d, p, query_length, kv_dtype, v_layout,
              lengths, scales="none", query_dtype="bf16", sinks=False,
              garbage=True):
    pack = 8 if kv_dtype == "bf16" else 16
    batch = len(lengths)
    needed = [(c + p - 1) // p for c in lengths]
    pages = sum(needed) + 3
    width = max(needed + [1]) + 1
    # Scattered page tables: a permutation of the pool.
    order = rng.permutation(pages).astype(np.int32)
    block_tables = np.zeros((batch, width), dtype=np.int32)
    start = 0
    for b, n in enumerate(needed):
        block_tables[b, :n] = order[start:start + n]
        block_tables[b, n:] = order[-1]  # never read
        start += n
    key_cache = random_cache_bits(rng, (pages, hkv, d // pack, p, pack), kv_dtype)
    value_shape = ((pages, hkv, d, p) if v_layout == "plain"
                   else (pages, hkv, p // pack, d, pack))
    value_cache = random_cache_bits(rng, value_shape, kv_dtype)
    if garbage and kv_dtype != "bf16":
        # NaN bit patterns in the unused page and in the unwritten tail of
        # every last page: they must not leak in.
        nan = 0x7F if kv_dtype == "e4m3fn" else 0x80
        key_cache[order[-1]] = nan
        value_cache[order[-1]] = nan
        for b, length in enumerate(lengths):
            if length % p == 0:
                continue
            last = block_tables[b, needed[b] - 1]
            key_cache[last, :, :, length % p:, :] = nan
            for slot in range(length % p, p):
                if v_layout == "plain":
                    value_cache[last, :, :, slot] = nan
                else:
                    value_cache[last, :, slot // pack, :, slot % pack] = nan
    case = dict(
        query=representable_query(rng, (batch * query_length, hq, d),
                                  query_dtype),
        key_cache=key_cache, value_cache=value_cache,
        block_tables=block_tables,
        context_lengths=np.array(lengths, dtype=np.int32))
    options = dict(query_length=query_length, kv_dtype=kv_dtype,
                   v_layout=v_layout, query_dtype=query_dtype)
    if scales == "per_tensor":
        options.update(k_scale=0.75, v_scale=0.5)
    elif scales == "per_token":
        options.update(
            k_scale=rng.uniform(0.25, 1.0, (pages, hkv, p)).astype(np.float32),
            v_scale=rng.uniform(0.25, 1.0, (pages, hkv, p)).astype(np.float32))
    if sinks:
        options["sinks"] = rng.uniform(-2.0, 4.0, hq).astype(np.float32)
    return case, options


def assert_close(got, ref, kv_dtype):
    tolerance = TOLERANCE[kv_dtype]
    assert np.all(np.isfinite(got)), "every output must be finite"
    np.testing.assert_allclose(got, ref, atol=tolerance, rtol=tolerance)


# ---------------------------------------------------------------------------
# Decode vs the reference
# ---------------------------------------------------------------------------

CASES = {
    "fp8-plain-per-tensor": dict(
        hq=8, hkv=1, d=128, p=16, query_length=1, kv_dtype="e4m3fn",
        v_layout="plain", lengths=[0, 1, 37, 300], scales="per_tensor"),
    "fnuz-transposed-per-token-window-sinks": dict(
        hq=8, hkv=2, d=64, p=64, query_length=2, kv_dtype="e4m3fnuz",
        v_layout="transposed", lengths=[1, 64, 65, 513],
        scales="per_token", sinks=True,
        call=dict(chip="gfx942", sliding_window=17)),
    "bf16-f16-query-one-partition": dict(
        hq=16, hkv=2, d=256, p=16, query_length=3, kv_dtype="bf16",
        v_layout="transposed", lengths=[2, 255, 256, 257],
        query_dtype="f16",
        call=dict(softmax_scale=0.1, budget=1)),
    "page128-mtp4-window1": dict(
        hq=4, hkv=1, d=64, p=128, query_length=4, kv_dtype="e4m3fn",
        v_layout="transposed", lengths=[3, 700], scales="per_tensor",
        sinks=True, call=dict(sliding_window=1, budget=3, max_partitions=2)),
    # Scores of standard deviation ~1 (softmax_scale 1): the cap of 0.8
    # bends most of them.
    "soft-cap-mtp2-window-sinks": dict(
        hq=8, hkv=2, d=128, p=16, query_length=2, kv_dtype="e4m3fn",
        v_layout="plain", lengths=[1, 300, 41], scales="per_token",
        sinks=True, call=dict(sliding_window=100, softmax_scale=1.0,
                              logits_soft_cap=0.8)),
    # ALiBi after the soft-cap, with MTP, a window, sinks and a negative
    # slope (older tokens weigh more for that head).
    "alibi-mtp3-window-sinks-soft-cap": dict(
        hq=8, hkv=2, d=128, p=16, query_length=3, kv_dtype="e4m3fn",
        v_layout="plain", lengths=[1, 300, 41], scales="per_token",
        sinks=True, call=dict(
            sliding_window=100, softmax_scale=1.0, logits_soft_cap=0.8,
            alibi_slopes=np.array([0.5, 0.25, -0.125, 0.0625, 2.0 ** -5,
                                   2.0 ** -6, 0.0, 2.0 ** -8],
                                  dtype=np.float32))),
    "alibi-gqa16-split-bf16": dict(
        hq=16, hkv=1, d=64, p=16, query_length=1, kv_dtype="bf16",
        v_layout="transposed", lengths=[5, 700],
        call=dict(budget=64, alibi_slopes=np.exp2(
            -0.5 * np.arange(1, 17)).astype(np.float32))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_decode_matches_reference(name):
    spec = dict(CASES[name])
    call = spec.pop("call", {})
    rng = np.random.default_rng(sorted(CASES).index(name))
    case, options = make_case(rng, **spec)
    options.update(call)
    got = pa_mlir.decode(**case, **options)
    assert got.dtype == np.float32 and got.shape == case["query"].shape
    reference_options = {k: v for k, v in options.items()
                         if k not in ("query_dtype", "chip", "budget",
                                      "max_partitions")}
    ref = reference_decode(**case, **reference_options)
    assert_close(got, ref, spec["kv_dtype"])


def test_infinite_sinks():
    rng = np.random.default_rng(10)
    case, options = make_case(rng, hq=4, hkv=1, d=64, p=16, query_length=1,
                              kv_dtype="e4m3fn", v_layout="plain",
                              lengths=[90, 5])
    sinks = np.array([np.inf, -np.inf, 0.0, 1.0], dtype=np.float32)
    got = pa_mlir.decode(**case, **options, sinks=sinks)
    assert np.all(got[:, 0] == 0), "a +inf sink gives an all-zero output"
    ref = reference_decode(**case, **{k: v for k, v in options.items()
                                      if k != "query_dtype"}, sinks=sinks)
    assert_close(got, ref, "e4m3fn")


def test_partials_reduce_to_the_output():
    rng = np.random.default_rng(11)
    case, options = make_case(rng, hq=8, hkv=2, d=64, p=16, query_length=2,
                              kv_dtype="e4m3fn", v_layout="plain",
                              lengths=[1000, 0, 300], scales="per_tensor",
                              sinks=True)
    result = pa_mlir.decode(**case, **options, budget=12,
                            return_partials=True)
    assert isinstance(result, pa_mlir.DecodeResult)
    capacity = result.work_info.shape[0]
    assert capacity == 6  # min(B * 256, max(B, ceil(12 / 2)))
    assert result.reduce_info.shape == (3, 2)
    rows = 2 * 4  # Q * G
    assert result.exp_sums.shape == (2, capacity, rows)
    assert result.tmp_out.shape == (2, capacity, rows, 64)
    # The plan: the empty sequence gets no slot, the rest follow the spec's
    # prefix-sum rule over tiles (4 and 2 tiles share 6 - 2 extra slots:
    # floor(4 * 4 / 6) = 2 and floor(6 * 4 / 6) - 2 = 2).
    first, count = result.reduce_info.T
    assert list(count) == [3, 0, 2]
    used = np.concatenate([np.arange(f, f + c) for f, c in zip(first, count)])
    unused = np.setdiff1d(np.arange(capacity), used)
    assert np.all(result.work_info[unused] == 0)
    assert np.all(result.work_info[used, 0] == np.repeat([0, 2], [3, 2]))
    # The spec's reducer, in float64, over the partials gives the output.
    out = np.zeros_like(result.output, dtype=np.float64)
    sinks = options["sinks"]
    group = 4
    for b in range(3):
        slots = np.arange(first[b], first[b] + count[b])
        for h in range(2):
            for r in range(rows):
                q, g = divmod(r, group)
                head = h * group + g
                logits = result.max_logits[h, slots, r].astype(np.float64)
                m = max(logits.max(initial=-np.inf), sinks[head])
                weights = np.where(np.isneginf(logits), 0.0,
                                   result.exp_sums[h, slots, r]
                                   * np.exp(logits - m))
                denominator = weights.sum() + np.exp(sinks[head] - m)
                out[b * 2 + q, head] = (
                    weights @ result.tmp_out[h, slots, r]) / denominator
    assert_close(result.output, out, "e4m3fn")


def test_compile_cache_serves_new_batches_and_lengths():
    rng = np.random.default_rng(12)
    spec = dict(hq=8, hkv=1, d=64, p=16, query_length=1, kv_dtype="e4m3fn",
                v_layout="plain", scales="per_tensor")
    case, options = make_case(rng, lengths=[40, 3], **spec)
    pa_mlir.decode(**case, **options)
    count = pa_mlir.compiled_program_count()
    for lengths in ([0, 0, 0], [1], [600, 17, 256, 1]):
        case, options = make_case(rng, lengths=lengths, **spec)
        got = pa_mlir.decode(**case, **options)
        ref = reference_decode(**case, **{k: v for k, v in options.items()
                                          if k != "query_dtype"})
        assert_close(got, ref, "e4m3fn")
    assert pa_mlir.compiled_program_count() == count


# ---------------------------------------------------------------------------
# Invalid arguments
# ---------------------------------------------------------------------------

def small_case(**changes):
    rng = np.random.default_rng(13)
    spec = dict(hq=8, hkv=1, d=64, p=16, query_length=1, kv_dtype="e4m3fn",
                v_layout="plain", lengths=[20])
    spec.update(changes)
    case, options = make_case(rng, **spec)
    return case, options


def test_group_that_does_not_divide_is_the_verifiers_error():
    case, options = small_case(hq=6, hkv=4)
    with pytest.raises(ValueError,
                       match=r"'pa.decode' op query heads \(6\) must be a "
                             r"multiple of KV heads \(4\)"):
        pa_mlir.decode(**case, **options)


def test_four_dimensional_key_cache_is_the_verifiers_error():
    case, options = small_case()
    n, hkv, _, p, _ = case["key_cache"].shape
    case["key_cache"] = np.zeros((n, hkv, p, 64), dtype=np.uint8)
    with pytest.raises(ValueError, match="non-packed 4-D key cache"):
        pa_mlir.decode(**case, **options)


def test_unsupported_head_dim_and_chip_rules_are_reported():
    case, options = small_case(d=48, hq=4)
    with pytest.raises(ValueError, match="head dim 48 is not supported"):
        pa_mlir.decode(**case, **options)
    case, options = small_case()
    with pytest.raises(ValueError, match="chip gfx942 takes f8E4M3FNUZ"):
        pa_mlir.decode(**case, **options, chip="gfx942")
    with pytest.raises(ValueError, match="unknown chip 'gfx1100'"):
        pa_mlir.decode(**case, **options, chip="gfx1100")


def test_unknown_targets_are_named():
    case, options = small_case()
    # hip: see test_compile.py; emulate: test_emulate.py; cuda: test_cuda.py;
    # isa: test_isa.py
    with pytest.raises(ValueError, match="target must be one of host, hip, "
                                         "emulate, cuda, isa, got 'npu'"):
        pa_mlir.decode(**case, **options, target="npu")


@pytest.mark.parametrize("change, message", [
    (dict(kv_dtype="fp8"), "kv_dtype must be one of"),
    (dict(v_layout="packed"), "v_layout must be one of"),
    (dict(query_dtype="f32"), "query_dtype must be one of"),
    (dict(k_scale=0.5), "k_scale and v_scale must be given together"),
    (dict(k_scale=0.5, v_scale=np.ones((1, 1, 16), np.float32)),
     "both be per-tensor"),
    (dict(budget=0), "budget must be >= 1"),
    (dict(logits_soft_cap=-1.0), "logits_soft_cap must be 0 \\(none\\) or a finite"),
    (dict(logits_soft_cap=float("nan")), "logits_soft_cap must be 0"),
    (dict(logits_soft_cap="30"), "logits_soft_cap must be a number"),
])
def test_bad_options(change, message):
    case, options = small_case()
    options.update(change)
    with pytest.raises(ValueError, match=message):
        pa_mlir.decode(**case, **options)


def test_bad_arrays():
    case, options = small_case()
    bad = dict(case, key_cache=case["key_cache"].astype(np.uint16))
    with pytest.raises(ValueError, match="key_cache must have dtype uint8"):
        pa_mlir.decode(**bad, **options)
    bad = dict(case, query=case["query"].astype(np.float64))
    with pytest.raises(ValueError, match="query must have dtype float32"):
        pa_mlir.decode(**bad, **options)
    bad = dict(case, query=np.concatenate([case["query"], case["query"]]))
    with pytest.raises(ValueError, match=r"query must have shape \[B\*Q, "):
        pa_mlir.decode(**bad, **options)
    bad = dict(case, block_tables=case["block_tables"].copy())
    bad["block_tables"][0, 0] = 10**6
    with pytest.raises(ValueError, match="is not a page of the pool"):
        pa_mlir.decode(**bad, **options)
    bad = dict(case, context_lengths=np.array([10**6], np.int32))
    with pytest.raises(ValueError, match="is outside"):
        pa_mlir.decode(**bad, **options)
    with pytest.raises(ValueError, match="sinks must have shape"):
        pa_mlir.decode(**case, **options, sinks=np.zeros(3, np.float32))


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

def test_bf16_rounding_is_round_to_nearest_even():
    values = np.array([1.0, 1.0 + 2**-8, 1.0 + 3 * 2**-8, 1.0 + 2**-8 + 2**-20,
                       -2.5, 3.4e38, np.inf, np.nan], dtype=np.float32)
    bits = pa_mlir.float32_to_bits(values, "bf16")
    assert list(bits[:6]) == [0x3F80, 0x3F80, 0x3F82, 0x3F81, 0xC020, 0x7F80]
    assert bits[6] == 0x7F80 and (bits[7] & 0x7FC0) == 0x7FC0
    halves = np.array([1.0 + 2**-11, 65520.0], dtype=np.float32)
    assert list(pa_mlir.float32_to_bits(halves, "f16")) == [0x3C00, 0x7C00]
    assert pa_mlir.round_to(np.float32(1.0 + 3 * 2**-8), "bf16") == np.float32(
        1.0 + 2**-6)


def test_query_is_rounded_to_its_dtype_before_use():
    rng = np.random.default_rng(14)
    case, options = small_case(lengths=[50])
    noisy = case["query"] + rng.uniform(-1e-4, 1e-4, case["query"].shape
                                        ).astype(np.float32)
    rounded = pa_mlir.round_to(noisy, "bf16")
    got = pa_mlir.decode(**dict(case, query=noisy), **options)
    again = pa_mlir.decode(**dict(case, query=rounded), **options)
    assert np.array_equal(got, again)


def test_verify_text_reports_the_verifier():
    pa_mlir.verify_text("func.func @f() { return }")
    with pytest.raises(ValueError, match="expected"):
        pa_mlir.verify_text("func.func @f( {")


# ---------------------------------------------------------------------------
# nhd / hnd caches (kv_layout)
# ---------------------------------------------------------------------------

def to_layout(packed_key, plain_value, kv_layout):
    """K [N, Hkv, D/x, P, x] and plain V [N, Hkv, D, P] re-laid out as
    nhd [N, P, Hkv, D] or hnd [N, Hkv, P, D] (plain numpy transposes)."""
    pages, hkv, _, p, x = packed_key.shape
    hnd_key = packed_key.transpose(0, 1, 3, 2, 4).reshape(pages, hkv, p, -1)
    hnd_value = plain_value.transpose(0, 1, 3, 2)
    if kv_layout == "hnd":
        return np.ascontiguousarray(hnd_key), np.ascontiguousarray(hnd_value)
    return (np.ascontiguousarray(hnd_key.transpose(0, 2, 1, 3)),
            np.ascontiguousarray(hnd_value.transpose(0, 2, 1, 3)))


def layout_case(rng, spec, kv_dtype, d):
    """A random case of an unpacked-layout spec (kv_layout, p, lengths,
    scales, combined) for 8 query heads over 2 KV heads, query length 2 and
    sinks: the decode() arguments with K and V in that layout (views of one
    combined cache when spec["combined"]), its options and the reference."""
    case, options = make_case(
        rng, hq=8, hkv=2, d=d, p=spec["p"], query_length=2,
        kv_dtype=kv_dtype, v_layout="plain", lengths=spec["lengths"],
        scales=spec["scales"], sinks=True)
    reference_options = {k: v for k, v in options.items()
                         if k != "query_dtype"}
    ref = reference_decode(**case, **reference_options)
    key, value = to_layout(case["key_cache"], case["value_cache"],
                           spec["kv_layout"])
    if spec["combined"]:
        combined = np.stack([key, value], axis=1)
        key, value = combined[:, 0], combined[:, 1]
    return dict(case, key_cache=key, value_cache=value), options, ref


LAYOUT_CASES = {
    "nhd-p1-fp8-per-token-window": dict(
        kv_layout="nhd", hq=8, hkv=2, d=64, p=1, query_length=2,
        kv_dtype="e4m3fn", lengths=[0, 1, 300], scales="per_token",
        call=dict(sliding_window=17)),
    "hnd-p1024-bf16-sinks": dict(
        kv_layout="hnd", hq=4, hkv=1, d=128, p=1024, query_length=1,
        kv_dtype="bf16", lengths=[1, 1023, 1025], sinks=True),
    "nhd-p32-fnuz-mtp": dict(
        kv_layout="nhd", hq=16, hkv=2, d=64, p=32, query_length=3,
        kv_dtype="e4m3fnuz", lengths=[31, 32, 600], scales="per_tensor",
        call=dict(chip="gfx942", budget=2)),
}


@pytest.mark.parametrize("name", sorted(LAYOUT_CASES))
def test_unpacked_layouts_match_reference(name):
    spec = dict(LAYOUT_CASES[name])
    call = spec.pop("call", {})
    kv_layout = spec.pop("kv_layout")
    rng = np.random.default_rng(100 + sorted(LAYOUT_CASES).index(name))
    case, options = make_case(rng, v_layout="plain", **spec)
    options.update(call)
    reference_options = {k: v for k, v in options.items()
                         if k not in ("query_dtype", "chip", "budget",
                                      "max_partitions")}
    ref = reference_decode(**case, **reference_options)
    key, value = to_layout(case["key_cache"], case["value_cache"], kv_layout)
    got = pa_mlir.decode(**dict(case, key_cache=key, value_cache=value),
                         **options, kv_layout=kv_layout)
    assert_close(got, ref, spec["kv_dtype"])


def test_nhd_views_of_one_combined_cache():
    """vLLM v1 keeps K and V as [N, 2, P, Hkv, D]: strided views of it."""
    rng = np.random.default_rng(7)
    case, options = make_case(rng, hq=8, hkv=2, d=64, p=16, query_length=1,
                              kv_dtype="e4m3fn", v_layout="plain",
                              lengths=[5, 40], scales="per_tensor")
    ref = reference_decode(**case, **{k: v for k, v in options.items()
                                      if k != "query_dtype"})
    key, value = to_layout(case["key_cache"], case["value_cache"], "nhd")
    combined = np.stack([key, value], axis=1)  # [N, 2, P, Hkv, D]
    assert not combined[:, 0].flags["C_CONTIGUOUS"]
    got = pa_mlir.decode(**dict(case, key_cache=combined[:, 0],
                                value_cache=combined[:, 1]),
                         **options, kv_layout="nhd")
    assert_close(got, ref, "e4m3fn")


@pytest.mark.parametrize("kv_layout,target", [
    ("nhd", "host"), ("hnd", "host"), ("hnd", "emulate")])
def test_combined_cache_halves_are_read_in_place(kv_layout, target):
    """The K and V halves of an [N, 2, ...] cache (pages two pages apart)
    and of a [2, N, ...] cache are read where they are, at their page
    strides: numerics against the float64 reference, and no copy (numpy
    allocations are traced: a copy of a half would take its bytes; the
    pool is padded with unused pages so that a half is larger than
    everything else decode() allocates)."""
    import tracemalloc
    rng = np.random.default_rng(11 if kv_layout == "nhd" else 12)
    case, options = make_case(rng, hq=8, hkv=2, d=64, p=16, query_length=2,
                              kv_dtype="bf16", v_layout="plain",
                              lengths=[5, 40, 0], scales="per_token")
    ref = reference_decode(**case, **{k: v for k, v in options.items()
                                      if k != "query_dtype"})
    key, value = to_layout(case["key_cache"], case["value_cache"], kv_layout)
    spare = 2048  # unused pages (their scales NaN: never read)
    pad = lambda cache: np.concatenate(
        [cache, rng.integers(0, 2**16, (spare,) + cache.shape[1:],
                             dtype=cache.dtype)])
    options.update({name: np.concatenate([options[name], np.full(
        (spare,) + options[name].shape[1:], np.nan, np.float32)])
        for name in ("k_scale", "v_scale")})
    key, value = pad(key), pad(value)
    for combined in (np.stack([key, value], axis=1),   # [N, 2, ...]
                     np.stack([key, value])):          # [2, N, ...]
        halves = ((combined[:, 0], combined[:, 1]) if combined.shape[1] == 2
                  else (combined[0], combined[1]))
        tracemalloc.start()
        got = pa_mlir.decode(**dict(case, key_cache=halves[0],
                                    value_cache=halves[1]),
                             **options, kv_layout=kv_layout, target=target)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert_close(got, ref, "bf16")
        if target == "host":
            assert peak < key.nbytes // 2, (peak, key.nbytes)


def test_cache_strides_the_kernels_do_not_read_are_refused():
    """Strides other than a page stride (nhd / hnd), and any for a packed
    cache, are refused naming the cache, never silently copied."""
    case, options = small_case(hkv=2)
    key, value = to_layout(case["key_cache"], case["value_cache"], "nhd")
    within = np.ascontiguousarray(key.swapaxes(2, 3)).swapaxes(2, 3)
    with pytest.raises(ValueError, match=(
            r"key_cache has strides .* the kernels read an nhd / hnd cache "
            r"at any page stride \(dim 0\), the dims within a page "
            r"row-major: pass np.ascontiguousarray\(key_cache\)")):
        pa_mlir.decode(**dict(case, key_cache=within, value_cache=value),
                       **options, kv_layout="nhd")
    packed = np.stack([case["value_cache"]] * 2, axis=1)[:, 0]
    with pytest.raises(ValueError, match=(
            r"value_cache has strides .* the kernels read a packed cache "
            r"contiguous")):
        pa_mlir.decode(**dict(case, value_cache=packed), **options)


def test_a_cache_of_one_page_broadcast_over_n_pages_is_refused():
    """A page stride of 0 over more than one page (np.broadcast_to of a
    page) is refused naming the cache: read as contiguous it would be N
    pages from a buffer of one."""
    case, options = small_case(hkv=2)
    key, value = to_layout(case["key_cache"], case["value_cache"], "nhd")
    for name, cache in (("key_cache", key), ("value_cache", value)):
        broadcast = np.broadcast_to(cache[:1], cache.shape)
        assert broadcast.strides[0] == 0 and cache.shape[0] > 1
        arrays = dict(key_cache=key, value_cache=value)
        arrays[name] = broadcast
        with pytest.raises(ValueError, match=(
                name + r" has page stride 0 over %d pages" % cache.shape[0])):
            pa_mlir.decode(**dict(case, **arrays), **options,
                           kv_layout="nhd")


def test_unpacked_layout_shape_errors():
    case, options = small_case()
    key, value = to_layout(case["key_cache"], case["value_cache"], "nhd")
    with pytest.raises(ValueError, match="key_cache must be 4-D"):
        pa_mlir.decode(**case, **options, kv_layout="nhd")
    with pytest.raises(ValueError, match="kv_layout must be one of"):
        pa_mlir.decode(**dict(case, key_cache=key, value_cache=value),
                       **options, kv_layout="nhdd")


def test_return_lse_matches_reference():
    # Split-K with sinks (the reducer's M and den), an empty sequence (lse
    # is the sink logit, -inf without one) and a +inf sink (lse +inf).
    rng = np.random.default_rng(21)
    case, options = make_case(rng, hq=4, hkv=1, d=64, p=16, query_length=2,
                              kv_dtype="e4m3fn", v_layout="plain",
                              lengths=[0, 300, 41], scales="per_tensor")
    sinks = np.array([np.inf, -np.inf, 0.5, -1.0], dtype=np.float32)
    got, lse = pa_mlir.decode(**case, **options, sinks=sinks, budget=64,
                              return_lse=True)
    assert lse.dtype == np.float32 and lse.shape == (6, 4)
    ref, ref_lse = reference_decode(
        **case, **{k: v for k, v in options.items() if k != "query_dtype"},
        sinks=sinks, return_lse=True)
    assert_close(got, ref, "e4m3fn")
    assert np.all(lse[:, 0] == np.inf)
    assert np.all(lse[:2, 1] == -np.inf)  # nothing visible, no sink
    assert np.all(lse[:2, 2:] == sinks[2:])
    np.testing.assert_allclose(lse[2:, 1:], ref_lse[2:, 1:], atol=5e-3,
                               rtol=5e-3)
    plain = pa_mlir.decode(**case, **options, sinks=sinks, budget=64)
    assert np.array_equal(plain, got), "the output does not depend on lse"


def test_alibi_slopes_errors():
    case, options = small_case()
    hq = case["query"].shape[1]
    with pytest.raises(ValueError, match="alibi_slopes must be a floating"):
        pa_mlir.decode(**case, **options, alibi_slopes=[0.5] * hq)
    with pytest.raises(ValueError, match="alibi_slopes"):
        pa_mlir.decode(**case, **options,
                       alibi_slopes=np.ones(hq + 1, dtype=np.float32))


def test_zero_alibi_slopes_change_nothing():
    case, options = small_case()
    hq = case["query"].shape[1]
    plain = pa_mlir.decode(**case, **options)
    zero = pa_mlir.decode(**case, **options,
                          alibi_slopes=np.zeros(hq, dtype=np.float32))
    assert np.array_equal(plain, zero)
    steep = pa_mlir.decode(**case, **options,
                           alibi_slopes=np.full(hq, 4.0, dtype=np.float32))
    assert not np.array_equal(plain, steep), "the slopes must matter"
