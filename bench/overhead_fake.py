"""Host time per call of pa_mlir's torch path without a GPU (issue 18): the
fake torch of test/Python over the recording CUDA driver
(libpa-fake-cuda.so), so what is timed is pa_mlir's Python and the
runtime library's enqueue (the fake driver records a launch in place of
the real driver's work).

    PA_CUDA_LIBRARY=build/lib/libpa-fake-cuda.so PA_MLIR_LIB=... \\
        python3 bench/overhead_fake.py [--calls N]

Shape: B 1, L 1024, D 256, Hq 16, Hkv 2, fp8 e4m3fn per-tensor scales,
page 16 (bench/cuda_overhead.py's B 1 L 1024). Prints medians (us) of:
  run        Plan.run of a reused plan (what each layer costs)
  plan+run   pa_mlir.plan() of the same tensors (a lookup) + run
  new seqs   plan() of sequence tensors it has not seen (a serving
             engine's fresh block tables and lengths each step: one of
             more pairs than the plan cache holds, in turn) + run
  new seqs (Planner)  the same through a pa_mlir.Planner (the keywords
             bound once)
  first plan the same with every plan cache cleared first (a plan built
             from its shapes: the first plan of a shape)
  decode     pa_mlir.decode() on tensors with out= (plans per call)
and the launches one run and one plan() issue. --fast-tensors: tensors
whose accessors (data_ptr, shape, stride, ...) return stored values, as
fast as torch's C ones, so that the figures show pa_mlir's own cost
rather than the fake tensors' numpy accessors.
"""

import argparse
import ctypes
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "test" / "Python"))

import fake_torch  # noqa: E402

sys.modules["torch"] = fake_torch
torch = fake_torch

import pa_mlir  # noqa: E402

HEADS, KV_HEADS, HEAD_DIM, PAGE, BATCH, LENGTH = 16, 2, 256, 16, 1, 1024
KEYWORDS = dict(num_query_heads=HEADS, num_kv_heads=KV_HEADS,
                head_dim=HEAD_DIM, page_size=PAGE, kv_dtype="e4m3fn",
                scale="per_tensor", debug=False)


def median_us(work, calls):
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def launches(fake):
    """The names of the launches the fake driver recorded (then reset)."""
    fake.fakeCudaLaunch.restype = ctypes.c_char_p
    grid, block = (ctypes.c_uint * 3)(), (ctypes.c_uint * 3)()
    shared, stream = ctypes.c_uint(), ctypes.c_void_p()
    params, size = ctypes.POINTER(ctypes.c_ubyte)(), ctypes.c_size_t()
    names = [fake.fakeCudaLaunch(i, grid, block, ctypes.byref(shared),
                                 ctypes.byref(stream), ctypes.byref(params),
                                 ctypes.byref(size)).decode()
             for i in range(fake.fakeCudaLaunchCount())]
    fake.fakeCudaReset()
    return names


class FastTensor(torch.Tensor):
    """A fake tensor whose accessors return values stored when it is made
    (the fake's compute them from numpy each time)."""
    shape = is_cuda = None  # instance attributes here, not properties

    def __init__(self, tensor):
        super().__init__(tensor.array, tensor.dtype, str(tensor.device))
        self.shape, self.is_cuda = tensor.shape, tensor.is_cuda
        self._stored = (tensor.data_ptr(), tensor.stride(),
                        tensor.get_device(), tensor.is_contiguous(),
                        tensor.dim(), tensor.numel())

    def data_ptr(self):
        return self._stored[0]

    def stride(self):
        return self._stored[1]

    def get_device(self):
        return self._stored[2]

    def is_contiguous(self):
        return self._stored[3]

    def dim(self):
        return self._stored[4]

    def numel(self):
        return self._stored[5]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--fast-tensors", action="store_true")
    arguments = parser.parse_args()
    calls = arguments.calls
    made = FastTensor if arguments.fast_tensors else (lambda t: t)
    fake = ctypes.CDLL(os.environ["PA_CUDA_LIBRARY"])
    rng = np.random.default_rng(0)
    pages = BATCH * LENGTH // PAGE

    def sequences():
        return (made(torch.tensor_of(rng.permutation(pages).astype(np.int32)
                                     .reshape(BATCH, -1))),
                made(torch.tensor_of(np.full((BATCH,), LENGTH, np.int32))))
    tables, lengths = sequences()
    # More pairs than the plan cache holds: each plan() of the next one
    # finds no plan of its tensors.
    fresh = [sequences() for _ in range(pa_mlir._plans.plans.size + 16)]
    cache_shape = (pages, KV_HEADS, HEAD_DIM // 16, PAGE, 16)
    key = made(torch.tensor_of(rng.integers(0, 120, cache_shape, np.uint8)))
    value = made(torch.tensor_of(rng.integers(
        0, 120, (pages, KV_HEADS, HEAD_DIM, PAGE), np.uint8)))
    query = made(torch.tensor_of(pa_mlir.float32_to_bits(
        rng.standard_normal((BATCH, HEADS, HEAD_DIM), np.float32), "bf16")))
    scale = made(torch.tensor_of(np.array([0.5], np.float32)))
    out = made(torch.full((BATCH, HEADS, HEAD_DIM), 0.0, torch.bfloat16,
                          "cuda:0"))
    config = pa_mlir.DecodeConfig(chip="sm_90a", **{
        k: v for k, v in KEYWORDS.items() if k != "debug"})
    workspace = made(torch.empty((pa_mlir.workspace_bytes(BATCH, config),),
                                 torch.uint8, "cuda:0"))

    def plan(of=(tables, lengths)):
        return pa_mlir.plan(*of, workspace=workspace, **KEYWORDS)

    reused = plan()

    def run(p=reused):
        p.run(query, key, value, k_scale=scale, v_scale=scale, out=out)

    run()
    launches(fake)
    run()
    run_names = launches(fake)
    plan()
    plan_names = launches(fake)

    def planned():
        run(plan())

    turn = [0]

    def planned_anew():
        turn[0] = (turn[0] + 1) % len(fresh)
        run(plan(fresh[turn[0]]))

    planner = pa_mlir.Planner(workspace=workspace, **KEYWORDS)

    def planned_anew_bound():
        turn[0] = (turn[0] + 1) % len(fresh)
        run(planner.plan(*fresh[turn[0]]))

    def planned_first():
        pa_mlir._plans.plans.clear()
        run(plan())

    def decode():
        pa_mlir.decode(query, key, value, tables, lengths, query_length=1,
                       kv_dtype="e4m3fn",
                       k_scale=scale, v_scale=scale, target="cuda", out=out)
    decode()
    figures = [("run", median_us(run, calls)),
               ("plan+run", median_us(planned, calls)),
               ("new seqs", median_us(planned_anew, calls)),
               ("new seqs (Planner)", median_us(planned_anew_bound, calls)),
               ("first plan", median_us(planned_first, min(calls, 500))),
               ("decode", median_us(decode, min(calls, 500)))]
    fake.fakeCudaReset()
    print(f"B {BATCH} L {LENGTH}, fake torch"
          f"{' (fast tensors)' if arguments.fast_tensors else ''} + fake "
          f"CUDA driver, medians of "
          f"{calls} calls (us): " + ", ".join(
              f"{name} {us:.1f}" for name, us in figures))
    print(f"a run launches {run_names}; plan() launches {plan_names}")


if __name__ == "__main__":
    main()
