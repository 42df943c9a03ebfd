"""PyTorch peers of the pa-mlir CUDA decode benchmark (run on the GPU machine).

    python3 bench/cuda_peers.py [--reps N] [--flex] [--quick] [--no-dense]
                                [--flex-seconds S]

For the benchmark shapes (D = 256, Hq = 16, Hkv = 2, Q in {1, 4}, pages 16
and 64, (B, L) in {(32, 8192), (8, 131072), (128, 2048)}, windows 0 and
4096) it times, as pa-cuda-run does (CUDA graph replays, CUDA events around
each replay, median after warm-up):

  sdpa      torch SDPA on a dense bf16 KV [B, Hkv, L, D] (GQA)
  gather    gather a paged bf16 cache [N, Hkv, P, D] through the block table
            into dense KV, then SDPA
  flex      FlexAttention on the paged cache (torch's PagedAttention block
            mask conversion), with --flex: every shape (--quick: Q = 1,
            P = 16 at the first (B, L)); shapes left after S seconds of
            FlexAttention compiles and runs are reported as skipped

and prints one "PEER ..." line per measurement: microseconds and TB/s of the
KV bytes the function needs (visible tokens only). The KV of every shape is
0.5 GB, several times the 60 MB L2, so each replay streams it from memory.
"""
import argparse
import statistics
import sys

import torch
import torch.nn.functional as F

D, HQ, HKV = 256, 16, 2
SHAPES = [(32, 8192), (8, 131072), (128, 2048)]


def visible_tokens(length, q, window):
    if window > 0:
        return min(length, window + q - 1)
    return length


def attention_mask(length, q, window, device):
    """[Q, L] bool: row i (position L - Q + i) sees t <= pos and, with a
    window, t > pos - W. None when every row sees everything."""
    if q == 1 and (window <= 0 or window >= length):
        return None
    pos = torch.arange(length - q, length, device=device)[:, None]
    t = torch.arange(length, device=device)[None, :]
    mask = t <= pos
    if window > 0:
        mask &= t > pos - window
    return mask


def time_graph(fn, reps):
    """Median microseconds of `reps` replays of a CUDA graph of fn()."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    for _ in range(5):
        graph.replay()
    events = [torch.cuda.Event(enable_timing=True) for _ in range(reps + 1)]
    events[0].record()
    for i in range(reps):
        graph.replay()
        events[i + 1].record()
    torch.cuda.synchronize()
    times = [events[i].elapsed_time(events[i + 1]) * 1e3 for i in range(reps)]
    return statistics.median(times)


def report(name, q, page, batch, length, window, us):
    kv_bytes = 2.0 * batch * HKV * visible_tokens(length, q, window) * D * 2
    print(f"PEER {name:<7} Q={q} P={page:<3} B={batch:<4} L={length:<7} "
          f"W={window:<5} {us:10.1f} us {kv_bytes / (us * 1e-6) / 1e12:7.3f} TB/s",
          flush=True)


def copy_ceiling(reps):
    n = 1 << 30
    src = torch.empty(n, dtype=torch.uint8, device="cuda").random_(0, 255)
    dst = torch.empty_like(src)
    us = time_graph(lambda: dst.copy_(src), reps)
    tbs = 2.0 * n / (us * 1e-6) / 1e12
    print(f"PEER copy   {n} bytes {us:10.1f} us {tbs:7.3f} TB/s (read + write)",
          flush=True)


def sdpa(q, k, v, mask):
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask,
                                          enable_gqa=True)


def run_dense_and_gather(reps):
    gen = torch.Generator(device="cuda").manual_seed(0)
    for batch, length in SHAPES:
        # Dense KV [B, Hkv, L, D] and the same tokens in pages.
        k = torch.randn(batch, HKV, length, D, device="cuda", dtype=torch.bfloat16,
                        generator=gen)
        v = torch.randn_like(k)
        for q_len in (1, 4):
            query = torch.randn(batch, HQ, q_len, D, device="cuda",
                                dtype=torch.bfloat16, generator=gen)
            out = torch.empty_like(query)
            for window in (0, 4096):
                mask = attention_mask(length, q_len, window, "cuda")

                def dense():
                    out.copy_(sdpa(query, k, v, mask))
                try:
                    report("sdpa", q_len, 0, batch, length, window,
                           time_graph(dense, reps))
                except Exception as e:  # report and go on
                    print(f"PEER sdpa    Q={q_len} B={batch} L={length} W={window} "
                          f"failed: {type(e).__name__}: {e}", flush=True)
        for page in (16, 64):
            pages = batch * length // page
            perm = torch.randperm(pages, device="cuda", generator=gen)
            table = perm.view(batch, length // page)
            # cache[perm[b, j]] = tokens [j*P, (j+1)*P) of sequence b.
            k_cache = torch.empty(pages, HKV, page, D, device="cuda",
                                  dtype=torch.bfloat16)
            v_cache = torch.empty_like(k_cache)
            k_cache[perm] = k.view(batch, HKV, length // page, page, D).permute(
                0, 2, 1, 3, 4).reshape(pages, HKV, page, D)
            v_cache[perm] = v.view(batch, HKV, length // page, page, D).permute(
                0, 2, 1, 3, 4).reshape(pages, HKV, page, D)
            for q_len in (1, 4):
                query = torch.randn(batch, HQ, q_len, D, device="cuda",
                                    dtype=torch.bfloat16, generator=gen)
                out = torch.empty_like(query)
                for window in (0, 4096):
                    mask = attention_mask(length, q_len, window, "cuda")
                    # With a window only the visible pages are gathered.
                    first = 0
                    if window > 0:
                        first = max(0, length - q_len + 1 - window) // page
                    sub = table[:, first:].contiguous()
                    span = sub.shape[1] * page
                    sub_mask = None if mask is None else mask[:, first * page:]

                    def gathered():
                        kd = k_cache[sub].permute(0, 2, 1, 3, 4).reshape(
                            batch, HKV, span, D)
                        vd = v_cache[sub].permute(0, 2, 1, 3, 4).reshape(
                            batch, HKV, span, D)
                        out.copy_(sdpa(query, kd, vd, sub_mask))
                    try:
                        report("gather", q_len, page, batch, length, window,
                               time_graph(gathered, reps))
                    except Exception as e:
                        print(f"PEER gather  Q={q_len} P={page} B={batch} "
                              f"L={length} W={window} failed: "
                              f"{type(e).__name__}: {e}", flush=True)
            del k_cache, v_cache
        del k, v
        torch.cuda.empty_cache()


def run_flex(reps, quick, budget_s):
    """FlexAttention over the paged cache through torch's PagedAttention
    (logical block mask -> physical pages), for Q in {1, 4}, pages 16 and
    64, windows 0 and 4096 at every (B, L) (--quick: the first shape, P =
    16, Q = 1).

    One mask_mod for every shape: the row position base (L - Q) and the
    window are captured tensors, so a new window changes tensor values,
    not the traced function, and needs no compile. torch.compile (default
    dynamic=None) recompiles with dynamic sizes when the sizes change; a
    shape whose dynamic compile fails (torch 2.11 on the H200: 16-token
    KV blocks at some sizes, "Q and KV block size must be divisible by
    BLOCK_M and BLOCK_N") is retried with a static compile. All 24 shapes
    took about 70 s there. Shapes left when `budget_s` seconds have passed
    are reported as skipped (the device tool's 10-minute limit), with the
    reason."""
    import time
    import torch._dynamo
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    from torch.nn.attention.experimental._paged_attention import PagedAttention
    for name in ("recompile_limit", "cache_size_limit",
                 "accumulated_recompile_limit", "accumulated_cache_size_limit"):
        if hasattr(torch._dynamo.config, name):
            setattr(torch._dynamo.config, name, 256)
    compiled = torch.compile(flex_attention, fullgraph=True)
    gen = torch.Generator(device="cuda").manual_seed(1)
    # The mask's parameters, as tensors the traced mask_mod reads.
    pos_base = torch.zeros((), dtype=torch.int64, device="cuda")
    win = torch.zeros((), dtype=torch.int64, device="cuda")

    def mask_mod(b, h, q_idx, kv_idx):
        pos = pos_base + q_idx
        return (kv_idx <= pos) & ((win <= 0) | (kv_idx > pos - win))

    started = time.monotonic()
    shapes = SHAPES[:1] if quick else SHAPES
    for batch, length in shapes:
        for page in ((16,) if quick else (16, 64)):
            cases = [(q, w) for q in ((1,) if quick else (1, 4))
                     for w in (0, 4096)]
            left = time.monotonic() - started
            if left > budget_s:
                for q_len, window in cases:
                    print(f"PEER flex    Q={q_len} P={page} B={batch} "
                          f"L={length} W={window} skipped: time budget "
                          f"({budget_s:.0f} s of compiles and runs) spent",
                          flush=True)
                continue
            try:
                pages = batch * length // page
                paged = PagedAttention(pages, page, batch, device="cuda")
                k_cache = torch.empty(1, HKV, pages * page, D, device="cuda",
                                      dtype=torch.bfloat16)
                v_cache = torch.empty_like(k_cache)
                for b in range(batch):
                    paged.reserve(torch.tensor(b, device="cuda"),
                                  torch.tensor(length, device="cuda"))
                kv = torch.randn(batch, HKV, length, D, device="cuda",
                                 dtype=torch.bfloat16, generator=gen)
                paged.assign(torch.arange(batch, device="cuda"),
                             torch.arange(length, device="cuda").expand(
                                 batch, length),
                             kv, kv, k_cache, v_cache)
                del kv
            except Exception as e:
                for q_len, window in cases:
                    print(f"PEER flex    Q={q_len} P={page} B={batch} "
                          f"L={length} W={window} failed: cache setup: "
                          f"{type(e).__name__}: "
                          f"{str(e).splitlines()[0] if str(e) else ''}",
                          flush=True)
                torch.cuda.empty_cache()
                continue
            for q_len, window in cases:
                if time.monotonic() - started > budget_s:
                    print(f"PEER flex    Q={q_len} P={page} B={batch} "
                          f"L={length} W={window} skipped: time budget "
                          f"({budget_s:.0f} s of compiles and runs) spent",
                          flush=True)
                    continue
                t0 = time.monotonic()
                try:
                    pos_base.fill_(length - q_len)
                    win.fill_(window)
                    logical = create_block_mask(mask_mod, batch, None, q_len,
                                                length, device="cuda",
                                                BLOCK_SIZE=(128, page))
                    physical = paged.convert_logical_block_mask(logical)
                    score = paged.get_score_mod(None)
                    query = torch.randn(batch, HQ, q_len, D, device="cuda",
                                        dtype=torch.bfloat16, generator=gen)
                    out = torch.empty_like(query)
                    fn = compiled

                    def flex():
                        out.copy_(fn(query, k_cache, v_cache,
                                     block_mask=physical, score_mod=score,
                                     enable_gqa=True))
                    try:
                        us = time_graph(flex, reps)
                    except Exception as e:  # a failed dynamic compile
                        print(f"# flex Q={q_len} P={page} B={batch} L={length} "
                              f"W={window}: {type(e).__name__} "
                              f"({str(e).splitlines()[0] if str(e) else ''}); "
                              f"retrying with a static compile", flush=True)
                        torch._dynamo.reset()
                        fn = torch.compile(flex_attention, fullgraph=True,
                                           dynamic=False)
                        us = time_graph(flex, reps)
                        torch._dynamo.reset()
                    report("flex", q_len, page, batch, length, window, us)
                    print(f"# flex Q={q_len} P={page} B={batch} L={length} "
                          f"W={window}: {time.monotonic() - t0:.1f} s "
                          f"(compile, block masks, timing)", flush=True)
                except Exception as e:
                    print(f"PEER flex    Q={q_len} P={page} B={batch} L={length} "
                          f"W={window} failed: {type(e).__name__}: "
                          f"{str(e).splitlines()[0] if str(e) else ''}",
                          flush=True)
            del k_cache, v_cache, paged
            torch.cuda.empty_cache()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--flex", action="store_true")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-dense", action="store_true",
                        help="skip SDPA and gather (FlexAttention only)")
    parser.add_argument("--flex-seconds", type=float, default=420.0,
                        help="time budget of the FlexAttention shapes")
    args = parser.parse_args()
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}", flush=True)
    copy_ceiling(args.reps)
    if not args.no_dense:
        run_dense_and_gather(args.reps)
    if args.flex:
        run_flex(args.reps, args.quick, args.flex_seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
