"""hipGraph capture of target="hip" on ROCm tensors, with the recording HIP
driver (libpa-fake-hip.so), whose stream capture follows HIP's rules: while
a stream captures, its launches go into the graph, and a synchronization,
allocation, copy or module load anywhere fails and invalidates the capture.
After a first eager call (which compiles and loads the program), a decode
step - the plan kernel and several layers' runs of one plan - is captured
on torch's current stream and replayed: the replays launch exactly the
eager step's kernels with its arguments (the caller's tensors, no staging
buffers); a plan of new sequence tensors over the caller's workspace
captures too. A first call, and numpy inputs (which must be copied), break a
capture visibly.
"""

import json
import os
import textwrap

import pytest

from test_cuda import run_python
from test_plans import COUNTING_TORCH, COUNTING_TORCH_PRELUDE, ROCM_TORCH

FAKE_HIP = os.environ.get("PA_FAKE_HIP_LIB")

needs_fake_hip = pytest.mark.skipif(
    not FAKE_HIP, reason="PA_FAKE_HIP_LIB is not set (CTest sets it)")

# Stream capture and graphs through the fake driver's HIP entry points (as
# torch.cuda.graph calls them in libamdhip64), and torch's current stream
# switched to the capture stream (as torch.cuda.graph does).
CAPTURE = textwrap.dedent("""
    CAPTURE_STREAM, STREAM = 0x7800, torch.cuda.current_stream().cuda_stream
    UNSUPPORTED, INVALIDATED = 900, 901  # hipErrorStreamCapture*
    ACTIVE, INVALIDATED_STATUS = 1, 2    # hipStreamCaptureStatus

    def on_stream(handle):
        class Stream:
            cuda_stream = handle
        torch.cuda.current_stream = staticmethod(lambda device=None: Stream())

    def begin_capture():
        on_stream(CAPTURE_STREAM)
        return fake.hipStreamBeginCapture(ctypes.c_void_p(CAPTURE_STREAM), 0)

    def end_capture():
        on_stream(STREAM)
        graph = ctypes.c_void_p()
        result = fake.hipStreamEndCapture(ctypes.c_void_p(CAPTURE_STREAM),
                                          ctypes.byref(graph))
        return result, graph

    def capture_status():
        status = ctypes.c_int(-1)
        fake.hipStreamIsCapturing(ctypes.c_void_p(CAPTURE_STREAM),
                                  ctypes.byref(status))
        return status.value

    def capture_counters():
        # [calls refused by the capture rules, graph launches, launches
        # in the capture on CAPTURE_STREAM (-1: none)]
        counts = [ctypes.c_int() for _ in range(3)]
        fake.fakeHipCaptureCounters(ctypes.c_void_p(CAPTURE_STREAM),
                                    *[ctypes.byref(c) for c in counts])
        return [c.value for c in counts]

    def memory_counts():
        counts = [ctypes.c_int() for _ in range(2)]
        fake.fakeHipMemoryCounters(*[ctypes.byref(c) for c in counts])
        return [c.value for c in counts]
""")

ROCM_CASE = textwrap.dedent("""
    torch.float8_e4m3fnuz = torch.dtype("float8_e4m3fnuz", np.uint8)
    rng = np.random.default_rng(31)
    case, options = make_case(rng, hq=8, hkv=1, d=64, p=16, query_length=1,
                              kv_dtype="e4m3fnuz", v_layout="plain",
                              lengths=[20, 70, 5], scales="per_tensor")
    t = tensors_of(case)
    sequences = dict(num_query_heads=8, num_kv_heads=1, head_dim=64,
                     page_size=16, kv_dtype=torch.float8_e4m3fnuz,
                     scale="per_tensor")
    def fp8(array):
        return torch.Tensor(array, torch.float8_e4m3fnuz)
""")


@needs_fake_hip
def test_a_decode_step_captured_after_a_first_call_replays_its_launches():
    done = run_python(COUNTING_TORCH_PRELUDE + COUNTING_TORCH + ROCM_TORCH
                      + CAPTURE + ROCM_CASE + textwrap.dedent("""
        # Three layers: each its own caches, query, scales and output.
        layers = []
        for layer in range(3):
            k = fp8(rng.integers(0, 0x7F, case["key_cache"].shape, np.uint8))
            v = fp8(rng.integers(0, 0x7F, case["value_cache"].shape,
                                 np.uint8))
            q = torch.tensor_of(pa_mlir.float32_to_bits(
                rng.standard_normal(case["query"].shape, np.float32), "bf16"))
            scale = torch.tensor_of(np.array([0.5 + layer], np.float32))
            out = torch.full(case["query"].shape, 0.0, torch.bfloat16,
                             "cuda:0")
            layers.append(dict(query=q, key_cache=k, value_cache=v,
                               k_scale=scale, v_scale=scale, out=out))

        def step(plan):
            plan.replan()
            for layer in layers:
                plan.run(**layer)

        # The first call: compiles, loads the module, plans.
        plan = pa_mlir.plan(t["block_tables"], t["context_lengths"],
                            debug=False, **sequences)
        fake.fakeHipReset()
        step(plan)
        eager = hip_launches()
        eager_counts = hip_counts()

        allocations_before = allocations[0]
        fake.fakeHipReset()
        began = begin_capture()
        step(plan)
        # A re-plan from the same sequence tensors, as a serving step
        # that calls pa_mlir.plan() each step does.
        again = pa_mlir.plan(t["block_tables"], t["context_lengths"],
                             debug=False, **sequences)
        for layer in layers[:1]:
            again.run(**layer)
        status, in_capture = capture_status(), capture_counters()
        outside = hip_launches()
        ended, graph = end_capture()
        instance = ctypes.c_void_p()
        instantiated = fake.hipGraphInstantiate(ctypes.byref(instance),
                                                graph, None, None, 0)
        replays = [fake.hipGraphLaunch(instance, ctypes.c_void_p(STREAM))
                   for _ in range(2)]
        replayed = hip_launches()
        after = dict(counts=hip_counts(), memory=memory_counts(),
                     capture=capture_counters(),
                     torch_allocations=allocations[0] - allocations_before)
        destroyed = [fake.hipGraphExecDestroy(instance),
                     fake.hipGraphDestroy(graph),
                     fake.hipGraphDestroy(graph)]

        artifact = pa_mlir.compile(plan.config)
        def arguments(launch):
            workspace = plan.workspace.data_ptr()
            if launch["name"] == "pa_plan":
                return dict(
                    lengths=param(launch, artifact,
                                  "context_lengths.aligned_ptr")
                    == t["context_lengths"].data_ptr(),
                    work_info_in_workspace=0 <= param(
                        launch, artifact, "work_info.aligned_ptr")
                    - workspace < plan.workspace_bytes)
            if launch["name"] == "pa_decode":
                return [param(launch, artifact, f"{name}.aligned_ptr")
                        for name in ("query", "key_cache", "value_cache",
                                     "block_tables")]
            return param(launch, artifact, "output.aligned_ptr")
        expected_arguments = [dict(lengths=True, work_info_in_workspace=True)]
        for layer in layers:
            expected_arguments += [
                [layer[name].data_ptr()
                 for name in ("query", "key_cache", "value_cache")]
                + [t["block_tables"].data_ptr()],
                layer["out"].data_ptr()]

        print(json.dumps(dict(
            eager=[[l["name"], l["stream"]] for l in eager],
            eager_counts=eager_counts,
            eager_arguments=[arguments(l) for l in eager],
            expected_arguments=expected_arguments,
            began=began, status=status, in_capture=in_capture,
            outside=len(outside), ended=ended, graph=bool(graph.value),
            instantiated=instantiated, replays=replays,
            replayed=[[l["name"], l["stream"]] for l in replayed],
            same_bytes=[l["raw"] for l in replayed]
                == [l["raw"] for l in (eager + eager[:3]) * 2],
            after=after, destroyed=destroyed)))
    """), FAKE_HIP, PA_HIP_LIBRARY=FAKE_HIP)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    stream = 0x7700
    layer = [["pa_decode", stream], ["pa_reduce", stream]]
    assert out["eager"] == [["pa_plan", stream]] + layer * 3
    assert out["eager_counts"] == [0, 0, 0, 0], "no load, copy or wait"
    assert out["eager_arguments"] == out["expected_arguments"], (
        "the caller's tensors, no staging copies")
    # Under capture: the launches went into the graph (plan + 3 layers,
    # then the second plan's plan + one layer), none ran, nothing refused.
    assert out["began"] == 0 and out["status"] == 1
    assert out["in_capture"] == [0, 0, 1 + 2 * 3 + 1 + 2]
    assert out["outside"] == 0
    assert (out["ended"], out["graph"], out["instantiated"]) == (0, True, 0)
    # Two replays on the caller's stream: the eager step's kernels with its
    # parameters, byte for byte, twice.
    assert out["replays"] == [0, 0]
    assert out["replayed"] == (out["eager"] + out["eager"][:3]) * 2
    assert out["same_bytes"]
    assert out["after"] == dict(counts=[0, 0, 0, 0], memory=[0, 0],
                                capture=[0, 2, -1], torch_allocations=0)
    assert out["destroyed"] == [0, 0, 1], "a destroyed graph is gone"


@needs_fake_hip
def test_calls_that_load_or_copy_break_a_capture_visibly():
    """The capture rules bite: a first call (it loads the module) under
    capture fails and invalidates the capture; so does a numpy call on
    target="hip" (it allocates and copies) even after an eager one; a
    synchronization on another stream; a launch on the legacy default
    stream. Each capture then ends with
    hipErrorStreamCaptureInvalidated and no graph, as HIP's."""
    done = run_python(COUNTING_TORCH_PRELUDE + COUNTING_TORCH + ROCM_TORCH
                      + CAPTURE + ROCM_CASE + textwrap.dedent("""
        def captured(call):
            # What `call` raised under capture, the capture's status after
            # it, and what hipStreamEndCapture returned.
            fake.fakeHipReset()
            assert begin_capture() == 0
            try:
                call()
                error = None
            except Exception as raised:
                error = f"{type(raised).__name__}: {raised}"
            status, counters = capture_status(), capture_counters()
            ended, graph = end_capture()
            return dict(error=error, status=status, refusals=counters[0],
                        launched=len(hip_launches()), ended=ended,
                        graph=graph.value)

        results = {}
        results["first plan"] = captured(lambda: pa_mlir.plan(
            t["block_tables"], t["context_lengths"], debug=False,
            **sequences))

        arrays = dict(case)
        options.pop("kv_dtype")
        def numpy_decode():
            return pa_mlir.decode(**arrays, **options, kv_dtype="e4m3fnuz",
                                  target="hip", chip="gfx942")
        numpy_decode()  # eager: loads the module, copies in and out
        fake.fakeHipReset()
        numpy_decode()
        eager_copies = hip_counts()[2]
        results["numpy"] = captured(numpy_decode)

        def synchronize_elsewhere():
            result = fake.hipStreamSynchronize(ctypes.c_void_p(0x7900))
            if result:
                raise RuntimeError(f"hipStreamSynchronize: {result}")
        results["sync"] = captured(synchronize_elsewhere)

        plan = pa_mlir.plan(t["block_tables"], t["context_lengths"],
                            debug=False, **sequences)
        # A launch on the legacy default stream (which waits for every
        # stream) while another stream captures.
        def on_the_legacy_stream():
            on_stream(0)
            plan.replan()
        results["legacy stream"] = captured(on_the_legacy_stream)
        # After the broken captures, the same plan captures cleanly.
        results["plan after"] = captured(plan.replan)
        print(json.dumps(dict(results=results, eager_copies=eager_copies)))
    """), FAKE_HIP, PA_HIP_LIBRARY=FAKE_HIP)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    results = out["results"]
    assert out["eager_copies"] > 0, "numpy inputs are copied"
    assert results["first plan"]["error"].startswith(
        "RuntimeError: hipModuleLoadData: hipErrorStreamCaptureUnsupported")
    assert results["numpy"]["error"].startswith(
        "ValueError: hipMalloc: hipErrorStreamCaptureUnsupported")
    assert results["sync"]["error"] == "RuntimeError: hipStreamSynchronize: 900"
    assert results["legacy stream"]["error"] == (
        "ValueError: hipModuleLaunchKernel: hipErrorStreamCaptureImplicit "
        "for 'pa_plan'")
    for label in ("first plan", "numpy", "sync", "legacy stream"):
        result = results[label]
        assert result["status"] == 2, f"{label}: the capture is invalidated"
        assert (result["refusals"], result["launched"]) == (1, 0), label
        assert (result["ended"], result["graph"]) == (901, None), label
    assert results["plan after"] == dict(
        error=None, status=1, refusals=0, launched=0, ended=0,
        graph=results["plan after"]["graph"])
    assert results["plan after"]["graph"]


@needs_fake_hip
def test_new_sequence_tensors_plan_under_capture_with_the_callers_workspace():
    """An engine that passes fresh sequence tensors every step: under
    capture, plan() of new tensors of the plan's shapes (a twin, over the
    caller's workspace) launches the plan kernel into the graph, reading
    the new tensors, and allocates, copies and loads nothing."""
    done = run_python(COUNTING_TORCH_PRELUDE + COUNTING_TORCH + ROCM_TORCH
                      + CAPTURE + ROCM_CASE + textwrap.dedent("""
        config = pa_mlir.DecodeConfig(chip="gfx942", **dict(
            sequences, kv_dtype="e4m3fnuz"))
        workspace = torch.full((pa_mlir.workspace_bytes(3, config),), 0,
                               torch.uint8, "cuda:0")
        plan = pa_mlir.plan(t["block_tables"], t["context_lengths"],
                            debug=False, workspace=workspace, **sequences)
        tables = torch.tensor_of(case["block_tables"].copy())
        lengths = torch.tensor_of(case["context_lengths"].copy())
        fake.fakeHipReset()
        allocations_before = allocations[0]
        began = begin_capture()
        twin = pa_mlir.plan(tables, lengths, debug=False,
                            workspace=workspace, **sequences)
        in_capture = capture_counters()
        during = dict(counts=hip_counts(), memory=memory_counts(),
                      torch_allocations=allocations[0] - allocations_before)
        ended, graph = end_capture()
        instance = ctypes.c_void_p()
        fake.hipGraphInstantiate(ctypes.byref(instance), graph, None, None, 0)
        fake.hipGraphLaunch(instance, ctypes.c_void_p(STREAM))
        [replayed] = hip_launches()
        artifact = pa_mlir.compile(plan.config)
        print(json.dumps(dict(
            began=began, in_capture=in_capture, during=during, ended=ended,
            twin=twin is not plan, replayed=replayed["name"],
            lengths=param(replayed, artifact, "context_lengths.aligned_ptr")
                == lengths.data_ptr())))
    """), FAKE_HIP, PA_HIP_LIBRARY=FAKE_HIP)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out == dict(began=0, in_capture=[0, 0, 1],
                       during=dict(counts=[0, 0, 0, 0], memory=[0, 0],
                                   torch_allocations=0),
                       ended=0, twin=True, replayed="pa_plan", lengths=True)
