"""The decode cases of the GPU test (test_cuda_gpu.py), in one list shared
with bench/cuda-python-h200.sh: `prepare` compiles exactly these programs
into the on-disk compile cache here (fill_cache), and the GPU machine runs
them from it without MLIR.

    python3 test/Python/cuda_cases.py fill     # PA_MLIR_CACHE_DIR must be set

A case is make_case's arguments (test_decode.py) plus the decode() options
("call"). The graph case is captured with B = 3 sequences in buffers sized for
lengths up to GRAPH_MAX_LENGTH; its replays write other lengths, queries,
caches, scales and sinks into the same buffers.
"""

import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))

import pa_mlir  # noqa: E402
from test_decode import make_case, to_layout  # noqa: E402

CASES = {
    "fp8-plain-per-tensor-q1": dict(
        hq=8, hkv=1, d=128, p=16, query_length=1, kv_dtype="e4m3fn",
        v_layout="plain", lengths=[0, 1, 37, 300, 1000],
        scales="per_tensor"),
    "fp8-transposed-per-token-window-sinks-q4": dict(
        hq=16, hkv=2, d=128, p=16, query_length=4, kv_dtype="e4m3fn",
        v_layout="transposed", lengths=[4, 130, 513], scales="per_token",
        sinks=True, call=dict(sliding_window=100)),
    "fp8-d256-per-token-q1-budget": dict(
        hq=16, hkv=1, d=256, p=16, query_length=1, kv_dtype="e4m3fn",
        v_layout="plain", lengths=[3000, 17], scales="per_token",
        call=dict(budget=6)),
    "bf16-plain-q4": dict(
        hq=8, hkv=2, d=64, p=16, query_length=4, kv_dtype="bf16",
        v_layout="plain", lengths=[5, 257, 1024]),
    # ALiBi (issue 17) on the plan case's configuration (test_cuda_gpu's
    # plan and vLLM tests reuse it): slopes 2^-k, one negated.
    "fp8-plain-per-tensor-alibi-q1": dict(
        hq=8, hkv=1, d=128, p=16, query_length=1, kv_dtype="e4m3fn",
        v_layout="plain", lengths=[1, 90, 700], scales="per_tensor",
        call=dict(alibi_slopes=np.array(
            [0.5, 0.25, -0.125, 2.0 ** -4, 2.0 ** -5, 2.0 ** -6, 2.0 ** -7,
             2.0 ** -8], dtype=np.float32))),
    "bf16-transposed-per-tensor-window-q1-p64": dict(
        hq=32, hkv=4, d=128, p=64, query_length=1, kv_dtype="bf16",
        v_layout="transposed", lengths=[1, 64, 65, 2000],
        scales="per_tensor", call=dict(sliding_window=513)),
}

# The CUDA-graph case (torch.cuda.graph): captured once, replayed with new
# lengths and queries written into the same tensors.
GRAPH_CASE = "fp8-transposed-per-token-window-sinks-q4"
GRAPH_LENGTHS = [[300, 5, 1000], [1, 257, 1200], [0, 0, 0], [700, 40, 9]]
GRAPH_MAX_LENGTH = 1200


def case(name, seed=0, lengths=None):
    """(arrays, options) of case `name` (numpy), deterministic in `seed`."""
    spec = dict(CASES[name])
    call = spec.pop("call", {})
    if lengths is not None:
        spec["lengths"] = lengths
    rng = np.random.default_rng(sorted(CASES).index(name) * 1000 + seed)
    arrays, options = make_case(rng, **spec)
    options.update(call)
    return arrays, options


def graph_case(seed=0, lengths=None):
    """The graph case in buffers of one size for every replay: a pool of
    B * width + 3 pages (the pages past make_case's hold NaN bits and NaN
    scales, which no row reads) and a block table `width` wide."""
    name = GRAPH_CASE
    arrays, options = case(name, seed, lengths or GRAPH_LENGTHS[0])
    p, kv_dtype = CASES[name]["p"], CASES[name]["kv_dtype"]
    batch = len(arrays["context_lengths"])
    width = -(-GRAPH_MAX_LENGTH // p) + 1
    pages = batch * width + 3
    used = arrays["block_tables"].shape[1]
    assert used <= width and arrays["key_cache"].shape[0] <= pages
    table = np.zeros((batch, width), dtype=np.int32)
    table[:, :used] = arrays["block_tables"]
    arrays["block_tables"] = table

    def pad(array, fill):
        padded = np.full((pages,) + array.shape[1:], fill, dtype=array.dtype)
        padded[:array.shape[0]] = array
        return padded

    nan = {"e4m3fn": 0x7F, "e4m3fnuz": 0x80, "bf16": 0x7FC0}[kv_dtype]
    for cache in ("key_cache", "value_cache"):
        arrays[cache] = pad(arrays[cache], nan)
    for scale in ("k_scale", "v_scale"):
        if isinstance(options.get(scale), np.ndarray):
            options[scale] = pad(options[scale], np.nan)
    return arrays, options


# vLLM v1's combined cache (issue 17): the fp8 query-length-1 case's K and
# V as nhd / hnd halves of one [N, 2, ...] cache (pages two pages apart),
# through decode() (numpy and tensors), the custom op and vLLM's signature.
LAYOUT_CASE = "fp8-plain-per-tensor-q1"
KV_LAYOUTS = ("nhd", "hnd")


def layout_case(kv_layout, seed=0):
    """(packed arrays for the reference, the arrays with K and V the
    `kv_layout` halves of one combined [N, 2, ...] numpy cache, options
    with kv_layout, the combined cache)."""
    arrays, options = case(LAYOUT_CASE, seed)
    key, value = to_layout(arrays["key_cache"], arrays["value_cache"],
                           kv_layout)
    combined = np.stack([key, value], axis=1)
    halves = dict(arrays, key_cache=combined[:, 0],
                  value_cache=combined[:, 1])
    return arrays, halves, dict(options, kv_layout=kv_layout), combined


class _CompileOnly:
    """A target program that compiles for target 'cuda' and runs nothing:
    decode() computes and compiles the same configuration as with
    target='cuda' (through _cuda.cuda_config), so the cache holds exactly
    what the GPU test will ask for."""

    def __init__(self, c_config):
        self.artifact = pa_mlir.compile(pa_mlir._cuda.cuda_config(c_config))

    def plan_capacity(self, batch):
        return self.artifact.plan_capacity(batch)

    def run(self, buffers):
        pass


# Programs the GPU tests compile through pa_mlir.plan and the drop-in entry
# points rather than decode(): vLLM's call gives the softmax scale, aiter's
# reads the transposed V.
EXTRA_CONFIGS = [
    pa_mlir.DecodeConfig(num_query_heads=8, num_kv_heads=1, head_dim=128,
                         scale="per_tensor", softmax_scale=128 ** -0.5,
                         chip="sm_90a"),
    pa_mlir.DecodeConfig(num_query_heads=8, num_kv_heads=1, head_dim=128,
                         scale="per_tensor", v_layout="transposed",
                         chip="sm_90a"),
    # vLLM's call with ALiBi slopes.
    pa_mlir.DecodeConfig(num_query_heads=8, num_kv_heads=1, head_dim=128,
                         scale="per_tensor", softmax_scale=128 ** -0.5,
                         alibi=True, chip="sm_90a"),
] + [
    # The layout case through the custom op and vLLM's call.
    pa_mlir.DecodeConfig(num_query_heads=8, num_kv_heads=1, head_dim=128,
                         scale="per_tensor", softmax_scale=softmax_scale,
                         kv_layout=kv_layout, chip="sm_90a")
    for kv_layout in KV_LAYOUTS for softmax_scale in (None, 128 ** -0.5)]


def fill_cache():
    """Compiles every program of the GPU test into PA_MLIR_CACHE_DIR;
    returns the number of programs."""
    if not os.environ.get("PA_MLIR_CACHE_DIR"):
        raise SystemExit("fill_cache needs PA_MLIR_CACHE_DIR")
    pa_mlir.targets.register_target("cuda-compile-only", _CompileOnly)
    try:
        calls = [case(name) for name in sorted(CASES)] + [graph_case()] + [
            layout_case(kv_layout)[1:3] for kv_layout in KV_LAYOUTS]
        for arrays, options in calls:
            pa_mlir.decode(**arrays, **options, target="cuda-compile-only")
        for config in EXTRA_CONFIGS:
            pa_mlir.compile(config)
        return pa_mlir.compile_cache_size()
    finally:
        pa_mlir.targets.unregister_target("cuda-compile-only")


if __name__ == "__main__":
    if sys.argv[1:] != ["fill"]:
        raise SystemExit("usage: cuda_cases.py fill")
    count = fill_cache()
    print(f"compiled {count} programs into {os.environ['PA_MLIR_CACHE_DIR']}")
