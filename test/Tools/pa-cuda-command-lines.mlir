// The CUDA generator's and runner's command lines, on a machine without a
// GPU: a wrong directory, a misspelt option or a selection of nothing is an
// error before any GPU is opened, never an empty "0 passed, 0 failed" run
// (pa-cuda-run used to pass a check of a directory without programs).

// RUN: rm -rf %t && mkdir -p %t/empty/matrix %t/empty/bench

// RUN: not pa-cuda-run check %t/empty 2>&1 | FileCheck %s --check-prefix=EMPTY-CHECK
// EMPTY-CHECK: FAIL no programs in {{.*}}empty (pa-cuda-gen writes {{.*}}/matrix/pNNN or {{.*}}/graph/gNNN)
// EMPTY-CHECK-NOT: passed

// RUN: not pa-cuda-run bench %t/missing 2>&1 | FileCheck %s --check-prefix=EMPTY-BENCH
// EMPTY-BENCH: FAIL no programs in {{.*}}missing (pa-cuda-gen writes {{.*}}/bench/bNNN)

// RUN: not pa-cuda-run tune %t/empty 2>&1 | FileCheck %s --check-prefix=EMPTY-TUNE
// EMPTY-TUNE: FAIL no programs in {{.*}}empty (pa-cuda-gen writes {{.*}}/cNN/bench/bNNN)

// RUN: not pa-cuda-run chek %t/empty 2>&1 | FileCheck %s --check-prefix=RUN-COMMAND
// RUN-COMMAND: unknown command 'chek'
// RUN-COMMAND: usage: pa-cuda-run check DIR

// RUN: not pa-cuda-run bench %t/empty --reps 0 2>&1 | FileCheck %s --check-prefix=RUN-REPS
// RUN-REPS: --reps takes a whole number >= 1

// RUN: not pa-cuda-run tune %t/empty --reserve-sms 0 2>&1 | FileCheck %s --check-prefix=RUN-RESERVE
// RUN-RESERVE: --reserve-sms takes a whole number >= 1
// RUN: not pa-cuda-run check %t/empty --reserve-sms 38 2>&1 | FileCheck %s --check-prefix=RUN-RESERVE-CHECK
// RUN-RESERVE-CHECK: --reserve-sms applies to bench and tune, not check

// RUN: not pa-cuda-run check %t/empty --program 3 2>&1 | FileCheck %s --check-prefix=RUN-OPTION
// RUN-OPTION: unknown option '--program'

// RUN: pa-cuda-run --help | FileCheck %s --check-prefix=RUN-HELP
// RUN-HELP: usage: pa-cuda-run check DIR
// RUN-HELP: pa-cuda-run bench DIR [--reps N] [--reserve-sms N]

// pa-cuda-gen: --help is not an output directory, options are checked, and a
// selection of nothing writes nothing and fails.
// RUN: pa-cuda-gen --help | FileCheck %s --check-prefix=GEN-HELP
// GEN-HELP: usage: pa-cuda-gen OUTDIR {{.*}} [--key-ahead N] [--key-ahead-in-registers] [--key-ahead-bulk] [--l2-prefetch] [--l2-prefetch-min-tiles N] [--value-stage N] [--value-ahead N] [--sms N] [--cubin]
// RUN: not pa-cuda-gen --bench 2>&1 | FileCheck %s --check-prefix=GEN-DIR
// GEN-DIR: the first argument is the output directory, not '--bench'
// RUN: not pa-cuda-gen %t/gen --bnech 2>&1 | FileCheck %s --check-prefix=GEN-OPTION
// GEN-OPTION: unknown option '--bnech'
// RUN: not pa-cuda-gen %t/gen --bench --budget 0 2>&1 | FileCheck %s --check-prefix=GEN-BUDGET
// GEN-BUDGET: --budget takes a whole number >= 1
// RUN: not pa-cuda-gen %t/gen --bench --max-partitions x 2>&1 | FileCheck %s --check-prefix=GEN-PARTITIONS
// GEN-PARTITIONS: --max-partitions takes a whole number >= 1
// RUN: not pa-cuda-gen %t/gen --bench --value-stage x 2>&1 | FileCheck %s --check-prefix=GEN-STAGE
// GEN-STAGE: pa-cuda-gen: --value-stage takes a whole number >= 0, got 'x'
// RUN: not pa-cuda-gen %t/gen --bench --key-ahead -1 2>&1 | FileCheck %s --check-prefix=GEN-AHEAD
// GEN-AHEAD: pa-cuda-gen: --key-ahead takes a whole number >= 0, got '-1'
// A tuning table's key_ahead_in_registers reaches the program's kernel
// (program.txt records what pa-to-nvvm compiled it with).
// RUN: printf '%%s' '{"format": "pa-mlir-tuned-plans", "version": 1, "entries": [{"target": "sm_90a", "layout": "packed-transposed", "head_dim": 256, "rows": 8, "page_size": 16, "kv_dtype": "e4m3fn", "window": 0, "key_ahead": 1, "key_ahead_in_registers": true}]}' > %t/table.json
// RUN: env PA_MLIR_TUNING_TABLE=%t/table.json pa-cuda-gen %t/tuned --bench --only fp8-q1-p16-w0 > /dev/null
// RUN: FileCheck %s --check-prefix=GEN-TUNED < %t/tuned/bench/b000/program.txt
// GEN-TUNED: key_ahead=1
// GEN-TUNED: key_ahead_in_registers=1
// GEN-TUNED: key_ahead_bulk=0
// An explicit place for key-ahead's chunks replaces the table's (its blocks
// stay): --key-ahead-bulk over an entry with key_ahead_in_registers.
// RUN: env PA_MLIR_TUNING_TABLE=%t/table.json pa-cuda-gen %t/tuned-bulk --bench --only fp8-q1-p16-w0 --key-ahead-bulk > /dev/null
// RUN: FileCheck %s --check-prefix=GEN-TUNED-BULK < %t/tuned-bulk/bench/b000/program.txt
// GEN-TUNED-BULK: key_ahead=1
// GEN-TUNED-BULK: key_ahead_in_registers=0
// GEN-TUNED-BULK: key_ahead_bulk=1
// RUN: printf '%%s' '{"format": "pa-mlir-tuned-plans", "version": 1, "entries": [{"target": "sm_90a", "layout": "packed-transposed", "head_dim": 256, "rows": 8, "page_size": 16, "kv_dtype": "e4m3fn", "window": 0, "key_ahead": 2, "key_ahead_bulk": true}]}' > %t/bulk.json
// RUN: env PA_MLIR_TUNING_TABLE=%t/bulk.json pa-cuda-gen %t/bulk --bench --only fp8-q1-p16-w0 > /dev/null
// RUN: FileCheck %s --check-prefix=GEN-BULK < %t/bulk/bench/b000/program.txt
// GEN-BULK: key_ahead=2
// GEN-BULK: key_ahead_in_registers=0
// GEN-BULK: key_ahead_bulk=1
// GEN-BULK: l2_prefetch=0
// A table's l2_prefetch, and --l2-prefetch over a table without it.
// RUN: printf '%%s' '{"format": "pa-mlir-tuned-plans", "version": 1, "entries": [{"target": "sm_90a", "layout": "packed-transposed", "head_dim": 256, "rows": 8, "page_size": 16, "kv_dtype": "e4m3fn", "window": 0, "l2_prefetch": true}]}' > %t/l2.json
// RUN: env PA_MLIR_TUNING_TABLE=%t/l2.json pa-cuda-gen %t/l2 --bench --only fp8-q1-p16-w0 > /dev/null
// RUN: FileCheck %s --check-prefix=GEN-L2 < %t/l2/bench/b000/program.txt
// RUN: env PA_MLIR_TUNING_TABLE=%t/bulk.json pa-cuda-gen %t/l2-given --bench --only fp8-q1-p16-w0 --l2-prefetch > /dev/null
// RUN: FileCheck %s --check-prefix=GEN-L2 < %t/l2-given/bench/b000/program.txt
// GEN-L2: l2_prefetch=1
// GEN-L2: l2_prefetch_min_tiles=0
// A table's minimum tiles with its l2_prefetch; --l2-prefetch given alone
// replaces both (one choice); --l2-prefetch-min-tiles given.
// RUN: printf '%%s' '{"format": "pa-mlir-tuned-plans", "version": 1, "entries": [{"target": "sm_90a", "layout": "packed-transposed", "head_dim": 256, "rows": 8, "page_size": 16, "kv_dtype": "e4m3fn", "window": 0, "l2_prefetch": true, "l2_prefetch_min_tiles": 16}]}' > %t/l2-min.json
// RUN: env PA_MLIR_TUNING_TABLE=%t/l2-min.json pa-cuda-gen %t/l2-min --bench --only fp8-q1-p16-w0 > /dev/null
// RUN: FileCheck %s --check-prefix=GEN-L2-MIN < %t/l2-min/bench/b000/program.txt
// RUN: env PA_MLIR_TUNING_TABLE=%t/bulk.json pa-cuda-gen %t/l2-min-given --bench --only fp8-q1-p16-w0 --l2-prefetch --l2-prefetch-min-tiles 16 > /dev/null
// RUN: FileCheck %s --check-prefix=GEN-L2-MIN < %t/l2-min-given/bench/b000/program.txt
// GEN-L2-MIN: l2_prefetch=1
// GEN-L2-MIN: l2_prefetch_min_tiles=16
// RUN: env PA_MLIR_TUNING_TABLE=%t/l2-min.json pa-cuda-gen %t/l2-min-replaced --bench --only fp8-q1-p16-w0 --l2-prefetch > /dev/null
// RUN: FileCheck %s --check-prefix=GEN-L2 < %t/l2-min-replaced/bench/b000/program.txt
// RUN: printf '%%s' '{"format": "pa-mlir-tuned-plans", "version": 1, "entries": []}' > %t/no-entries.json
// RUN: env PA_MLIR_TUNING_TABLE=%t/no-entries.json pa-cuda-gen %t/untuned --bench --only fp8-q1-p16-w0 > /dev/null
// RUN: FileCheck %s --check-prefix=GEN-UNTUNED < %t/untuned/bench/b000/program.txt
// GEN-UNTUNED: key_ahead=0
// GEN-UNTUNED: key_ahead_in_registers=0
// GEN-UNTUNED: key_ahead_bulk=0
// GEN-UNTUNED: l2_prefetch=0
// GEN-UNTUNED: l2_prefetch_min_tiles=0
// --sms 94: a benchmark program for 94 of the 132 SMs (the H200 proxy of
// pa-cuda-run --reserve-sms 38): the default budget 264 and 132 partitions
// scaled to 188 and 94, compiled into the plan (its sidecar's limits) as
// program.txt says, and the batches above 8 scaled alike.
// RUN: env PA_MLIR_TUNING_TABLE=%t/no-entries.json pa-cuda-gen %t/proxy --bench --only fp8-q1-p16-w0 --sms 94 > /dev/null
// RUN: FileCheck %s --check-prefix=GEN-PROXY < %t/proxy/bench/b000/program.txt
// RUN: FileCheck %s --check-prefix=GEN-PROXY-PLAN < %t/proxy/bench/b000/kernels.ptx.json
// GEN-PROXY: budget=188
// GEN-PROXY: max_partitions=94
// GEN-PROXY: compute_units=94
// GEN-PROXY: proxy_sms=94
// GEN-PROXY: bench_shape=23,8192
// GEN-PROXY: bench_shape=8,131072
// GEN-PROXY: bench_shape=91,2048
// GEN-PROXY-PLAN: "plan_limits": {
// GEN-PROXY-PLAN-NEXT: "budget": 188,
// GEN-PROXY-PLAN-NEXT: "max_partitions": 94,
// An explicit plan (pa-tune's candidates "396", "264:1") is scaled alike:
// one partition stays one.
// RUN: env PA_MLIR_TUNING_TABLE=%t/no-entries.json pa-cuda-gen %t/proxy1 --bench --only fp8-q1-p16-w0 --sms 94 --budget 396 --max-partitions 1 > /dev/null
// RUN: FileCheck %s --check-prefix=GEN-PROXY-ONE < %t/proxy1/bench/b000/program.txt
// GEN-PROXY-ONE: budget=282
// GEN-PROXY-ONE: max_partitions=1
// RUN: not pa-cuda-gen %t/gen --bench --only no-such-label 2>&1 | FileCheck %s --check-prefix=GEN-ONLY
// GEN-ONLY: no program selected (--only 'no-such-label' matches no label)
// RUN: not ls %t/gen/bench/b000
