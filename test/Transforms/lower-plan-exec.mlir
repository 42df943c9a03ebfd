// RUN: pa-opt %s -pa-set-target=chip=gfx950 -pa-lower-plan -pa-lower-tiled-to-host \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | FileCheck %s

// Executes the planning kernel on the host and checks the spec's plan ("The
// work plan"). work_info is poisoned with -1 first: every row of the buffer,
// also rows past the capacity, must come back zero unless a partition uses it.

func.func private @printMemrefI32(memref<*xi32>)

memref.global "private" constant @lens_mtp : memref<5xi32> =
    dense<[200000, 200000, 200000, 200000, 257]>
memref.global "private" constant @lens_mixed : memref<4xi32> =
    dense<[8192, 0, 1, 300]>
memref.global "private" constant @lens_window : memref<2xi32> =
    dense<[100000, 4099]>
memref.global "private" constant @lens_int32_max : memref<2xi32> =
    dense<[2147483647, 2147483647]>
memref.global "private" constant @lens_negative : memref<2xi32> =
    dense<[-5, 300]>

func.func @poison(%buffer: memref<?x4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %minus1 = arith.constant -1 : i32
  %rows = memref.dim %buffer, %c0 : memref<?x4xi32>
  scf.for %i = %c0 to %rows step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      memref.store %minus1, %buffer[%i, %j] : memref<?x4xi32>
    }
  }
  return
}

func.func @print(%buffer: memref<?x?xi32, strided<[?, 1], offset: ?>>) {
  %unranked = memref.cast %buffer
      : memref<?x?xi32, strided<[?, 1], offset: ?>> to memref<*xi32>
  call @printMemrefI32(%unranked) : (memref<*xi32>) -> ()
  return
}

// Prints rows [begin, begin + count) of work_info.
func.func @print_rows(%work: memref<?x4xi32>, %begin: index, %count: index) {
  %rows = memref.subview %work[%begin, 0] [%count, 4] [1, 1]
      : memref<?x4xi32> to memref<?x4xi32, strided<[4, 1], offset: ?>>
  %cast = memref.cast %rows : memref<?x4xi32, strided<[4, 1], offset: ?>>
      to memref<?x?xi32, strided<[?, 1], offset: ?>>
  call @print(%cast) : (memref<?x?xi32, strided<[?, 1], offset: ?>>) -> ()
  return
}

func.func @print_all(%buffer: memref<?x?xi32>) {
  %cast = memref.cast %buffer
      : memref<?x?xi32> to memref<?x?xi32, strided<[?, 1], offset: ?>>
  call @print(%cast) : (memref<?x?xi32, strided<[?, 1], offset: ?>>) -> ()
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c126 = arith.constant 126 : index
  %c509 = arith.constant 509 : index

  // Case 1: B = 5, Q = 4, Hkv = 1, budget 512, max_partitions 256. 782 tiles
  // per long sequence, 2 for the last; T = 3130, capacity min(1280, 512) =
  // 512, rem = 507; extras 126, 127, 127, 126, 1.
  %lens1 = memref.get_global @lens_mtp : memref<5xi32>
  %work1 = memref.alloc() : memref<512x4xi32>
  %work1d = memref.cast %work1 : memref<512x4xi32> to memref<?x4xi32>
  %red1 = memref.alloc() : memref<5x2xi32>
  call @poison(%work1d) : (memref<?x4xi32>) -> ()
  pa.plan context_lengths(%lens1 : memref<5xi32>)
          work_info(%work1 : memref<512x4xi32>)
          reduce_info(%red1 : memref<5x2xi32>)
          {num_kv_heads = 1 : i64, query_length = 4 : i64, budget = 512 : i64,
           max_partitions = 256 : i64}
  %red1d = memref.cast %red1 : memref<5x2xi32> to memref<?x?xi32>
  call @print_all(%red1d) : (memref<?x?xi32>) -> ()
  // CHECK:      sizes = [5, 2]
  // CHECK-NEXT: [0, 127],
  // CHECK-NEXT: [127, 128],
  // CHECK-NEXT: [255, 128],
  // CHECK-NEXT: [383, 127],
  // CHECK-NEXT: [510, 2]]
  call @print_rows(%work1d, %c0, %c3) : (memref<?x4xi32>, index, index) -> ()
  // Sequence 0: 782 tiles in 127 parts, part k = [k*782/127, (k+1)*782/127).
  // CHECK:      sizes = [3, 4]
  // CHECK-NEXT: [0, 0, 6, 200000],
  // CHECK-NEXT: [0, 6, 12, 200000],
  // CHECK-NEXT: [0, 12, 18, 200000]]
  call @print_rows(%work1d, %c126, %c2) : (memref<?x4xi32>, index, index) -> ()
  // Last part of sequence 0 (126*782/127 = 775), first of sequence 1 (782/128 = 6).
  // CHECK:      sizes = [2, 4]
  // CHECK-NEXT: [0, 775, 782, 200000],
  // CHECK-NEXT: [1, 0, 6, 200000]]
  call @print_rows(%work1d, %c509, %c3) : (memref<?x4xi32>, index, index) -> ()
  // Last part of sequence 3; sequence 4 (257 tokens, 2 tiles) in 2 parts.
  // CHECK:      sizes = [3, 4]
  // CHECK-NEXT: [3, 775, 782, 200000],
  // CHECK-NEXT: [4, 0, 1, 257],
  // CHECK-NEXT: [4, 1, 2, 257]]

  // Case 2: B = 4, Q = 1, Hkv = 2, budget 64, max_partitions 64: capacity
  // min(256, max(4, 32)) = 32. Tiles 32, 0, 1, 2 (T = 35); 3 non-empty, rem
  // 29; extras floor(32*29/35) = 26, 0, 27 - 26 = 1, 29 - 27 = 2; counts
  // min(27, 32) = 27, 0, min(2, 1) = 1, min(3, 2) = 2. The buffer has 34
  // rows: slots 30 .. 33 are unused (32 and 33 lie past the capacity).
  %lens2 = memref.get_global @lens_mixed : memref<4xi32>
  %lens2d = memref.cast %lens2 : memref<4xi32> to memref<?xi32>
  %work2 = memref.alloc() : memref<34x4xi32>
  %work2d = memref.cast %work2 : memref<34x4xi32> to memref<?x4xi32>
  %red2 = memref.alloc() : memref<4x2xi32>
  %red2d = memref.cast %red2 : memref<4x2xi32> to memref<?x2xi32>
  call @poison(%work2d) : (memref<?x4xi32>) -> ()
  pa.plan context_lengths(%lens2d : memref<?xi32>)
          work_info(%work2d : memref<?x4xi32>)
          reduce_info(%red2d : memref<?x2xi32>)
          {num_kv_heads = 2 : i64, budget = 64 : i64, max_partitions = 64 : i64}
  %red2p = memref.cast %red2 : memref<4x2xi32> to memref<?x?xi32>
  call @print_all(%red2p) : (memref<?x?xi32>) -> ()
  // CHECK:      sizes = [4, 2]
  // CHECK-NEXT: [0, 27],
  // CHECK-NEXT: [27, 0],
  // CHECK-NEXT: [27, 1],
  // CHECK-NEXT: [28, 2]]
  %work2p = memref.cast %work2 : memref<34x4xi32> to memref<?x?xi32>
  call @print_all(%work2p) : (memref<?x?xi32>) -> ()
  // Sequence 0: 32 tiles in 27 parts; part k starts at k*32/27.
  // CHECK:      sizes = [34, 4]
  // CHECK-NEXT: [0, 0, 1, 8192],
  // CHECK-NEXT: [0, 1, 2, 8192],
  // CHECK-NEXT: [0, 2, 3, 8192],
  // CHECK-NEXT: [0, 3, 4, 8192],
  // CHECK-NEXT: [0, 4, 5, 8192],
  // CHECK-NEXT: [0, 5, 7, 8192],
  // CHECK-NEXT: [0, 7, 8, 8192],
  // CHECK-NEXT: [0, 8, 9, 8192],
  // CHECK-NEXT: [0, 9, 10, 8192],
  // CHECK-NEXT: [0, 10, 11, 8192],
  // CHECK-NEXT: [0, 11, 13, 8192],
  // CHECK-NEXT: [0, 13, 14, 8192],
  // CHECK-NEXT: [0, 14, 15, 8192],
  // CHECK-NEXT: [0, 15, 16, 8192],
  // CHECK-NEXT: [0, 16, 17, 8192],
  // CHECK-NEXT: [0, 17, 18, 8192],
  // CHECK-NEXT: [0, 18, 20, 8192],
  // CHECK-NEXT: [0, 20, 21, 8192],
  // CHECK-NEXT: [0, 21, 22, 8192],
  // CHECK-NEXT: [0, 22, 23, 8192],
  // CHECK-NEXT: [0, 23, 24, 8192],
  // CHECK-NEXT: [0, 24, 26, 8192],
  // CHECK-NEXT: [0, 26, 27, 8192],
  // CHECK-NEXT: [0, 27, 28, 8192],
  // CHECK-NEXT: [0, 28, 29, 8192],
  // CHECK-NEXT: [0, 29, 30, 8192],
  // CHECK-NEXT: [0, 30, 32, 8192],
  // CHECK-NEXT: [2, 0, 1, 1],
  // CHECK-NEXT: [3, 0, 1, 300],
  // CHECK-NEXT: [3, 1, 2, 300],
  // CHECK-NEXT: [0, 0, 0, 0],
  // CHECK-NEXT: [0, 0, 0, 0],
  // CHECK-NEXT: [0, 0, 0, 0],
  // CHECK-NEXT: [0, 0, 0, 0]]

  // Case 3: Q = 2, window 257, budget 16, max_partitions 16: capacity 16.
  // first = (C - 1 - 257) / 256: 99742 / 256 = 389 and 3841 / 256 = 15; end
  // ceil(C / 256) = 391 and 17; 2 tiles each, 2 parts each.
  %lens3 = memref.get_global @lens_window : memref<2xi32>
  %lens3d = memref.cast %lens3 : memref<2xi32> to memref<?xi32>
  %work3 = memref.alloc() : memref<16x4xi32>
  %work3d = memref.cast %work3 : memref<16x4xi32> to memref<?x4xi32>
  %red3 = memref.alloc() : memref<2x2xi32>
  call @poison(%work3d) : (memref<?x4xi32>) -> ()
  pa.plan context_lengths(%lens3d : memref<?xi32>)
          work_info(%work3d : memref<?x4xi32>)
          reduce_info(%red3 : memref<2x2xi32>)
          {num_kv_heads = 1 : i64, query_length = 2 : i64,
           sliding_window = 257 : i64, budget = 16 : i64,
           max_partitions = 16 : i64}
  %red3p = memref.cast %red3 : memref<2x2xi32> to memref<?x?xi32>
  call @print_all(%red3p) : (memref<?x?xi32>) -> ()
  // CHECK:      sizes = [2, 2]
  // CHECK-NEXT: [0, 2],
  // CHECK-NEXT: [2, 2]]
  %work3p = memref.cast %work3 : memref<16x4xi32> to memref<?x?xi32>
  call @print_all(%work3p) : (memref<?x?xi32>) -> ()
  // CHECK:      sizes = [16, 4]
  // CHECK-NEXT: [0, 389, 390, 100000],
  // CHECK-NEXT: [0, 390, 391, 100000],
  // CHECK-NEXT: [1, 15, 16, 4099],
  // CHECK-NEXT: [1, 16, 17, 4099],
  // CHECK-COUNT-11: [0, 0, 0, 0],
  // CHECK-NEXT: [0, 0, 0, 0]]

  // Case 4: C = 2^31 - 1 (C + 255 overflows i32), Q = 8, window 1000, Hkv 1,
  // budget 8, max_partitions 4: first = (2147483647 - 7 - 1000) / 256 =
  // 8388604, end = 8388608: 4 tiles each; capacity 8, rem 6, T = 8, extras
  // 3 and 3: 4 parts of one tile each.
  %lens4 = memref.get_global @lens_int32_max : memref<2xi32>
  %work4 = memref.alloc() : memref<8x4xi32>
  %red4 = memref.alloc() : memref<2x2xi32>
  pa.plan context_lengths(%lens4 : memref<2xi32>)
          work_info(%work4 : memref<8x4xi32>)
          reduce_info(%red4 : memref<2x2xi32>)
          {num_kv_heads = 1 : i64, query_length = 8 : i64,
           sliding_window = 1000 : i64, budget = 8 : i64,
           max_partitions = 4 : i64}
  %red4p = memref.cast %red4 : memref<2x2xi32> to memref<?x?xi32>
  call @print_all(%red4p) : (memref<?x?xi32>) -> ()
  // CHECK:      sizes = [2, 2]
  // CHECK-NEXT: [0, 4],
  // CHECK-NEXT: [4, 4]]
  %work4p = memref.cast %work4 : memref<8x4xi32> to memref<?x?xi32>
  call @print_all(%work4p) : (memref<?x?xi32>) -> ()
  // CHECK:      sizes = [8, 4]
  // CHECK-NEXT: [0, 8388604, 8388605, 2147483647],
  // CHECK-NEXT: [0, 8388605, 8388606, 2147483647],
  // CHECK-NEXT: [0, 8388606, 8388607, 2147483647],
  // CHECK-NEXT: [0, 8388607, 8388608, 2147483647],
  // CHECK-NEXT: [1, 8388604, 8388605, 2147483647],
  // CHECK-NEXT: [1, 8388605, 8388606, 2147483647],
  // CHECK-NEXT: [1, 8388606, 8388607, 2147483647],
  // CHECK-NEXT: [1, 8388607, 8388608, 2147483647]]

  // Case 5: a negative length reads as 0 (an empty sequence). Budget 4,
  // max_partitions 4: capacity 4, one non-empty sequence with 2 tiles, rem
  // 3: count min(1 + 3, 2) = 2.
  %lens5 = memref.get_global @lens_negative : memref<2xi32>
  %work5 = memref.alloc() : memref<6x4xi32>
  %work5d = memref.cast %work5 : memref<6x4xi32> to memref<?x4xi32>
  %red5 = memref.alloc() : memref<2x2xi32>
  call @poison(%work5d) : (memref<?x4xi32>) -> ()
  pa.plan context_lengths(%lens5 : memref<2xi32>)
          work_info(%work5 : memref<6x4xi32>)
          reduce_info(%red5 : memref<2x2xi32>)
          {num_kv_heads = 1 : i64, budget = 4 : i64, max_partitions = 4 : i64}
  %red5p = memref.cast %red5 : memref<2x2xi32> to memref<?x?xi32>
  call @print_all(%red5p) : (memref<?x?xi32>) -> ()
  // CHECK:      sizes = [2, 2]
  // CHECK-NEXT: [0, 0],
  // CHECK-NEXT: [0, 2]]
  %work5p = memref.cast %work5 : memref<6x4xi32> to memref<?x?xi32>
  call @print_all(%work5p) : (memref<?x?xi32>) -> ()
  // CHECK:      sizes = [6, 4]
  // CHECK-NEXT: [1, 0, 1, 300],
  // CHECK-NEXT: [1, 1, 2, 300],
  // CHECK-NEXT: [0, 0, 0, 0],
  // CHECK-NEXT: [0, 0, 0, 0],
  // CHECK-NEXT: [0, 0, 0, 0],
  // CHECK-NEXT: [0, 0, 0, 0]]

  memref.dealloc %work1 : memref<512x4xi32>
  memref.dealloc %red1 : memref<5x2xi32>
  memref.dealloc %work2 : memref<34x4xi32>
  memref.dealloc %red2 : memref<4x2xi32>
  memref.dealloc %work3 : memref<16x4xi32>
  memref.dealloc %red3 : memref<2x2xi32>
  memref.dealloc %work4 : memref<8x4xi32>
  memref.dealloc %red4 : memref<2x2xi32>
  memref.dealloc %work5 : memref<6x4xi32>
  memref.dealloc %red5 : memref<2x2xi32>
  return
}
