"""pa_mlir.decode under hostile arguments (docs/reliability.md).

Whatever the caller passes, the package raises ValueError naming the
problem (never a crash, never a silent wrong answer), garbage where no row
looks never changes a bit of the result, and the same inputs give the same
bits.
"""

import numpy as np
import pytest

import pa_mlir
from test_decode import make_case, small_case

I64_MAX = 2**63 - 1


# ---------------------------------------------------------------------------
# Arguments the package or the compiler refuses
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("change, message", [
    (dict(query_length=0), "query length must be >= 1"),
    (dict(query_length=-3), "query length must be >= 1"),
    (dict(query_length=2**40), "query length must be at most 2\\^31-1"),
    (dict(query_length=1.5), "query_length must be an integer"),
    (dict(query_length="1"), "query_length must be an integer"),
    (dict(sliding_window=-2), "sliding_window must be >= -1"),
    (dict(sliding_window=2**31), "sliding_window must be at most 2\\^31-1"),
    (dict(sliding_window=I64_MAX), "sliding_window must be at most 2\\^31-1"),
    (dict(budget=I64_MAX), "budget must be at most 2\\^31-1"),
    (dict(max_partitions=2**31), "max_partitions must be at most 2\\^31-1"),
    (dict(max_partitions=-1), "max_partitions must be >= 1"),
    (dict(softmax_scale=1e300), "softmax_scale must be at most"),
    (dict(chip=""), "unknown chip ''"),
    (dict(chip="gfx950\0"), "chip must not contain NUL"),
    (dict(chip=None), "chip must be a string"),
    (dict(target="tpu"), "target must be one of"),
    (dict(kv_dtype="e5m2"), "kv_dtype must be one of"),
])
def test_bad_options_are_named(change, message):
    case, options = small_case()
    options.update(change)
    with pytest.raises(ValueError, match=message):
        pa_mlir.decode(**case, **options)


# Integers ctypes would wrap silently (2**64 + 5 stored as 5).
WRAPS = 2**64


@pytest.mark.parametrize("change, message", [
    (dict(sliding_window=WRAPS + 5),
     r"sliding_window = 18446744073709551621 does not fit in int64"),
    (dict(sliding_window=-2**63 - 1), r"sliding_window = -\d+ does not fit"),
    (dict(query_length=WRAPS + 1), r"query_length = \d+ does not fit"),
    (dict(budget=WRAPS + 4), r"budget = \d+ does not fit in int64"),
    (dict(max_partitions=WRAPS + 2), r"max_partitions = \d+ does not fit"),
])
def test_integers_that_would_wrap_at_the_c_boundary_are_refused(change,
                                                                 message):
    case, options = small_case()
    options.update(change)
    before = pa_mlir.compiled_program_count()
    with pytest.raises(ValueError, match=message):
        pa_mlir.decode(**case, **options)
    assert pa_mlir.compiled_program_count() == before


def test_a_wrapping_config_field_is_refused_and_never_cached():
    before = pa_mlir.compile_cache_size()
    with pytest.raises(ValueError,
                       match=r"head_dim = 18446744073709551680 does not fit"):
        pa_mlir.compile(head_dim=WRAPS + 64)
    with pytest.raises(ValueError, match=r"budget = \d+ does not fit"):
        pa_mlir.DecodeConfig(budget=WRAPS + 1)
    assert pa_mlir.compile_cache_size() == before
    with pytest.raises(ValueError, match=r"does not fit in int64"):
        pa_mlir.DecodeConfig(head_dim=64).plan_capacity(WRAPS + 3)


def _binding_structures():
    """Every ctypes structure class the bindings define."""
    import ctypes
    from pa_mlir import _capi, _compile_capi, _emulator_capi, _ffi, \
        _runtime_capi
    found = set()
    for module in (_ffi, _capi, _compile_capi, _emulator_capi,
                   _runtime_capi):
        for value in vars(module).values():
            if (isinstance(value, type) and issubclass(value, ctypes.Structure)
                    and value.__module__ == module.__name__
                    and "_fields_" in vars(value)):
                found.add(value)
    return sorted(found, key=lambda cls: cls.__qualname__)


def test_every_binding_structure_range_checks_its_integer_fields():
    import ctypes
    from pa_mlir import _ffi
    structures = _binding_structures()
    assert len(structures) >= 8
    checked_fields = 0
    for structure in structures:
        assert issubclass(structure, _ffi.CheckedStructure), structure
        for name, ctype, *_ in structure._fields_:
            if ctype not in (ctypes.c_int32, ctypes.c_int64, ctypes.c_uint64):
                continue
            instance = structure()
            low = -2**63 if ctype is ctypes.c_int64 else (
                -2**31 if ctype is ctypes.c_int32 else 0)
            high = {ctypes.c_int64: 2**63 - 1, ctypes.c_int32: 2**31 - 1,
                    ctypes.c_uint64: 2**64 - 1}[ctype]
            setattr(instance, name, high)
            assert getattr(instance, name) == high
            for bad in (high + 1, low - 1, high + WRAPS):
                with pytest.raises(ValueError, match=f"{name} = "):
                    setattr(instance, name, bad)
                with pytest.raises(ValueError, match=f"{name} = "):
                    structure(**{name: bad})
            with pytest.raises(ValueError, match=f"{name} must be an integer"):
                setattr(instance, name, True)
            checked_fields += 1
    assert checked_fields >= 25


def test_integer_function_arguments_are_range_checked():
    import ctypes
    from pa_mlir import _compile_capi, _runtime_capi
    config = pa_mlir.DecodeConfig(head_dim=64).to_c()
    assert _compile_capi.plan_capacity(config, 3) > 0
    with pytest.raises(ValueError, match="does not fit in int64"):
        _compile_capi.plan_capacity(config, WRAPS + 3)
    with pytest.raises(ValueError, match=r"an operand size = \d+ does not fit"):
        _runtime_capi._sizes((4, WRAPS + 4))


def test_bad_shapes_ranks_and_types_are_named():
    case, options = small_case()
    n, hkv, dx, p, x = case["key_cache"].shape
    bad_arrays = [
        (dict(query=case["query"][0]), "query must be 3-D"),
        (dict(query=case["query"].astype(np.float16)), "query must have dtype"),
        (dict(query=case["query"].tolist()), "query must be a numpy array"),
        (dict(key_cache=np.zeros((n, hkv, p, 64), np.uint8)),
         "non-packed 4-D key cache"),
        (dict(key_cache=case["key_cache"][None]), "key_cache must be 4 or 5-D"),
        (dict(key_cache=case["key_cache"].view(np.int8)),
         "key_cache must have dtype uint8"),
        (dict(value_cache=case["value_cache"][0]), "value_cache must be 4-D"),
        (dict(value_cache=np.zeros((n, hkv, 64, p + 1), np.uint8)),
         "value_cache must have shape"),
        (dict(key_cache=np.zeros((n, hkv, dx, p, x + 1), np.uint8)),
         "key_cache must have shape"),
        (dict(block_tables=case["block_tables"][0]), "block_tables must be 2-D"),
        (dict(block_tables=case["block_tables"].astype(np.float32)),
         "block_tables must be an integer numpy array"),
        (dict(block_tables=case["block_tables"].astype(np.int64) + 2**40),
         "block_tables does not fit in int32"),
        (dict(context_lengths=np.array([[20]], np.int32)),
         "context_lengths must be 1-D"),
        (dict(context_lengths=np.array([20, 20], np.int32),
              query=np.concatenate([case["query"], case["query"]])),
         "block_tables has 1 rows but context_lengths has 2 sequences"),
        (dict(context_lengths=np.array([2**40])), "does not fit in int32"),
        (dict(query=np.zeros((1, 7, 64), np.float32),
              key_cache=np.zeros((n, 2, dx, p, x), np.uint8),
              value_cache=np.zeros((n, 2, 64, p), np.uint8)),
         r"query heads \(7\) must be a multiple of KV heads \(2\)"),
        (dict(query=np.zeros((1, 0, 64), np.float32)),
         "number of query heads must be >= 1"),
        (dict(query=np.zeros((1, 8, 0), np.float32)), "head dim must be >= 1"),
    ]
    for change, message in bad_arrays:
        with pytest.raises(ValueError, match=message):
            pa_mlir.decode(**dict(case, **change), **options)


@pytest.mark.parametrize("length, page_id, message", [
    (-1, None, "is outside"),
    (-2**31, None, "is outside"),
    (2**31 - 1, None, "is outside"),
    (20, -1, "is not a page of the pool"),
    (20, 2**31 - 1, "is not a page of the pool"),
])
def test_hostile_lengths_and_page_ids_are_refused(length, page_id, message):
    case, options = small_case()
    case["context_lengths"] = np.array([length], np.int32)
    if page_id is not None:
        case["block_tables"] = case["block_tables"].copy()
        case["block_tables"][0, 1] = page_id
    with pytest.raises(ValueError, match=message):
        pa_mlir.decode(**case, **options)


def test_scales_and_sinks_of_the_wrong_kind_are_named():
    case, options = small_case()
    with pytest.raises(ValueError, match="k_scale must be 3-D|both be per-tensor"):
        pa_mlir.decode(**case, **options, k_scale=np.ones((2, 2), np.float32),
                       v_scale=np.ones((2, 2), np.float32))
    with pytest.raises(ValueError, match="k_scale must have dtype float32"):
        n, hkv, _, p, _ = case["key_cache"].shape
        pa_mlir.decode(**case, **options, k_scale=np.ones((n, hkv, p)),
                       v_scale=np.ones((n, hkv, p)))
    with pytest.raises(ValueError, match="sinks must be a floating-point"):
        pa_mlir.decode(**case, **options, sinks=np.zeros(8, np.int32))
    with pytest.raises(ValueError, match="sinks must have shape"):
        pa_mlir.decode(**case, **options, sinks=np.zeros((8, 1), np.float32))


def test_empty_batch_and_empty_pool_are_valid():
    case, options = small_case()
    hq, d = case["query"].shape[1:]
    empty = dict(query=np.zeros((0, hq, d), np.float32),
                 key_cache=case["key_cache"][:0],
                 value_cache=case["value_cache"][:0],
                 block_tables=np.zeros((0, 1), np.int32),
                 context_lengths=np.zeros(0, np.int32))
    assert pa_mlir.decode(**empty, **options).shape == (0, hq, d)
    # Sequences of length 0 need no page at all.
    nothing = dict(empty, query=np.zeros((2, hq, d), np.float32),
                   block_tables=np.full((2, 3), -7, np.int32),
                   context_lengths=np.zeros(2, np.int32))
    out = pa_mlir.decode(**nothing, **options)
    assert np.array_equal(out, np.zeros_like(out))


def test_verify_text_survives_hostile_text():
    for text in ["", "\x00", "}" * 1000, "func.func @f(%a: memref<-1xf32>)",
                 "\"pa.decode\"() : () -> ()", "\xff\xfe garbage"]:
        try:
            pa_mlir.verify_text(text)
        except ValueError as error:
            assert str(error)
    # Deep enough to overflow MLIR's parser stack: refused before parsing.
    deep = "func.func @f() attributes {a = " + "[" * 50000 + "]" * 50000 + "}"
    with pytest.raises(ValueError, match="nested more than 256 levels deep"):
        pa_mlir.verify_text(deep)


def test_module_text_with_a_nul_is_refused():
    # The C API takes the text with its length: a NUL is an error, not the
    # end of the text (ctypes passed a C string before, and the text after
    # the NUL was silently dropped).
    text = "func.func @f() { return }\x00garbage {"
    with pytest.raises(ValueError, match="NUL byte at offset 25"):
        pa_mlir.verify_text(text)
    with pytest.raises(ValueError, match="NUL byte at offset 25"):
        pa_mlir.compile(mlir=text, chip="gfx950")


def test_deep_text_is_a_diagnostic_not_a_crash():
    # A 7.6 KB affine expression of unary minus signs crashed verify_text
    # and compile(mlir=...) (SIGSEGV) before; 255 nested modules need more
    # stack than a small thread has, the compiler runs on its own.
    minus = ("#map = affine_map<(d0) -> (" + "- " * 3800 + "d0)>\n"
             "func.func @f() { return }")
    for call in (pa_mlir.verify_text,
                 lambda text: pa_mlir.compile(mlir=text, chip="gfx950")):
        with pytest.raises(ValueError, match="more than 256 minus signs"):
            call(minus)
    nested = "module {" * 255 + "}" * 255
    pa_mlir.verify_text(nested)


# ---------------------------------------------------------------------------
# Garbage where no row looks; determinism
# ---------------------------------------------------------------------------

GARBAGE = {"e4m3fn": [0x7F, 0xFF, 0x7E], "e4m3fnuz": [0x80, 0x7F],
           "bf16": [0x7FC0, 0x7F80, 0xFF80]}


def visible_tokens(lengths, query_length, window):
    """(sequence, token) pairs some row sees."""
    for b, length in enumerate(lengths):
        first = (max(0, length - (query_length - 1) - window)
                 if window > 0 else 0)
        for t in range(first, length):
            yield b, t


# The emulator runs the AMD kernels and checks every access against the
# buffers' bounds; it joins the host where the package offers it.
TARGETS = [target for target in ("host", "emulate")
           if target in pa_mlir.TARGETS]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("kv_dtype, v_layout, window, query_length", [
    ("e4m3fn", "plain", 0, 1),
    ("bf16", "transposed", 40, 2),
    ("e4m3fnuz", "transposed", 100, 3),
])
def test_garbage_in_unused_bytes_and_table_entries_changes_nothing(
        kv_dtype, v_layout, window, query_length, target):
    rng = np.random.default_rng(5)
    lengths = [37, 300, 1, 0, 130]
    case, options = make_case(rng, hq=4, hkv=2, d=64, p=16,
                              query_length=query_length, kv_dtype=kv_dtype,
                              v_layout=v_layout, lengths=lengths,
                              scales="per_token", garbage=False)
    options.update(sliding_window=window, target=target)
    if kv_dtype == "e4m3fnuz":
        options["chip"] = "gfx942"
    clean = pa_mlir.decode(**case, **options, return_partials=True)
    assert np.all(np.isfinite(clean.output))

    p, pack = 16, (8 if kv_dtype == "bf16" else 16)
    used = np.zeros(case["key_cache"].shape[0] * p, bool)
    tables = case["block_tables"]
    for b, t in visible_tokens(lengths, query_length, window):
        used[tables[b, t // p] * p + t % p] = True
    patterns = GARBAGE[kv_dtype]
    key, value = case["key_cache"].copy(), case["value_cache"].copy()
    k_scale, v_scale = options["k_scale"].copy(), options["v_scale"].copy()
    for index in np.flatnonzero(~used):
        page, slot = divmod(index, p)
        bits = patterns[index % len(patterns)]
        key[page, :, :, slot, :] = bits
        if v_layout == "plain":
            value[page, :, :, slot] = bits
        else:
            value[page, :, slot // pack, :, slot % pack] = bits
        k_scale[page, :, slot] = np.nan
        v_scale[page, :, slot] = np.inf
    tables = tables.copy()
    for b, length in enumerate(lengths):
        first = (max(0, length - (query_length - 1) - window) // p
                 if window > 0 else 0)
        end = (length + p - 1) // p
        for i in range(tables.shape[1]):
            if i < first or i >= end:
                tables[b, i] = [-1, 2**31 - 1, -2**31][(b + i) % 3]
    dirty = pa_mlir.decode(
        **dict(case, key_cache=key, value_cache=value, block_tables=tables),
        **dict(options, k_scale=k_scale, v_scale=v_scale),
        return_partials=True)
    for name in clean._fields:
        assert np.array_equal(getattr(clean, name).view(np.uint8),
                              getattr(dirty, name).view(np.uint8)), name


def test_nan_sink_reaches_only_its_head():
    case, options = small_case(lengths=[20, 0])
    sinks = np.zeros(8, np.float32)
    clean = pa_mlir.decode(**case, **options, sinks=sinks)
    sinks[3] = np.nan
    dirty = pa_mlir.decode(**case, **options, sinks=sinks)
    assert np.all(np.isnan(dirty[0, 3]))
    others = [h for h in range(8) if h != 3]
    assert np.array_equal(dirty[0, others], clean[0, others])
    # A row that sees nothing is exactly 0, whatever its sink.
    assert np.array_equal(dirty[1], np.zeros_like(dirty[1]))


@pytest.mark.parametrize("target", TARGETS)
def test_same_inputs_give_the_same_bits(target):
    rng = np.random.default_rng(9)
    case, options = make_case(rng, hq=8, hkv=2, d=64, p=16, query_length=2,
                              kv_dtype="e4m3fn", v_layout="plain",
                              lengths=[1500, 3000, 7, 0], scales="per_token",
                              sinks=True)
    options["target"] = target
    first = pa_mlir.decode(**case, **options, return_partials=True)
    assert (first.reduce_info[:, 1] > 1).any()  # split partitions
    for _ in range(2):
        again = pa_mlir.decode(**case, **options, return_partials=True)
        for name in first._fields:
            assert np.array_equal(getattr(first, name).view(np.uint8),
                                  getattr(again, name).view(np.uint8)), name
