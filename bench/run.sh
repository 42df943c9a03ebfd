#!/usr/bin/env bash
# Benchmarks print figures; nothing here passes or fails: the AMD code
# objects' resources and main loop, side by side with aiter's hand-written
# loop (no GPU), and the compile time by stage. The H200 timings have
# their own scripts (cuda-h200.sh).
set -euo pipefail
build=${1:-build}
echo "== AMD code objects: MFMA decode kernel resources (bench/amd_resources.sh)"
bash "$(dirname "$0")/amd_resources.sh" "$build"
echo
echo "== AMD decode main loop against aiter's code objects (bench/amd_vs_aiter.sh)"
bash "$(dirname "$0")/amd_vs_aiter.sh" "$build"
echo
echo "== AMD compile time by stage, the slowest configuration (bench/compile_time.sh)"
bash "$(dirname "$0")/compile_time.sh" "$build"
