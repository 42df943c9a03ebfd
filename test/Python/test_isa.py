"""pa_mlir.decode(target="isa"): the code object each AMD chip ships run by
the instruction-level executor, against the float64 reference of
test_decode.py (fresh random inputs; decode poisons outputs and partials
with NaN before every run).
"""

import numpy as np
import pytest

import pa_mlir
from test_decode import assert_close, make_case, reference_decode, to_layout

CHIP_FP8 = {"gfx942": "e4m3fnuz", "gfx950": "e4m3fn"}


@pytest.mark.parametrize("chip", sorted(CHIP_FP8))
@pytest.mark.parametrize("kv", ["fp8", "bf16"])
def test_isa_decode_matches_the_reference(chip, kv):
    rng = np.random.default_rng()
    kv_dtype = CHIP_FP8[chip] if kv == "fp8" else "bf16"
    case, options = make_case(
        rng, hq=8, hkv=2, d=64, p=16, query_length=2, kv_dtype=kv_dtype,
        v_layout="transposed", lengths=[0, 1, 40, 300], scales="per_tensor",
        sinks=True)
    out = pa_mlir.decode(**case, **options, chip=chip, target="isa")
    reference_options = {k: v for k, v in options.items()
                         if k != "query_dtype"}
    ref = reference_decode(**case, **reference_options)
    assert_close(out, ref, kv_dtype)


@pytest.mark.parametrize("kv_layout", ["nhd", "hnd"])
def test_isa_reads_the_halves_of_a_combined_cache_in_place(kv_layout):
    """K and V as the halves of one [N, 2, ...] cache (numpy views, pages
    two pages apart) on gfx950's code object: the runtime's host operands
    carry their page strides (the device copy holds their span) into the
    kernel arguments, against the reference."""
    rng = np.random.default_rng()
    case, options = make_case(
        rng, hq=8, hkv=2, d=64, p=16, query_length=1, kv_dtype="e4m3fn",
        v_layout="plain", lengths=[1, 40, 100], scales="per_tensor")
    ref = reference_decode(**case, **{k: v for k, v in options.items()
                                      if k != "query_dtype"})
    key, value = to_layout(case["key_cache"], case["value_cache"], kv_layout)
    combined = np.stack([key, value], axis=1)
    out = pa_mlir.decode(**dict(case, key_cache=combined[:, 0],
                                value_cache=combined[:, 1]),
                         **options, chip="gfx950", target="isa",
                         kv_layout=kv_layout)
    assert_close(out, ref, "e4m3fn")


def test_isa_is_a_registered_target():
    assert "isa" in pa_mlir.targets.names()


def test_isa_needs_an_amd_chip():
    rng = np.random.default_rng()
    case, options = make_case(
        rng, hq=4, hkv=1, d=64, p=16, query_length=1, kv_dtype="e4m3fn",
        v_layout="plain", lengths=[5])
    with pytest.raises(ValueError, match="AMD"):
        pa_mlir.decode(**case, **options, chip="sm_90a", target="isa")


@pytest.mark.parametrize("chip", sorted(CHIP_FP8))
def test_isa_and_emulator_agree_bit_for_bit(chip):
    """The code object (LLVM's machine code) and the MLIR it is generated
    from give the same bits, partials included: the two executors model the
    same float operations (MFMA sums in double, f32 math of the C library),
    so any difference is a bug in one of them or in the code generation."""
    rng = np.random.default_rng()
    case, options = make_case(
        rng, hq=8, hkv=2, d=64, p=16, query_length=2,
        kv_dtype=CHIP_FP8[chip], v_layout="transposed",
        lengths=[0, 1, 40, 300, 700], scales="per_tensor", sinks=True)
    isa = pa_mlir.decode(**case, **options, chip=chip, target="isa",
                         return_partials=True)
    emulated = pa_mlir.decode(**case, **options, chip=chip,
                              target="emulate", return_partials=True)
    for field in ("output", "exp_sums", "max_logits", "tmp_out"):
        np.testing.assert_array_equal(
            np.asarray(getattr(isa, field)).view(np.uint32),
            np.asarray(getattr(emulated, field)).view(np.uint32),
            err_msg=field)


# nhd / hnd caches (kv_layout) and a head dim that is no multiple of the
# QK load chunk (D = 80) on the shipped code objects: an hnd pool of single
# tokens, and nhd K and V as strided views of one combined
# [N, 2, P, Hkv, D] cache (the numpy path still copies views contiguous).
ISA_LAYOUT_CASES = {
    "hnd-p1-d64": dict(kv_layout="hnd", p=1, d=64, kv="bf16",
                       lengths=[0, 1, 300], scales="none", combined=False),
    "nhd-p16-d80-combined": dict(kv_layout="nhd", p=16, d=80, kv="fp8",
                                 lengths=[5, 40, 257], scales="per_token",
                                 combined=True),
}


@pytest.mark.parametrize("chip", sorted(CHIP_FP8))
@pytest.mark.parametrize("name", sorted(ISA_LAYOUT_CASES))
def test_isa_unpacked_layouts_match_the_reference(chip, name):
    from test_decode import layout_case
    spec = ISA_LAYOUT_CASES[name]
    rng = np.random.default_rng()
    kv_dtype = CHIP_FP8[chip] if spec["kv"] == "fp8" else "bf16"
    inputs, options, ref = layout_case(rng, spec, kv_dtype, d=spec["d"])
    if spec["combined"]:
        assert not inputs["key_cache"].flags.c_contiguous
    out = pa_mlir.decode(**inputs, **options, chip=chip, target="isa",
                         kv_layout=spec["kv_layout"])
    assert_close(out, ref, kv_dtype)
