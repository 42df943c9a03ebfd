"""Builds the markdown table of the H200 decode benchmark from the logs of
pa-cuda-run bench (BENCH lines) and bench/cuda_peers.py (PEER lines).

    python3 bench/cuda_table.py PA_MLIR_LOG PEERS_LOG
"""
import re
import sys

SHAPES = [(32, 8192), (8, 131072), (128, 2048)]


def parse(pa_log, peers_log):
    ours, peers, ceiling = {}, {}, None
    for line in open(pa_log):
        m = re.match(r"BENCH copy ceiling ([\d.]+) TB/s", line)
        if m:
            ceiling = float(m.group(1))
        # Labels: KV type, cache layout (absent for packed), Q, P, W.
        m = re.match(r"BENCH pa-mlir (\w+)(?:-(nhd|hnd))?-q(\d)-p(\d+)-w(\d+)\s+"
                     r"B=(\d+)\s+L=(\d+)\s+([\d.]+) us\s+([\d.]+) TB/s\s+([\d.]+)%",
                     line)
        if m:
            kv, layout = m.group(1), m.group(2) or "packed"
            q, p, w, b, l = map(int, m.groups()[2:7])
            ours[(kv, layout, q, p, w, b, l)] = (
                float(m.group(8)), float(m.group(9)), float(m.group(10)))
    for line in open(peers_log):
        m = re.match(r"PEER (\w+)\s+Q=(\d) P=(\d+)\s+B=(\d+)\s+L=(\d+)\s+W=(\d+)\s+"
                     r"([\d.]+) us", line)
        if m:
            name = m.group(1)
            q, p, b, l, w = map(int, m.groups()[1:6])
            peers[(name, q, p, w, b, l)] = float(m.group(7))
            continue
        # A peer that did not run: "PEER flex Q=.. P=.. B=.. L=.. W=..
        # failed: WHY" / "skipped: WHY"; sdpa lines have no P.
        m = re.match(r"PEER (\w+)\s+Q=(\d)(?: P=(\d+))?\s+B=(\d+)\s+L=(\d+)\s+"
                     r"W=(\d+)\s+(failed|skipped): (.*)", line)
        if m:
            name = m.group(1)
            q, b, l, w = (int(m.group(i)) for i in (2, 4, 5, 6))
            p = int(m.group(3)) if m.group(3) else 0
            peers[(name, q, p, w, b, l)] = f"{m.group(7)}: {m.group(8).strip()}"
    return ours, peers, ceiling


def main():
    ours, peers, ceiling = parse(sys.argv[1], sys.argv[2])
    print(f"Copy ceiling (cuMemcpyDtoD of 2 GiB, read + write): {ceiling:.2f} TB/s.\n")
    print("| Q | P | W | B | L | fp8 us | fp8 TB/s | fp8 % copy | bf16 us | "
          "bf16 TB/s | bf16 % copy | SDPA dense us | gather+SDPA us | flex us | "
          "bf16 vs SDPA | bf16 vs gather | bf16 vs flex | fp8 vs SDPA | "
          "fp8 vs gather | fp8 vs flex |")
    print("|" + "---|" * 20)
    for q in (1, 4):
        for p in (16, 64):
            for w in (0, 4096):
                for b, l in SHAPES:
                    f = ours.get(("fp8", "packed", q, p, w, b, l))
                    h = ours.get(("bf16", "packed", q, p, w, b, l))
                    sdpa = peers.get(("sdpa", q, 0, w, b, l))
                    gather = peers.get(("gather", q, p, w, b, l))
                    flex = peers.get(("flex", q, p, w, b, l))
                    def cell(v, fmt):
                        if v is None:
                            return "n/a"
                        # A peer's reason for not running, in the table.
                        return v.replace("|", "/") if isinstance(v, str) else fmt.format(v)

                    def ratio(peer, mine):
                        if isinstance(peer, float) and mine:
                            return f"{peer / mine[0]:.2f}x"
                        return "n/a"
                    print(f"| {q} | {p} | {w} | {b} | {l} | "
                          f"{cell(f and f[0], '{:.1f}')} | {cell(f and f[1], '{:.2f}')} | "
                          f"{cell(f and f[2], '{:.1f}%')} | {cell(h and h[0], '{:.1f}')} | "
                          f"{cell(h and h[1], '{:.2f}')} | {cell(h and h[2], '{:.1f}%')} | "
                          f"{cell(sdpa, '{:.1f}')} | {cell(gather, '{:.1f}')} | "
                          f"{cell(flex, '{:.1f}')} | {ratio(sdpa, h)} | {ratio(gather, h)} | "
                          f"{ratio(flex, h)} | {ratio(sdpa, f)} | {ratio(gather, f)} | "
                          f"{ratio(flex, f)} |")
    layouts(ours)


def layouts(ours):
    """The other cache layouts beside packed (transposed V) at the same
    shape: Q 1, W 0; time ratios over packed at P 16."""
    rows = sorted({(kv, layout, p) for kv, layout, q, p, w, b, l in ours
                   if layout != "packed"})
    if not rows:
        return
    print("\n| KV | layout | P | B | L | us | TB/s | % copy | packed P 16 us | "
          "time vs packed |")
    print("|" + "---|" * 10)
    for kv, layout, p in rows:
        for b, l in SHAPES:
            mine = ours.get((kv, layout, 1, p, 0, b, l))
            packed = ours.get((kv, "packed", 1, 16, 0, b, l))
            if not mine:
                continue
            ratio = f"{mine[0] / packed[0]:.2f}x" if packed else "n/a"
            base = f"{packed[0]:.1f}" if packed else "n/a"
            print(f"| {kv} | {layout} | {p} | {b} | {l} | {mine[0]:.1f} | "
                  f"{mine[1]:.2f} | {mine[2]:.1f}% | {base} | {ratio} |")


if __name__ == "__main__":
    main()
