// pa-cuda-gen --cubin: each program's cubin, assembled by ptxas, beside its
// PTX; the sidecar says so, and pa-cuda-run loads the cubin in place of the
// PTX (no JIT on the GPU machine).
// REQUIRES: ptxas

// RUN: rm -rf %t && pa-cuda-gen %t --bench --only fp8-q1-p16-w0 --cubin | FileCheck %s
// CHECK: ok   {{.*}}/bench/b000 fp8-q1-p16-w0 (1 cases)
// RUN: head -c 4 %t/bench/b000/kernels.cubin | od -An -c | FileCheck %s --check-prefix=ELF
// ELF: 177 E L F
// RUN: FileCheck %s --check-prefix=SIDECAR < %t/bench/b000/kernels.ptx.json
// SIDECAR: "format": "cubin"
// RUN: FileCheck %s --check-prefix=PTX < %t/bench/b000/kernels.ptx
// PTX: .entry pa_decode(

// Without --cubin: PTX only.
// RUN: rm -rf %t.ptx && pa-cuda-gen %t.ptx --bench --only fp8-q1-p16-w0 > /dev/null
// RUN: test ! -e %t.ptx/bench/b000/kernels.cubin
// RUN: FileCheck %s --check-prefix=PTX-SIDECAR < %t.ptx/bench/b000/kernels.ptx.json
// PTX-SIDECAR: "format": "ptx"

// A PTX-only run into a directory an earlier --cubin run wrote removes the
// old cubin: pa-cuda-run would otherwise load it in place of the new PTX.
// RUN: pa-cuda-gen %t --bench --only fp8-q1-p16-w0 > /dev/null
// RUN: test ! -e %t/bench/b000/kernels.cubin
// RUN: FileCheck %s --check-prefix=PTX-SIDECAR < %t/bench/b000/kernels.ptx.json
