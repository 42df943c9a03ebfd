"""pa_mlir.compile (code objects, metadata, stages, cache), DecodeConfig,
the target registry and the hip target.

The hip target is checked three ways: against the host on a machine with an
AMD GPU; its clear error on a machine without one; and, in a subprocess,
through libpa-fake-hip.so (PA_FAKE_HIP_LIB, set by CTest), a HIP runtime
that records launches and copies instead of running kernels.
"""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import pa_mlir
from test_decode import make_case, small_case

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "decode-d256-fp8.mlir"

SMALL = pa_mlir.DecodeConfig(head_dim=64, scale="per_tensor", budget=4,
                             max_partitions=2)


# ---------------------------------------------------------------------------
# compile()
# ---------------------------------------------------------------------------

def test_compile_gives_code_object_and_metadata():
    artifact = pa_mlir.compile(SMALL)
    assert artifact.chip == "gfx950" and artifact.format == "hsaco"
    assert artifact.config == SMALL
    assert artifact.code_object[:4] == b"\x7fELF"
    assert artifact.kernels == ["pa_plan", "pa_decode", "pa_reduce"]
    assert artifact.metadata["target"] == "amdgcn-amd-amdhsa--gfx950"
    decode = artifact.metadata["kernels"][1]
    assert decode["grid"] == "x = work_info dim 0, y = 1, z = 1"
    meanings = [arg["meaning"] for arg in decode["args"]]
    assert "query.aligned_ptr" in meanings and "tmp_out.stride[3]" in meanings
    assert artifact.stages == {}


@pytest.mark.parametrize("chip", ["gfx950", "sm_90a"])
def test_the_sidecar_lists_the_strides_each_kernel_reads_at_run_time(chip):
    """Per kernel and operand, the strides whose value the kernel reads
    (the others are compiled in): the query's rows everywhere, and for
    nhd / hnd the pages of K and V (halves of a combined cache); a launcher
    refuses other strides that are not row-major (test_plans,
    cuda_capi_test.c)."""
    for kv_layout, caches in (("packed", {}),
                              ("nhd", {"key_cache": [0],
                                       "value_cache": [0]}),
                              ("hnd", {"key_cache": [0],
                                       "value_cache": [0]})):
        artifact = pa_mlir.compile(SMALL, chip=chip, kv_layout=kv_layout)
        listed = {k["name"]: k["dynamic_strides"]
                  for k in artifact.metadata["kernels"]}
        assert listed == {"pa_plan": {},
                          "pa_decode": dict(query=[0], **caches),
                          "pa_reduce": {}}, (kv_layout, listed)


def test_stages_on_request_in_pipeline_order():
    artifact = pa_mlir.compile(SMALL, stages=True)
    assert list(artifact.stages) == ["pa", "tiled", "rocdl", "llvm", "isa"]
    assert "pa.decode" in artifact.stage("pa")
    assert "pa.tile." in artifact.stage("tiled")
    assert "gpu.launch_func" in artifact.stage("rocdl")
    assert "amdgpu_kernel" in artifact.stage("llvm")
    assert ".amdhsa_kernel pa_decode" in artifact.stage("isa")
    with pytest.raises(KeyError, match="stages=True"):
        pa_mlir.compile(SMALL).stage("tiled")
    with pytest.raises(KeyError, match="no stage 'ptx'"):
        artifact.stage("ptx")


def test_configuration_keywords_and_chips():
    artifact = pa_mlir.compile(num_query_heads=16, num_kv_heads=2,
                               head_dim=128, kv_dtype="e4m3fnuz",
                               chip="gfx942", sinks=True)
    assert artifact.chip == "gfx942"
    assert artifact.metadata["target"] == "amdgcn-amd-amdhsa--gfx942"
    assert artifact.config.sinks
    # A field changed on an existing configuration.
    assert pa_mlir.compile(SMALL, head_dim=128).config.head_dim == 128


def test_nvidia_chips_give_ptx():
    artifact = pa_mlir.compile(SMALL, chip="sm_90a", stages=True)
    assert artifact.format == "ptx"
    assert b".target sm_90a" in artifact.code_object
    assert list(artifact.stages) == ["pa", "tiled", "nvvm", "llvm", "ptx"]
    assert artifact.kernels == ["pa_plan", "pa_decode", "pa_reduce"]


def test_compile_cache_is_keyed_by_the_configuration():
    first = pa_mlir.compile(SMALL.replace(sliding_window=300))
    size = pa_mlir.compile_cache_size()
    assert pa_mlir.compile(SMALL.replace(sliding_window=300)) is first
    assert pa_mlir.compile_cache_size() == size
    v6 = pa_mlir.compile(SMALL.replace(sliding_window=300),
                         code_object_version=6)
    assert v6 is not first and pa_mlir.compile_cache_size() == size + 1
    other = pa_mlir.compile(SMALL.replace(sliding_window=301))
    assert other is not first


def test_mfma_options_reach_the_kernel():
    default = pa_mlir.compile(SMALL, stages=True).stage("isa")
    none = pa_mlir.compile(SMALL, stages=True, fp8_residual="none")
    assert none is not pa_mlir.compile(SMALL, stages=True)
    assert (none.stage("isa").count("v_mfma_") <
            default.count("v_mfma_"))
    wide = pa_mlir.compile(SMALL, stages=True, cache_offsets="64")
    assert "buffer_load_dwordx4" in default
    assert "buffer_load_dwordx4" not in wide.stage("isa")
    assert "global_load_dwordx4" in wide.stage("isa")
    # The next tile's K prefetched: the first tile's loaded before the loop.
    own = pa_mlir.compile(SMALL, stages=True, key_prefetch="none")
    ahead = pa_mlir.compile(SMALL, stages=True, key_prefetch="next-tile")
    assert (ahead.stage("isa").count("buffer_load_dwordx4") >
            own.stage("isa").count("buffer_load_dwordx4"))


def test_compile_module_text():
    artifact = pa_mlir.compile(mlir=EXAMPLE.read_text(), chip="gfx950")
    assert artifact.config is None
    assert artifact.kernels == ["pa_plan", "pa_decode", "pa_reduce"]
    assert artifact.code_object[:4] == b"\x7fELF"


def test_write_matches_pa_compile_layout(tmp_path):
    artifact = pa_mlir.compile(SMALL)
    code, sidecar = artifact.write(tmp_path / "decode.hsaco")
    assert code.read_bytes() == artifact.code_object
    assert sidecar.name == "decode.hsaco.json"
    assert json.loads(sidecar.read_text()) == artifact.metadata


def test_plan_capacity_is_the_runs_capacity():
    config = pa_mlir.DecodeConfig(head_dim=64, num_query_heads=8,
                                  num_kv_heads=2, budget=12, query_length=2)
    assert [config.plan_capacity(b) for b in (0, 1, 3, 10)] == [0, 6, 6, 10]
    rng = np.random.default_rng(3)
    case, options = make_case(rng, hq=8, hkv=2, d=64, p=16, query_length=2,
                              kv_dtype="e4m3fn", v_layout="plain",
                              lengths=[70, 0, 9])
    result = pa_mlir.decode(**case, **options, budget=12, return_partials=True)
    assert result.work_info.shape[0] == config.plan_capacity(3)


def test_the_user_guides_example_runs(capsys):
    guide = (ROOT / "docs" / "user-guide.md").read_text()
    after = guide.split("A complete example (the test suite runs it):", 1)[1]
    code = after.split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(code, "docs/user-guide.md", "exec"), {})
    printed = capsys.readouterr().out
    assert "['pa', 'tiled', 'rocdl', 'llvm', 'isa']" in printed
    assert "must be a multiple of KV heads" in printed


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("fields, message", [
    (dict(head_dim=64.0), "head_dim must be an integer"),
    (dict(num_query_heads=True), "num_query_heads must be an integer"),
    (dict(kv_dtype="fp8"), "kv_dtype must be one of e4m3fn, e4m3fnuz, bf16"),
    (dict(scale="per_page"), "scale must be one of none, per_tensor"),
    (dict(v_layout="packed"), "v_layout must be one of"),
    (dict(compute="f32"), "compute must be None, fp8 or bf16"),
    (dict(budget=0), "budget must be None or an integer >= 1"),
    (dict(chip=""), "chip must be a chip name"),
    (dict(softmax_scale="0.5"), "softmax_scale must be None or a number"),
    (dict(sinks=1), "sinks must be True or False"),
])
def test_bad_configurations_are_named(fields, message):
    with pytest.raises(ValueError, match=message):
        pa_mlir.DecodeConfig(**fields)


def test_bad_compile_arguments_are_named():
    with pytest.raises(ValueError, match="not a DecodeConfig field"):
        pa_mlir.compile(heads=8)
    with pytest.raises(ValueError, match="config must be a pa_mlir.DecodeConfig"):
        pa_mlir.compile({"head_dim": 64})
    with pytest.raises(ValueError, match="needs chip="):
        pa_mlir.compile(mlir=EXAMPLE.read_text())
    with pytest.raises(ValueError, match="either mlir text or a configuration"):
        pa_mlir.compile(SMALL, mlir="module {}", chip="gfx950")
    with pytest.raises(ValueError, match="code_object_version must be 5 or 6"):
        pa_mlir.compile(SMALL, code_object_version=4)
    with pytest.raises(ValueError, match="fp8_residual must be one of"):
        pa_mlir.compile(SMALL, fp8_residual="q")
    with pytest.raises(ValueError, match="cache_offsets must be one of"):
        pa_mlir.compile(SMALL, cache_offsets=64)
    with pytest.raises(ValueError, match="key_prefetch must be one of"):
        pa_mlir.compile(SMALL, key_prefetch="keys")


def test_compiler_diagnostics_are_compile_errors():
    with pytest.raises(pa_mlir.CompileError,
                       match=r"query heads \(6\) must be a multiple of KV "
                             r"heads \(4\)"):
        pa_mlir.compile(num_query_heads=6, num_kv_heads=4)
    with pytest.raises(pa_mlir.CompileError, match="unknown chip 'gfx1100'"):
        pa_mlir.compile(SMALL, chip="gfx1100")
    with pytest.raises(pa_mlir.CompileError, match="input:1:14: error"):
        pa_mlir.compile(mlir="func.func @f( {", chip="gfx950")
    with pytest.raises(pa_mlir.CompileError,
                       match="chip gfx942 takes f8E4M3FNUZ"):
        pa_mlir.compile(SMALL, chip="gfx942")
    # One exception type catches every bad input.
    assert issubclass(pa_mlir.CompileError, ValueError)
    assert issubclass(pa_mlir.CompileError, pa_mlir.PaError)


# ---------------------------------------------------------------------------
# Targets
# ---------------------------------------------------------------------------

def test_target_registry_is_extensible():
    assert {"host", "hip"} <= set(pa_mlir.targets.names())
    runs = []

    class CountingHost(pa_mlir._capi.HostProgram):
        def run(self, buffers):
            runs.append(buffers.batch)
            super().run(buffers)

    pa_mlir.targets.register_target("counting-host", CountingHost)
    try:
        case, options = small_case()
        got = pa_mlir.decode(**case, **options, target="counting-host")
        assert runs == [len(case["context_lengths"])]
        assert np.array_equal(got, pa_mlir.decode(**case, **options))
    finally:
        pa_mlir.targets.unregister_target("counting-host")
    with pytest.raises(ValueError, match="target must be one of host, hip"):
        pa_mlir.decode(**case, **options, target="counting-host")


def hip_reason():
    return pa_mlir._runtime_capi.hip_unavailable_reason()


@pytest.mark.skipif(hip_reason() is not None,
                    reason="no HIP runtime with a GPU here")
def test_hip_matches_host():
    rng = np.random.default_rng(21)
    case, options = make_case(rng, hq=8, hkv=1, d=64, p=16, query_length=1,
                              kv_dtype="e4m3fn", v_layout="plain",
                              lengths=[1, 37, 300], scales="per_tensor")
    host = pa_mlir.decode(**case, **options, return_partials=True)
    hip = pa_mlir.decode(**case, **options, target="hip",
                         return_partials=True)
    assert np.array_equal(hip.work_info, host.work_info)
    np.testing.assert_allclose(hip.output, host.output, atol=5e-3, rtol=5e-3)


@pytest.mark.skipif(hip_reason() is None, reason="a HIP GPU is here")
def test_hip_without_a_runtime_says_so():
    case, options = small_case()
    with pytest.raises(pa_mlir.TargetUnavailableError,
                       match="target 'hip' needs the HIP runtime .*"
                             "target='host' runs on any machine"):
        pa_mlir.decode(**case, **options, target="hip")


FAKE_HIP = os.environ.get("PA_FAKE_HIP_LIB")


def run_with_fake_hip(script, timeout):
    """Runs `script` in a fresh process (the HIP runtime is chosen once per
    process) with the recording HIP driver; returns the JSON it prints."""
    package = str(Path(pa_mlir.__file__).resolve().parents[1])
    env = dict(os.environ, PA_HIP_LIBRARY=FAKE_HIP,
               PYTHONPATH=os.pathsep.join(
                   [package] + os.environ.get("PYTHONPATH", "").split(
                       os.pathsep)))
    done = subprocess.run(
        [sys.executable, "-c", script, FAKE_HIP], env=env,
        cwd=Path(__file__).parent, capture_output=True, text=True,
        timeout=timeout)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.skipif(not FAKE_HIP, reason="PA_FAKE_HIP_LIB is not set (CTest "
                                         "sets it)")
def test_hip_target_through_a_recording_runtime():
    # A fresh process: the HIP runtime is chosen once per process.
    script = textwrap.dedent("""
        import json, sys
        import numpy as np
        import pa_mlir
        from fake_hip import FakeHip
        from test_decode import make_case

        rng = np.random.default_rng(5)
        case, options = make_case(rng, hq=8, hkv=2, d=64, p=16,
                                  query_length=2, kv_dtype="e4m3fn",
                                  v_layout="transposed", lengths=[40, 3, 0],
                                  scales="per_token", sinks=True)
        result = pa_mlir.decode(**case, **options, target="hip", budget=6,
                                return_partials=True)
        fake = FakeHip(sys.argv[1])
        print(json.dumps({
            "launches": [launch[:3] for launch in fake.launches()],
            "counts": fake.counts(),
            "capacity": result.work_info.shape[0],
            "output_is_poison": bool(np.isnan(result.output).all()),
        }))
    """)
    record = run_with_fake_hip(script, timeout=120)
    capacity = record["capacity"]
    assert capacity == pa_mlir.DecodeConfig(
        num_query_heads=8, num_kv_heads=2, head_dim=64, query_length=2,
        budget=6).plan_capacity(3)
    assert record["launches"] == [
        ["pa_plan", [1, 1, 1], [256, 1, 1]],
        ["pa_decode", [capacity, 2, 1], [256, 1, 1]],
        ["pa_reduce", [3, 2, 1], [256, 1, 1]],
    ]
    loads, unloads, copies, synchronizations = record["counts"]
    assert loads == 1 and synchronizations == 1
    # The 14 operands in, the 6 outputs back.
    assert copies == 14 + 6
    # The kernels did not run: the outputs are what the device held, the
    # poison decode() writes before the run.
    assert record["output_is_poison"]


@pytest.mark.skipif(not FAKE_HIP, reason="PA_FAKE_HIP_LIB is not set (CTest "
                                         "sets it)")
def test_hip_target_takes_nhd_caches_and_d512_with_32_rows():
    # kv_layout="nhd" on target "hip" (4-D K and V), D = 512 with Q 4, G 8:
    # 32 rows, which the AMD kernels take as two 16-row groups (grid z 2).
    script = textwrap.dedent("""
        import json, sys
        import numpy as np
        import pa_mlir
        from fake_hip import FakeHip
        from test_decode import make_case, to_layout

        rng = np.random.default_rng(6)
        case, options = make_case(rng, hq=8, hkv=1, d=512, p=16,
                                  query_length=4, kv_dtype="e4m3fn",
                                  v_layout="plain", lengths=[40, 3],
                                  scales="per_tensor")
        key, value = to_layout(case["key_cache"], case["value_cache"], "nhd")
        result = pa_mlir.decode(**dict(case, key_cache=key, value_cache=value),
                                **options, target="hip", kv_layout="nhd",
                                return_partials=True)
        fake = FakeHip(sys.argv[1])
        print(json.dumps({
            "launches": [launch[:3] for launch in fake.launches()],
            "capacity": result.work_info.shape[0],
        }))
    """)
    record = run_with_fake_hip(script, timeout=300)
    capacity = record["capacity"]
    assert record["launches"] == [
        ["pa_plan", [1, 1, 1], [256, 1, 1]],
        ["pa_decode", [capacity, 1, 2], [256, 1, 1]],
        ["pa_reduce", [2, 1, 1], [256, 1, 1]],
    ]


# ---------------------------------------------------------------------------
# The tuning table (docs/tuning.md)
# ---------------------------------------------------------------------------

TUNING_SCRIPT = """
    import sys
    import pa_mlir
    base = pa_mlir.DecodeConfig(head_dim=64, num_query_heads=8,
                                num_kv_heads=1, scale="per_tensor")
    for config, chip in ((base, "sm_90a"), (base.replace(budget=5), "sm_90a"),
                         (base.replace(page_size=64), "sm_90a")):
        try:
            print(pa_mlir.compile(config, chip=chip).plan_limits)
        except pa_mlir.CompileError as error:
            print("CompileError", error)
    """


def tuning_table(path, **plan):
    """A table with one entry for TUNING_SCRIPT's base configuration."""
    entry = {"target": "sm_90a", "layout": "packed-plain", "head_dim": 64,
             "rows": 8, "page_size": 16, "kv_dtype": "e4m3fn", "window": 0,
             **plan}
    path.write_text(json.dumps({"format": "pa-mlir-tuned-plans",
                                "version": 1, "entries": [entry]}))
    return str(path)


def test_a_tuned_plan_takes_precedence_over_the_defaults(tmp_path):
    """Explicit limits, then the table's entry, then the chip's defaults
    (2 x and 1 x the H200's 132 SMs); the disk cache keys the table, so a
    changed table compiles again instead of serving the old limits."""
    from test_cuda import run_python
    cache = tmp_path / "cache"
    first = run_python(TUNING_SCRIPT, PA_MLIR_CACHE_DIR=str(cache),
                       PA_MLIR_TUNING_TABLE=tuning_table(
                           tmp_path / "a.json", budget=77))
    assert first.returncode == 0, first.stderr
    assert first.stdout.split("\n")[:3] == [
        "(77, 132)", "(5, 132)", "(264, 132)"], first.stdout
    second = run_python(TUNING_SCRIPT, PA_MLIR_CACHE_DIR=str(cache),
                        PA_MLIR_TUNING_TABLE=tuning_table(
                            tmp_path / "b.json", budget=99, max_partitions=3))
    assert second.returncode == 0, second.stderr
    assert second.stdout.split("\n")[:3] == [
        "(99, 3)", "(5, 3)", "(264, 132)"], second.stdout
    # No table at all: the defaults.
    none = run_python(TUNING_SCRIPT, PA_MLIR_TUNING_TABLE="")
    assert none.stdout.split("\n")[0] == "(264, 132)", none.stdout


KERNEL_OPTION_SCRIPT = """
    import hashlib
    import pa_mlir
    config = pa_mlir.DecodeConfig(head_dim=64, num_query_heads=8,
                                  num_kv_heads=1, scale="per_tensor")
    artifact = pa_mlir.compile(config, chip="sm_90a")
    print(b"cp.async.bulk.shared" in artifact.code_object,
          artifact.plan_limits,
          hashlib.sha256(artifact.code_object).hexdigest()[:16])
    """


def test_a_tuned_kernel_option_reaches_the_kernel(tmp_path):
    """An entry's value_stage compiles the NVIDIA decode kernel with the V
    stage's bulk copies (pa-to-nvvm{value-stage}), its value_ahead another
    kernel; the disk cache keys the table, so no entry is served the
    program of another."""
    from test_cuda import run_python
    cache = tmp_path / "cache"
    outputs = []
    for name, options in (("a", {}), ("b", {"value_stage": 2}),
                          ("c", {"value_ahead": 2})):
        done = run_python(KERNEL_OPTION_SCRIPT, PA_MLIR_CACHE_DIR=str(cache),
                          PA_MLIR_TUNING_TABLE=tuning_table(
                              tmp_path / f"{name}.json", budget=77,
                              **options))
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout.split("\n")[0].rsplit(" ", 1))
    (plain, plain_hash), (staged, _), (ahead, ahead_hash) = outputs
    assert plain == "False (77, 132)", outputs
    assert staged == "True (77, 132)", outputs
    assert ahead == "False (77, 132)" and ahead_hash != plain_hash, outputs


def test_a_bad_tuning_table_is_a_compile_error_naming_it(tmp_path):
    bad = tuning_table(tmp_path / "bad.json", budget=0)
    done = run_python_checked(TUNING_SCRIPT, PA_MLIR_TUNING_TABLE=bad)
    assert done.stdout.split("\n")[0] == (
        f"CompileError tuning table: {bad}: entry 0: 'budget' must be an "
        f"integer from 1 to 2^31-1"), done.stdout
    missing = str(tmp_path / "missing.json")
    done = run_python_checked(TUNING_SCRIPT, PA_MLIR_TUNING_TABLE=missing)
    assert done.stdout.startswith(
        f"CompileError tuning table: PA_MLIR_TUNING_TABLE={missing}: cannot "
        f"read: "), done.stdout


def run_python_checked(script, **environment):
    from test_cuda import run_python
    done = run_python(script, **environment)
    assert done.returncode == 0, done.stderr
    return done
