#!/usr/bin/env python3
"""Instruction statistics of a kernel's main loop in `llvm-objdump -d` output.

usage: amd_isa_stats.py DISASSEMBLY KERNEL [--json]

The main loop is the innermost loop (a backward branch with no other loop
holding MFMAs inside it) that holds the most MFMAs per tile; with
pa-to-mfma's run-time choice between 32-bit buffer offsets and 64-bit
addresses there are two such loops of the same shape, and the one with
buffer loads is reported (the other is the >= 2 GiB pool fallback).
Classes (`classify`): MFMA (v_mfma*), VMEM (buffer_/global_/flat_), LDS
(ds_), VALU (other v_), SALU (other s_, scalar memory and branches
included), waitcnt (s_waitcnt*). `fine_classes` splits SMEM (s_load*,
s_buffer_load*, s_store*, s_dcache*, s_memtime/realtime) and branches
(s_branch, s_cbranch*, s_setpc/swappc/getpc) out of SALU and counts the
transcendental VALU ops (`TRANSCENDENTAL`) and the 16x16x128 MFMAs.

A hand-written code object (bench/amd_vs_aiter.sh) names its local labels
`label_XXXX` and may unroll several 256-token tiles into one loop
iteration; `tiles_per_iteration` counts its tile-counter steps
(`s_addk_i32 sN, 0x100`).
"""
import json
import re
import sys

LINE = re.compile(r"^\s+([a-z_0-9]+)\b.*//\s*([0-9A-Fa-f]+):")
BRANCH = re.compile(r"^\s+s_c?branch\w*\s+(\S+)")
LABEL = re.compile(r"^([0-9a-fA-F]+) <(.*)>:")
TILE_STEP = re.compile(r"^\s+s_addk_i32\s+s\d+,\s*0x100\b")
# v_exp/log/rcp/rsq/sqrt/sin/cos run at a quarter rate (16 clocks a wave).
TRANSCENDENTAL = re.compile(r"^v_(exp|log|rcp|rsq|sqrt|sin|cos)_")
SMEM = ("s_load", "s_buffer_load", "s_store", "s_buffer_store", "s_dcache",
        "s_memtime", "s_memrealtime", "s_scratch")
BRANCHES = ("s_branch", "s_cbranch", "s_setpc", "s_swappc", "s_getpc")
# Vector-memory loads (the loop's K, V, scales and page-id reads): buffer
# loads in the 32-bit loop, global loads in the 64-bit one.
VECTOR_LOADS = ("buffer_load", "global_load")


def compiler_local(name):
    return name.startswith("L")


def handwritten_local(name):
    return name.startswith("label_")


def kernel_instructions(path, kernel, is_local=compiler_local):
    """[(address, mnemonic, text)] of `kernel`, and its labels by name."""
    insts, labels, inside = [], {}, False
    for line in open(path):
        m = LABEL.match(line)
        if m:
            name = m.group(2)
            if inside and not name.startswith(kernel + "+") and \
                    not is_local(name):
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


def fine_classes(mnemonic):
    """The class of `classify` with SMEM and branch split out of SALU, plus
    the sub-counts this instruction adds to (transcendental, MFMA16x16x128)."""
    cls = classify(mnemonic)
    if cls == "SALU" and mnemonic.startswith(SMEM):
        cls = "SMEM"
    elif cls == "SALU" and mnemonic.startswith(BRANCHES):
        cls = "branch"
    extra = []
    if cls == "VALU" and TRANSCENDENTAL.match(mnemonic):
        extra.append("transcendental")
    if cls == "MFMA" and "x128" in mnemonic:
        extra.append("MFMA16x16x128")
    return [cls] + extra


def loops(insts, labels):
    """(start, end) address ranges of backward branches."""
    found = []
    for address, _, text in insts:
        target = branch_target(text, labels)
        if target is not None and target <= address:
            found.append((target, address))
    return found


def tiles_per_iteration(body_texts):
    return max(1, sum(1 for text in body_texts if TILE_STEP.match(text)))


def main_loop(path, kernel, is_local=compiler_local):
    """The main loop's body [(address, mnemonic, text)] (or []) and the
    kernel's labels."""
    insts, labels = kernel_instructions(path, kernel, is_local)
    def has_mfma(start, end):
        return any(start <= a <= end and m.startswith("v_mfma")
                   for a, m, _ in insts)
    found = [(s, e) for s, e in loops(insts, labels) if has_mfma(s, e)]
    # Innermost among the loops with MFMAs: a backward branch around both
    # tile loops must not count as "the" loop.
    innermost = [(s, e) for s, e in found
                 if not any((s2, e2) != (s, e) and s <= s2 and e2 <= e
                            for s2, e2 in found)]
    best = None
    for start, end in innermost:
        body = [(a, m, t) for a, m, t in insts if start <= a <= end]
        tiles = tiles_per_iteration([t for _, _, t in body])
        mfma = sum(1 for _, m, _ in body if m.startswith("v_mfma"))
        buffer_loads = sum(1 for _, m, _ in body
                           if m.startswith("buffer_load"))
        key = (mfma / tiles, buffer_loads, -len(body) / tiles)
        if best is None or key > best[0]:
            best = (key, body)
    return (best[1] if best else []), labels


SCALAR_CONDITION = re.compile(r"^s_cbranch_(scc[01]|vccz|vccnz)$")


def branch_target(text, labels):
    """The address a branch goes to: objdump prints it as
    <symbol+0xoffset> (compiled code) or as the label (hand-written)."""
    b = BRANCH.match(text)
    if not b:
        return None
    m = re.search(r"<([^>+]+)(?:\+0x([0-9a-fA-F]+))?>\s*$", text)
    if m and m.group(1) in labels:
        return labels[m.group(1)] + int(m.group(2) or "0", 16)
    return labels.get(b.group(1))


def fast_path(body, labels):
    """The shortest way through one loop iteration `body` [(address,
    mnemonic, text)]: at every branch on a uniform condition
    (s_cbranch_scc*/vcc*) to a later address of the body, the side with
    fewer instructions (a full-tile path that jumps over the edge tiles'
    masking, or the shorter of two bodies), but never a jump over loads of
    the cache (cache_load: the branch around the next tile's K prefetch,
    skipped after the last tile only). Branches on exec (divergent
    code) fall through: all lanes run it. Returns [(address, mnemonic,
    text)] in order."""
    index = {a: k for k, (a, _, _) in enumerate(body)}
    n = len(body)
    best = [None] * (n + 1)  # (instructions so far, predecessor)
    best[0] = (0, -1)
    for k in range(n):
        if best[k] is None:
            continue
        _, m, text = body[k]
        target = index.get(branch_target(text, labels))
        unconditional = m == "s_branch"
        successors = []
        # A uniform branch over cache loads is not the steady state: the
        # next tile's prefetch is skipped only after the last tile.
        skips_loads = target is not None and any(
            cache_load(later) for _, later, _ in body[k + 1:target])
        if target is not None and target > k and not skips_loads and \
                (unconditional or SCALAR_CONDITION.match(m)):
            successors.append(target)
        if not (unconditional and target is not None and target > k):
            successors.append(k + 1)
        for s in successors:
            cost = best[k][0] + 1
            if best[s] is None or cost < best[s][0]:
                best[s] = (cost, k)
    path, k = [], best[n][1]
    while k >= 0:
        path.append(body[k])
        k = best[k][1]
    return path[::-1]


def counts_of(body, fine=False):
    counts = {}
    for _, m, _ in body:
        for c in (fine_classes(m) if fine else [classify(m)]):
            counts[c] = counts.get(c, 0) + 1
    counts["total"] = len(body)
    return counts


# Bytes a lane reads with one VMEM load, by the mnemonic's width suffix
# (buffer_load_dwordx4, global_load_ubyte_d16_hi, ...).
# Both spellings of the widths: gfx9's (dwordx4, ushort) and the newer
# bit-count one (b128, u16) that some assemblers print.
LOAD_WIDTHS = (("dwordx4", 16), ("dwordx3", 12), ("dwordx2", 8), ("dword", 4),
               ("ushort", 2), ("sshort", 2), ("short", 2), ("ubyte", 1),
               ("sbyte", 1), ("byte", 1), ("b128", 16), ("b96", 12),
               ("b64", 8), ("b32", 4), ("b16", 2), ("u16", 2), ("i16", 2),
               ("u8", 1), ("i8", 1))


def load_bytes(mnemonic):
    """Bytes per lane of a buffer_/global_/flat_ load, else None."""
    m = re.match(r"(buffer|global|flat)_load_(\w+)", mnemonic)
    if not m:
        return None
    return next((b for w, b in LOAD_WIDTHS if m.group(2).startswith(w)), None)


def cache_load(mnemonic):
    """Whether a VMEM load reads the cache: every buffer load (the 32-bit
    loop's K, V and scales), and global loads wider than one dword (the
    64-bit loop's K / V rows). One-dword global loads are page ids read from
    the block table, on the path for tiles past the ids staged in LDS, which
    the steady state does not take, or the 64-bit loop's per-token scales,
    which no uniform branch jumps over."""
    if mnemonic.startswith("buffer_load"):
        return True
    return (mnemonic.startswith("global_load")
            and (load_bytes(mnemonic) or 0) > 4)


def vmem_loads(path, kernel):
    """(loads, bytes per lane) of the main loop's VMEM loads."""
    body, _ = main_loop(path, kernel)
    widths = [b for b in (load_bytes(m) for _, m, _ in body) if b]
    return len(widths), sum(widths)


REGISTERS = re.compile(r"\bv\[(\d+):(\d+)\]|\bv(\d+)\b")


def vector_registers(operands):
    """The VGPR numbers an operand text names (v7, v[8:11])."""
    regs = set()
    for lo, hi, one in REGISTERS.findall(operands):
        regs.update(range(int(lo), int(hi) + 1) if lo else {int(one)})
    return regs


def operands_of(text):
    """(destination, sources) register sets of an instruction's text: the
    first operand and the rest (stores and branches have no destination
    worth telling apart here)."""
    parts = text.split("//")[0].split(None, 1)
    if len(parts) < 2:
        return set(), set()
    operands = [o.strip() for o in parts[1].split(",")]
    return vector_registers(operands[0]), \
        vector_registers(",".join(operands[1:]))


def load_use_distances(body):
    """For each VMEM load of one loop iteration `body` [(address, mnemonic,
    text)], the instructions from it to the first that reads its registers,
    counted around the loop (past the back edge into the next iteration):
    a load of the next iteration's data (a software-pipelined prefetch) is
    used most of an iteration later, a load waited for next to its use a
    few instructions later, whichever block LLVM made the loop's top."""
    distances = []
    for k, (_, m, text) in enumerate(body):
        if load_bytes(m) is None:
            continue
        loaded, _ = operands_of(text)
        for step in range(1, len(body)):
            _, later, later_text = body[(k + step) % len(body)]
            if later.startswith("s_"):
                continue
            written, sources = operands_of(later_text)
            if sources & loaded:
                distances.append(step)
                break
            loaded = loaded - written
            if not loaded:
                break
    return distances


def loads_ahead(body):
    """Loads of `body` used more than half an iteration after they issue
    (load_use_distances): the loads in flight across tiles."""
    return sum(1 for d in load_use_distances(body) if 2 * d > len(body))


def loads_in_flight(path):
    """The most vector-memory loads outstanding at once on `path` (a loop's
    fast path, fast_path), as its s_waitcnt vmcnt(N) leave them; twice
    around, so that loads issued before the back edge count after it."""
    outstanding = peak = 0
    for _ in range(2):
        for _, mnemonic, text in path:
            if mnemonic.startswith(VECTOR_LOADS):
                outstanding += 1
                peak = max(peak, outstanding)
            elif mnemonic == "s_waitcnt":
                m = re.search(r"vmcnt\((\d+)\)", text)
                if m:
                    outstanding = min(outstanding, int(m.group(1)))
    return peak


def stats(path, kernel):
    """Counts by class of the main loop (one iteration)."""
    body, _ = main_loop(path, kernel)
    return counts_of(body) if body else {}


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
