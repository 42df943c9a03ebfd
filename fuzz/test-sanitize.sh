#!/usr/bin/env bash
# Runs the test suite of a -DPA_ENABLE_SANITIZERS=ON build (make
# test-sanitize; docs/reliability.md):
#   - every CTest entry (lit with instrumented pa-opt / pa-compile, the unit
#     tests) except the full numerics matrix and the Python tests; this
#     includes the emulator matrix's CI subset, emulator-matrix-ci-0 to -2
#     (instrumented wave64 emulator, both chips, every axis value; 3 to 5
#     minutes per shard, side by side on two cores, under the 1200 s CTest
#     timeout), so the whole CTest step takes 5 to 7 minutes;
#   - the numerics matrix on its first PA_SANITIZE_PROGRAMS programs
#     (default 24 of its fixed-seed sweep: every KV type, V layout, scale
#     mode and chip, several windows and query lengths; one to two
#     minutes on two cores, the whole matrix several times that);
#   - the Python tests, with the ASan runtime preloaded into the
#     uninstrumented python3 that loads libPACAPI.so.
#   fuzz/test-sanitize.sh BUILD_DIR [JOBS]
set -euo pipefail
build=${1:?usage: test-sanitize.sh BUILD_DIR [JOBS]}
jobs=${2:-2}
root=$(cd "$(dirname "$0")/.." && pwd)
# Absolute: PA_MLIR_LIB below must name the library from any directory
# (the Python tests start helper processes in test/Python).
build=$(cd "$build" && pwd)
clang=${CLANG:-/usr/lib/llvm-22/bin/clang}

# Any report aborts the process (a signal, which lit's `not` does not
# mistake for an expected failure). detect_leaks=0: libMLIR.so and
# libLLVM.so keep allocations in static registries that LeakSanitizer
# reports at exit (they are not ours and not growing).
# allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons its slabs when a
# header copy of it is compiled with ASan (ours) and unpoisons them only in
# instrumented copies, which the uninstrumented lld / libLLVM code it is
# merged with is not: a false use-after-poison in every lld link.
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=0:allow_user_poisoning=0:symbolize=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:abort_on_error=1"

status=0
(cd "$build" && ctest --output-on-failure -j "$jobs" \
   -E '^(numerics-matrix-[0-9]+|python)$') || status=1

echo "== numerics matrix (${PA_SANITIZE_PROGRAMS:-24} programs) under ASan + UBSan"
"$build/bin/PANumericsMatrix" --programs "${PA_SANITIZE_PROGRAMS:-24}" || status=1

echo "== Python tests, ASan runtime preloaded"
asan_runtime=$("$clang" -print-file-name=libclang_rt.asan-x86_64.so)
# python3 itself is not instrumented: ASan must come first in the library
# list (LD_PRELOAD), and its own allocations are not checked.
env LD_PRELOAD="$asan_runtime" \
    ASAN_OPTIONS="$ASAN_OPTIONS:verify_asan_link_order=0" \
    PA_MLIR_LIB="$build/lib/libPACAPI.so" \
    PYTHONPATH="$root/python" PYTHONDONTWRITEBYTECODE=1 \
    /usr/bin/python3 -m pytest -q -p no:cacheprovider "$root/test/Python" || status=1

exit $status
