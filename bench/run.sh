#!/usr/bin/env bash
# Benchmarks print figures; nothing here passes or fails. Later issues add
# the code-object resource table (AMD) and the H200 timings (NVIDIA).
set -euo pipefail
build=${1:-build}
echo "pa-mlir benchmarks: none yet (the backends that produce code objects are not built yet)"
