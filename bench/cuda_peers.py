"""PyTorch peers of the pa-mlir CUDA decode benchmark (run on the GPU machine).

    python3 bench/cuda_peers.py [--reps N] [--flex] [--quick]

For the benchmark shapes (D = 256, Hq = 16, Hkv = 2, Q in {1, 4}, pages 16
and 64, (B, L) in {(32, 8192), (8, 131072), (128, 2048)}, windows 0 and
4096) it times, as pa-cuda-run does (CUDA graph replays, CUDA events around
each replay, median after warm-up):

  sdpa      torch SDPA on a dense bf16 KV [B, Hkv, L, D] (GQA)
  gather    gather a paged bf16 cache [N, Hkv, P, D] through the block table
            into dense KV, then SDPA
  flex      FlexAttention on the paged cache (torch's PagedAttention block
            mask conversion), with --flex (each shape compiles, slowly)

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


def run_flex(reps, quick):
    """FlexAttention over the paged cache through torch's PagedAttention
    (logical block mask -> physical pages)."""
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    from torch.nn.attention.experimental._paged_attention import PagedAttention
    compiled = torch.compile(flex_attention, fullgraph=True)
    gen = torch.Generator(device="cuda").manual_seed(1)
    shapes = SHAPES[:1] if quick else SHAPES
    for batch, length in shapes:
        for page in ((16,) if quick else (16, 64)):
            for window in (0, 4096):
                q_len = 1
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

                    def mask_mod(b, h, q_idx, kv_idx):
                        pos = length - q_len + q_idx
                        visible = kv_idx <= pos
                        if window > 0:
                            visible = visible & (kv_idx > pos - window)
                        return visible
                    logical = create_block_mask(mask_mod, batch, None, q_len,
                                                length, device="cuda",
                                                BLOCK_SIZE=(128, page))
                    physical = paged.convert_logical_block_mask(logical)
                    score = paged.get_score_mod(None)
                    query = torch.randn(batch, HQ, q_len, D, device="cuda",
                                        dtype=torch.bfloat16, generator=gen)
                    out = torch.empty_like(query)

                    def flex():
                        out.copy_(compiled(query, k_cache, v_cache,
                                           block_mask=physical, score_mod=score,
                                           enable_gqa=True))
                    report("flex", q_len, page, batch, length, window,
                           time_graph(flex, reps))
                    del k_cache, v_cache, paged
                    torch.cuda.empty_cache()
                except Exception as e:
                    print(f"PEER flex    Q={q_len} P={page} B={batch} L={length} "
                          f"W={window} failed: {type(e).__name__}: "
                          f"{str(e).splitlines()[0] if str(e) else ''}", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--flex", action="store_true")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}", flush=True)
    copy_ceiling(args.reps)
    run_dense_and_gather(args.reps)
    if args.flex:
        run_flex(args.reps, args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
