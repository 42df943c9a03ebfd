"""pa_mlir.decode(target="emulate"): the AMD kernels of each chip run by the
wave64 emulator, against the float64 reference of test_decode.py.
"""

import numpy as np
import pytest

import pa_mlir
from test_decode import assert_close, make_case, reference_decode

CHIP_FP8 = {"gfx942": "e4m3fnuz", "gfx950": "e4m3fn"}


@pytest.mark.parametrize("chip", sorted(CHIP_FP8))
@pytest.mark.parametrize("kv", ["fp8", "bf16"])
def test_emulated_decode_matches_the_reference(chip, kv):
    rng = np.random.default_rng(11)
    kv_dtype = CHIP_FP8[chip] if kv == "fp8" else "bf16"
    case, options = make_case(
        rng, hq=8, hkv=2, d=64, p=16, query_length=2, kv_dtype=kv_dtype,
        v_layout="transposed", lengths=[0, 1, 40, 300], scales="per_tensor",
        sinks=True)
    out = pa_mlir.decode(**case, **options, chip=chip, target="emulate")
    reference_options = {k: v for k, v in options.items()
                         if k != "query_dtype"}
    ref = reference_decode(**case, **reference_options)
    assert_close(out, ref, kv_dtype)


def test_emulate_is_a_registered_target():
    assert "emulate" in pa_mlir.targets.names()


def test_emulate_needs_an_amd_chip():
    rng = np.random.default_rng(3)
    case, options = make_case(
        rng, hq=4, hkv=1, d=64, p=16, query_length=1, kv_dtype="e4m3fn",
        v_layout="plain", lengths=[5])
    with pytest.raises(ValueError, match="AMD"):
        pa_mlir.decode(**case, **options, chip="sm_90a", target="emulate")


# nhd / hnd caches (kv_layout) on the AMD kernels: a token pool (P = 1), a
# page spanning tiles (P = 1024), and nhd K and V as views of one combined
# [N, 2, P, Hkv, D] cache.
LAYOUT_CASES = {
    "nhd-p1": dict(kv_layout="nhd", p=1, kv="fp8", lengths=[0, 1, 300],
                   scales="per_token", combined=False),
    "hnd-p1024": dict(kv_layout="hnd", p=1024, kv="bf16",
                      lengths=[1, 1023, 1300], scales="none", combined=False),
    "nhd-p16-combined": dict(kv_layout="nhd", p=16, kv="fp8",
                             lengths=[5, 40], scales="per_tensor",
                             combined=True),
}


@pytest.mark.parametrize("chip", sorted(CHIP_FP8))
@pytest.mark.parametrize("name", sorted(LAYOUT_CASES))
def test_emulated_unpacked_layouts_match_the_reference(chip, name):
    from test_decode import layout_case
    spec = LAYOUT_CASES[name]
    rng = np.random.default_rng(21 + sorted(LAYOUT_CASES).index(name))
    kv_dtype = CHIP_FP8[chip] if spec["kv"] == "fp8" else "bf16"
    inputs, options, ref = layout_case(rng, spec, kv_dtype, d=64)
    out = pa_mlir.decode(**inputs, **options, chip=chip, target="emulate",
                         kv_layout=spec["kv_layout"])
    assert_close(out, ref, kv_dtype)
