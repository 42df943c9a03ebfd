#!/usr/bin/env bash
# pa_mlir.decode(target="cuda") from Python on an NVIDIA GPU machine that has
# the CUDA driver, python3 and numpy (PyTorch optional) but no MLIR/LLVM
# (docs/nvidia.md, "Python on the GPU machine").
#
#   bash bench/cuda-python-h200.sh prepare BUILD OUTDIR   # here, with the build
#   bash bench/cuda-python-h200.sh run OUTDIR             # on the GPU machine
#
# prepare builds libPACAPI.so and libPARuntimeCAPI.so in BUILD, checks that
# libPARuntimeCAPI.so links neither libMLIR nor libLLVM (ldd), copies it to
# OUTDIR/lib and compiles the programs of the GPU test - the cases of
# test/Python/cuda_cases.py, the list test/Python/test_cuda_gpu.py runs -
# into the on-disk compile cache OUTDIR/cache (PA_MLIR_CACHE_DIR), through
# the same decode() path the test takes. OUTDIR is a few MB.
#
# run points the package at OUTDIR - PA_MLIR_CACHE_DIR=OUTDIR/cache,
# PA_MLIR_RUNTIME_LIB=OUTDIR/lib/libPARuntimeCAPI.so, PA_MLIR_LIB=/nonexistent
# (a cache miss fails loudly instead of needing the compiler),
# PYTHONPATH=python - and runs test/Python/test_cuda_gpu.py with pytest:
# numpy and torch-tensor decodes against the float64 reference and a CUDA
# graph replay. It fails when no test passed (e.g. no GPU: every test
# skipped). The log goes to $OUT (the device tool's output folder) or
# OUTDIR/logs.
set -euo pipefail
mode=${1:?usage: cuda-python-h200.sh prepare BUILD OUTDIR | run OUTDIR}
root=$(cd "$(dirname "$0")/.." && pwd)
# The system python3 of this project's machines has numpy (setup.sh).
python=${PYTHON:-python3}

case "$mode" in
prepare)
  build=${2:?usage: cuda-python-h200.sh prepare BUILD OUTDIR}
  out=${3:?usage: cuda-python-h200.sh prepare BUILD OUTDIR}
  [ -x /usr/bin/python3 ] && python=${PYTHON:-/usr/bin/python3}
  ninja -C "$build" -j "${JOBS:-2}" PACAPI PARuntimeCAPI
  runtime="$build/lib/libPARuntimeCAPI.so"
  echo "== ldd $runtime"
  ldd "$runtime"
  if ldd "$runtime" | grep -E 'libMLIR|libLLVM'; then
    echo "error: $runtime links MLIR or LLVM" >&2
    exit 1
  fi
  rm -rf "$out/cache" "$out/lib"
  mkdir -p "$out/cache" "$out/lib"
  cp "$runtime" "$out/lib/"
  # Deep MLIR nesting in the unrolled kernels: no stack limit.
  (ulimit -s unlimited 2>/dev/null || true
   PA_MLIR_CACHE_DIR="$out/cache" PA_MLIR_LIB="$build/lib/libPACAPI.so" \
     PYTHONPATH="$root/python" PYTHONDONTWRITEBYTECODE=1 \
     "$python" "$root/test/Python/cuda_cases.py" fill)
  du -sh "$out/cache" "$out/lib"
  ;;
run)
  out=${2:?usage: cuda-python-h200.sh run OUTDIR}
  out=$(cd "$out" && pwd)
  logs=${OUT:-$out/logs}
  mkdir -p "$logs"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
  "$python" -c 'import numpy; print("numpy", numpy.__version__)'
  "$python" -c 'import pytest; print("pytest", pytest.__version__)' || {
    echo "error: $python has no pytest (pip install pytest)" >&2
    exit 1
  }
  "$python" -c 'import torch; print("torch", torch.__version__, "cuda:",
torch.cuda.is_available())' ||
    echo "no PyTorch: the tensor and graph tests will be skipped"
  export PA_MLIR_CACHE_DIR="$out/cache"
  export PA_MLIR_RUNTIME_LIB="$out/lib/libPARuntimeCAPI.so"
  export PA_MLIR_LIB=/nonexistent
  export PYTHONPATH="$root/python" PYTHONDONTWRITEBYTECODE=1
  status=0
  (cd "$root" && "$python" -m pytest -q -rs -p no:cacheprovider \
     test/Python/test_cuda_gpu.py) 2>&1 | tee "$logs/cuda-python.log" ||
    status=$?
  summary=$(tail -n 1 "$logs/cuda-python.log")
  echo
  echo "summary: $summary"
  if [ "$status" -eq 0 ] && ! grep -q " passed" <<<"$summary"; then
    echo "error: no test ran (see the skip reasons above)" >&2
    status=1
  fi
  echo "cuda-python: exit $status"
  exit "$status"
  ;;
*)
  echo "usage: cuda-python-h200.sh prepare BUILD OUTDIR | run OUTDIR" >&2
  exit 2
  ;;
esac
