"""The operands of a compiled decode program, by name: shapes (the spec's
table, as the runtime library holds it: include/pa/Runtime/DecodeOperands.h
through paDecodeOperandTable), element sizes and which are inputs.
decode() checks the caller's arrays against it; the cuda target describes
its buffers to the runtime with it.
"""

import collections

from . import _runtime_capi

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
    none: the runtime library's table (paDecodeOperandTable), the one the
    compiler builds its signature from."""
    return [Operand(name, shape, pattern, element_bytes, read_only)
            for name, pattern, shape, element_bytes, read_only in
            _runtime_capi.decode_operand_table(config.to_c(), batch,
                                               num_pages, max_pages,
                                               capacity)]
