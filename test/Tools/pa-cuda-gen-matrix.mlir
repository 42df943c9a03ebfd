// pa-cuda-gen's numerics matrix is the host and AMD matrices' program list
// (unittests/Numerics/ProgramMatrix.cpp), not a copy of it: a program added
// there is checked on the NVIDIA GPU too. The precision program (bf16 KV,
// per-token scales, W 17, sinks, one partition), which only the host and
// AMD matrices had before, is generated with its extra length sets drawn
// normal (caseConfigFor) after the standard five.

// RUN: rm -rf %t && pa-cuda-gen %t --matrix --only precision-bf16-normal-packed-p16 | FileCheck %s
// CHECK: ok   {{.*}}/matrix/p{{[0-9]+}} precision-bf16-normal-packed-p16 (7 cases)
// CHECK-NOT: ok

// RUN: cat %t/matrix/p*/program.txt | FileCheck %s --check-prefix=PROGRAM
// PROGRAM: label=precision-bf16-normal-packed-p16
// PROGRAM: budget=1

// RUN: cat %t/matrix/p*/case-4.json | FileCheck %s --check-prefix=STANDARD
// STANDARD: "kv_dtype": "bf16"
// STANDARD: "scale_mode": "per_token"
// STANDARD: "window": 17
// STANDARD: "sinks": true
// STANDARD: "distribution": "uniform"

// RUN: cat %t/matrix/p*/case-5.json | FileCheck %s --check-prefix=EXTRA
// EXTRA: "context_lengths": [1501, 1366, 799, 1165, 1200, 977, 1733, 420]
// EXTRA: "distribution": "normal"
