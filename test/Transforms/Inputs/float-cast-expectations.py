#!/usr/bin/env python3
"""Prints the CHECK lines of expand-float-casts-run.mlir that hold values
computed from the format definitions (independently of the pass): the f32
bit patterns of all 256 patterns of both fp8 flavours, and checksums of the
f32 bit patterns of all 65536 bf16 and f16 patterns.

    python3 test/Transforms/Inputs/float-cast-expectations.py
"""
import struct

F32_QUIET_NAN = 0x7FC00000


def f32_bits(value):
    return struct.unpack("<I", struct.pack("<f", value))[0]


def decode_to_f32_bits(bits, exponent_bits, mantissa_bits, bias, specials):
    """f32 bit pattern of the small-float pattern `bits` (NaN: quiet NaN)."""
    sign = (bits >> (exponent_bits + mantissa_bits)) & 1
    exponent = (bits >> mantissa_bits) & ((1 << exponent_bits) - 1)
    mantissa = bits & ((1 << mantissa_bits) - 1)
    top_exponent = (1 << exponent_bits) - 1
    sign_bit = sign << 31
    if specials == "fn" and exponent == top_exponent and mantissa == (1 << mantissa_bits) - 1:
        return sign_bit | F32_QUIET_NAN
    if specials == "fnuz" and bits == 1 << (exponent_bits + mantissa_bits):
        return F32_QUIET_NAN
    if specials == "ieee" and exponent == top_exponent:
        if mantissa == 0:
            return sign_bit | 0x7F800000
        return sign_bit | F32_QUIET_NAN | (mantissa << (23 - mantissa_bits))
    if exponent == 0:
        magnitude = mantissa * 2.0 ** (1 - bias - mantissa_bits)
    else:
        magnitude = (1 + mantissa / 2.0**mantissa_bits) * 2.0 ** (exponent - bias)
    return f32_bits(-magnitude if sign else magnitude)


def as_i32(u):
    return u - (1 << 32) if u >= 1 << 31 else u


def as_i64(u):
    return u - (1 << 64) if u >= 1 << 63 else u


FP8 = {"f8E4M3FN": (4, 3, 7, "fn"), "f8E4M3FNUZ": (4, 3, 8, "fnuz")}
WIDE = {"bf16": (8, 7, 127, "ieee"), "f16": (5, 10, 15, "ieee")}

for name, fmt in FP8.items():
    print(f"// {name}: f32 bits of patterns 16*row + 0..15")
    print(f"// CHECK-LABEL: {name} decode table:")
    for row in range(16):
        values = [as_i32(decode_to_f32_bits(16 * row + lane, *fmt)) for lane in range(16)]
        print("// CHECK-NEXT: ( " + ", ".join(str(v) for v in values) + " )")

for name, fmt in WIDE.items():
    checksum = 0
    for pattern in range(1 << 16):
        checksum = (checksum + decode_to_f32_bits(pattern, *fmt) * (pattern + 1)) % (1 << 64)
    print(f"// CHECK: {name} decode checksum: {as_i64(checksum)}")
