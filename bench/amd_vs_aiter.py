#!/usr/bin/env python3
"""pa-mlir's AMD decode main loop side by side with aiter's hand-written
paged-attention code objects (bench/amd_vs_aiter.sh; no GPU).

usage: amd_vs_aiter.py BUILD_DIR [--anchors DIR] [--keep DIR]

The shared configuration: D 128, GQA 8, fp8 KV with per-token scales, page
16, V in aiter's layout ([pages, KV heads, P / 16, D, 16], pa-mlir's
`transposed`), query length 1 and 4 (8 and 32 rows). pa-mlir's kernels are
built with pa-compile for each fp8-residual tier, and in the default tier
with only the 64-bit tile loop (`--cache-offsets=64`: what caches of 2 GiB
or more run; the other rows show the 32-bit loop); aiter's are the code
objects in the anchors folder (default ../shared/anchors/aiter-pa; the
table has pa-mlir's rows only where it is absent). aiter's query-length-4
kernel holds 8-, 16- and 32-row loops; the one with the most MFMAs per
tile is the 32-row loop. Its loops run two tiles per iteration; figures are
per 256-token tile (bench/amd_isa_stats.py: tiles_per_iteration).

Per wave and tile of the main loop, on its full-tile path (`fast_path`:
at each uniform branch the shorter side, which for aiter skips the edge
tiles' masking; `body` is every instruction of the loop):
instructions by class, transcendental VALU ops, VMEM loads (count, bytes
per lane), MFMAs per workgroup (4 waves) against the minimum
256 * D * rows / (16 * 16) * (1 / K_qk + 1 / K_pv) (rows padded to 16 or
32; K_pv = 32, K_qk = 128 on gfx950, 32 on gfx942), waves per SIMD from
the code object's registers and LDS.

The issue-count estimate (ISSUE_MODEL below) against the memory time of
the tile's K, V and scale bytes at the chip's HBM bandwidth per CU: the 4
waves of a tile run on the CU's 4 SIMDs side by side, so a SIMD's clocks
per tile against the CU's memory clocks per tile is the fraction of the
memory time the loop's issue takes.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import amd_isa_stats as isa  # noqa: E402

LLVM_BIN = os.environ.get("LLVM_BIN", "/usr/lib/llvm-22/bin")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENERATOR = os.path.join(ROOT, "test/Target/AMD/Inputs/mfma_decode.py")

HEAD_DIM, GROUP, PAGE = 128, 8, 16
TILE_TOKENS = 256
# Clocks per wave instruction: VALU and MFMA issue 4, a transcendental
# (v_exp/log/rcp/rsq/sqrt) 16; the matrix core is busy 16 clocks per
# 16x16x32 fp8 / 16x16x16 bf16 MFMA (4 passes) and 32 per 16x16x128 (8).
ISSUE_MODEL = {"valu": 4, "transcendental": 16, "mfma_issue": 4,
               "mfma_16x16x32": 16, "mfma_16x16x128": 32}
# HBM bytes per CU per clock: bandwidth / CUs / clock.
CHIPS = {
    "gfx942": {"name": "MI300X", "tbps": 5.3, "cus": 304, "ghz": 2.1,
               "lds": 65536, "target": 0.5},
    "gfx950": {"name": "MI355X", "tbps": 8.0, "cus": 256, "ghz": 2.4,
               "lds": 163840, "target": 0.65},
}
TIERS = ["query-and-p", "p", "none"]
ANCHORS = {  # query length -> [(file, tier label)]
    1: [("pa_bf16_pertokenFp8_gqa8_2tg_4w.co", "aiter"),
        ("pa_bf16_pertokenFp8_gqa8_2tg_4w_uhp.co", "aiter uhp")],
    4: [("pa_bf16_pertokenFp8_gqa8_1tg_4w_mtp_msk1.co", "aiter mtp")],
}
# Issue 15's targets, instructions per wave and tile on the full-tile path.
TARGETS = {(1, "query-and-p"): 405, (1, "none"): 352, (4, "query-and-p"): 736}


def run(args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True,
                          **kw).stdout


def hbm_bytes_per_clock(chip):
    c = CHIPS[chip]
    return c["tbps"] * 1e12 / c["cus"] / (c["ghz"] * 1e9)


def tile_bytes(head_dim=HEAD_DIM, kv_bytes=1, per_token=True):
    # K and V bytes and the two per-token f32 scales of 256 tokens.
    return TILE_TOKENS * (2 * head_dim * kv_bytes + (2 * 4 if per_token else 0))


def minimum_mfma(chip, rows):
    padded = 16 if rows <= 16 else 32 * math.ceil(rows / 32)
    products = TILE_TOKENS * HEAD_DIM * padded // (16 * 16)
    k_qk = 128 if chip == "gfx950" else 32
    return products // k_qk + products // 32


def occupancy(chip, vgpr, sgpr, lds):
    """Waves per SIMD and what each resource allows: 512 unified VGPRs per
    SIMD lane (granule 8), 800 SGPRs per SIMD (granule 16, 6 reserved),
    the CU's LDS shared by the workgroups (one wave per SIMD each), at most
    8 waves per SIMD."""
    by_vgpr = 512 // (math.ceil(vgpr / 8) * 8)
    by_lds = CHIPS[chip]["lds"] // max(lds, 1)
    by_sgpr = 800 // (math.ceil((sgpr + 6) / 16) * 16)
    return min(8, by_vgpr, by_lds, by_sgpr), by_vgpr, by_lds, by_sgpr


def waves_per_simd(chip, vgpr, sgpr, lds):
    return occupancy(chip, vgpr, sgpr, lds)[0]


def loop_figures(dis, kernel, is_local):
    body, labels = isa.main_loop(dis, kernel, is_local)
    if not body:
        raise SystemExit(f"amd_vs_aiter: no main loop in {kernel}")
    tiles = isa.tiles_per_iteration([t for _, _, t in body])
    path = isa.fast_path(body, labels)
    counts = isa.counts_of(path, fine=True)
    per_tile = {k: v / tiles for k, v in counts.items()}
    per_tile["body"] = len(body) / tiles
    sizes = {}
    for _, m, _ in path:
        b = isa.load_bytes(m)
        if b:
            sizes[b] = sizes.get(b, 0) + 1
    per_tile["loads"] = " + ".join(
        f"{n / tiles:g}x{b}B" for b, n in sorted(sizes.items(), reverse=True))
    per_tile["load_bytes"] = sum(b * n for b, n in sizes.items()) / tiles
    # Instructions from each load to its first use, around the loop: the
    # shortest is the latency the loop leaves least covered.
    distances = sorted(isa.load_use_distances(body))
    per_tile["load_use"] = (f"{distances[0]} / {distances[len(distances) // 2]}"
                            if distances else "-")
    return per_tile


def metadata(code_object):
    notes = run([f"{LLVM_BIN}/llvm-readelf", "--notes", code_object])
    def field(name):
        m = re.search(rf"^\s+\.{name}:\s+(\d+)", notes, re.M)
        return int(m.group(1)) if m else 0
    symbol = re.search(r"^\s+\.name:\s+(\S+)\s*$", notes, re.M)
    return {"vgpr": field("vgpr_count"), "sgpr": field("sgpr_count"),
            "lds": field("group_segment_fixed_size"),
            "scratch": field("private_segment_fixed_size")}


def estimate(chip, f, memory_bytes=None):
    m = ISSUE_MODEL
    valu, trans = f.get("VALU", 0), f.get("transcendental", 0)
    mfma, wide = f.get("MFMA", 0), f.get("MFMA16x16x128", 0)
    issue = (m["valu"] * (valu - trans) + m["transcendental"] * trans +
             m["mfma_issue"] * mfma)
    matrix = m["mfma_16x16x32"] * (mfma - wide) + m["mfma_16x16x128"] * wide
    memory = (memory_bytes or tile_bytes()) / hbm_bytes_per_clock(chip)
    return issue, matrix, memory, max(issue, matrix) / memory


def row(label, chip, q, meta, f):
    issue, matrix, memory, ratio = estimate(chip, f)
    waves = waves_per_simd(chip, meta["vgpr"], meta["sgpr"], meta["lds"])
    rows = q * GROUP
    return (f"| {label} | {chip} | {q} | {f['total']:g} ({f['body']:g}) | "
            f"{f.get('VALU', 0):g} ({f.get('transcendental', 0):g}) | "
            f"{f.get('SALU', 0):g} | {f.get('SMEM', 0):g} | "
            f"{f.get('branch', 0):g} | {f.get('waitcnt', 0):g} | "
            f"{f.get('LDS', 0):g} | {f['loads'] or '-'} ({f['load_bytes']:g} B) | "
            f"{f['load_use']} | "
            f"{4 * f.get('MFMA', 0):g} ({minimum_mfma(chip, rows)}) | "
            f"{meta['vgpr']} | {meta['lds']} | {meta['scratch']} | {waves} | "
            f"{issue:.0f} | {matrix:.0f} | {memory:.0f} | "
            f"{ratio:.2f} (<= {CHIPS[chip]['target']}) |")


def ours(build, work, chip, q, tier, cache_offsets="auto"):
    """Our kernel's figures; the main loop is the 32-bit one unless
    cache_offsets is "64" (only the 64-bit loop, which pools of 2 GiB or
    more take)."""
    config = f"d{HEAD_DIM}-fp8-p{PAGE}-transposed-per_token-w0-q{q}g{GROUP}"
    src = os.path.join(work, f"{config}-{chip}.mlir")
    obj = os.path.join(work, f"{config}-{chip}-{tier}-{cache_offsets}.hsaco")
    run([sys.executable, GENERATOR, config, "--chip", chip, "-o", src])
    run([os.path.join(build, "bin/pa-compile"), src, f"--chip={chip}",
         f"--fp8-residual={tier}", f"--cache-offsets={cache_offsets}",
         "-o", obj])
    dis = obj + ".dis"
    with open(dis, "w") as out:
        out.write(run([f"{LLVM_BIN}/llvm-objdump", "-d", f"--mcpu={chip}", obj]))
    kernel = next(k for k in json.load(open(obj + ".json"))["kernels"]
                  if k["name"] == "pa_decode")
    meta = {"vgpr": kernel["vgpr_count"], "sgpr": kernel["sgpr_count"],
            "lds": kernel["lds_bytes"], "scratch": kernel["scratch_bytes"]}
    return meta, loop_figures(dis, "pa_decode", isa.compiler_local)


def anchor(path, work, chip):
    dis = os.path.join(work, os.path.basename(path) + f"-{chip}.dis")
    text = run([f"{LLVM_BIN}/llvm-objdump", "-d", f"--mcpu={chip}", path])
    with open(dis, "w") as out:
        out.write(text)
    kernel = re.search(r"^[0-9a-f]+ <(_Z\w+)>:", text, re.M).group(1)
    return metadata(path), loop_figures(dis, kernel, isa.handwritten_local)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("build")
    parser.add_argument("--anchors", default=os.path.join(
        ROOT, "..", "shared", "anchors", "aiter-pa"))
    parser.add_argument("--keep", help="keep code objects and disassembly here")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    have_anchors = os.path.isdir(args.anchors)
    work = args.keep or tempfile.mkdtemp(prefix="amd_vs_aiter.")
    os.makedirs(work, exist_ok=True)

    m = ISSUE_MODEL
    print(f"Shared configuration: D {HEAD_DIM}, GQA {GROUP}, fp8 KV with "
          f"per-token scales, page {PAGE}, V [pages, KV heads, P/16, D, 16]; "
          "per wave and 256-token tile of the main loop, on its full-tile "
          "path (every instruction of the loop in parentheses).")
    print(f"Issue model (clocks per wave instruction): VALU {m['valu']}, "
          f"transcendental {m['transcendental']}, MFMA issue "
          f"{m['mfma_issue']}; matrix core {m['mfma_16x16x32']} per "
          f"16x16x32 fp8, {m['mfma_16x16x128']} per 16x16x128. Memory: "
          f"{tile_bytes()} B per tile (K, V, 2 per-token scales) at HBM "
          "bandwidth / CUs / clock: " + "; ".join(
              f"{c['name']} ({chip}) {c['tbps']} TB/s / {c['cus']} CUs / "
              f"{c['ghz']} GHz = {hbm_bytes_per_clock(chip):.2f} B/clock"
              for chip, c in CHIPS.items()) +
          ". Ratio: max(issue, matrix) / memory, target after <=.")
    if not have_anchors:
        print(f"(aiter anchors not found at {args.anchors}: pa-mlir rows only)")
    print()
    print("| kernel | chip | Q | instructions (body) | VALU (transc.) | SALU | "
          "SMEM | branch | waitcnt | LDS | VMEM loads per lane | "
          "load to first use, instructions (min / median) | MFMA/WG (min) | "
          "VGPR | LDS B | scratch B | waves/SIMD | issue clk | matrix clk | "
          "memory clk | ratio |")
    print("|" + "---|" * 21)
    failed = []
    for chip in CHIPS:
        for q in (1, 4):
            if have_anchors:
                for name, label in ANCHORS[q]:
                    path = os.path.join(args.anchors, chip, name)
                    if os.path.exists(path):
                        meta, f = anchor(path, work, chip)
                        print(row(label, chip, q, meta, f))
            for tier in TIERS:
                meta, f = ours(build, work, chip, q, tier)
                print(row(f"pa-mlir {tier}", chip, q, meta, f))
                target = TARGETS.get((q, tier))
                if target is not None and f["total"] > target:
                    failed.append(f"{chip} Q={q} {tier}: {f['total']:g} "
                                  f"instructions > {target}")
            meta, f = ours(build, work, chip, q, TIERS[0], cache_offsets="64")
            print(row(f"pa-mlir {TIERS[0]}, 64-bit loop", chip, q, meta, f))
    print()
    print("The 64-bit loop rows: the next tile's K loads sit in a branch "
          "there (global loads are not speculated as buffer loads are), "
          "skipped after the last tile only; the full-tile path counts it "
          "(docs/performance.md).")
    print("Instruction targets (issue 15): Q=1 default <= 405, Q=1 none "
          "<= 352, Q=4 default <= 736.")
    for line in failed or ["all met"]:
        print(f"- {line}")


if __name__ == "__main__":
    main()
