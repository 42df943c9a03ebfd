"""The operands of a compiled decode program, by name: shapes (the spec's
table, include/pa/Runtime/DecodeOperands.h), element sizes and which are
inputs. decode() checks the caller's arrays against it; the cuda target
describes its buffers to the runtime with it.
"""

import collections

Operand = collections.namedtuple(
    "Operand", ["name", "shape", "pattern", "element_bytes", "read_only"])


def pooled(operand):
    """Whether dim 0 of `operand` is the pool's page count N (the caches
    of every layout, per-token scales): its pattern's dims start with N
    ("[N, Hkv, P]", "nhd [N, P, Hkv, D]")."""
    return operand.pattern.partition("[")[2].startswith("N,")


def operand_table(config, batch, num_pages, max_pages, capacity):
    """Every operand of a run of `config` (a DecodeConfig) in @pa_decode's
    argument order, optional ones left out when the configuration has
    none."""
    c = config
    hq, hkv, d, p, q = (c.num_query_heads, c.num_kv_heads, c.head_dim,
                        c.page_size, c.query_length)
    kv = 2 if c.kv_dtype == "bf16" else 1
    x = 16 // kv
    rows = batch * q
    r = q * (hq // hkv)
    table = [Operand("query", (rows, hq, d), "[B*Q, Hq, D]", 2, True)]
    kv_layout = getattr(c, "kv_layout", "packed")
    if kv_layout in ("nhd", "hnd"):
        shape, pattern = (((num_pages, p, hkv, d), "nhd [N, P, Hkv, D]")
                          if kv_layout == "nhd" else
                          ((num_pages, hkv, p, d), "hnd [N, Hkv, P, D]"))
        table.append(Operand("key_cache", shape, pattern, kv, True))
        table.append(Operand("value_cache", shape, pattern, kv, True))
    else:
        if c.key_layout == "packed":
            table.append(Operand("key_cache", (num_pages, hkv, d // x, p, x),
                                 "[N, Hkv, D/x, P, x]", kv, True))
        else:
            table.append(Operand("key_cache", (num_pages, hkv, p, d),
                                 "[N, Hkv, P, D]", kv, True))
        if c.v_layout == "plain":
            table.append(Operand("value_cache", (num_pages, hkv, d, p),
                                 "[N, Hkv, D, P]", kv, True))
        else:
            table.append(Operand("value_cache", (num_pages, hkv, p // x, d, x),
                                 "[N, Hkv, P/x, D, x]", kv, True))
    table.append(Operand("block_tables", (batch, max_pages),
                         "[B, max_pages]", 4, True))
    table.append(Operand("context_lengths", (batch,), "[B]", 4, True))
    if c.scale != "none":
        shape, pattern = (((1,), "[1]") if c.scale == "per_tensor"
                          else ((num_pages, hkv, p), "[N, Hkv, P]"))
        table.append(Operand("k_scale", shape, pattern, 4, True))
        table.append(Operand("v_scale", shape, pattern, 4, True))
    if c.sinks:
        table.append(Operand("sinks", (hq,), "[Hq]", 4, True))
    if c.alibi:
        table.append(Operand("alibi_slopes", (hq,), "[Hq]", 4, True))
    table += [
        Operand("work_info", (capacity, 4), "[capacity, 4]", 4, False),
        Operand("reduce_info", (batch, 2), "[B, 2]", 4, False),
        Operand("exp_sums", (hkv, capacity, r), "[Hkv, capacity, Q*G]", 4,
                False),
        Operand("max_logits", (hkv, capacity, r), "[Hkv, capacity, Q*G]", 4,
                False),
        Operand("tmp_out", (hkv, capacity, r, d), "[Hkv, capacity, Q*G, D]",
                4, False),
        Operand("output", (rows, hq, d), "[B*Q, Hq, D]", 2, False),
    ]
    if c.return_lse:
        table.append(Operand("lse", (rows, hq), "[B*Q, Hq]", 4, False))
    return table
