"""decode(target="cuda") and the on-disk compile cache, on any machine.

Without a GPU the target must say why it cannot run. Through
libpa-fake-cuda.so (PA_FAKE_CUDA_LIB, set by CTest), a CUDA driver that
records instead of running, the whole Python path runs in a subprocess:
numpy arrays (copied in and back by the runtime library) and "CUDA
tensors" of fake_torch (launched on in place). The disk cache
(PA_MLIR_CACHE_DIR) must serve a process that cannot load libPACAPI.so and
must not trust a corrupt entry. Numerics on a real GPU: test_cuda_gpu.py.
"""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import cuda_cases
import pa_mlir
from pa_mlir import _diskcache
from test_decode import assert_close, reference_decode, small_case

HERE = Path(__file__).resolve().parent
PACKAGE = str(Path(pa_mlir.__file__).resolve().parents[1])
FAKE_CUDA = os.environ.get("PA_FAKE_CUDA_LIB")
# The same recording driver without cuLaunchKernelEx (older than CUDA 12).
FAKE_CUDA_WITHOUT_LAUNCH_EX = os.environ.get(
    "PA_FAKE_CUDA_WITHOUT_LAUNCH_EX_LIB")
SMALL = pa_mlir.DecodeConfig(head_dim=64, scale="per_tensor", budget=4,
                             max_partitions=2, chip="sm_90a")


def run_python(script, *args, **environment):
    """Runs `script` in a fresh process (driver and libraries are chosen
    once per process) with the package importable; returns the result."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [PACKAGE, str(HERE)] + os.environ.get("PYTHONPATH", "").split(
            os.pathsep)))
    env.update(environment)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script),
                           *args], env=env, cwd=HERE, capture_output=True,
                          text=True, timeout=300)


def runtime_library():
    return str(pa_mlir._runtime_capi.library_path())


# ---------------------------------------------------------------------------
# The target without a GPU
# ---------------------------------------------------------------------------

def test_cuda_is_a_registered_target():
    assert "cuda" in pa_mlir.targets.names()
    assert Path(runtime_library()).is_file(), (
        "libPARuntimeCAPI.so is built beside libPACAPI.so")


@pytest.mark.skipif(pa_mlir._cuda.unavailable_reason() is None,
                    reason="a CUDA GPU is here")
def test_cuda_without_a_driver_says_so():
    case, options = small_case()
    with pytest.raises(pa_mlir.TargetUnavailableError,
                       match=r"target 'cuda' needs the CUDA driver "
                             r"\(libcuda.so.1\) and an NVIDIA GPU: .*"
                             r"libcuda.so.1.*target='host' runs on any "
                             r"machine"):
        pa_mlir.decode(**case, **options, target="cuda")
    assert "libcuda.so.1" in pa_mlir._cuda.unavailable_reason()


def test_a_missing_runtime_library_is_the_reason():
    done = run_python("""
        import pa_mlir
        from test_decode import small_case
        case, options = small_case()
        try:
            pa_mlir.decode(**case, **options, target="cuda")
        except pa_mlir.TargetUnavailableError as error:
            print(error)
    """, PA_MLIR_RUNTIME_LIB="/nonexistent/libPARuntimeCAPI.so")
    assert done.returncode == 0, done.stderr
    assert "target 'cuda' needs" in done.stdout
    assert "/nonexistent/libPARuntimeCAPI.so does not exist" in done.stdout


# ---------------------------------------------------------------------------
# Through the recording driver
# ---------------------------------------------------------------------------

FAKE_RUN = textwrap.dedent("""
    import ctypes, json, sys
    import numpy as np
    import pa_mlir
    from test_decode import make_case

    fake = ctypes.CDLL(sys.argv[1])
    fake.fakeCudaLaunch.restype = ctypes.c_char_p

    def record():
        counters = (ctypes.c_int * 8)()
        fake.fakeCudaCounters(counters)
        launches = []
        grid, block = (ctypes.c_uint * 3)(), (ctypes.c_uint * 3)()
        shared, stream = ctypes.c_uint(), ctypes.c_void_p()
        params, size = ctypes.POINTER(ctypes.c_ubyte)(), ctypes.c_size_t()
        for i in range(fake.fakeCudaLaunchCount()):
            name = fake.fakeCudaLaunch(i, grid, block, ctypes.byref(shared),
                                       ctypes.byref(stream),
                                       ctypes.byref(params),
                                       ctypes.byref(size))
            raw = ctypes.string_at(params, size.value)
            launches.append(dict(name=name.decode(), grid=list(grid),
                                 block=list(block), stream=stream.value,
                                 programmatic=fake.fakeCudaLaunchProgrammatic(i),
                                 params=[int(v) for v in
                                         np.frombuffer(raw, np.uint64)]))
        fake.fakeCudaReset()
        return dict(counters=list(counters), launches=launches)

    def param(launch, artifact, meaning):
        kernel = [k for k in artifact.metadata["kernels"]
                  if k["name"] == launch["name"]][0]
        arg = [a for a in kernel["args"] if a["meaning"] == meaning][0]
        return launch["params"][arg["offset"] // 8]

    def cuda_artifact():
        # The artifact of the (one) cuda program decode() made.
        [key] = [k for k in pa_mlir.targets._programs if k[0] == "cuda"]
        return pa_mlir.targets._programs[key].artifact
""")


@pytest.mark.skipif(not FAKE_CUDA or not FAKE_CUDA_WITHOUT_LAUNCH_EX,
                    reason="PA_FAKE_CUDA_LIB and "
                           "PA_FAKE_CUDA_WITHOUT_LAUNCH_EX_LIB are not set "
                           "(CTest sets them)")
def test_programmatic_kernels_launch_plainly_without_cuLaunchKernelEx():
    """A driver without cuLaunchKernelEx (looked up optionally): the
    kernels the sidecar marks programmatic are launched with cuLaunchKernel
    instead, with the grids, blocks, streams and parameter bytes of the
    cuLaunchKernelEx launches, and the run completes."""
    script = FAKE_RUN + textwrap.dedent("""
        rng = np.random.default_rng(6)
        case, options = make_case(rng, hq=8, hkv=2, d=64, p=16,
                                  query_length=1, kv_dtype="e4m3fn",
                                  v_layout="plain", lengths=[40, 3],
                                  scales="per_tensor")
        fake.fakeCudaReset()
        pa_mlir.decode(**case, **options, target="cuda", budget=6)
        artifact = cuda_artifact()
        print(json.dumps(dict(
            run=record(), has_launch_ex=hasattr(fake, "cuLaunchKernelEx"),
            programmatic_launch=[k.get("programmatic_launch") for k in
                                 artifact.metadata["kernels"]])))
    """)
    runs = {}
    for label, library in (("ex", FAKE_CUDA),
                           ("plain", FAKE_CUDA_WITHOUT_LAUNCH_EX)):
        done = run_python(script, library, PA_CUDA_LIBRARY=library)
        assert done.returncode == 0, (label, done.stderr)
        runs[label] = json.loads(done.stdout)
    assert runs["ex"]["has_launch_ex"] and not runs["plain"]["has_launch_ex"]
    for run in runs.values():
        assert run["programmatic_launch"] == [True, True, True]
    shape = {label: [(l["name"], l["grid"], l["block"], l["stream"],
                      len(l["params"])) for l in run["run"]["launches"]]
             for label, run in runs.items()}
    assert [name for name, *_ in shape["plain"]] == [
        "pa_plan", "pa_decode", "pa_reduce"]
    assert shape["plain"] == shape["ex"]
    assert [l["programmatic"] for l in runs["ex"]["run"]["launches"]] == [
        1, 1, 1]
    assert [l["programmatic"] for l in runs["plain"]["run"]["launches"]] == [
        0, 0, 0]


@pytest.mark.skipif(not FAKE_CUDA, reason="PA_FAKE_CUDA_LIB is not set "
                                          "(CTest sets it)")
def test_numpy_arrays_through_a_recording_driver():
    done = run_python(FAKE_RUN + textwrap.dedent("""
        # Device memory is host memory in the fake: a launch hook reads the
        # query the decode kernel is given, while it is allocated.
        seen = {}
        HOOK = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_void_p,
                                ctypes.c_size_t, ctypes.c_void_p)
        def on_launch(name, params, size, user):
            if name != b"pa_decode":
                return
            launch = dict(name="pa_decode", params=[int(v) for v in (
                np.frombuffer(ctypes.string_at(params, size), np.uint64))])
            artifact = cuda_artifact()
            address = param(launch, artifact, "query.aligned_ptr")
            seen["rows"] = param(launch, artifact, "query.size[0]")
            seen["query"] = np.frombuffer(
                ctypes.string_at(address, 6 * 8 * 64 * 2), np.uint16).copy()
        hook = HOOK(on_launch)

        rng = np.random.default_rng(5)
        case, options = make_case(rng, hq=8, hkv=2, d=64, p=16,
                                  query_length=2, kv_dtype="e4m3fn",
                                  v_layout="transposed", lengths=[40, 3, 0],
                                  scales="per_token", sinks=True)
        fake.fakeCudaReset()
        fake.fakeCudaSetLaunchHook(hook, None)
        result = pa_mlir.decode(**case, **options, target="cuda", budget=6,
                                return_partials=True)
        fake.fakeCudaSetLaunchHook(None, None)
        artifact = cuda_artifact()
        run = record()
        expected = pa_mlir.float32_to_bits(case["query"], "bf16").ravel()

        bad = dict(case, context_lengths=np.array([40, 3, 10**6], np.int32))
        try:
            pa_mlir.decode(**bad, **options, target="cuda", budget=6)
        except ValueError as error:
            refused = str(error)
        print(json.dumps(dict(
            run=run, chip=artifact.chip, capacity=result.work_info.shape[0],
            programmatic_launch=[k.get("programmatic_launch") for k in
                                 artifact.metadata["kernels"]],
            rows=seen["rows"],
            query_copied=bool(np.array_equal(seen["query"], expected)),
            output_is_poison=bool(np.isnan(result.output).all()),
            partials_are_poison=bool(np.isnan(result.tmp_out).all()),
            refused=refused, after_refusal=record())))
    """), FAKE_CUDA, PA_CUDA_LIBRARY=FAKE_CUDA)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["chip"] == "sm_90a"
    capacity = out["capacity"]
    assert capacity == pa_mlir.DecodeConfig(
        num_query_heads=8, num_kv_heads=2, head_dim=64, query_length=2,
        budget=6, chip="sm_90a").plan_capacity(3)
    launches = out["run"]["launches"]
    assert [(l["name"], l["grid"], l["block"], l["stream"])
            for l in launches] == [
        ("pa_plan", [1, 1, 1], [128, 1, 1], None),
        ("pa_decode", [capacity, 2, 1], [128, 1, 1], None),
        ("pa_reduce", [3, 2, 1], [128, 1, 1], None),
    ]
    # Every kernel starts with griddepcontrol.wait (the sidecar says so),
    # so each is launched with programmatic stream serialization.
    assert out["programmatic_launch"] == [True, True, True]
    assert [l["programmatic"] for l in launches] == [1, 1, 1]
    loads, unloads, allocations, frees, live, to_device, to_host, syncs = (
        out["run"]["counters"])
    # 14 operands (per-token scales and sinks) in, the 6 outputs back.
    assert (allocations, frees, live) == (14, 14, 0)
    assert (to_device, to_host, syncs) == (14, 6, 1)
    assert out["rows"] == 6 and out["query_copied"]
    # The kernels did not run: what came back is decode()'s poison.
    assert out["output_is_poison"] and out["partials_are_poison"]
    # Lengths and page ids of host arrays are checked before any copy.
    assert out["refused"].startswith("context_lengths[2] = 1000000 is "
                                     "outside [0, max_pages * P]")
    assert out["after_refusal"]["counters"][2] == 0
    assert out["after_refusal"]["launches"] == []


@pytest.mark.skipif(not FAKE_CUDA, reason="PA_FAKE_CUDA_LIB is not set "
                                          "(CTest sets it)")
def test_nhd_numpy_arrays_with_head_dim_80_through_a_recording_driver():
    # kv_layout="nhd" on target "cuda" with D = 80: the decode kernel gets
    # 4-D [N, P, Hkv, D] K and V descriptors (of the copies decode makes).
    done = run_python(FAKE_RUN + textwrap.dedent("""
        from test_decode import to_layout
        rng = np.random.default_rng(8)
        case, options = make_case(rng, hq=8, hkv=2, d=80, p=16,
                                  query_length=1, kv_dtype="e4m3fn",
                                  v_layout="plain", lengths=[40, 3],
                                  scales="per_tensor")
        key, value = to_layout(case["key_cache"], case["value_cache"], "nhd")
        fake.fakeCudaReset()
        result = pa_mlir.decode(**dict(case, key_cache=key, value_cache=value),
                                **options, target="cuda", kv_layout="nhd",
                                return_partials=True)
        artifact = cuda_artifact()
        run = record()
        decode = [l for l in run["launches"] if l["name"] == "pa_decode"][0]
        print(json.dumps(dict(
            launches=[(l["name"], l["grid"]) for l in run["launches"]],
            capacity=result.work_info.shape[0],
            key=[param(decode, artifact, f"key_cache.size[{i}]")
                 for i in range(4)],
            value=[param(decode, artifact, f"value_cache.size[{i}]")
                   for i in range(4)],
            pages=key.shape[0])))
    """), FAKE_CUDA, PA_CUDA_LIBRARY=FAKE_CUDA)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["launches"] == [["pa_plan", [1, 1, 1]],
                               ["pa_decode", [out["capacity"], 2, 1]],
                               ["pa_reduce", [2, 2, 1]]]
    assert out["key"] == [out["pages"], 16, 2, 80]
    assert out["value"] == [out["pages"], 16, 2, 80]


@pytest.mark.skipif(not FAKE_CUDA, reason="PA_FAKE_CUDA_LIB is not set "
                                          "(CTest sets it)")
def test_cuda_tensors_through_a_recording_driver():
    done = run_python(FAKE_RUN + textwrap.dedent("""
        import fake_torch
        sys.modules["torch"] = fake_torch
        torch = fake_torch
        rng = np.random.default_rng(6)
        case, options = make_case(rng, hq=8, hkv=1, d=64, p=16,
                                  query_length=1, kv_dtype="bf16",
                                  v_layout="plain", lengths=[20, 70],
                                  scales="per_tensor")
        tensors = {name: torch.tensor_of(array)
                   for name, array in case.items()}
        # bf16 caches as int16 bits (torch has no uint16 here).
        for name in ("key_cache", "value_cache"):
            tensors[name] = torch.tensor_of(case[name].view(np.int16))
        out = torch.full(case["query"].shape, 0.0, torch.bfloat16, "cuda:0")
        fake.fakeCudaReset()
        got = pa_mlir.decode(**tensors, **options, target="cuda", out=out)
        run = record()
        decode, reduce = run["launches"][1], run["launches"][2]
        a = cuda_artifact()
        partials = pa_mlir.decode(**tensors, **options, target="cuda",
                                  return_partials=True)
        record()

        errors = {}
        def refuse(label, **change):
            try:
                pa_mlir.decode(**dict(tensors, **change), **options,
                               target="cuda")
            except ValueError as error:
                errors[label] = str(error)
        refuse("mixed", key_cache=case["key_cache"])
        refuse("cpu", block_tables=torch.tensor_of(case["block_tables"],
                                                   "cpu"))
        refuse("other device", context_lengths=torch.tensor_of(
            case["context_lengths"], "cuda:1"))
        refuse("strided", query=torch.tensor_of(
            np.ascontiguousarray(case["query"].swapaxes(0, 1))
        ).transpose(0, 1))
        refuse("int64 tables", block_tables=torch.tensor_of(
            case["block_tables"].astype(np.int64)))
        refuse("uint8 bf16 cache", key_cache=torch.tensor_of(
            case["key_cache"].view(np.uint8)))
        refuse("shape", query=torch.tensor_of(case["query"][:1]))
        # A cache 2 bytes past a 16-byte boundary (one bf16 element):
        # contiguous, but its 16-byte vectors would fault on the GPU.
        bits = case["key_cache"].view(np.int16)
        spare = np.zeros(bits.size + 16, np.int16)
        shift = (-(spare.ctypes.data // 2)) % 8 + 1
        shifted = spare[shift:shift + bits.size].reshape(bits.shape)
        shifted[...] = bits
        refuse("misaligned", key_cache=torch.tensor_of(shifted))
        try:
            pa_mlir.decode(**tensors, **options, target="host")
        except ValueError as error:
            errors["host"] = str(error)
        for label, given in (("numpy out", np.zeros(case["query"].shape)),
                             ("tensor out", out)):
            try:
                pa_mlir.decode(**case, **options, target="cuda", out=given)
            except ValueError as error:
                errors[label] = str(error)
        print(json.dumps(dict(
            run=run, same_out=got is out,
            out_is_poison=bool((out.array == 0x7FC0).all()),
            key=param(decode, a, "key_cache.aligned_ptr")
                == tensors["key_cache"].data_ptr(),
            output=param(reduce, a, "output.aligned_ptr") == out.data_ptr(),
            scale_is_device=param(decode, a, "k_scale.size[0]") == 1,
            partial_types=[type(t).__name__ for t in partials],
            partial_dtypes=[str(t.dtype) for t in partials],
            errors=errors, leftover=record())))
    """), FAKE_CUDA, PA_CUDA_LIBRARY=FAKE_CUDA)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    launches = out["run"]["launches"]
    assert [l["name"] for l in launches] == ["pa_plan", "pa_decode",
                                             "pa_reduce"]
    assert {l["stream"] for l in launches} == {0x7700}, (
        "on torch.cuda.current_stream()")
    loads, unloads, allocations, frees, live, to_device, to_host, syncs = (
        out["run"]["counters"])
    assert (allocations, to_device, to_host, syncs) == (0, 0, 0, 0), (
        "no device allocation, copy or wait of the runtime's own")
    assert out["same_out"] and out["out_is_poison"]
    assert out["key"] and out["output"] and out["scale_is_device"]
    assert out["partial_types"] == ["Tensor"] * 6
    assert out["partial_dtypes"] == ["torch.bfloat16", "torch.int32",
                                     "torch.int32"] + ["torch.float32"] * 3
    errors = out["errors"]
    assert errors["mixed"].startswith(
        "decode() got torch tensors (query, value_cache, block_tables, "
        "context_lengths) and other arrays (key_cache)")
    assert "block_tables is a torch tensor on cpu" in errors["cpu"]
    assert ("context_lengths is on cuda:1, but the current CUDA device is "
            "cuda:0") in errors["other device"]
    # Heads not D apart (a transposed query): refused; rows at any stride
    # with heads D apart are taken in place (test_plans.py).
    assert "operand 'key_cache' starts at address 0x" in (
        errors["misaligned"]), errors["misaligned"]
    assert ("accesses it 16 bytes at a time (its sidecar's 'alignments')"
            in errors["misaligned"]), errors["misaligned"]
    assert errors["strided"].startswith(
        "query must have its heads D = 64 elements apart and its elements "
        "adjacent")
    assert "got strides (64, 128, 1); pass query.contiguous()" in (
        errors["strided"])
    assert ("block_tables must have dtype torch.int32, got torch.int64"
            in errors["int64 tables"])
    assert ("key_cache must have dtype torch.bfloat16 or torch.int16, got "
            "torch.uint8") in errors["uint8 bf16 cache"]
    assert errors["shape"].startswith("query must have shape [B*Q, Hq, D]")
    assert errors["host"] == ("target 'host' takes numpy arrays; CUDA "
                              "tensors need target='cuda'")
    assert "out= takes a GPU tensor" in errors["numpy out"]
    assert errors["tensor out"].startswith(
        "decode() got torch tensors (out) and other arrays (query, ")
    assert out["leftover"]["launches"] == [], "refused calls launch nothing"


# ---------------------------------------------------------------------------
# The on-disk compile cache
# ---------------------------------------------------------------------------

COMPILE = """
    import hashlib, json, warnings
    import pa_mlir
    config = pa_mlir.DecodeConfig(head_dim=64, scale="per_tensor", budget=4,
                                  max_partitions=2, chip="sm_90a")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            artifact = pa_mlir.compile(config)
            result = dict(
                sha=hashlib.sha256(artifact.code_object).hexdigest(),
                kernels=artifact.kernels,
                capacity=artifact.plan_capacity(3),
                compiler_loaded=pa_mlir._capi._library is not None)
        except RuntimeError as error:
            result = dict(error=str(error))
    result["warnings"] = [str(w.message) for w in caught]
    import resource
    result["peak_rss_mb"] = resource.getrusage(
        resource.RUSAGE_SELF).ru_maxrss // 1024
    print(json.dumps(result))
"""


def compile_in_process(cache, **environment):
    done = run_python(COMPILE, PA_MLIR_CACHE_DIR=str(cache), **environment)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_cache_hit_needs_no_compiler(tmp_path):
    first = compile_in_process(tmp_path)
    assert first["compiler_loaded"] and first["warnings"] == []
    entries = list(tmp_path.glob("*.json"))
    assert len(entries) == 1
    # A process that cannot load libPACAPI.so gets the same artifact.
    again = compile_in_process(tmp_path, PA_MLIR_LIB="/nonexistent")
    assert "error" not in again, again
    assert not again["compiler_loaded"]
    assert again["sha"] == first["sha"]
    assert again["kernels"] == ["pa_plan", "pa_decode", "pa_reduce"]
    assert again["capacity"] == SMALL.plan_capacity(3) == first["capacity"]
    # A configuration the cache does not hold needs the compiler.
    other = compile_in_process(tmp_path / "empty", PA_MLIR_LIB="/nonexistent")
    assert "/nonexistent does not exist" in other["error"]


def corrupt_code_object(entry):
    data = json.loads(entry.read_text())
    code = data["code_object"]
    flipped = "A" if code[100] != "A" else "B"
    data["code_object"] = code[:100] + flipped + code[101:]
    entry.write_text(json.dumps(data))


@pytest.mark.parametrize("damage", ["code object", "truncated", "other key",
                                    "not json"])
def test_a_corrupt_cache_entry_is_recompiled_not_trusted(tmp_path, damage):
    first = compile_in_process(tmp_path)
    entry = next(tmp_path.glob("*.json"))
    original = json.loads(entry.read_text())
    if damage == "code object":
        corrupt_code_object(entry)
    elif damage == "truncated":
        entry.write_text(entry.read_text()[:1000])
    elif damage == "other key":
        # A whole, self-consistent entry of other inputs under this name.
        data = dict(original, inputs=dict(original["inputs"], stages=True))
        data["sha256"] = _diskcache._checksum(data)
        entry.write_text(json.dumps(data))
    else:
        entry.write_bytes(b"\x00\xff garbage")
    # Not trusted: without the compiler there is nothing to serve.
    refused = compile_in_process(tmp_path, PA_MLIR_LIB="/nonexistent")
    assert "/nonexistent does not exist" in refused["error"]
    assert any("ignoring the corrupt compile cache entry" in warning
               for warning in refused["warnings"]), refused
    # With the compiler it is compiled again and the entry replaced.
    again = compile_in_process(tmp_path)
    assert again["sha"] == first["sha"]
    assert json.loads(entry.read_text()) == original
    assert compile_in_process(tmp_path, PA_MLIR_LIB="/nonexistent")[
        "sha"] == first["sha"]


def rewrite_entry(entry, **changes):
    """The entry with `changes`, checksum made to match again (a whole,
    self-consistent entry that is still wrong)."""
    data = dict(json.loads(entry.read_text()), **changes)
    data["sha256"] = _diskcache._checksum(data)
    entry.write_text(json.dumps(data))


@pytest.mark.parametrize("damage", [
    "nested json", "nested metadata", "negative plan limits",
    "boolean plan limits", "stages not pairs", "metadata not an object",
    "unknown format", "huge"])
def test_a_hostile_cache_entry_is_a_warning_and_a_recompile(tmp_path, damage):
    first = compile_in_process(tmp_path)
    entry = next(tmp_path.glob("*.json"))
    original = json.loads(entry.read_text())
    if damage == "nested json":
        entry.write_text("[" * 200000 + "]" * 200000)
    elif damage == "nested metadata":
        rewrite_entry(entry, metadata_json="[" * 200000 + "]" * 200000)
    elif damage == "negative plan limits":
        rewrite_entry(entry, plan_limits=[-5, 2])
    elif damage == "boolean plan limits":
        rewrite_entry(entry, plan_limits=[True, 2])
    elif damage == "stages not pairs":
        rewrite_entry(entry, stages=[["pa"]])
    elif damage == "metadata not an object":
        rewrite_entry(entry, metadata_json="[1, 2]")
    elif damage == "unknown format":
        rewrite_entry(entry, code_format="exe")
    else:
        # A sparse 3 GB file: refused by its size, never read.
        with open(entry, "r+b") as handle:
            handle.truncate(3 << 30)
    refused = compile_in_process(tmp_path, PA_MLIR_LIB="/nonexistent")
    assert "/nonexistent does not exist" in refused.get("error", ""), refused
    assert refused["peak_rss_mb"] < 1024, refused
    assert any("ignoring the corrupt compile cache entry" in warning
               for warning in refused["warnings"]), refused
    again = compile_in_process(tmp_path)
    assert again["sha"] == first["sha"] and again["compiler_loaded"]
    assert again["capacity"] == first["capacity"] > 0
    assert json.loads(entry.read_text()) == original


def test_a_rebuilt_compiler_does_not_serve_old_code_objects(tmp_path):
    cache = tmp_path / "cache"
    first = compile_in_process(cache)
    assert first["compiler_loaded"]
    hit = compile_in_process(cache)
    assert not hit["compiler_loaded"] and hit["sha"] == first["sha"]
    # Another build of the compiler: the same library with one byte more
    # (it still loads; any rebuild changes the file).
    rebuilt = tmp_path / "rebuilt" / "libPACAPI.so"
    rebuilt.parent.mkdir()
    rebuilt.write_bytes(pa_mlir._capi.library_path().read_bytes() + b"\0")
    entry = next(cache.glob("*.json"))
    before = json.loads(entry.read_text())["compiler"]
    recompiled = compile_in_process(cache, PA_MLIR_LIB=str(rebuilt))
    assert recompiled["compiler_loaded"], "the old entry was not served"
    assert recompiled["warnings"] == []
    after = json.loads(entry.read_text())["compiler"]
    assert after != before
    assert compile_in_process(cache, PA_MLIR_LIB=str(rebuilt))[
        "compiler_loaded"] is False
    # Without any compiler (a GPU machine), the entry serves.
    assert compile_in_process(cache, PA_MLIR_LIB="/nonexistent")[
        "sha"] == first["sha"]


def test_cache_keys_cover_inputs_options_and_version(tmp_path, monkeypatch):
    monkeypatch.setenv("PA_MLIR_CACHE_DIR", str(tmp_path))
    pa_mlir.clear_compile_cache()
    try:
        base = SMALL.replace(chip="gfx950")
        pa_mlir.compile(base)
        pa_mlir.compile(base, code_object_version=6)
        pa_mlir.compile(base.replace(sliding_window=7))
        pa_mlir.compile(base, stages=True)
        assert len(list(tmp_path.glob("*.json"))) == 4
        pa_mlir.clear_compile_cache()
        hit = pa_mlir.compile(base, stages=True)
        assert list(hit.stages)[0] == "pa" and hit.plan_limits == (4, 2)
        assert len(list(tmp_path.glob("*.json"))) == 4
    finally:
        pa_mlir.clear_compile_cache()
    inputs = {"config": {"head_dim": 64}}
    key = _diskcache.key(inputs)
    monkeypatch.setattr(_diskcache, "__version__", "0.0.0-other")
    assert _diskcache.key(inputs) != key


def test_plan_capacity_of_an_artifact_is_the_compilers():
    for config in (SMALL, SMALL.replace(budget=None, max_partitions=None),
                   SMALL.replace(num_kv_heads=2, num_query_heads=16,
                                 budget=7, chip="gfx942",
                                 kv_dtype="e4m3fnuz")):
        artifact = pa_mlir.compile(config)
        for batch in (0, 1, 2, 3, 5, 64, 1000):
            assert artifact.plan_capacity(batch) == config.plan_capacity(
                batch)


# ---------------------------------------------------------------------------
# The GPU test's cases, on the host
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(cuda_cases.CASES))
def test_the_gpu_cases_match_the_reference_on_the_host(name):
    """test_cuda_gpu.py's cases and reference agree where they can run
    here, so a failure there is the GPU's."""
    arrays, options = cuda_cases.case(name)
    got = pa_mlir.decode(**arrays, **options, target="host")
    assert_close(got, reference_decode(**arrays, **{
        key: value for key, value in options.items()
        if key not in ("query_dtype", "budget")}),
        cuda_cases.CASES[name]["kv_dtype"])
