#!/usr/bin/env bash
# Runs the pipeline fuzzer of a -DPA_ENABLE_FUZZ=ON build for a given time.
#   fuzz/run.sh BUILD_DIR SECONDS
# The corpus lives in BUILD_DIR/fuzz/corpus (seeded from the lit suite on the
# first run, kept and grown across runs); crashes, timeouts and out-of-memory
# inputs land in BUILD_DIR/fuzz/artifacts/. Each one found becomes a lit
# test under test/Reliability/ (docs/reliability.md).
set -euo pipefail
build=${1:?usage: run.sh BUILD_DIR SECONDS}
seconds=${2:?usage: run.sh BUILD_DIR SECONDS}
root=$(cd "$(dirname "$0")/.." && pwd)
fuzzer="$build/bin/pa-fuzz-pipeline"
corpus="$build/fuzz/corpus"
artifacts="$build/fuzz/artifacts"
mkdir -p "$corpus" "$artifacts"
if [ -z "$(ls -A "$corpus")" ]; then
  "$root/fuzz/seed-corpus.sh" "$corpus"
fi
# allow_user_poisoning=0: see fuzz/test-sanitize.sh (LLVM's allocator
# poisoning across instrumented and uninstrumented copies of its code).
export ASAN_OPTIONS="${ASAN_OPTIONS:-allow_user_poisoning=0:symbolize=1}"
# fuzz/seeds (hand-written deep and hostile shapes) is read as a second
# corpus directory every run; new units go to the first.
exec "$fuzzer" "$corpus" "$root/fuzz/seeds" \
  -dict="$root/fuzz/pa-mlir.dict" \
  -artifact_prefix="$artifacts/" \
  -max_total_time="$seconds" \
  -max_len=65536 -timeout=60 -rss_limit_mb=4096 \
  -print_final_stats=1
