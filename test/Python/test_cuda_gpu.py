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
from cuda_cases import (CASES, GRAPH_CASE, GRAPH_LENGTHS, KV_LAYOUTS, case,
                        graph_case, layout_case)
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
    for name in ("k_scale", "v_scale", "sinks", "alibi_slopes"):
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


# ---------------------------------------------------------------------------
# Plans, the torch custom op and the drop-in entry points (issue 18)
# ---------------------------------------------------------------------------

# Layers of one decode step: the plan case's configuration, each layer with
# its own caches, queries and scales over the same sequences.
PLAN_CASE = "fp8-plain-per-tensor-q1"
LAYERS = 4


def layer_cases(step, lengths=None):
    """[(arrays, options)] of the LAYERS layers of step `step`: the same
    sequences and cache contents (make_case's garbage pages follow its
    block tables), another query and other scales per layer."""
    first, first_options = case(PLAN_CASE, seed=100 * step, lengths=lengths)
    layers = [(first, first_options)]
    for layer in range(1, LAYERS):
        other, other_options = case(PLAN_CASE, seed=100 * step + layer,
                                    lengths=lengths)
        layers.append((dict(first, query=other["query"]),
                       dict(first_options, k_scale=0.75 + 0.125 * layer,
                            v_scale=0.5 + 0.25 * layer)))
    return layers


def float8_cache(torch, array):
    """The raw e4m3fn bits of `array` as a torch.float8_e4m3fn tensor."""
    return torch.from_numpy(array).cuda().view(torch.float8_e4m3fn)


def scale_tensor(torch, value):
    return torch.tensor([value], dtype=torch.float32, device="cuda")


def bf16_query(torch, query):
    return torch.from_numpy(query).cuda().to(torch.bfloat16)


ALIBI_CASE = "fp8-plain-per-tensor-alibi-q1"


@pytest.mark.parametrize("alibi", [False, True])
def test_a_plan_runs_every_layer_against_the_reference(torch, alibi):
    """One plan, every layer's run against the reference; with
    plan(alibi=True) each layer's run takes its own slopes as a float32
    CUDA tensor [Hq]."""
    layers = layer_cases(2 if alibi else 0)
    first = layers[0][0]
    tables = torch.from_numpy(first["block_tables"]).cuda()
    lengths = torch.from_numpy(first["context_lengths"]).cuda()
    hq, d = first["query"].shape[1:]
    plan = pa_mlir.plan(tables, lengths, num_query_heads=hq,
                        num_kv_heads=first["key_cache"].shape[1],
                        head_dim=d, page_size=16,
                        kv_dtype=torch.float8_e4m3fn, scale="per_tensor",
                        alibi=alibi)
    outs, expected_options = [], []
    for layer, (arrays, options) in enumerate(layers):
        slopes = {}
        if alibi:
            slopes = dict(alibi_slopes=CASES[ALIBI_CASE]["call"][
                "alibi_slopes"] * (layer + 1))
        expected_options.append(dict(options, **slopes))
        out = torch.full(arrays["query"].shape, float("nan"),
                         dtype=torch.bfloat16, device="cuda")
        plan.run(bf16_query(torch, arrays["query"]),
                 float8_cache(torch, arrays["key_cache"]),
                 float8_cache(torch, arrays["value_cache"]),
                 k_scale=scale_tensor(torch, options["k_scale"]),
                 v_scale=scale_tensor(torch, options["v_scale"]), out=out,
                 **{name: torch.from_numpy(value).cuda()
                    for name, value in slopes.items()})
        outs.append(out)
    torch.cuda.synchronize()
    for (arrays, _), options, out in zip(layers, expected_options, outs):
        assert_close(output_of(out), reference(arrays, options), "e4m3fn")


def test_a_fused_qkv_query_view_matches_the_reference(torch):
    """The query as the first Hq heads of a fused qkv tensor ([B, Hq + 2
    Hkv, D], NaN in the k and v heads), passed as a view (no copy): the
    kernels read its rows at the view's stride and match the reference
    (read packed, they would read the NaN heads)."""
    arrays, options = layer_cases(1)[0]
    tables = torch.from_numpy(arrays["block_tables"]).cuda()
    lengths = torch.from_numpy(arrays["context_lengths"]).cuda()
    rows, hq, d = arrays["query"].shape
    hkv = arrays["key_cache"].shape[1]
    plan = pa_mlir.plan(tables, lengths, num_query_heads=hq,
                        num_kv_heads=hkv, head_dim=d, page_size=16,
                        kv_dtype=torch.float8_e4m3fn, scale="per_tensor")
    qkv = torch.full((rows, hq + 2 * hkv, d), float("nan"),
                     dtype=torch.bfloat16, device="cuda")
    qkv[:, :hq] = bf16_query(torch, arrays["query"])
    view = qkv[:, :hq]
    assert not view.is_contiguous() and view.data_ptr() == qkv.data_ptr()
    out = torch.full(arrays["query"].shape, float("nan"),
                     dtype=torch.bfloat16, device="cuda")
    plan.run(view, float8_cache(torch, arrays["key_cache"]),
             float8_cache(torch, arrays["value_cache"]),
             k_scale=scale_tensor(torch, options["k_scale"]),
             v_scale=scale_tensor(torch, options["v_scale"]), out=out)
    torch.cuda.synchronize()
    assert_close(output_of(out), reference(arrays, options), "e4m3fn")


def test_the_custom_op_under_torch_compile_and_graph_replay(torch):
    """A LAYERS-layer decode step through torch.ops.pa_mlir.paged_decode,
    eagerly, compiled with fullgraph=True, captured in a CUDA graph and
    replayed with new lengths, queries, caches and scales in the same
    tensors."""
    import pa_mlir.torch_ops  # noqa: F401  (registers the op)

    layers = layer_cases(0)
    first = layers[0][0]
    static = dict(
        tables=torch.from_numpy(first["block_tables"]).cuda(),
        lengths=torch.from_numpy(first["context_lengths"]).cuda(),
        queries=[bf16_query(torch, a["query"]) for a, _ in layers],
        keys=[float8_cache(torch, a["key_cache"]) for a, _ in layers],
        values=[float8_cache(torch, a["value_cache"]) for a, _ in layers],
        k_scales=[scale_tensor(torch, o["k_scale"]) for _, o in layers],
        v_scales=[scale_tensor(torch, o["v_scale"]) for _, o in layers])
    outs = [torch.full(a["query"].shape, float("nan"), dtype=torch.bfloat16,
                       device="cuda") for a, _ in layers]
    config = pa_mlir.DecodeConfig(
        num_query_heads=first["query"].shape[1],
        num_kv_heads=first["key_cache"].shape[1],
        head_dim=first["query"].shape[2], scale="per_tensor", chip="sm_90a")
    workspace = torch.empty(
        pa_mlir.workspace_bytes(len(first["context_lengths"]), config),
        dtype=torch.uint8, device="cuda")

    def step(tables, lengths, queries, keys, values, k_scales, v_scales):
        for layer in range(LAYERS):
            torch.ops.pa_mlir.paged_decode(
                outs[layer], queries[layer], keys[layer], values[layer],
                tables, lengths, workspace, k_scales[layer], v_scales[layer],
                None, "", 1, 0, None, "plain", "", 0, 0)

    # Eagerly (the dispatcher's path of a model outside torch.compile),
    # then compiled.
    step(**static)
    torch.cuda.synchronize()
    for (arrays, options), out in zip(layers, outs):
        assert_close(output_of(out), reference(arrays, options), "e4m3fn")
        out.fill_(float("nan"))
    compiled = torch.compile(step, fullgraph=True)
    compiled(**static)
    torch.cuda.synchronize()
    for (arrays, options), out in zip(layers, outs):
        assert_close(output_of(out), reference(arrays, options), "e4m3fn")

    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        compiled(**static)
    # New sequences in the same tensors: the lengths permuted (the same
    # pool size and table width), new tables, caches, queries and scales.
    for step_number, lengths in enumerate(([1000, 300, 0, 37, 1],
                                           [37, 1000, 1, 0, 300]), start=1):
        new = layer_cases(step_number, lengths=lengths)
        static["tables"].copy_(torch.from_numpy(new[0][0]["block_tables"]))
        static["lengths"].copy_(torch.from_numpy(
            new[0][0]["context_lengths"]))
        for layer, (arrays, options) in enumerate(new):
            static["queries"][layer].copy_(bf16_query(torch, arrays["query"]))
            for name, where in (("key_cache", "keys"),
                                ("value_cache", "values")):
                static[where][layer].view(torch.uint8).copy_(
                    torch.from_numpy(arrays[name]))
            static["k_scales"][layer].fill_(options["k_scale"])
            static["v_scales"][layer].fill_(options["v_scale"])
            outs[layer].fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        for (arrays, options), out in zip(new, outs):
            assert_close(output_of(out), reference(arrays, options),
                         "e4m3fn")


def test_the_vllm_and_aiter_signatures_match_the_reference(torch):
    import pa_mlir.torch_ops as ops

    arrays, options = case(PLAN_CASE, seed=7)
    hq, d = arrays["query"].shape[1:]
    query = bf16_query(torch, arrays["query"])
    key = torch.from_numpy(arrays["key_cache"]).cuda()  # uint8, as vLLM's
    value = torch.from_numpy(arrays["value_cache"]).cuda()
    tables = torch.from_numpy(arrays["block_tables"]).cuda()
    lengths = torch.from_numpy(arrays["context_lengths"]).cuda()
    k_scale = scale_tensor(torch, options["k_scale"])
    v_scale = scale_tensor(torch, options["v_scale"])
    expected = reference(arrays, dict(options, softmax_scale=d ** -0.5))
    out = torch.full(query.shape, float("nan"), dtype=torch.bfloat16,
                     device="cuda")
    ops.vllm_paged_attention(out, None, None, None, query, key, value,
                             key.shape[1], d ** -0.5, tables, lengths, None,
                             16, int(arrays["context_lengths"].max()), None,
                             "fp8", k_scale, v_scale, chip="sm_90a")
    torch.cuda.synchronize()
    assert_close(output_of(out), expected, "e4m3fn")
    # ALiBi slopes (vLLM's alibi_slopes, float32 [Hq]), a CUDA tensor.
    slopes = CASES[ALIBI_CASE]["call"]["alibi_slopes"]
    out.fill_(float("nan"))
    ops.vllm_paged_attention(out, None, None, None, query, key, value,
                             key.shape[1], d ** -0.5, tables, lengths, None,
                             16, int(arrays["context_lengths"].max()),
                             torch.from_numpy(slopes).cuda(), "fp8", k_scale,
                             v_scale, chip="sm_90a")
    torch.cuda.synchronize()
    assert_close(output_of(out), reference(arrays, dict(
        options, softmax_scale=d ** -0.5, alibi_slopes=slopes)), "e4m3fn")
    # aiter's V is pa-mlir's transposed layout [N, Hkv, P/x, D, x].
    n, hkv, _, p = arrays["value_cache"].shape
    transposed = np.ascontiguousarray(arrays["value_cache"].reshape(
        n, hkv, d, p // 16, 16).transpose(0, 1, 3, 2, 4))
    got = ops.aiter_pa_fwd(query, key, torch.from_numpy(transposed).cuda(),
                           tables, lengths, tables.stride(0),
                           K_QScale=k_scale, V_QScale=v_scale,
                           chip="sm_90a")
    torch.cuda.synchronize()
    assert_close(output_of(got), reference(
        dict(arrays, value_cache=transposed),
        dict(options, v_layout="transposed")), "e4m3fn")
    with pytest.raises(ValueError, match="qo_indptr is not supported"):
        ops.aiter_pa_fwd(query, key, value, tables, lengths,
                         tables.stride(0), qo_indptr=lengths)


@pytest.mark.parametrize("kv_layout", KV_LAYOUTS)
def test_combined_cache_halves_match_the_reference(torch, kv_layout):
    """vLLM v1's combined cache (issue 17): K and V the nhd / hnd halves of
    one [N, 2, ...] cache (pages two pages apart), read in place at their
    page strides - as numpy arrays (target "cuda"), as CUDA tensors through
    decode(), through the custom op (kv_layout=) and through vLLM's
    signature (kv_layout=): every output against the float64 reference."""
    import pa_mlir.torch_ops as ops

    packed, halves, options, combined = layout_case(kv_layout)
    plain = {k: v for k, v in options.items() if k != "kv_layout"}
    expected = reference(packed, plain)
    got = pa_mlir.decode(**halves, **options, target="cuda")
    assert_close(got, expected, "e4m3fn")

    hq, d = packed["query"].shape[1:]
    cache = float8_cache(torch, combined)  # [N, 2, ...], torch's float8
    key, value = cache[:, 0], cache[:, 1]
    assert not key.is_contiguous()
    query = bf16_query(torch, packed["query"])
    tables = torch.from_numpy(packed["block_tables"]).cuda()
    lengths = torch.from_numpy(packed["context_lengths"]).cuda()
    k_scale = scale_tensor(torch, options["k_scale"])
    v_scale = scale_tensor(torch, options["v_scale"])
    out = torch.full(query.shape, float("nan"), dtype=torch.bfloat16,
                     device="cuda")
    pa_mlir.decode(query, key, value, tables, lengths, query_length=1,
                   k_scale=k_scale, v_scale=v_scale, kv_layout=kv_layout,
                   target="cuda", out=out)
    torch.cuda.synchronize()
    assert_close(output_of(out), expected, "e4m3fn")

    config = pa_mlir.DecodeConfig(num_query_heads=hq, num_kv_heads=1,
                                  head_dim=d, scale="per_tensor",
                                  kv_layout=kv_layout, chip="sm_90a")
    workspace = torch.empty(
        pa_mlir.workspace_bytes(len(packed["context_lengths"]), config),
        dtype=torch.uint8, device="cuda")
    out.fill_(float("nan"))
    torch.ops.pa_mlir.paged_decode(
        out, query, key, value, tables, lengths, workspace, k_scale, v_scale,
        None, "", 1, 0, None, "plain", "", 0, 0, None, None, kv_layout)
    torch.cuda.synchronize()
    assert_close(output_of(out), expected, "e4m3fn")

    raw = torch.from_numpy(combined).cuda()  # uint8, as vLLM's
    out.fill_(float("nan"))
    ops.vllm_paged_attention(out, None, None, None, query, raw[:, 0],
                             raw[:, 1], 1, d ** -0.5, tables, lengths, None,
                             16, int(packed["context_lengths"].max()), None,
                             "fp8", k_scale, v_scale, chip="sm_90a",
                             kv_layout=kv_layout)
    torch.cuda.synchronize()
    assert_close(output_of(out), reference(
        packed, dict(plain, softmax_scale=d ** -0.5)), "e4m3fn")
