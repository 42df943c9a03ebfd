#!/usr/bin/env bash
# pa-mlir's AMD decode main loop against aiter's hand-written code objects
# at their shared configuration (D 128, GQA 8, fp8 per-token, page 16;
# query length 1 and 4): instructions by class per wave and tile, MFMAs
# against the minimum, loads, waves/SIMD, and an issue-count estimate
# against the memory time on MI300X and MI355X. No GPU needed; the anchors
# (../shared/anchors/aiter-pa, or AITER_ANCHORS) are optional.
#
#   bash bench/amd_vs_aiter.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
[[ "$build" = /* ]] || build="$root/$build"
if [ ! -x "$build/bin/pa-compile" ]; then
  echo "amd_vs_aiter.sh: $build/bin/pa-compile not found (make build BUILD=...)" >&2
  exit 1
fi
python3 "$root/bench/amd_vs_aiter.py" "$build" \
  --anchors "${AITER_ANCHORS:-$root/../shared/anchors/aiter-pa}"
