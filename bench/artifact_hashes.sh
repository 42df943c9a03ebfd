#!/usr/bin/env bash
# sha256 of every compiled artifact of the AMD resource set
# (bench/amd_resources.sh's configurations, gfx942 and gfx950 code objects
# and their sidecars) and the NVIDIA PTX set (pa-cuda-gen: the numerics
# matrix, graph replay and benchmark programs), one line per file. Two
# builds produce byte-identical artifacts when their listings are equal:
#
#   bash bench/artifact_hashes.sh BUILD_A > a.txt
#   bash bench/artifact_hashes.sh BUILD_B > b.txt
#   diff a.txt b.txt && echo byte-identical
#
# PROGRAMS=N limits the NVIDIA set to the first N programs of the matrix
# and of the benchmark (pa-cuda-gen --programs N; the whole set takes about
# an hour on two busy cores).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
[[ "$build" = /* ]] || build="$root/$build"
generator="$root/test/Target/AMD/Inputs/mfma_decode.py"
configs=$(sed -n '/^  configs=(/,/^  )/p' "$root/bench/amd_resources.sh" | grep -v '[()]')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/amd"
for config in $configs; do
  for chip in gfx942 gfx950; do
    python3 "$generator" "$config" --chip "$chip" -o "$work/$config-$chip.mlir"
    "$build/bin/pa-compile" "$work/$config-$chip.mlir" --chip="$chip" \
      -o "$work/amd/$config-$chip.hsaco"
  done
done
limit=()
[ -n "${PROGRAMS:-}" ] && limit=(--programs "$PROGRAMS")
(ulimit -s unlimited
 "$build/bin/pa-cuda-gen" "$work/nvidia" --matrix "${limit[@]}" >/dev/null
 "$build/bin/pa-cuda-gen" "$work/nvidia" --bench "${limit[@]}" >/dev/null)
cd "$work"
find amd nvidia -type f | LC_ALL=C sort | xargs sha256sum
