"""bf16 / f16 values as uint16 bit patterns, in numpy only.

numpy has no bfloat16, so rounding float32 to bf16 is done on the bits
(round to nearest, ties to even; overflow to infinity; NaN stays NaN).
float16 uses numpy's own IEEE conversion, which rounds the same way.
"""

import numpy as np

QUERY_DTYPES = ("bf16", "f16")

# A quiet NaN of each type, to poison outputs before a run.
NAN_BITS = {"bf16": np.uint16(0x7FC0), "f16": np.uint16(0x7E00)}


def _check(dtype):
    if dtype not in QUERY_DTYPES:
        raise ValueError(
            f"dtype must be one of {', '.join(QUERY_DTYPES)}, got {dtype!r}")


def float32_to_bits(values, dtype):
    """float32 values rounded (RNE) to `dtype`, as uint16 bit patterns."""
    _check(dtype)
    values = np.asarray(values, dtype=np.float32)
    if dtype == "f16":
        with np.errstate(over="ignore"):  # overflow to infinity is intended
            return values.astype(np.float16).view(np.uint16)
    # uint64 constants throughout: numpy 1.x turns uint64 op int into float.
    u64 = np.uint64
    bits = values.view(np.uint32).astype(u64)
    # Add half an ulp of bf16 minus one, plus the lowest kept bit: ties go to
    # the even neighbour, and a carry into the exponent rounds up correctly
    # (the largest finite values carry into infinity).
    lowest_kept = (bits >> u64(16)) & u64(1)
    rounded = ((bits + u64(0x7FFF) + lowest_kept) >> u64(16)) & u64(0xFFFF)
    sign = (bits >> u64(16)) & u64(0x8000)
    rounded = np.where(np.isnan(values), sign | u64(0x7FC0), rounded)
    return rounded.astype(np.uint16)


def bits_to_float32(bits, dtype):
    """uint16 bit patterns of `dtype` as float32 (exact)."""
    _check(dtype)
    bits = np.asarray(bits, dtype=np.uint16)
    if dtype == "f16":
        return bits.view(np.float16).astype(np.float32)
    return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)


def round_to(values, dtype):
    """float32 values rounded to `dtype` and returned as float32."""
    return bits_to_float32(float32_to_bits(values, dtype), dtype)
