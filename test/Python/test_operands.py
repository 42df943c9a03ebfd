"""The operand table Python reads (pa_mlir._operands.operand_table, the
runtime library's paDecodeOperandTable) against the spec's table written
out here independently, over every layout, scale mode, optional operand
and dtype; and the library's refusals."""

import itertools

import pytest

from pa_mlir import _operands
from pa_mlir.config import DecodeConfig


def spec_table(c, batch, pages, max_pages, capacity):
    """(name, shape, element bytes, read-only) of every operand of the
    spec's table for `c`, in @pa_decode's argument order."""
    hq, hkv, d, p, q = (c.num_query_heads, c.num_kv_heads, c.head_dim,
                        c.page_size, c.query_length)
    kv = 2 if c.kv_dtype == "bf16" else 1
    x = 16 // kv
    rows, r = batch * q, q * (hq // hkv)
    caches = {
        "nhd": [(pages, p, hkv, d)] * 2,
        "hnd": [(pages, hkv, p, d)] * 2,
        "packed": [(pages, hkv, d // x, p, x) if c.key_layout == "packed"
                   else (pages, hkv, p, d),
                   (pages, hkv, d, p) if c.v_layout == "plain"
                   else (pages, hkv, p // x, d, x)],
    }[c.kv_layout]
    table = [("query", (rows, hq, d), 2, True),
             ("key_cache", caches[0], kv, True),
             ("value_cache", caches[1], kv, True),
             ("block_tables", (batch, max_pages), 4, True),
             ("context_lengths", (batch,), 4, True)]
    if c.scale != "none":
        shape = (1,) if c.scale == "per_tensor" else (pages, hkv, p)
        table += [("k_scale", shape, 4, True), ("v_scale", shape, 4, True)]
    if c.sinks:
        table.append(("sinks", (hq,), 4, True))
    if c.alibi:
        table.append(("alibi_slopes", (hq,), 4, True))
    table += [("work_info", (capacity, 4), 4, False),
              ("reduce_info", (batch, 2), 4, False),
              ("exp_sums", (hkv, capacity, r), 4, False),
              ("max_logits", (hkv, capacity, r), 4, False),
              ("tmp_out", (hkv, capacity, r, d), 4, False),
              ("output", (rows, hq, d), 2, False)]
    if c.return_lse:
        table.append(("lse", (rows, hq), 4, False))
    return table


def configs():
    layouts = [("packed", "packed", "plain"), ("packed", "packed",
                                                "transposed"),
               ("packed", "unpacked", "plain"), ("nhd", "packed", "plain"),
               ("hnd", "packed", "plain")]
    for (kv_layout, key, v), scale, kv, flags in itertools.product(
            layouts, ["none", "per_tensor", "per_token"],
            ["e4m3fn", "e4m3fnuz", "bf16"], range(8)):
        yield DecodeConfig(num_query_heads=16, num_kv_heads=4, head_dim=80,
                           page_size=32, query_length=3, kv_dtype=kv,
                           key_layout=key, v_layout=v, kv_layout=kv_layout,
                           scale=scale, sinks=bool(flags & 1),
                           alibi=bool(flags & 2), return_lse=bool(flags & 4))


def test_the_table_is_the_spec_table():
    checked = 0
    for config in configs():
        got = _operands.operand_table(config, 5, 41, 9, 37)
        assert [(op.name, op.shape, op.element_bytes, op.read_only)
                for op in got] == spec_table(config, 5, 41, 9, 37), config
        # Caches and per-token scales follow the pool (dim 0 is N).
        assert {op.name for op in got if _operands.pooled(op)} == (
            {"key_cache", "value_cache"} |
            ({"k_scale", "v_scale"} if config.scale == "per_token" else set()))
        checked += 1
    assert checked == 5 * 3 * 3 * 8


@pytest.mark.parametrize("change, message", [
    (dict(num_kv_heads=0), "must be >= 1"),
    (dict(num_query_heads=6, num_kv_heads=4), "multiple of numKVHeads"),
    (dict(page_size=0), "must be >= 1"),
])
def test_a_config_without_a_table_is_refused(change, message):
    with pytest.raises(ValueError, match=message):
        _operands.operand_table(DecodeConfig(**change), 1, 1, 1, 1)


def test_negative_dims_are_refused():
    with pytest.raises(ValueError, match="must be >= 0"):
        _operands.operand_table(DecodeConfig(), -1, 1, 1, 1)


def test_sizes_that_overflow_are_refused():
    # B * Q rows past 2^63 (an undefined product in C++, never computed).
    with pytest.raises(ValueError, match="below 2\\^63"):
        _operands.operand_table(DecodeConfig(query_length=4), 2**62, 1, 1, 1)
    with pytest.raises(ValueError, match="below 2\\^63"):
        _operands.operand_table(
            DecodeConfig(query_length=2**62, num_query_heads=8), 1, 1, 1, 1)
