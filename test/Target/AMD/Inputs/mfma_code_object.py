#!/usr/bin/env python3
"""Builds code objects for mfma_decode.py configurations and prints, per
configuration, what the decode kernel's disassembly and metadata hold.

usage: mfma_code_object.py PA_COMPILE OBJDUMP READELF --chip CHIP
                           [--fp8-residual=none|p|query-and-p]
                           [--cache-offsets=auto|64]
                           [--key-prefetch=auto|none|next-tile]
                           [--occupancy | --loop-loads] CONFIG...

One line per configuration:
  CONFIG CHIP: mfma=<instruction>x<count> buffer_load_dwordx4=<n>
    ds_read_b128=<n> ds_write_b128=<n> s_barrier=<n> scratch_insts=<n>
    private_segment=<bytes> lds=<bytes> vgprs=<n> global_load_dwordx4=<n>
(counts over the whole decode kernel; scratch_insts counts scratch_* and
buffer_store instructions, i.e. spills). With --occupancy instead:
  CONFIG CHIP: waves=<n> vgprs=<n> sgprs=<n> lds=<bytes>
(waves per SIMD the decode kernel's registers and LDS allow, by
bench/amd_vs_aiter.py's occupancy formula). With --loop-loads:
  CONFIG CHIP: loop_loads=<n> ahead=<n>
(the main loop's VMEM loads per iteration, and those first read more than
half an iteration after they issue: bench/amd_isa_stats.py's loads_ahead).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "..", "bench"))
import mfma_decode  # noqa: E402
import amd_isa_stats  # noqa: E402
import amd_vs_aiter  # noqa: E402


def decode_disassembly(objdump, chip, hsaco):
    text = subprocess.run([objdump, "-d", f"--mcpu={chip}", hsaco],
                          check=True, capture_output=True, text=True).stdout
    lines, inside = [], False
    for line in text.splitlines():
        label = re.match(r"^[0-9a-fA-F]+ <(.*)>:", line)
        if label:
            inside = label.group(1) == "pa_decode"
            continue
        if inside:
            lines.append(line)
    return lines


def decode_notes(readelf, hsaco):
    """The pa_decode entry of the NT_AMDGPU_METADATA note, as key: value."""
    text = subprocess.run([readelf, "--notes", hsaco], check=True,
                          capture_output=True, text=True).stdout
    entries, current = [], {}
    for line in text.splitlines():
        m = re.match(r"^\s+-?\s*\.([a-z_]+):\s*(\S*)\s*$", line)
        if not m:
            continue
        if line.lstrip().startswith("- .") and current:
            entries.append(current)
            current = {}
        current[m.group(1)] = m.group(2)
    entries.append(current)
    for entry in entries:
        if entry.get("name") == "pa_decode":
            return entry
    sys.exit("mfma_code_object.py: no pa_decode kernel in the metadata")


def summarize(args, config, tmp):
    source = os.path.join(tmp, f"{config}-{args.chip}.mlir")
    hsaco = os.path.join(tmp, f"{config}-{args.chip}.hsaco")
    with open(source, "w") as f:
        f.write(mfma_decode.module(config, args.chip))
    subprocess.run([args.pa_compile, source, f"--chip={args.chip}",
                    f"--fp8-residual={args.fp8_residual}",
                    f"--cache-offsets={args.cache_offsets}",
                    f"--key-prefetch={args.key_prefetch}", "-o", hsaco],
                   check=True)
    if args.loop_loads:
        listing = os.path.join(tmp, "listing.txt")
        with open(listing, "w") as f:
            f.write(subprocess.run(
                [args.objdump, "-d", f"--mcpu={args.chip}", hsaco],
                check=True, capture_output=True, text=True).stdout)
        body, labels = amd_isa_stats.main_loop(listing, "pa_decode")
        loads = sum(1 for _, m, _ in body if amd_isa_stats.load_bytes(m))
        path = amd_isa_stats.fast_path(body, labels)
        return (f"{config} {args.chip}: loop_loads={loads}"
                f" ahead={amd_isa_stats.loads_ahead(body)}"
                f" in_flight={amd_isa_stats.loads_in_flight(path)}")
    mnemonics = []
    for line in decode_disassembly(args.objdump, args.chip, hsaco):
        m = re.match(r"^\s+([a-z_0-9]+)", line)
        if m:
            mnemonics.append(m.group(1))
    count = lambda name: sum(1 for m in mnemonics if m == name)
    mfmas = sorted({m for m in mnemonics if m.startswith("v_mfma")})
    mfma = ",".join(f"{m}x{count(m)}" for m in mfmas) or "none"
    spills = sum(1 for m in mnemonics
                 if m.startswith("scratch_") or m.startswith("buffer_store"))
    notes = decode_notes(args.readelf, hsaco)
    if args.occupancy:
        vgprs = int(notes.get("vgpr_count"))
        sgprs = int(notes.get("sgpr_count"))
        lds = int(notes.get("group_segment_fixed_size"))
        waves = amd_vs_aiter.waves_per_simd(args.chip, vgprs, sgprs, lds)
        return (f"{config} {args.chip}: waves={waves} vgprs={vgprs}"
                f" sgprs={sgprs} lds={lds}")
    return (f"{config} {args.chip}: mfma={mfma}"
            f" buffer_load_dwordx4={count('buffer_load_dwordx4')}"
            f" ds_read_b128={count('ds_read_b128')}"
            f" ds_write_b128={count('ds_write_b128')}"
            f" s_barrier={count('s_barrier')} scratch_insts={spills}"
            f" private_segment={notes.get('private_segment_fixed_size')}"
            f" lds={notes.get('group_segment_fixed_size')}"
            f" vgprs={notes.get('vgpr_count')}"
            f" global_load_dwordx4={count('global_load_dwordx4')}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pa_compile")
    parser.add_argument("objdump")
    parser.add_argument("readelf")
    parser.add_argument("--chip", required=True, choices=["gfx942", "gfx950"])
    parser.add_argument("--fp8-residual", default="query-and-p",
                        choices=["none", "p", "query-and-p"])
    parser.add_argument("--cache-offsets", default="auto",
                        choices=["auto", "64"])
    parser.add_argument("--key-prefetch", default="auto",
                        choices=["auto", "none", "next-tile"])
    parser.add_argument("--loop-loads", action="store_true",
                        help="print the main loop's loads, those issued "
                        "half an iteration or more before their use, and "
                        "the most in flight at once on its fast path")
    parser.add_argument("--occupancy", action="store_true",
                        help="print waves per SIMD and its resources")
    parser.add_argument("configs", nargs="+")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for config in args.configs:
            print(summarize(args, config, tmp), flush=True)


if __name__ == "__main__":
    main()
