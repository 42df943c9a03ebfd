"""bench/pa_tune.py: the tuning table from `pa-cuda-run tune` timings
(docs/tuning.md), on a synthetic log: the noise rule, the bucket-free
entry, bucketed entries only where they differ from it, and the merge with
the old table."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KEY = {"target": "sm_90a", "layout": "packed-transposed", "head_dim": 256,
       "rows": 8, "page_size": 16, "kv_dtype": "bf16", "window": 0}


def tune_line(candidate, batch, length, budget, us):
    return (f"TUNE d/c{candidate:02d}/bench/b000 B={batch} L={length} "
            f"budget={budget} max_partitions=132 {us:.2f} us 80.0% of copy")


def run_pa_tune(tmp_path, lines, base_entries):
    program = tmp_path / "d" / "c00" / "bench" / "b000"
    program.mkdir(parents=True)
    (program / "program.txt").write_text(
        "label=bf16-q1-p16-w0\nbudget=264\ntuning_key=" + json.dumps(KEY)
        + "\n")
    log = tmp_path / "tune.log"
    log.write_text("device: NVIDIA H200, 132 SMs\n" + "\n".join(lines) + "\n")
    base = tmp_path / "base.json"
    base.write_text(json.dumps({"format": "pa-mlir-tuned-plans", "version": 1,
                                "entries": base_entries}))
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "pa_tune.py"),
                           str(log), str(tmp_path / "d"), str(base)],
                          capture_output=True, text=True, timeout=60)
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
