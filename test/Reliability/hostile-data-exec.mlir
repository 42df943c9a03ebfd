// RUN: pa-opt %s --pass-pipeline="builtin.module(pa-set-target{chip=gfx950},pa-lower-plan, pa-tile, pa-lower-reduce, gpu.module(pa-stage-page-ids, pa-lower-tile-to-loops), pa-gpu-to-host, generate-runtime-verification, pa-lower-tiled-to-host)" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN:   | FileCheck %s

// Hostile data reaching the kernels themselves, as on a GPU where nothing
// validates the block table or the lengths (the host runtime refuses these
// buffers before launching; docs/reliability.md). The kernels run on the
// host with MLIR's runtime verification around every memref access: any
// access outside a buffer's dims aborts with "out-of-bounds access". The
// decided behaviour: page ids outside the pool read page 0, table entries
// past the table's width are never read (their tokens read page 0),
// negative lengths are 0, an empty pool is never read, and a work_info
// buffer below the plan's capacity keeps the plan and the reducer inside
// the buffers.
//
// Every case: Hq = Hkv = 1, D = 64, P = 16, bf16 caches, K = 0 (uniform
// attention), V of page p is p + 1; the output is the mean of the values of
// the tokens read. One plan slot per sequence (budget = max_partitions = 1).

func.func private @printMemrefBF16(memref<*xbf16>) attributes {llvm.emit_c_interface}

!q = memref<?x1x64xbf16>
!k = memref<?x1x8x16x8xbf16>
!v = memref<?x1x64x16xbf16>
!bt = memref<?x?xi32>
!lens = memref<?xi32>
!work = memref<?x4xi32>
!red = memref<?x2xi32>
!part = memref<1x?x1xf32>
!tmp = memref<1x?x1x64xf32>

func.func @decode(%q: !q, %k: !k, %v: !v, %bt: !bt, %lens: !lens, %work: !work,
                  %red: !red, %es: !part, %ml: !part, %tmp: !tmp, %out: !q) {
  pa.plan context_lengths(%lens : !lens) work_info(%work : !work)
          reduce_info(%red : !red)
          {num_kv_heads = 1 : i64, budget = 1 : i64, max_partitions = 1 : i64}
  pa.decode query(%q : !q) key_cache(%k : !k) value_cache(%v : !v)
            block_tables(%bt : !bt) context_lengths(%lens : !lens)
            work_info(%work : !work) exp_sums(%es : !part)
            max_logits(%ml : !part) tmp_out(%tmp : !tmp)
            {kv_layout = #pa.kv_layout<page_size = 16, k_pack = 8, v_layout = plain>}
  pa.reduce exp_sums(%es : !part) max_logits(%ml : !part) tmp_out(%tmp : !tmp)
            reduce_info(%red : !red) output(%out : !q)
  return
}

// Runs one decode: B sequences (lens), N pages, a block table `bt`, and
// `slots` plan slots; K = 0 (uniform attention), V of page p = p + 1, so the
// output is the mean page number + 1 over the tokens read.
func.func @run(%lens: !lens, %bt: !bt, %pages: index, %slots: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %batch = memref.dim %lens, %c0 : !lens
  %one = arith.constant 1.0 : bf16
  %two = arith.constant 2.0 : bf16
  %zero = arith.constant 0.0 : bf16
  %q = memref.alloc(%batch) : !q
  %out = memref.alloc(%batch) : !q
  scf.for %b = %c0 to %batch step %c1 {
    scf.for %d = %c0 to %c64 step %c1 {
      memref.store %one, %q[%b, %c0, %d] : !q
    }
  }
  // 1024 elements per page (Hkv * D * P) in both caches.
  %c1024 = arith.constant 1024 : index
  %kn = arith.muli %pages, %c1024 : index
  %kflat = memref.alloc(%kn) : memref<?xbf16>
  %vflat = memref.alloc(%kn) : memref<?xbf16>
  scf.for %i = %c0 to %kn step %c1 {
    memref.store %zero, %kflat[%i] : memref<?xbf16>
    %page = arith.divui %i, %c1024 : index
    %first = arith.cmpi eq, %page, %c0 : index
    %value = arith.select %first, %one, %two : bf16
    memref.store %value, %vflat[%i] : memref<?xbf16>
  }
  %k = memref.expand_shape %kflat [[0, 1, 2, 3, 4]] output_shape [%pages, 1, 8, 16, 8]
      : memref<?xbf16> into !k
  %v = memref.expand_shape %vflat [[0, 1, 2, 3]] output_shape [%pages, 1, 64, 16]
      : memref<?xbf16> into !v
  %work = memref.alloc(%slots) : !work
  %red = memref.alloc(%batch) : !red
  %es = memref.alloc(%slots) : !part
  %ml = memref.alloc(%slots) : !part
  %tmp = memref.alloc(%slots) : !tmp
  call @decode(%q, %k, %v, %bt, %lens, %work, %red, %es, %ml, %tmp, %out)
      : (!q, !k, !v, !bt, !lens, !work, !red, !part, !part, !tmp, !q) -> ()
  %first_d = memref.subview %out[0, 0, 0] [%batch, 1, 1] [1, 1, 1]
      : !q to memref<?x1x1xbf16, strided<[64, 64, 1]>>
  %print = memref.cast %first_d : memref<?x1x1xbf16, strided<[64, 64, 1]>> to memref<*xbf16>
  call @printMemrefBF16(%print) : (memref<*xbf16>) -> ()
  return
}

memref.global "private" constant @bt_valid : memref<1x2xi32> = dense<[[0, 1]]>
memref.global "private" constant @bt_outside : memref<1x2xi32> = dense<[[7, -3]]>
memref.global "private" constant @len20 : memref<1xi32> = dense<[20]>
memref.global "private" constant @len1000 : memref<1xi32> = dense<[1000]>
memref.global "private" constant @len_negative : memref<1xi32> = dense<[-5]>
memref.global "private" constant @bt_two : memref<2x2xi32> = dense<[[0, 1], [1, 0]]>
memref.global "private" constant @len20x2 : memref<2xi32> = dense<[20, 20]>

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %bt_valid_s = memref.get_global @bt_valid : memref<1x2xi32>
  %bt_valid = memref.cast %bt_valid_s : memref<1x2xi32> to !bt
  %bt_outside_s = memref.get_global @bt_outside : memref<1x2xi32>
  %bt_outside = memref.cast %bt_outside_s : memref<1x2xi32> to !bt
  %bt_two_s = memref.get_global @bt_two : memref<2x2xi32>
  %bt_two = memref.cast %bt_two_s : memref<2x2xi32> to !bt
  %len20_s = memref.get_global @len20 : memref<1xi32>
  %len20 = memref.cast %len20_s : memref<1xi32> to !lens
  %len1000_s = memref.get_global @len1000 : memref<1xi32>
  %len1000 = memref.cast %len1000_s : memref<1xi32> to !lens
  %lenneg_s = memref.get_global @len_negative : memref<1xi32>
  %lenneg = memref.cast %lenneg_s : memref<1xi32> to !lens
  %len20x2_s = memref.get_global @len20x2 : memref<2xi32>
  %len20x2 = memref.cast %len20x2_s : memref<2xi32> to !lens

  // 16 tokens of page 0 and 4 of page 1: (16 * 1 + 4 * 2) / 20.
  vector.print str "valid\n"
  call @run(%len20, %bt_valid, %c2, %c1) : (!lens, !bt, index, index) -> ()
  // Page ids 7 and -3 of a 2-page pool: both read page 0.
  vector.print str "pool\n"
  call @run(%len20, %bt_outside, %c2, %c1) : (!lens, !bt, index, index) -> ()
  // 1000 tokens, a table of 2 pages: tokens 32.. read page 0,
  // (1000 + 16) / 1000.
  vector.print str "table\n"
  call @run(%len1000, %bt_valid, %c2, %c1) : (!lens, !bt, index, index) -> ()
  vector.print str "negative\n"
  call @run(%lenneg, %bt_valid, %c2, %c1) : (!lens, !bt, index, index) -> ()
  // No page at all: nothing is read, the rows see nothing.
  vector.print str "empty\n"
  call @run(%len20, %bt_valid, %c0, %c1) : (!lens, !bt, index, index) -> ()
  // Two sequences, the plan needs 2 slots, work_info and the partials hold
  // 1: the second sequence gets no partition (its output is 0).
  vector.print str "small\n"
  call @run(%len20x2, %bt_two, %c2, %c1) : (!lens, !bt, index, index) -> ()
  return
}

// CHECK-LABEL: valid
// CHECK: [1.20312]
// CHECK-LABEL: pool
// CHECK: [1]
// CHECK-LABEL: table
// CHECK: [1.01562]
// CHECK-LABEL: negative
// CHECK: [0]
// CHECK-LABEL: empty
// CHECK: [0]
// CHECK-LABEL: small
// CHECK: [1.20312]
// CHECK-NEXT: [0]
// CHECK-NOT: out-of-bounds
