// pa-convert-kernels-to-nvvm records, per global memref argument of a
// kernel, the widest access at one address, which the sidecar's
// "alignments" carries to the launcher (pipeline as pa-lower-to-nvvm's
// tail: expand-strided-metadata first turns views into casts of the
// argument's base buffer).
// RUN: pa-opt %s -pass-pipeline='builtin.module(pa-set-target{chip=sm_90a},gpu.module(expand-strided-metadata,convert-scf-to-cf,convert-math-to-llvm,pa-convert-kernels-to-nvvm,reconcile-unrealized-casts))' | FileCheck %s

// The widest access at one address of each global memref argument
// (pa.access_alignments: [bytes, element bytes]): a vector load's
// alignment, a vector store's through a subview, 16 where the kernel takes
// the argument's pointer (inline PTX, asynchronous copies), else the
// element's bytes; an argument nothing accesses is absent, and workgroup
// buffers are not arguments.
// CHECK-LABEL:   llvm.func @accesses(
// CHECK-SAME:        pa.access_alignments = {chunks = array<i64: 16, 1>, counts = array<i64: 4, 4>, pointer = array<i64: 16, 2>, rows = array<i64: 8, 2>}
gpu.module @pa_kernels {
  gpu.func @accesses(%chunks: memref<?x16xf8E4M3FN>, %rows: memref<4x8xbf16>,
                     %pointer: memref<?xbf16>, %counts: memref<?xi32>,
                     %unused: memref<?xf32>)
      workgroup(%buffer : memref<16xf32, #gpu.address_space<workgroup>>)
      kernel attributes {known_block_size = array<i32: 128, 1, 1>,
                         pa.arg_names = ["chunks", "rows", "pointer", "counts", "unused"]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %chunk = vector.load %chunks[%c0, %c0] {alignment = 16 : i64} : memref<?x16xf8E4M3FN>, vector<16xf8E4M3FN>
    %row = memref.subview %rows[1, 0] [1, 8] [1, 1] : memref<4x8xbf16> to memref<8xbf16, strided<[1], offset: 8>>
    %four = arith.constant dense<0.0> : vector<4xbf16>
    vector.store %four, %row[%c0] {alignment = 8 : i64} : memref<8xbf16, strided<[1], offset: 8>>, vector<4xbf16>
    %address = memref.extract_aligned_pointer_as_index %pointer : memref<?xbf16> -> index
    %count = memref.load %counts[%c1] : memref<?xi32>
    %bytes = vector.bitcast %chunk : vector<16xf8E4M3FN> to vector<4xi32>
    %first = vector.extract %bytes[0] : i32 from vector<4xi32>
    %sum = arith.addi %first, %count : i32
    %asIndex = arith.index_cast %sum : i32 to index
    %total = arith.addi %asIndex, %address : index
    %asInt = arith.index_cast %total : index to i32
    %asFloat = arith.sitofp %asInt : i32 to f32
    memref.store %asFloat, %buffer[%c0] : memref<16xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}
