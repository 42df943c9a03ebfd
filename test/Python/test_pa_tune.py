"""bench/pa_tune.py: the tuning table from `pa-cuda-run tune` timings
(docs/tuning.md), on a synthetic log: the noise rule, the bucket-free
entry, bucketed entries only where they differ from it, and the merge with
the old table."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KEY = {"target": "sm_90a", "layout": "packed-transposed", "head_dim": 256,
       "rows": 8, "page_size": 16, "kv_dtype": "bf16", "window": 0}


def tune_line(candidate, batch, length, budget, us):
    return (f"TUNE d/c{candidate:02d}/bench/b000 B={batch} L={length} "
            f"budget={budget} max_partitions=132 {us:.2f} us 80.0% of copy")


def run_pa_tune(tmp_path, lines, base_entries, kernel_options=(),
                expect_table=True):
    """pa_tune.py on `lines`; candidate NN's program.txt records
    kernel_options[NN] (a dict of key_ahead / value_stage / proxy_sms;
    none: 0). Without expect_table, the finished process."""
    candidates = {int(line.split("/c")[1][:2]) for line in lines}
    for candidate in sorted(candidates):
        program = tmp_path / "d" / f"c{candidate:02d}" / "bench" / "b000"
        program.mkdir(parents=True)
        options = (kernel_options[candidate]
                   if candidate < len(kernel_options) else {})
        (program / "program.txt").write_text(
            "label=bf16-q1-p16-w0\nbudget=264\n"
            + "".join(f"{name}={blocks}\n" for name, blocks in options.items())
            + "tuning_key=" + json.dumps(KEY) + "\n")
    log = tmp_path / "tune.log"
    log.write_text("device: NVIDIA H200, 132 SMs\n" + "\n".join(lines) + "\n")
    base = tmp_path / "base.json"
    base.write_text(json.dumps({"format": "pa-mlir-tuned-plans", "version": 1,
                                "entries": base_entries}))
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "pa_tune.py"),
                           str(log), str(tmp_path / "d"), str(base)],
                          capture_output=True, text=True, timeout=60)
    if not expect_table:
        return done
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["entries"]


def test_winners_beyond_the_noise_become_entries(tmp_path):
    lines = [
        # (32, 8192): candidate 1 (budget 132) 5% faster, 2 within 1%.
        tune_line(0, 32, 8192, 264, 100.0), tune_line(1, 32, 8192, 132, 95.0),
        tune_line(2, 32, 8192, 256, 99.5), tune_line(0, 32, 8192, 264, 100.5),
        # (8, 131072): candidate 2 (budget 256) 3% faster.
        tune_line(0, 8, 131072, 264, 300.0),
        tune_line(1, 8, 131072, 132, 301.0),
        tune_line(2, 8, 131072, 256, 290.0),
        tune_line(0, 8, 131072, 264, 300.3),
        # (128, 2048): nothing beats the noise (2 us between the reference's
        # two times).
        tune_line(0, 128, 2048, 264, 100.0),
        tune_line(1, 128, 2048, 132, 99.5),
        tune_line(2, 128, 2048, 256, 99.2),
        tune_line(0, 128, 2048, 264, 102.0),
    ]
    other = dict(KEY, kv_dtype="e4m3fn", budget=7)
    stale = dict(KEY, budget=999)
    entries = run_pa_tune(tmp_path, lines, [other, stale])
    # The other key's entry stays, the tuned key's old one goes.
    assert entries[0] == other
    tuned = entries[1:]
    plans = [({k: e.get(k) for k in ("batch_bucket", "context_bucket",
                                     "budget", "max_partitions")})
             for e in tuned]
    # Candidate 1 has the best geometric mean (0.978 against 0.980, 2.2%
    # beyond the largest noise, 2.0%): the bucket-free entry; (8, 131072) keeps its own winner; (32, 8192) won
    # by the same limits needs no entry; max_partitions is the default's.
    assert plans == [
        {"batch_bucket": None, "context_bucket": None, "budget": 132,
         "max_partitions": None},
        {"batch_bucket": 8, "context_bucket": 131072, "budget": 256,
         "max_partitions": None}]
    assert all({k: e[k] for k in KEY} == KEY for e in tuned)
    assert "290.0 us against 300.1" in tuned[1]["measured"]


def test_no_gain_no_entry(tmp_path):
    lines = [tune_line(0, 32, 8192, 264, 100.0),
             tune_line(1, 32, 8192, 132, 99.5),
             tune_line(0, 32, 8192, 264, 100.0)]
    assert run_pa_tune(tmp_path, lines, []) == []


def test_a_winning_kernel_option_becomes_an_entry(tmp_path):
    """Candidate 1 is the defaults' plan with value_stage 2 (pa-to-nvvm's
    V stage): 4% faster everywhere, so the bucket-free entry sets it and no
    plan limit; candidate 2 (budget 132, the options of the reference)
    wins no shape."""
    lines = []
    for batch, length, us in ((32, 8192, 100.0), (8, 131072, 300.0)):
        lines += [tune_line(0, batch, length, 264, us),
                  tune_line(1, batch, length, 264, us * 0.96),
                  tune_line(2, batch, length, 132, us * 1.01),
                  tune_line(0, batch, length, 264, us)]
    entries = run_pa_tune(
        tmp_path, lines, [],
        kernel_options=[{"value_stage": 0}, {"value_stage": 2}, {}])
    assert len(entries) == 1, entries
    assert {k: v for k, v in entries[0].items()
            if k not in KEY and k != "measured"} == {"value_stage": 2}


def winner_settings(tmp_path, kernel_options, ratio):
    """The one entry's settings when candidate 1 (`kernel_options[1]`) is
    `ratio` of the reference's time at both shapes."""
    lines = []
    for batch, length, us in ((32, 8192, 100.0), (8, 131072, 300.0)):
        lines += [tune_line(0, batch, length, 264, us),
                  tune_line(1, batch, length, 264, us * ratio),
                  tune_line(0, batch, length, 264, us)]
    entries = run_pa_tune(tmp_path, lines, [], kernel_options=kernel_options)
    assert len(entries) == 1, entries
    return {k: v for k, v in entries[0].items()
            if k not in KEY and k != "measured"}


@pytest.mark.parametrize("place, blocks", [("key_ahead_in_registers", 1),
                                           ("key_ahead_bulk", 2)])
def test_where_key_ahead_goes_is_written_as_a_boolean(tmp_path, place,
                                                      blocks):
    """Candidate 1 adds key_ahead's blocks in registers or by bulk copies
    (program.txt records the option as 0 / 1): the entry sets key_ahead
    and the option true, the JSON boolean the table takes; without it the
    table would give the winner's blocks to cp.async."""
    assert winner_settings(
        tmp_path, [{"key_ahead": 0, place: 0},
                   {"key_ahead": blocks, place: 1}], 0.97) == {
                       "key_ahead": blocks, place: True}


@pytest.mark.parametrize("winner, settings", [
    ({"l2_prefetch": 1}, {"l2_prefetch": True}),
    ({"l2_prefetch": 1, "l2_prefetch_min_tiles": 16},
     {"l2_prefetch": True, "l2_prefetch_min_tiles": 16})])
def test_l2_prefetch_is_a_boolean_and_its_minimum_an_integer(
        tmp_path, winner, settings):
    """A winner that differs from the reference only by l2_prefetch (a
    kernel option with no blocks), or by it and the partitions' minimum
    of tiles, gets an entry of those alone: the prefetch a JSON boolean,
    the minimum an integer."""
    reference = {"l2_prefetch": 0, "l2_prefetch_min_tiles": 0}
    assert winner_settings(tmp_path, [reference, winner], 0.96) == settings


def test_an_option_takes_what_it_requires_from_the_reference(tmp_path):
    """A winner that differs from a reference with the prefetch only by the
    minimum of tiles, or from one with key-ahead blocks only by where they
    go, gets an entry the table accepts: with l2_prefetch / key_ahead."""
    reference = {"l2_prefetch": 1, "l2_prefetch_min_tiles": 0,
                 "key_ahead": 1, "key_ahead_in_registers": 0}
    winner = dict(reference, l2_prefetch_min_tiles=16,
                  key_ahead_in_registers=1)
    assert winner_settings(tmp_path, [reference, winner], 0.96) == {
        "l2_prefetch": True, "l2_prefetch_min_tiles": 16, "key_ahead": 1,
        "key_ahead_in_registers": True}


def test_compare_reports_each_candidate_against_the_reference(tmp_path):
    lines = [tune_line(0, 32, 8192, 264, 100.0),
             tune_line(1, 32, 8192, 264, 98.0),
             tune_line(2, 32, 8192, 132, 103.0),
             tune_line(0, 32, 8192, 264, 100.0)]
    run_pa_tune(tmp_path, lines, [])  # writes the program directories
    log = tmp_path / "tune.log"
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "pa_tune.py"),
                           "--compare", str(log), str(tmp_path / "d")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    report = done.stdout.splitlines()
    assert report[0] == "device: NVIDIA H200, 132 SMs"
    assert report[1].startswith("bf16-q1-p16-w0       (32, 8192)")
    assert "c01 98.00 -2.0%" in report[1] and "c02 103.00 +3.0%" in report[1]
    assert report[2] == ("c01: geometric mean -2.00% over 1 rows, 1 faster "
                         "and 0 slower by more than 0.5%")
    assert report[3].startswith("c02: geometric mean +3.00%")


def test_programs_compiled_for_the_proxy_make_no_table(tmp_path):
    """pa-cuda-gen --sms 94 (the H200 proxy, pa-tune.sh's SMS) records
    proxy_sms; its budgets are scaled to 94 SMs, so a table made of them
    would give the whole chip the wrong plan: refused, naming the program.
    --compare still reports them."""
    lines = [tune_line(0, 32, 8192, 188, 100.0),
             tune_line(1, 32, 8192, 282, 90.0),
             tune_line(0, 32, 8192, 188, 100.0)]
    done = run_pa_tune(tmp_path, lines, [],
                       kernel_options=[{"proxy_sms": 94}, {"proxy_sms": 94}],
                       expect_table=False)
    assert done.returncode != 0
    assert "compiled for 94 SMs (pa-cuda-gen --sms)" in done.stderr
    assert "c00/bench/b000" in done.stderr
    assert done.stdout == ""
    compared = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "pa_tune.py"), "--compare",
         str(tmp_path / "tune.log"), str(tmp_path / "d")],
        capture_output=True, text=True, timeout=60)
    assert compared.returncode == 0, compared.stderr
    assert "c01 90.00 -10.0%" in compared.stdout
