#!/usr/bin/env python3
"""Prints the pa-to-mfma output for one mfma_decode.py configuration.

usage: mfma_lower.py PA_OPT CONFIG --chip gfx942|gfx950 [--stage=mfma|tiled]
                     [--fp8-residual=none|p|query-and-p]
                     [--cache-offsets=auto|64]

Runs the tiling passes of pa-lower-to-rocdl (plan, decode, reduce, page-id
staging with the pipeline's bound) and then pa-to-mfma (or stops before it
with --stage=tiled).
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mfma_decode  # noqa: E402

# pa-lower-to-rocdl stages at most an eighth of the LDS in page ids.
MAX_STAGED = {"gfx942": 2048, "gfx950": 4096}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pa_opt")
    parser.add_argument("config")
    parser.add_argument("--chip", required=True, choices=sorted(MAX_STAGED))
    parser.add_argument("--stage", default="mfma", choices=["mfma", "tiled"])
    parser.add_argument("--fp8-residual", default="query-and-p",
                        choices=["none", "p", "query-and-p"])
    parser.add_argument("--cache-offsets", default="auto",
                        choices=["auto", "64"])
    args = parser.parse_args()
    chip = args.chip
    kernels = f"pa-stage-page-ids{{max-staged={MAX_STAGED[chip]}}}"
    if args.stage == "mfma":
        kernels += (f",pa-to-mfma{{"
                    f"fp8-residual={args.fp8_residual} "
                    f"cache-offsets={args.cache_offsets}}}")
    pipeline = (f"builtin.module(pa-set-target{{chip={chip}}},pa-lower-plan,"
                f"pa-tile,pa-lower-reduce,"
                f"gpu.module({kernels}))")
    text = mfma_decode.module(args.config, chip)
    result = subprocess.run([args.pa_opt, f"--pass-pipeline={pipeline}"],
                            input=text, text=True)
    sys.exit(result.returncode)


if __name__ == "__main__":
    main()
