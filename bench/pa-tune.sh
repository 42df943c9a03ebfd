#!/usr/bin/env bash
# pa-tune: times the plan-limit candidates of the benchmark programs on the
# device and writes the tuning table (tuning/plans.json; docs/tuning.md).
#
#   bash bench/pa-tune.sh prepare [BUILD] [DIR]   # here: one pa-cuda-gen
#                                                 # --bench per candidate
#   bash bench/pa-tune.sh run [BUILD] [DIR]       # on the GPU machine
#   bash bench/pa-tune.sh table LOG DIR [BASE]    # the table, on stdout
#   bash bench/pa-tune.sh compare LOG DIR         # each candidate against
#                                                 # the reference, per row
#
# CANDIDATES (default "default 132 198 256 396 528 264:1") lists the plan
# limits to try, each "BUDGET" or "BUDGET:MAX_PARTITIONS"; "default" is the
# chip's defaults (2 x and 1 x the SM count), compiled with no tuning table
# so that it is the reference every entry is measured against. A candidate
# may add pa-to-nvvm's kernel options, "+key_ahead=N", "+value_stage=N",
# "+value_ahead=N", "+key_ahead_in_registers=1", "+key_ahead_bulk=1",
# "+l2_prefetch=1", "+l2_prefetch_min_tiles=N" (with +l2_prefetch=1)
# ("default+value_stage=2", "256+key_ahead=1",
# "default+key_ahead=1+key_ahead_in_registers=1"); an entry sets those
# where they differ from the reference's (the defaults). ONLY (a label
# substring, e.g. "q1-p16-w0") limits the programs. prepare writes
# DIR/cNN (candidate NN); run times every candidate of a program on the
# same inputs (pa-cuda-run tune: graph replays, median of --reps, the
# reference timed first and last to show the noise) into $OUT/tune.log (or
# DIR/tune.log) and prints the table; table merges the log's winners into
# BASE (default tuning/plans.json): an entry per program and (batch,
# context length) bucket where a candidate beat the reference by more than
# the noise, and one without buckets (what compiling without a batch uses)
# where one candidate did so over all the program's shapes.
#
# On an H100 in the H200 proxy's regime (docs/performance.md, thirty-first
# session): SMS=94 for prepare (pa-cuda-gen --sms: every candidate's plan
# limits scaled from the whole chip's to 94 SMs) and RESERVE_SMS=38 for run
# (pa-cuda-run --reserve-sms). Such a log is for comparing candidates
# (compare), not for a table: its budgets are the scaled ones, so run
# writes none and pa_tune.py refuses one (program.txt's proxy_sms).
set -uo pipefail
mode=${1:?usage: pa-tune.sh prepare|run|table|compare ...}
here=$(cd "$(dirname "$0")" && pwd)
case "$mode" in
prepare)
  build=${2:-build}
  dir=${3:-nv-artifacts/tune}
  ninja -C "$build" -j "${JOBS:-2}" pa-cuda-gen pa-cuda-run || exit 1
  rm -rf "$dir"
  # With ptxas here, cubins too (as cuda-h200.sh prepare): no JIT of every
  # candidate's PTX on the GPU machine.
  cubin=
  if command -v ptxas > /dev/null || [ -x /usr/local/cuda/bin/ptxas ]; then
    cubin=--cubin
  fi
  i=0
  for candidate in ${CANDIDATES:-default 132 198 256 396 528 264:1}; do
    args=()
    plan=${candidate%%+*}
    if [ "$plan" != default ]; then
      args+=(--budget "${plan%%:*}")
      [ "$plan" != "${plan#*:}" ] &&
        args+=(--max-partitions "${plan#*:}")
    fi
    options=${candidate#"$plan"}
    while [ -n "$options" ]; do
      options=${options#+}
      option=${options%%+*}
      options=${options#"$option"}
      case "${option%%=*}" in
      key_ahead) args+=(--key-ahead "${option#*=}") ;;
      value_stage) args+=(--value-stage "${option#*=}") ;;
      value_ahead) args+=(--value-ahead "${option#*=}") ;;
      key_ahead_in_registers)
        [ "${option#*=}" = 1 ] && args+=(--key-ahead-in-registers) ;;
      key_ahead_bulk)
        [ "${option#*=}" = 1 ] && args+=(--key-ahead-bulk) ;;
      l2_prefetch)
        [ "${option#*=}" = 1 ] && args+=(--l2-prefetch) ;;
      l2_prefetch_min_tiles) args+=(--l2-prefetch-min-tiles "${option#*=}") ;;
      *) echo "pa-tune: unknown kernel option '$option' in '$candidate'" >&2
         exit 1 ;;
      esac
    done
    [ -n "${ONLY:-}" ] && args+=(--only "$ONLY")
    [ -n "${SMS:-}" ] && args+=(--sms "$SMS")
    out=$(printf '%s/c%02d' "$dir" "$i")
    (ulimit -s unlimited
     PA_MLIR_TUNING_TABLE= "$build/bin/pa-cuda-gen" "$out" --bench $cubin "${args[@]}") ||
      exit 1
    i=$((i + 1))
  done
  du -sh "$dir"
  ;;
run)
  build=${2:-build}
  dir=${3:-nv-artifacts/tune}
  logs=${OUT:-$dir}
  mkdir -p "$logs"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  reserve=()
  [ -n "${RESERVE_SMS:-}" ] && reserve=(--reserve-sms "$RESERVE_SMS")
  "$build/bin/pa-cuda-run" tune "$dir" --reps "${REPS:-30}" "${reserve[@]}" \
    > "$logs/tune.log" 2>&1
  status=$?
  python3 "$here/pa_tune.py" --compare "$logs/tune.log" "$dir" >&2 || status=1
  # The proxy's programs have scaled plan limits: a comparison, no table.
  [ -n "${RESERVE_SMS:-}" ] && exit $status
  python3 "$here/pa_tune.py" "$logs/tune.log" "$dir" "$here/../tuning/plans.json" \
    > "$logs/plans.json" || status=1
  cat "$logs/plans.json"
  exit $status
  ;;
table)
  python3 "$here/pa_tune.py" "${2:?LOG}" "${3:?DIR}" "${4:-$here/../tuning/plans.json}"
  ;;
compare)
  python3 "$here/pa_tune.py" --compare "${2:?LOG}" "${3:?DIR}"
  ;;
*)
  echo "usage: pa-tune.sh prepare|run|table|compare ..." >&2
  exit 2
  ;;
esac
