"""pa_mlir.DecodeConfig: the static configuration of a decode program.

Everything a compiled program fixes (include/pa/API/DecodeConfig.h); batch
size, context lengths, page-pool size and block-table width stay dynamic.
The fields are checked for type and spelling here; whether the dialect
supports a combination (head dims, page sizes, GQA ratios, the chip's fp8
flavour) is the verifier's to say, at compile time.
"""

import ctypes
import math
import dataclasses
from typing import Optional

from . import _capi, _compile_capi, _ffi

SCALES = tuple(_capi.SCALE_MODES)
COMPUTE_TYPES = {"fp8": 0, "bf16": 1}

_INTEGER_FIELDS = ("num_query_heads", "num_kv_heads", "head_dim", "page_size",
                   "query_length", "sliding_window")
_CHOICES = {
    "kv_dtype": tuple(_capi.KV_TYPES),
    "query_dtype": tuple(_capi.QUERY_TYPES),
    "key_layout": tuple(_capi.KEY_LAYOUTS),
    "v_layout": tuple(_capi.V_LAYOUTS),
    "kv_layout": tuple(_capi.KV_LAYOUTS),
    "scale": SCALES,
}


@dataclasses.dataclass(frozen=True)
class DecodeConfig:
    """A decode program's static configuration (hashable: a cache key).

    scale: "none", "per_tensor" ([1] scales) or "per_token" ([N, Hkv, P]).
    sliding_window: 0 or -1 for none. softmax_scale: None for D^-0.5.
    logits_soft_cap: 0.0 for none; cap > 0 makes every score
    cap * tanh(score / cap).
    compute: None (fp8 for fp8 caches, else bf16), "fp8" or "bf16".
    budget / max_partitions: None for the chip's defaults.
    kv_layout: "packed" (K packed, V by v_layout), "nhd" (K and V
    [N, P, Hkv, D]) or "hnd" (K and V [N, Hkv, P, D]).
    """

    num_query_heads: int = 8
    num_kv_heads: int = 1
    head_dim: int = 128
    page_size: int = 16
    query_length: int = 1
    kv_dtype: str = "e4m3fn"
    query_dtype: str = "bf16"
    key_layout: str = "packed"
    v_layout: str = "plain"
    scale: str = "none"
    sliding_window: int = 0
    softmax_scale: Optional[float] = None
    sinks: bool = False
    compute: Optional[str] = None
    chip: str = "gfx950"
    budget: Optional[int] = None
    max_partitions: Optional[int] = None
    logits_soft_cap: float = 0.0
    kv_layout: str = "packed"
    return_lse: bool = False
    alibi: bool = False

    def __post_init__(self):
        # Python ints of the int64 fields of PaDecodeConfig (the key of the
        # compile caches must be what the compiler sees).
        for name in _INTEGER_FIELDS:
            object.__setattr__(self, name, _ffi.checked_int(
                getattr(self, name), ctypes.c_int64, name))
        for name in ("budget", "max_partitions"):
            value = getattr(self, name)
            if value is None:
                continue
            value = _ffi.checked_int(value, ctypes.c_int64, name)
            if value < 1:
                raise ValueError(f"{name} must be None or an integer >= 1, "
                                 f"got {value!r}")
            object.__setattr__(self, name, value)
        for name, allowed in _CHOICES.items():
            value = getattr(self, name)
            if value not in allowed:
                raise ValueError(f"{name} must be one of "
                                 f"{', '.join(allowed)}, got {value!r}")
        if self.compute is not None and self.compute not in COMPUTE_TYPES:
            raise ValueError(f"compute must be None, fp8 or bf16, got "
                             f"{self.compute!r}")
        if not isinstance(self.alibi, bool):
            raise ValueError(f"alibi must be True or False, got "
                             f"{self.alibi!r}")
        if not isinstance(self.return_lse, bool):
            raise ValueError(f"return_lse must be True or False, got "
                             f"{self.return_lse!r}")
        if not isinstance(self.sinks, bool):
            raise ValueError(f"sinks must be True or False, got {self.sinks!r}")
        if not isinstance(self.chip, str) or not self.chip or "\0" in self.chip:
            raise ValueError(f"chip must be a chip name such as 'gfx950', got "
                             f"{self.chip!r}")
        if self.softmax_scale is not None:
            # NaN and infinities are allowed: every row that sees a token
            # is then NaN (docs/semantics.md, "Non-finite inputs").
            if (not isinstance(self.softmax_scale, (int, float))
                    or isinstance(self.softmax_scale, bool)):
                raise ValueError(f"softmax_scale must be None or a number, "
                                 f"got {self.softmax_scale!r}")
            object.__setattr__(self, "softmax_scale", float(self.softmax_scale))
        if (not isinstance(self.logits_soft_cap, (int, float))
                or isinstance(self.logits_soft_cap, bool)
                or not math.isfinite(self.logits_soft_cap)
                or self.logits_soft_cap < 0):
            raise ValueError(f"logits_soft_cap must be 0.0 (none) or a finite "
                             f"positive number, got {self.logits_soft_cap!r}")
        object.__setattr__(self, "logits_soft_cap", float(self.logits_soft_cap))

    def replace(self, **changes):
        """A copy with `changes` applied (checked again)."""
        return dataclasses.replace(self, **changes)

    def to_c(self):
        """The PaDecodeConfig of include/pa-c/Decode.h."""
        c = _capi.PaDecodeConfig()
        c.numQueryHeads = self.num_query_heads
        c.numKVHeads = self.num_kv_heads
        c.headDim = self.head_dim
        c.pageSize = self.page_size
        c.queryLength = self.query_length
        c.kvType = _capi.KV_TYPES[self.kv_dtype]
        c.queryType = _capi.QUERY_TYPES[self.query_dtype]
        c.keyLayout = _capi.KEY_LAYOUTS[self.key_layout]
        c.vLayout = _capi.V_LAYOUTS[self.v_layout]
        c.scaleMode = _capi.SCALE_MODES[self.scale]
        c.computeType = (COMPUTE_TYPES[self.compute] if self.compute
                         else _capi.COMPUTE_DEFAULT)
        c.slidingWindow = self.sliding_window
        c.hasSoftmaxScale = self.softmax_scale is not None
        c.softmaxScale = self.softmax_scale or 0.0
        c.hasSinks = self.sinks
        c.chip = self.chip.encode("utf-8")
        c.budget = self.budget or 0
        c.maxPartitions = self.max_partitions or 0
        c.logitsSoftCap = self.logits_soft_cap
        c.kvLayout = _capi.KV_LAYOUTS[self.kv_layout]
        c.returnLse = self.return_lse
        c.hasAlibi = self.alibi
        return c

    @classmethod
    def from_c(cls, c):
        """The DecodeConfig of a PaDecodeConfig (what decode() hands to
        target factories); ValueError for values this class refuses."""
        def name_of(table, value, field):
            for name, number in table.items():
                if number == value:
                    return name
            raise ValueError(f"{field} {value} is not a known enumerator")

        return cls(
            num_query_heads=c.numQueryHeads, num_kv_heads=c.numKVHeads,
            head_dim=c.headDim, page_size=c.pageSize,
            query_length=c.queryLength,
            kv_dtype=name_of(_capi.KV_TYPES, c.kvType, "kvType"),
            query_dtype=name_of(_capi.QUERY_TYPES, c.queryType, "queryType"),
            key_layout=name_of(_capi.KEY_LAYOUTS, c.keyLayout, "keyLayout"),
            v_layout=name_of(_capi.V_LAYOUTS, c.vLayout, "vLayout"),
            scale=name_of(_capi.SCALE_MODES, c.scaleMode, "scaleMode"),
            sliding_window=c.slidingWindow,
            softmax_scale=c.softmaxScale if c.hasSoftmaxScale else None,
            sinks=bool(c.hasSinks),
            compute=(None if c.computeType == _capi.COMPUTE_DEFAULT else
                     name_of(COMPUTE_TYPES, c.computeType, "computeType")),
            chip=(c.chip or b"gfx950").decode("utf-8"),
            budget=c.budget or None, max_partitions=c.maxPartitions or None,
            logits_soft_cap=c.logitsSoftCap,
            kv_layout=name_of(_capi.KV_LAYOUTS, c.kvLayout, "kvLayout"),
            return_lse=bool(c.returnLse), alibi=bool(c.hasAlibi))

    def plan_capacity(self, batch):
        """Plan slots (work_info rows, partial-buffer capacity) for `batch`
        sequences: min(B * max_partitions, max(B, ceil(budget / Hkv)))."""
        if not isinstance(batch, int) or batch < 0:
            raise ValueError(f"batch must be an integer >= 0, got {batch!r}")
        return _compile_capi.plan_capacity(self.to_c(), batch)
