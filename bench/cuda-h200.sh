#!/usr/bin/env bash
# The NVIDIA H200 validation and benchmark of pa-mlir (docs/nvidia.md).
#
#   bash bench/cuda-h200.sh prepare [BUILD] [DIR]   # here, no GPU needed
#   bash bench/cuda-h200.sh run [BUILD] [DIR]       # on the GPU machine
#   bash bench/cuda-h200.sh pa [BUILD] [DIR]        # run's first half
#   bash bench/cuda-h200.sh peers [BUILD] [DIR] [BENCH_LOG]  # its second
#   bash bench/cuda-h200.sh profile [BUILD] [DIR]   # on the GPU machine
#   bash bench/cuda-h200.sh proxy-prepare [BUILD] [DIR]  # here
#   bash bench/cuda-h200.sh proxy [BUILD] [DIR]     # on an H100
#
# prepare builds pa-cuda-gen and pa-cuda-run in BUILD (default build) and
# compiles into DIR (default nv-artifacts/final) the PTX (and, where ptxas
# is found, the cubins) of the numerics
# matrix, the graph-replay program and the benchmark programs with their
# cases (GEN_FLAGS: more pa-cuda-gen options, e.g. "--value-stage 2"). run needs only BUILD/bin/pa-cuda-run and DIR (no MLIR, no CUDA
# toolkit: the driver is loaded at run time) plus PyTorch for the peers; it
# runs the numerics matrix and graph replay against the oracle, times the
# pa-mlir programs and the PyTorch peers (SDPA, gather + SDPA and
# FlexAttention at every shape), and prints the table and a summary. pa
# and peers split run in two (each well inside the device tool's 10-minute
# limit): pa checks and times pa-mlir, peers times the peers and prints the
# table with the pa-mlir times of BENCH_LOG (default: the log pa wrote).
# profile times each kernel (plan, decode, reduce) of every benchmark
# launch with Nsight Compute (ncu --clock-control none, CSV: per shape 5
# warm-up replays and 1 timed one). proxy-prepare compiles the benchmark
# programs for PROXY_SMS (default 94) of the 132 SMs (pa-cuda-gen --sms)
# into DIR (default nv-artifacts/proxy), and proxy times them on an H100
# with the other SMs reserved (pa-cuda-run --reserve-sms): each SM then
# has an H200 SM's share of the bandwidth (docs/performance.md, thirty-
# first session). Logs go to $OUT (the device tool's output folder) or
# DIR/logs.
set -uo pipefail
mode=${1:?usage: cuda-h200.sh prepare|run|pa|peers|profile|proxy-prepare|proxy [BUILD] [DIR]}
build=${2:-build}
case "$mode" in
proxy*) dir=${3:-nv-artifacts/proxy} ;;
*) dir=${3:-nv-artifacts/final} ;;
esac
proxySms=${PROXY_SMS:-94}
here=$(cd "$(dirname "$0")" && pwd)

case "$mode" in
prepare)
  ninja -C "$build" -j "${JOBS:-2}" pa-cuda-gen pa-cuda-run || exit 1
  rm -rf "$dir"
  # Deep MLIR nesting in the unrolled kernels: no stack limit.
  # With ptxas here, cubins too: pa-cuda-run loads them instead of the
  # PTX, so the GPU machine spends no time in the driver's JIT (a fresh
  # machine's JIT of the matrix took over 5 minutes, 2026-12-05).
  cubin=
  if command -v ptxas > /dev/null || [ -x /usr/local/cuda/bin/ptxas ]; then
    cubin=--cubin
  fi
  # GEN_FLAGS: more pa-cuda-gen options, e.g. "--value-stage 2" for the
  # numerics and timings of a kernel option.
  (ulimit -s unlimited; "$build/bin/pa-cuda-gen" "$dir" $cubin ${GEN_FLAGS:-}) ||
    exit 1
  du -sh "$dir"
  ;;
run | pa | peers)
  logs=${OUT:-$dir/logs}
  mkdir -p "$logs"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  check=0 bench=0 peers=0
  if [ "$mode" != peers ]; then
    "$build/bin/pa-cuda-run" check "$dir" > "$logs/check.log" 2>&1
    check=$?
    "$build/bin/pa-cuda-run" bench "$dir" --reps 30 > "$logs/bench.log" 2>&1
    bench=$?
    grep -E "^worst|passed," "$logs/check.log"
    grep -E "^(BENCH|LAYER)" "$logs/bench.log"
    echo "check exit $check, bench exit $bench"
  fi
  if [ "$mode" != pa ]; then
    benchlog=${4:-$logs/bench.log}
    # FlexAttention compiles per shape (the dynamic compile fails at 16-token
    # pages): a time budget keeps the whole run inside 10 minutes; shapes
    # left are reported as skipped, with the reason, in the table.
    PYTHONUNBUFFERED=1 python3 "$here/cuda_peers.py" --flex \
      --flex-seconds "${FLEX_SECONDS:-300}" > "$logs/peers.log" 2>&1
    peers=$?
    python3 "$here/cuda_table.py" "$benchlog" "$logs/peers.log"
    echo
    [ "$mode" = run ] && grep -E "^worst|passed," "$logs/check.log"
    echo "check exit $check, bench exit $bench, peers exit $peers"
  fi
  [ "$check" -eq 0 ] && [ "$bench" -eq 0 ]
  ;;
proxy-prepare)
  ninja -C "$build" -j "${JOBS:-2}" pa-cuda-gen pa-cuda-run || exit 1
  rm -rf "$dir"
  cubin=
  if command -v ptxas > /dev/null || [ -x /usr/local/cuda/bin/ptxas ]; then
    cubin=--cubin
  fi
  (ulimit -s unlimited; PATH=$PATH:/usr/local/cuda/bin \
    "$build/bin/pa-cuda-gen" "$dir" --bench --sms "$proxySms" $cubin \
    ${GEN_FLAGS:-}) || exit 1
  du -sh "$dir"
  ;;
proxy)
  logs=${OUT:-$dir/logs}
  mkdir -p "$logs"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  sms=$(nvidia-smi --query-gpu=multiprocessor_count --format=csv,noheader 2>/dev/null || echo 132)
  case "$sms" in '' | *[!0-9]*) sms=132 ;; esac
  "$build/bin/pa-cuda-run" bench "$dir" --reps 30 \
    --reserve-sms $((sms - proxySms)) > "$logs/proxy-bench.log" 2>&1
  bench=$?
  grep -E "^(BENCH|LAYER|reserving|FAIL)" "$logs/proxy-bench.log"
  echo "proxy bench exit $bench"
  [ "$bench" -eq 0 ]
  ;;
profile)
  logs=${OUT:-$dir/logs}
  mkdir -p "$logs"
  ncu --clock-control none -k regex:pa_ --metrics gpu__time_duration.sum --csv \
    "$build/bin/pa-cuda-run" bench "$dir" --reps 1 > "$logs/durations.csv" 2>&1
  ;;
*)
  echo "usage: cuda-h200.sh prepare|run|pa|peers|profile|proxy-prepare|proxy [BUILD] [DIR] [BENCH_LOG]" >&2
  exit 2
  ;;
esac
