#!/usr/bin/env bash
# Benchmarks print figures; nothing here passes or fails. Later issues add
# the code-object resource table (AMD) and the H200 timings (NVIDIA).
set -euo pipefail
build=${1:-build}
echo "== AMD code objects: MFMA decode kernel resources (bench/amd_resources.sh)"
bash "$(dirname "$0")/amd_resources.sh" "$build"
