"""Host overhead of pa_mlir's torch path on an NVIDIA GPU (issue 18).

    PA_MLIR_CACHE_DIR=DIR python3 bench/cuda_overhead.py fill   # here
    python3 bench/cuda_overhead.py run [--calls N]             # on the GPU

Shapes: D 256, Hq 16, Hkv 2, fp8 (e4m3fn, per-tensor scales), page 16,
(B, L) in (32, 8192), (1, 1024), (128, 2048). For each it prints, per call
(CUDA events and wall clock, after warm-up):
  graph    one Plan.run captured in a CUDA graph, replayed N times: the
           kernels alone (decode, reduce) with nothing of the host between
  eager    Plan.run back to back N times, synchronised at the end: the
           time a step spends per call when attention runs outside graphs
  host     the host side of one Plan.run (wall clock of the call itself,
           median over N; the GPU runs behind it): decode + reduce
  host+plan  pa_mlir.plan(...) (with the caller's workspace) + run, median:
           plan() of the same tensors again finds the plan it made and
           launches the plan kernel
  +new plan  the same with sequence tensors plan() has not seen (a serving
           engine's fresh block tables and lengths every step: copies of
           the step's, more of them than the plan cache holds, in turn)
  op       torch.ops.pa_mlir.paged_decode, the custom op (dispatcher
           included), median host time
  decode   pa_mlir.decode(...) on tensors with out= (plans per call)
and, for a 32-layer decode step (plan() once: the plan kernel, then each
layer its own caches and query), the step's graph replay per layer against the kernels alone
(the sum of the kernel durations torch.profiler records for one eager
step, per layer).

`fill` compiles the programs into PA_MLIR_CACHE_DIR (needs libPACAPI.so),
so the GPU machine runs them without MLIR.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

import pa_mlir  # noqa: E402

HEADS, KV_HEADS, HEAD_DIM, PAGE = 16, 2, 256, 16
SHAPES = [(32, 8192), (1, 1024), (128, 2048)]
LAYERS = 32


def config():
    return pa_mlir.DecodeConfig(num_query_heads=HEADS, num_kv_heads=KV_HEADS,
                                head_dim=HEAD_DIM, page_size=PAGE,
                                kv_dtype="e4m3fn", scale="per_tensor",
                                chip="sm_90a")


def fill():
    artifact = pa_mlir.compile(config())
    print(f"compiled {artifact}")


class Step:
    """The tensors of one decode step: `layers` layers over B sequences of
    L tokens (pages shuffled), random fp8 caches and bf16 queries."""

    def __init__(self, torch, batch, length, layers):
        t = torch
        g = t.Generator(device="cuda").manual_seed(batch * 7 + length)
        pages_per = -(-length // PAGE)
        pages = batch * pages_per
        self.tables = t.randperm(pages, device="cuda", generator=g,
                                 dtype=t.int32).reshape(batch, pages_per)
        self.lengths = t.full((batch,), length, dtype=t.int32, device="cuda")
        x = 16
        self.keys, self.values, self.queries, self.outs = [], [], [], []
        for _ in range(layers):
            self.keys.append(
                (t.rand((pages, KV_HEADS, HEAD_DIM // x, PAGE, x),
                        device="cuda", generator=g) - 0.5).to(
                            t.float8_e4m3fn))
            self.values.append(
                (t.rand((pages, KV_HEADS, HEAD_DIM, PAGE), device="cuda",
                        generator=g) - 0.5).to(t.float8_e4m3fn))
            self.queries.append(t.randn((batch, HEADS, HEAD_DIM),
                                        device="cuda", generator=g).to(
                                            t.bfloat16))
            self.outs.append(t.empty((batch, HEADS, HEAD_DIM),
                                     dtype=t.bfloat16, device="cuda"))
        self.k_scale = t.tensor([0.5], device="cuda")
        self.v_scale = t.tensor([0.25], device="cuda")
        self.workspace = t.empty(pa_mlir.workspace_bytes(batch, config()),
                                 dtype=t.uint8, device="cuda")

    def plan(self, sequences=None):
        tables, lengths = sequences or (self.tables, self.lengths)
        return pa_mlir.plan(tables, lengths,
                            num_query_heads=HEADS, num_kv_heads=KV_HEADS,
                            head_dim=HEAD_DIM, page_size=PAGE,
                            kv_dtype="e4m3fn", scale="per_tensor",
                            workspace=self.workspace, debug=False)

    def run(self, plan, layer=0):
        plan.run(self.queries[layer], self.keys[layer], self.values[layer],
                 k_scale=self.k_scale, v_scale=self.v_scale,
                 out=self.outs[layer])


def gpu_time(torch, work, calls):
    """Milliseconds per call of `work` run `calls` times between events."""
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(calls):
        work()
    stop.record()
    torch.cuda.synchronize()
    return start.elapsed_time(stop) / calls


def host_time(torch, work, calls):
    """Median wall-clock microseconds of the call itself (synchronised
    every 16 calls so that the launch queue never fills)."""
    samples = []
    for i in range(calls):
        if i % 16 == 0:
            torch.cuda.synchronize()
        begin = time.perf_counter()
        work()
        samples.append((time.perf_counter() - begin) * 1e6)
    torch.cuda.synchronize()
    return statistics.median(samples)


def graph_of(torch, work):
    work()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        work()
    return graph


def kernel_time_per_step(torch, work):
    """Microseconds of GPU kernels in one run of `work` (torch.profiler)."""
    from torch.profiler import ProfilerActivity, profile
    work()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        work()
        torch.cuda.synchronize()
    total = 0.0
    for event in prof.events():
        if event.device_type.name == "CUDA" and event.name.startswith("pa_"):
            total += getattr(event, "device_time", None) or event.cuda_time
    return total


def run(calls):
    import torch
    import pa_mlir.torch_ops  # noqa: F401
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}")
    print(f"D {HEAD_DIM}, Hq {HEADS}, Hkv {KV_HEADS}, fp8 e4m3fn per-tensor, "
          f"page {PAGE}; {calls} calls each; times per call")
    print(f"{'B':>4} {'L':>6} | {'graph us':>9} {'eager us':>9} "
          f"{'host us':>8} {'host+plan':>9} {'+new plan':>9} {'op us':>7} "
          f"{'decode us':>9} | "
          f"{'32-layer graph/layer':>20} {'kernels/layer':>13} {'ratio':>6}")
    for batch, length in SHAPES:
        step = Step(torch, batch, length, LAYERS)
        plan = step.plan()
        one = lambda: step.run(plan)  # noqa: E731
        graph = graph_of(torch, one)
        gpu_time(torch, graph.replay, 10)
        graph_us = gpu_time(torch, graph.replay, calls) * 1e3
        gpu_time(torch, one, 10)
        eager_us = gpu_time(torch, one, calls) * 1e3
        host_us = host_time(torch, one, calls)

        def planned():
            step.run(step.plan())
        host_plan_us = host_time(torch, planned, calls)

        fresh = [(step.tables.clone(), step.lengths.clone())
                 for _ in range(pa_mlir._plans.plans.size + 16)]
        turn = [0]

        def planned_anew():
            turn[0] = (turn[0] + 1) % len(fresh)
            step.run(step.plan(fresh[turn[0]]))
        host_new_plan_us = host_time(torch, planned_anew, calls)
        del fresh

        def op():
            torch.ops.pa_mlir.paged_decode(
                step.outs[0], step.queries[0], step.keys[0], step.values[0],
                step.tables, step.lengths, step.workspace, step.k_scale,
                step.v_scale, None, "", 1, 0, None, "plain", "", 0, 0)
        op()
        op_us = host_time(torch, op, calls)

        def convenience():
            pa_mlir.decode(step.queries[0], step.keys[0], step.values[0],
                           step.tables, step.lengths, query_length=1,
                           k_scale=step.k_scale, v_scale=step.v_scale,
                           target="cuda", out=step.outs[0])
        convenience()
        decode_us = host_time(torch, convenience, min(calls, 50))

        def layers():
            step_plan = step.plan()  # the plan kernel, once per step
            for layer in range(LAYERS):
                step.run(step_plan, layer)
        step_graph = graph_of(torch, layers)
        gpu_time(torch, step_graph.replay, 3)
        per_layer = gpu_time(torch, step_graph.replay, 20) * 1e3 / LAYERS
        kernels = kernel_time_per_step(torch, layers) / LAYERS
        ratio = f"{per_layer / kernels:>6.3f}" if kernels else "   n/a"
        print(f"{batch:>4} {length:>6} | {graph_us:>9.1f} {eager_us:>9.1f} "
              f"{host_us:>8.1f} {host_plan_us:>9.1f} {host_new_plan_us:>9.1f} "
              f"{op_us:>7.1f} "
              f"{decode_us:>9.1f} | {per_layer:>20.1f} {kernels:>13.1f} "
              f"{ratio}", flush=True)
        del step, plan, graph, step_graph
        torch.cuda.empty_cache()


def breakdown(calls):
    """Where the host time of a run and a plan goes (B 1, L 1024): the
    Python side alone (the enqueue replaced by nothing), the runtime's
    enqueue alone, one torch kernel launch for scale, and a profile of
    plan() + run()."""
    import cProfile
    import pstats
    import torch
    step = Step(torch, 1, 1024, 1)
    plan = step.plan()
    one = lambda: step.run(plan)  # noqa: E731
    one()
    call = plan._call
    plan._call = lambda block: True  # the enqueue replaced by nothing
    python_us = host_time(torch, one, calls)
    plan._call = call
    # The runtime's enqueue of decode + reduce as a run makes it (the
    # block's call as the last run left it: kernels and stream).
    cells = plan._cells
    enqueue_us = host_time(torch, lambda: call(cells), calls)
    small = torch.zeros(16, device="cuda")
    torch_us = host_time(torch, lambda: small.add_(1.0), calls)

    fresh = [(step.tables.clone(), step.lengths.clone())
             for _ in range(pa_mlir._plans.plans.size + 16)]
    turn = [0]

    def new_plan():
        turn[0] = (turn[0] + 1) % len(fresh)
        return step.plan(fresh[turn[0]])
    plan_us = host_time(torch, new_plan, calls)
    planner = pa_mlir.Planner(
        num_query_heads=HEADS, num_kv_heads=KV_HEADS, head_dim=HEAD_DIM,
        page_size=PAGE, kv_dtype="e4m3fn", scale="per_tensor",
        workspace=step.workspace, debug=False)

    def new_bound_plan():
        turn[0] = (turn[0] + 1) % len(fresh)
        return planner.plan(*fresh[turn[0]])
    bound_us = host_time(torch, new_bound_plan, calls)
    print(f"B 1 L 1024: Plan.run Python side {python_us:.1f} us, runtime "
          f"enqueue (decode + reduce) {enqueue_us:.1f} us, one torch kernel "
          f"launch {torch_us:.1f} us, plan() of new sequence tensors "
          f"{plan_us:.1f} us, Planner.plan() of new sequence tensors "
          f"{bound_us:.1f} us (medians of {calls})")
    for label, planned in (("plan() of the same tensors", step.plan),
                           ("plan() of new sequence tensors", new_plan)):
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(100):
            step.run(planned())
        profiler.disable()
        torch.cuda.synchronize()
        print(f"== profile: 100 x ({label} + run)")
        pstats.Stats(profiler).sort_stats("tottime").print_stats(14)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("fill", "run", "breakdown"))
    parser.add_argument("--calls", type=int, default=200)
    arguments = parser.parse_args()
    if arguments.mode == "fill":
        fill()
    elif arguments.mode == "breakdown":
        breakdown(arguments.calls)
    else:
        run(arguments.calls)


if __name__ == "__main__":
    main()
