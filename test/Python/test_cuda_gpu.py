"""decode(target="cuda") on a real NVIDIA GPU against the float64
reference of test_decode.py (the spec's function), at the spec's tolerance
(fp8 KV 5e-3, bf16 KV 2e-3): numpy arrays (copied by the runtime), PyTorch
CUDA tensors (launched on in place) and a CUDA graph captured through
torch and replayed with new lengths and queries in the same tensors.

Skipped, with the reason, without a GPU. The cases are cuda_cases.CASES,
which bench/cuda-python-h200.sh compiles into an on-disk cache here, so the
GPU machine runs them without MLIR:

    bash bench/cuda-python-h200.sh prepare build nv-artifacts/python
    bash bench/cuda-python-h200.sh run nv-artifacts/python     # on the GPU
"""

import importlib.util

import numpy as np
import pytest

import pa_mlir
from cuda_cases import CASES, GRAPH_CASE, GRAPH_LENGTHS, case, graph_case
from test_decode import assert_close, reference_decode

REASON = pa_mlir._cuda.unavailable_reason()
pytestmark = pytest.mark.skipif(REASON is not None,
                                reason=f"no CUDA GPU here: {REASON}")

HAVE_TORCH = importlib.util.find_spec("torch") is not None


def reference(arrays, options):
    return reference_decode(**arrays, **{
        name: value for name, value in options.items()
        if name not in ("query_dtype", "chip", "budget", "max_partitions")})


@pytest.fixture(scope="module")
def torch():
    if not HAVE_TORCH:
        pytest.skip("PyTorch is not installed")
    import torch as module
    if not module.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    return module


def to_device(torch, arrays, options):
    """The case as CUDA tensors (caches as their raw bits: uint8, or int16
    for bf16); per-tensor scales stay floats."""
    def tensor(array):
        if array.dtype == np.uint16:
            array = array.view(np.int16)
        return torch.from_numpy(np.ascontiguousarray(array)).cuda()

    device_arrays = {name: tensor(array) for name, array in arrays.items()}
    device_options = dict(options)
    for name in ("k_scale", "v_scale", "sinks"):
        if isinstance(options.get(name), np.ndarray):
            device_options[name] = tensor(options[name])
    return device_arrays, device_options


def output_of(tensor):
    return tensor.float().cpu().numpy()


@pytest.mark.parametrize("name", sorted(CASES))
def test_numpy_arrays_match_the_reference(name):
    arrays, options = case(name)
    # decode() poisons the output and partials with NaN before the run and
    # assert_close requires every output to be finite.
    result = pa_mlir.decode(**arrays, **options, target="cuda",
                            return_partials=True)
    assert_close(result.output, reference(arrays, options),
                 CASES[name]["kv_dtype"])
    # The plan: every slot written (no poison left), each sequence's
    # partitions within the capacity.
    capacity = result.work_info.shape[0]
    first, count = result.reduce_info.T
    assert np.all(result.work_info != -0x21524111)
    assert np.all((first >= 0) & (count >= 0) & (first + count <= capacity))


@pytest.mark.parametrize("name", sorted(CASES))
def test_cuda_tensors_match_the_reference(name, torch):
    arrays, options = case(name)
    device_arrays, device_options = to_device(torch, arrays, options)
    out = torch.full(arrays["query"].shape, float("nan"),
                     dtype=torch.bfloat16, device="cuda")
    got = pa_mlir.decode(**device_arrays, **device_options, target="cuda",
                         out=out)
    assert got is out
    torch.cuda.synchronize()
    assert_close(output_of(got), reference(arrays, options),
                 CASES[name]["kv_dtype"])
    # The same kernels on the same inputs: the numpy path's bits.
    numpy_out = pa_mlir.decode(**arrays, **options, target="cuda")
    assert np.array_equal(output_of(got), numpy_out)


def test_cuda_graph_replays_with_new_lengths_and_queries(torch):
    kv_dtype = CASES[GRAPH_CASE]["kv_dtype"]
    arrays, options = graph_case(seed=0)
    static, device_options = to_device(torch, arrays, options)
    # The first call loads the program; a capture only launches.
    first = pa_mlir.decode(**static, **device_options, target="cuda")
    torch.cuda.synchronize()
    assert_close(output_of(first), reference(arrays, options), kv_dtype)

    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = pa_mlir.decode(**static, **device_options, target="cuda")
    for step, lengths in enumerate(GRAPH_LENGTHS):
        new, new_options = graph_case(seed=step + 1, lengths=lengths)
        for name, array in new.items():
            if array.dtype == np.uint16:
                array = array.view(np.int16)
            static[name].copy_(torch.from_numpy(array))
        for name in ("k_scale", "v_scale", "sinks"):
            if isinstance(new_options.get(name), np.ndarray):
                device_options[name].copy_(
                    torch.from_numpy(new_options[name]))
        out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        got = output_of(out)
        assert_close(got, reference(new, new_options), kv_dtype)
        if not any(lengths):
            assert not got.any(), "empty sequences give zeros"
