#!/usr/bin/env bash
# Resource and instruction figures of the MFMA decode kernel (pa-to-mfma) per
# configuration and chip, from the code objects pa-compile builds (no GPU):
# registers (arch + acc VGPRs, SGPRs), LDS, scratch, occupancy (waves per
# SIMD the registers, LDS and SGPRs allow), the main KV loop's instructions
# by class (bench/amd_isa_stats.py) and the mean bytes per lane of its VMEM
# loads (16: buffer_load_dwordx4 only), MFMAs per 256-token tile against the
# minimum 256 * D * rows / (16 * 16) * (1 / K_qk + 1 / K_pv) (K = 32 fp8,
# 16 bf16; K_qk = 128 for fp8 on gfx950 when 128 divides D), the loop's
# full-tile path and bench/amd_vs_aiter.py's issue estimate of it against
# the memory time of the tile's K, V and per-token scales (MI300X for
# gfx942, MI355X for gfx950; targets 0.5 / 0.65), compile time per code
# object (plan + decode + reduce; wall and CPU seconds).
#
#   bash bench/amd_resources.sh [BUILD_DIR] [CONFIG...]
#   PA_COMPILE_FLAGS="--fp8-residual=none" bash bench/amd_resources.sh ...
#
# Configurations are mfma_decode.py names (test/Target/AMD/Inputs); the
# default set covers D 64 / 128 / 256 / 512 at 16 and 32 rows. Prints a
# markdown table (docs/performance.md holds a measured copy).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
shift || true
[[ "$build" = /* ]] || build="$root/$build"
compile="$build/bin/pa-compile"
llvm_bin=${LLVM_BIN:-/usr/lib/llvm-22/bin}
generator="$root/test/Target/AMD/Inputs/mfma_decode.py"

configs=("$@")
if [ ${#configs[@]} -eq 0 ]; then
  configs=(
    d64-fp8-p16-plain-none-w0-q2g8
    d64-fp8-p16-plain-none-w0-q4g8
    d128-fp8-p16-plain-none-w0-q2g8
    d128-fp8-p16-plain-none-w0-q4g8
    d256-fp8-p16-plain-none-w0-q2g8
    d256-fp8-p16-plain-none-w0-q4g8
    d256-fp8-p16-transposed-per_token-w257-q2g8
    d256-fp8-p64-transposed-per_token-w257-q4g8
    d128-bf16-p16-plain-none-w0-q2g8
    d128-bf16-p16-plain-none-w0-q4g8
    d512-fp8-p16-plain-none-w0-q2g8
  )
fi

if [ ! -x "$compile" ]; then
  echo "amd_resources.sh: $compile not found (make build BUILD=...)" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "| config | chip | VGPR (arch+acc) | AGPR | SGPR | LDS B | scratch B | waves/SIMD (VGPR, LDS, SGPR) | loop: MFMA | VMEM | B/load | LDS | VALU | SALU | waitcnt | total | MFMA/tile (min) | full-tile path | issue / matrix / memory clk | ratio (target) | compile s (CPU s) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for config in "${configs[@]}"; do
  for chip in gfx942 gfx950; do
    src="$work/$config-$chip.mlir"
    obj="$work/$config-$chip.hsaco"
    python3 "$generator" "$config" --chip "$chip" -o "$src"
    start=$(date +%s.%N)
    cpu=$( { /usr/bin/time -f "%U %S" "$compile" "$src" --chip="$chip" ${PA_COMPILE_FLAGS:-} -o "$obj" 2>&1 >/dev/null; } | tail -1 )
    end=$(date +%s.%N)
    "$llvm_bin/llvm-objdump" -d --mcpu="$chip" "$obj" > "$work/dis"
    python3 - "$obj.json" "$work/dis" "$config" "$chip" "$start" "$end" "$cpu" "$root/bench" <<'EOF'
import math, os, re, sys, json
sidecar, dis, config, chip, start, end, cpu, bench = sys.argv[1:9]
sys.path.insert(0, bench)
import amd_isa_stats as stats  # noqa: E402
import amd_vs_aiter as vs  # noqa: E402
kernel = next(k for k in json.load(open(sidecar))["kernels"] if k["name"] == "pa_decode")
vgpr, agpr, sgpr = kernel["vgpr_count"], kernel["agpr_count"], kernel["sgpr_count"]
lds, scratch = kernel["lds_bytes"], kernel["scratch_bytes"]
waves, by_vgpr, by_lds, by_sgpr = vs.occupancy(chip, vgpr, sgpr, lds)
loop = stats.stats(dis, "pa_decode")
m = re.match(r"d(\d+)-(fp8|bf16)-p\d+-\w+?-(\w+?)-w\d+-q(\d+)g(\d+)", config)
d, kv, scale = int(m.group(1)), m.group(2), m.group(3)
rows = int(m.group(4)) * int(m.group(5))
padded = 16 if rows <= 16 else 32 * math.ceil(rows / 32)
fp8 = kv == "fp8" and "bf16c" not in config
k = 32 if fp8 else 16
# QK and PV each 256 * D * rows products per tile; gfx950's densest fp8
# instruction for QK is 16x16x128 where D allows it (PV's K is tokens).
products = 256 * d * min(padded, 32) // (16 * 16)
qk_k = 128 if fp8 and chip == "gfx950" and d % 128 == 0 else k
minimum = products // qk_k + products // k
per_tile = 4 * loop.get("MFMA", 0)
loads, load_bytes = stats.vmem_loads(dis, "pa_decode")
per_load = f"{load_bytes / loads:.1f}" if loads else "-"
# The issue estimate of bench/amd_vs_aiter.py on the loop's full-tile path
# against the memory time of the tile's K, V (and per-token scales).
fast = vs.loop_figures(dis, "pa_decode", stats.compiler_local)
issue, matrix, memory, ratio = vs.estimate(
    chip, fast, vs.tile_bytes(d, 1 if kv == "fp8" else 2, scale == "per_token"))
target = vs.CHIPS[chip]["target"]
user, system = (float(x) for x in cpu.split())
print(f"| {config} | {chip} | {vgpr} | {agpr} | {sgpr} | {lds} | {scratch} | "
      f"{waves} ({by_vgpr}, {by_lds}, {by_sgpr}) | {loop.get('MFMA', 0)} | "
      f"{loop.get('VMEM', 0)} | {per_load} | {loop.get('LDS', 0)} | {loop.get('VALU', 0)} | "
      f"{loop.get('SALU', 0)} | {loop.get('waitcnt', 0)} | {loop.get('total', 0)} | "
      f"{per_tile} ({minimum}) | {fast['total']:g} | {issue:.0f} / {matrix:.0f} / {memory:.0f} | "
      f"{ratio:.2f} ({'<=' if ratio <= target else 'over'} {target}) | "
      f"{float(end) - float(start):.2f} ({user + system:.2f}) |")
EOF
  done
done
