#!/usr/bin/env python3
"""The tuning table from `pa-cuda-run tune` timings (bench/pa-tune.sh).

    python3 bench/pa_tune.py TUNE_LOG DIR BASE_TABLE > plans.json
    python3 bench/pa_tune.py --compare TUNE_LOG DIR

--compare prints, instead of a table, each program's shapes with every
candidate's time and its difference from the reference (the mean of
candidate 00's two times), then per candidate the geometric mean of those
ratios over all rows and how many rows it made more than 0.5% faster or
slower: the same-run A/B of kernel options or plan limits.

TUNE_LOG holds lines
    TUNE DIR/cNN/bench/bMMM B=8 L=131072 budget=264 max_partitions=132 311.20 us ...
(candidate NN of benchmark program MMM at one shape; candidate 00 is the
chip's defaults, timed first and last). DIR/c00/bench/bMMM/program.txt
gives the program's tuning key, DIR/cNN/bench/bMMM/program.txt the
candidate's kernel options (key_ahead=, value_stage=, value_ahead=,
key_ahead_in_registers=, key_ahead_bulk=, l2_prefetch=,
l2_prefetch_min_tiles=:
pa-to-nvvm's, their defaults when absent), which an entry sets where they
differ from the reference's, as it sets the plan limits. For every program
and shape, the fastest candidate becomes an entry of that (batch, context
length) bucket when it beats the reference (the mean of candidate 00's two
times) by more than the noise (the difference of those two times, and at least 1%); the
candidate with the best geometric mean of time ratios over all the
program's shapes becomes its entry without buckets under the same rule.
Entries of BASE_TABLE with other keys are kept; those of tuned keys are
replaced.
"""
import datetime
import json
import math
import re
import sys
from collections import defaultdict

LINE = re.compile(
    r"^TUNE (?P<path>\S+) B=(?P<batch>\d+) L=(?P<length>\d+) "
    r"budget=(?P<budget>\d+) max_partitions=(?P<maxp>\d+) (?P<us>[\d.]+) us")
PATH = re.compile(r"(?:^|/)c(?P<candidate>\d+)/bench/(?P<program>b\d+)$")
KEY_FIELDS = ("target", "layout", "head_dim", "rows", "page_size",
              "kv_dtype", "window")
# pa-to-nvvm's options and their defaults.
KERNEL_OPTIONS = {"key_ahead": 0, "value_stage": 0, "value_ahead": 1,
                  "key_ahead_in_registers": 0, "key_ahead_bulk": 0,
                  "l2_prefetch": 0, "l2_prefetch_min_tiles": 0}
# Written to the table as JSON booleans.
BOOLEAN_OPTIONS = {"key_ahead_in_registers", "key_ahead_bulk", "l2_prefetch"}
# An entry that sets the first must set the second too (the table refuses
# it alone), even where the second is the reference's.
REQUIRES = {"key_ahead_in_registers": "key_ahead", "key_ahead_bulk":
            "key_ahead", "l2_prefetch_min_tiles": "l2_prefetch"}
SETTINGS = ("budget", "max_partitions") + tuple(KERNEL_OPTIONS)
MIN_GAIN = 0.01  # below 1% is not worth an entry


def bucket(n):
    """Smallest power of two >= n (tuningBucket in pa/API/Tuning.h)."""
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def program_fields(directory, candidate, program):
    """Candidate NN's program.txt of benchmark program MMM as {name: value}
    (its NAME=VALUE lines; bench_shape repeats, the last is kept)."""
    path = f"{directory}/c{candidate:02d}/bench/{program}/program.txt"
    with open(path) as f:
        return dict(line.rstrip("\n").partition("=")[::2] for line in f
                    if "=" in line)


def tuning_key(directory, program):
    fields = program_fields(directory, 0, program)
    if "tuning_key" not in fields:
        raise SystemExit(f"{directory}/c00/bench/{program}: no tuning_key")
    return json.loads(fields["tuning_key"])


def kernel_options(directory, candidate, program):
    """{option: blocks} of candidate NN's program (the default where not
    recorded)."""
    fields = program_fields(directory, candidate, program)
    return {option: int(fields.get(option, default))
            for option, default in KERNEL_OPTIONS.items()}


def read_log(path):
    """{program: {(B, L): {candidate: [(us, budget, maxp), ...]}}}, device."""
    times = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    device = "unknown device"
    with open(path) as f:
        for line in f:
            if line.startswith("device: "):
                device = line[len("device: "):].strip()
            match = LINE.match(line)
            if not match:
                continue
            where = PATH.search(match["path"])
            if not where:
                raise SystemExit(f"unexpected program path: {match['path']}")
            shape = (int(match["batch"]), int(match["length"]))
            times[where["program"]][shape][int(where["candidate"])].append(
                (float(match["us"]), int(match["budget"]), int(match["maxp"])))
    return times, device


def settings_of(candidate, runs, reference_runs, directory, program):
    """The candidate's plan limits and kernel options that differ from the
    reference's (candidate 0), and the options those require (REQUIRES)."""
    _, budget, maxp = runs[0]
    _, default_budget, default_maxp = reference_runs[0]
    settings = {}
    if budget != default_budget:
        settings["budget"] = budget
    if maxp != default_maxp:
        settings["max_partitions"] = maxp
    reference = kernel_options(directory, 0, program)
    options = kernel_options(directory, candidate, program)
    differing = [o for o, blocks in options.items() if blocks != reference[o]]
    differing += [REQUIRES[o] for o in differing
                  if o in REQUIRES and options[o] and REQUIRES[o] not in differing]
    for option in differing:
        blocks = options[option]
        settings[option] = bool(blocks) if option in BOOLEAN_OPTIONS else blocks
    return settings


def keyed(key):
    return {field: key[field] for field in KEY_FIELDS}


def refuse_proxy_programs(directory, program, candidates):
    """A program compiled for the H200 proxy (pa-cuda-gen --sms, recorded
    as proxy_sms) has plan limits scaled to fewer SMs: no table of it."""
    for candidate in candidates:
        sms = program_fields(directory, candidate, program).get("proxy_sms")
        if sms:
            raise SystemExit(
                f"{directory}/c{candidate:02d}/bench/{program}: compiled for "
                f"{sms} SMs (pa-cuda-gen --sms), its plan limits scaled to "
                "them; such a log is for --compare, not for a table")


def entries_for(program, shapes, directory, stamp):
    refuse_proxy_programs(
        directory, program,
        sorted({c for candidates in shapes.values() for c in candidates}))
    key = keyed(tuning_key(directory, program))
    entries = []
    ratios = defaultdict(list)  # candidate -> time / reference per shape
    noises = []
    for (batch, length), candidates in sorted(shapes.items()):
        reference_runs = [us for us, _, _ in candidates[0]]
        reference = sum(reference_runs) / len(reference_runs)
        noise = max(reference_runs) - min(reference_runs)
        noises.append(noise / reference)
        best, best_us = 0, reference
        for candidate, runs in candidates.items():
            us = min(t for t, _, _ in runs)
            ratios[candidate].append(us / reference)
            if us < best_us:
                best, best_us = candidate, us
        gain = reference - best_us
        if best != 0 and gain > max(noise, MIN_GAIN * reference):
            entry = dict(key)
            entry["batch_bucket"] = bucket(batch)
            entry["context_bucket"] = bucket(length)
            entry.update(settings_of(best, candidates[best], candidates[0],
                                     directory, program))
            entry["measured"] = (
                f"{stamp}: B={batch} L={length} {best_us:.1f} us against "
                f"{reference:.1f} at the defaults (noise {noise:.1f} us)")
            entries.append(entry)
    complete = {c: r for c, r in ratios.items() if len(r) == len(shapes)}
    mean = {c: math.exp(sum(map(math.log, r)) / len(r))
            for c, r in complete.items()}
    best = min(mean, key=mean.get)
    if best != 0 and 1 - mean[best] > max(max(noises), MIN_GAIN):
        any_shape = next(iter(shapes.values()))
        general = dict(key)
        general.update(settings_of(best, any_shape[best], any_shape[0],
                                   directory, program))
        general["measured"] = (
            f"{stamp}: {100 * (1 - mean[best]):.1f}% less time than the "
            f"defaults (geometric mean) over B, L = "
            + ", ".join(f"({b}, {l})" for b, l in sorted(shapes)))
        # A bucket whose winner is the general entry's settings needs no
        # entry.
        plan = {f: general[f] for f in SETTINGS if f in general}
        entries = [general] + [
            e for e in entries
            if {f: e[f] for f in SETTINGS if f in e} != plan]
    return key, entries


def compare(log, directory):
    """The --compare report (see the module's doc), as lines."""
    times, device = read_log(log)
    if not times:
        raise SystemExit(f"{log}: no TUNE lines")
    out = [f"device: {device}"]
    ratios = defaultdict(list)
    for program, shapes in sorted(times.items()):
        for (batch, length), candidates in sorted(shapes.items()):
            reference_runs = [us for us, _, _ in candidates[0]]
            reference = sum(reference_runs) / len(reference_runs)
            label = program_fields(directory, 0, program).get("label",
                                                              program)
            row = (f"{label:20s} ({batch}, {length})"
                   .ljust(36) + " c00 " + " / ".join(
                       f"{us:.2f}" for us in reference_runs))
            for candidate in sorted(candidates):
                if candidate == 0:
                    continue
                us = min(t for t, _, _ in candidates[candidate])
                ratios[candidate].append(us / reference)
                row += (f"  c{candidate:02d} {us:.2f} "
                        f"{100 * (us / reference - 1):+.1f}%")
            out.append(row)
    for candidate, values in sorted(ratios.items()):
        mean = math.exp(sum(map(math.log, values)) / len(values))
        faster = sum(r < 0.995 for r in values)
        slower = sum(r > 1.005 for r in values)
        out.append(f"c{candidate:02d}: geometric mean {100 * (mean - 1):+.2f}% "
                   f"over {len(values)} rows, {faster} faster and {slower} "
                   f"slower by more than 0.5%")
    return out


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--compare":
        print("\n".join(compare(sys.argv[2], sys.argv[3])))
        return
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    log, directory, base_path = sys.argv[1:]
    times, device = read_log(log)
    if not times:
        raise SystemExit(f"{log}: no TUNE lines")
    with open(base_path) as f:
        base = json.load(f)
    stamp = f"{device.split(',')[0]} {datetime.date.today().isoformat()}"
    tuned_keys, new_entries = [], []
    for program, shapes in sorted(times.items()):
        key, entries = entries_for(program, shapes, directory, stamp)
        tuned_keys.append(key)
        new_entries += entries
    same_key = lambda e, k: all(e[f] == k[f] for f in KEY_FIELDS)
    kept = [e for e in base["entries"]
            if not any(same_key(e, k) for k in tuned_keys)]
    base["entries"] = kept + new_entries
    # One entry per line: diffs of a retuned table stay readable.
    lines = ",\n".join("    " + json.dumps(e) for e in base["entries"])
    head = {k: v for k, v in base.items() if k != "entries"}
    text = json.dumps(head, indent=2)[:-2]
    print(text + ',\n  "entries": [\n' + lines + "\n  ]\n}")


if __name__ == "__main__":
    main()
