#!/usr/bin/env bash
# Compile time of AMD code objects by stage (issue 15's target: the slowest
# configuration of bench/amd_resources.sh below 0.5 s CPU). For each
# configuration and chip, pa-compile's user seconds (/usr/bin/time) up to
# each stage, RUNS runs each (min-max), and what the stages add:
#   mlir   parse + the pa-lower-to-rocdl pipeline   (--emit=mlir)
#   llvm   + translation to LLVM IR and LLVM's O3   (--emit=llvm)
#   hsaco  + AMDGPU code generation and the link    (--emit=hsaco)
# then the TOP passes by user seconds of one --time-passes run (LLVM's
# optimizer and code generation in one list; the MLIR passes:
# `pa-opt IN --pa-lower-to-rocdl --mlir-timing`).
#
# User seconds grow with the machine's load (shared cores, caches), so the
# load average is printed beside them; IR=1 adds the instructions the whole
# hsaco compile executes (valgrind's callgrind, minutes per run), a figure
# the load does not change.
#
#   bash bench/compile_time.sh [BUILD_DIR] [CONFIG...]
#   RUNS=5 TOP=12 IR=1 bash bench/compile_time.sh build
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
shift || true
[[ "$build" = /* ]] || build="$root/$build"
compile="$build/bin/pa-compile"
generator="$root/test/Target/AMD/Inputs/mfma_decode.py"
runs=${RUNS:-3}
top=${TOP:-8}

configs=("$@")
# The slowest configuration of bench/amd_resources.sh's table.
[ ${#configs[@]} -eq 0 ] && configs=(d256-fp8-p64-transposed-per_token-w257-q4g8)

if [ ! -x "$compile" ]; then
  echo "compile_time.sh: $compile not found (make build BUILD=...)" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# User seconds of one pa-compile run.
user_seconds() {
  { /usr/bin/time -f "%U" "$compile" "$@" 2>&1 >/dev/null; } | tail -1
}

# "min-max" of the numbers on stdin.
span() {
  sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f-%.2f", lo, hi }'
}

# The median of the numbers on stdin.
median() {
  sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $runs runs per stage"
echo
echo "| config | chip | mlir s | llvm s | hsaco s | added: MLIR / LLVM IR + O3 / codegen + link s (medians) |$([ -n "${IR:-}" ] && echo ' instructions (hsaco) |')"
echo "|---|---|---|---|---|---|$([ -n "${IR:-}" ] && echo '---|')"
for config in "${configs[@]}"; do
  for chip in gfx942 gfx950; do
    src="$work/$config-$chip.mlir"
    python3 "$generator" "$config" --chip "$chip" -o "$src"
    declare -A times=()
    for stage in mlir llvm hsaco; do
      times[$stage]=$(for _ in $(seq "$runs"); do
        user_seconds "$src" --chip="$chip" --emit="$stage" -o "$work/out.$stage"
      done)
    done
    m=$(median <<<"${times[mlir]}") l=$(median <<<"${times[llvm]}")
    h=$(median <<<"${times[hsaco]}")
    row="| $config | $chip | $(span <<<"${times[mlir]}") | $(span <<<"${times[llvm]}") | $(span <<<"${times[hsaco]}") | $(awk -v m="$m" -v l="$l" -v h="$h" 'BEGIN { printf "%.2f / %.2f / %.2f", m, l - m, h - l }') |"
    if [ -n "${IR:-}" ]; then
      valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" \
        "$compile" "$src" --chip="$chip" -o "$work/out.hsaco" 2>"$work/callgrind.log" >/dev/null
      row="$row $(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$work/callgrind.log" | awk '{ printf "%.2f G", $1 / 1e9 }') |"
    fi
    echo "$row"
    unset times
  done
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

for chip in gfx942 gfx950; do
  echo
  echo "top $top passes, ${configs[-1]} on $chip (--time-passes, user s):"
  "$compile" "$work/${configs[-1]}-$chip.mlir" --chip="$chip" -o "$work/out.hsaco" \
    --time-passes 2>"$work/passes.txt"
  # The first report lists every pass of the optimizer and code generation
  # (ordered by wall time there; by user time here).
  awk '/Pass execution timing report/ { on = 1; next }
       on && /Total$/ { exit }
       on && /^ +[0-9.]+ \(/ { name = $0; sub(/.*\)  +/, "", name);
                               printf "  %.3f %s\n", $1, name }' \
    "$work/passes.txt" | sort -gr | awk -v top="$top" 'NR <= top'
done
