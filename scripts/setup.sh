#!/usr/bin/env bash
# Installs everything pa-mlir needs on Debian 12 (run as root). Idempotent:
# packages already present are skipped, and apt is not touched when nothing is
# missing.
set -euo pipefail

packages=(
  cmake ninja-build g++ git
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools lld-22 clang-22 liblld-22-dev
  libclang-rt-22-dev  # sanitizer + libFuzzer runtimes (make test-sanitize, make fuzz)
  libgtest-dev python3 python3-numpy python3-pytest
  libamdhip64-dev  # HIP headers for the HIP launcher (the runtime is dlopen-ed)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
