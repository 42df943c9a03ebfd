#!/usr/bin/env python3
"""Instruction statistics of a kernel's main loop in `llvm-objdump -d` output.

usage: amd_isa_stats.py DISASSEMBLY KERNEL [--json]

The main loop is the innermost loop (a backward branch with no other loop
holding MFMAs inside it) that holds the most MFMAs; with pa-to-mfma's run-time choice between 32-bit buffer offsets and
64-bit addresses there are two such loops of the same shape, and the one
with buffer loads is reported (the other is the >= 2 GiB pool fallback).
Classes: MFMA (v_mfma*), VMEM (buffer_/global_/flat_), LDS (ds_), VALU
(other v_), SALU (other s_, branches included), waitcnt (s_waitcnt*).
"""
import json
import re
import sys

LINE = re.compile(r"^\s+([a-z_0-9]+)\b.*//\s*([0-9A-Fa-f]+):")
BRANCH = re.compile(r"^\s+s_c?branch\w*\s+(\S+)")
LABEL = re.compile(r"^([0-9a-fA-F]+) <(.*)>:")


def kernel_instructions(path, kernel):
    """[(address, mnemonic, text)] of `kernel`, and its labels by name."""
    insts, labels, inside = [], {}, False
    for line in open(path):
        m = LABEL.match(line)
        if m:
            name = m.group(2)
            if inside and not name.startswith(kernel + "+") and \
                    not name.startswith("L"):
                break
            if name == kernel:
                inside = True
            if inside:
                labels[name] = int(m.group(1), 16)
            continue
        if not inside:
            continue
        m = LINE.match(line)
        if m:
            insts.append((int(m.group(2), 16), m.group(1), line))
    return insts, labels


def classify(mnemonic):
    if mnemonic.startswith("v_mfma"):
        return "MFMA"
    if mnemonic.startswith(("buffer_", "global_", "flat_")):
        return "VMEM"
    if mnemonic.startswith("ds_"):
        return "LDS"
    if mnemonic.startswith("s_waitcnt"):
        return "waitcnt"
    if mnemonic.startswith("v_"):
        return "VALU"
    if mnemonic.startswith("s_"):
        return "SALU"
    return "other"


def loops(insts, labels):
    """(start, end) address ranges of backward branches; objdump prints a
    branch target as <symbol+0xoffset>."""
    found = []
    for address, mnemonic, text in insts:
        if not BRANCH.match(text):
            continue
        m = re.search(r"<([^>+]+)(?:\+0x([0-9a-fA-F]+))?>\s*$", text)
        if not m or m.group(1) not in labels:
            continue
        target = labels[m.group(1)] + int(m.group(2) or "0", 16)
        if target <= address:
            found.append((target, address))
    return found


def stats(path, kernel):
    insts, labels = kernel_instructions(path, kernel)
    best = None
    def has_mfma(start, end):
        return any(start <= a <= end and m.startswith("v_mfma")
                   for a, m, _ in insts)
    found = [(s, e) for s, e in loops(insts, labels) if has_mfma(s, e)]
    # Innermost among the loops with MFMAs: a backward branch around both
    # tile loops must not count as "the" loop.
    innermost = [(s, e) for s, e in found
                 if not any((s2, e2) != (s, e) and s <= s2 and e2 <= e
                            for s2, e2 in found)]
    for start, end in innermost:
        body = [(a, m) for a, m, _ in insts if start <= a <= end]
        counts = {}
        for _, m in body:
            c = classify(m)
            counts[c] = counts.get(c, 0) + 1
        counts["total"] = len(body)
        buffer_loads = sum(1 for _, m in body if m.startswith("buffer_load"))
        key = (counts.get("MFMA", 0), buffer_loads, -len(body))
        if best is None or key > best[0]:
            best = (key, counts)
    return best[1] if best else {}


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    counts = stats(sys.argv[1], sys.argv[2])
    if "--json" in sys.argv:
        print(json.dumps(counts))
    else:
        print(" ".join(f"{k}={v}" for k, v in sorted(counts.items())))


if __name__ == "__main__":
    main()
