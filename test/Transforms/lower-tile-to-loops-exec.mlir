// RUN: pa-opt %s -pa-lower-tile-to-loops -pa-lower-tiled-to-host \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN: | FileCheck %s

// Executes the loops pa-lower-tile-to-loops makes of the tile ops (one
// workgroup: page ids, query, QK, masked softmax, PV, partials) on the CPU.
//
// Shapes: Hkv = 2 (kv_head 1 is used), Q = 2, G = 2 (rows r = q*2 + g, 4 of
// them; the other 12 rows of the M = 16 tile are padding), D = 64, P = 16,
// sequence 1 of a batch of 2. Every cache, scale, query and block-table
// entry starts as NaN (99 for page ids); only the tokens the kernels may use
// are then written, so a read of anything else shows up as nan / 99.
//
// Written data (t = absolute token):
//   query row r: d0 = 1 + r/2, d9 = 1 - r/2, d17 = 2 - r, other d 0
//   V_t[0..3] = 1, (t % 8)/4, -(t % 4 + 1), t % 3 - 1; other d 0
//   fp8 kernel (f8E4M3FN, plain V, per-token scales, score_scale 0.5, no
//   window): block table [3, 1]; K_t[0] = 1, K_t[17] = (t % 5 - 2)/2;
//   k_scale = 1 + (t % 3)/4, v_scale = (1 + t % 2)/2
//   bf16 kernel (transposed V with x = 8, per-tensor scales 0.5 / 2,
//   score_scale 1, window 10, C = 262, two tiles): tokens 251..261 live in
//   block-table entries 15 (page 2) and 16 (page 3);
//   K_t[0] = 1, K_t[9] = ((t - 250) % 7 - 3)/4 (tile 1 holds larger |K_t[9]|,
//   so the rows' maxima grow and alpha < 1 rescales tile 0)
//
// Expected values, from this independent float64 reference (exp2-domain
// scores s; natural-log max_logits = max s * ln 2):
//
//   import math
//   G, Q = 2, 2
//   def query(r, d): return {0: 1.0 + 0.5 * r, 9: 1.0 - 0.5 * r, 17: 2.0 - r}.get(d, 0.0)
//   def value(t, d): return [1.0, (t % 8) * 0.25, -((t % 4) + 1.0), (t % 3) - 1.0][d]
//   def attend(C, W, tokens, key, kscale, vscale, score_scale):
//       for r in range(Q * G):
//           end = C - Q + 1 + r // G
//           begin = max(0, end - W) if W > 0 else 0
//           vis = [t for t in tokens if begin <= t < end]
//           if not vis: print(r, "-inf 0 [0 0 0 0]"); continue
//           s = [score_scale * kscale(t) * sum(query(r, d) * key(t, d) for d in (0, 9, 17)) for t in vis]
//           m = max(s); p = [2.0 ** (x - m) for x in s]
//           out = [sum(pi * vscale(t) * value(t, d) for pi, t in zip(p, vis)) / sum(p) for d in range(4)]
//           print(r, "%.6g %.6g" % (m * math.log(2), sum(p)), " ".join("%.6g" % o for o in out))
//   fp8_key = lambda t, d: {0: 1.0, 17: ((t % 5) - 2) * 0.5}.get(d, 0.0)
//   bf16_key = lambda t, d: {0: 1.0, 9: (((t - 250) % 7) - 3) * 0.25}.get(d, 0.0)
//   fp8_scales = (lambda t: 1 + (t % 3) * 0.25, lambda t: 0.5 * (1 + t % 2), 0.5)
//   attend(20, 0, range(20), fp8_key, *fp8_scales)
//   attend(1, 0, range(1), fp8_key, *fp8_scales)
//   attend(262, 10, range(251, 262), bf16_key, lambda t: 0.5, lambda t: 2.0, 1.0)
//   for r in range(4):  # fp8, C = 20: scores of columns 16..23 after qk
//       print([0.5 * (1 + (t % 3) * 0.25) * sum(query(r, d) * fp8_key(t, d) for d in (0, 17))
//              if t < 20 else 0.0 for t in range(16, 24)])
//
// prints (row: max_logit exp_sum tmp_out[0..3]):
//   fp8, C = 20        0: 1.55958 7.02934  0.705347 0.574849 -1.73169 -0.00557082
//                      1: 1.29965 10.159   0.722243 0.584987 -1.81287  0.0211507
//                      2: 1.03972 16.836   0.751987 0.608782 -1.99527  0.0572859
//                      3: 1.81951 10.0409  0.762787 0.628948 -2.01827  0.106583
//   fp8, C = 1         0, 1: -inf 0 [0 0 0 0] (q = 0 sees no token)
//                      2: 0.693147 1  0.5 0 -0.5 -0.5
//                      3: 1.21301  1  0.5 0 -0.5 -0.5
//   bf16, window       0: 0.606504 7.60577  2 1.78751 -4.93512  0.153172
//                      1: 0.649825 8.69425  2 1.77083 -4.96862  0.176608
//                      2: 0.693147 10       2 1.85    -4.6     -0.2
//                      3: 0.996399 8.80601  2 1.82398 -4.60794 -0.182086
//   scores, columns 16..23 (20..23 hold NaN keys: qk writes 0)
//     [0, 0.75, 1, 1.875, 0, 0, 0, 0]        [0.625, 1.125, 1, 1.5625, 0, 0, 0, 0]
//     [1.25, 1.5, 1, 1.25, 0, 0, 0, 0]       [1.875, 1.875, 1, 0.9375, 0, 0, 0, 0]

!q_tile = memref<16x64xf32, #gpu.address_space<workgroup>>
!scores = memref<16x256xf32, #gpu.address_space<workgroup>>
!rows = memref<16xf32, #gpu.address_space<workgroup>>
!query = memref<?x4x64xbf16>
!fp8_keys = memref<?x2x4x16x16xf8E4M3FN>
!fp8_values = memref<?x2x64x16xf8E4M3FN>
!token_scales = memref<?x2x16xf32>
!bf16_keys = memref<?x2x8x16x8xbf16>
!bf16_values = memref<?x2x2x64x8xbf16>
!sums = memref<2x?x4xf32>
!partial_out = memref<2x?x4x64xf32>

module attributes {gpu.container_module} {
  gpu.module @pa_kernels {
    // One tile (tokens [0, 256)) of sequence 1, KV head 1, no window; the
    // visible and valid ranges are [0, C). Also exports the page ids and
    // the scores of rows 0..3, columns 16..23 right after qk.
    gpu.func @attend_fp8(%query: !query, %keys: !fp8_keys, %values: !fp8_values,
                         %block_tables: memref<?x?xi32>, %k_scale: !token_scales,
                         %v_scale: !token_scales, %context: i64, %slot: index,
                         %exp_sums: !sums, %max_logits: !sums, %tmp_out: !partial_out,
                         %ids_out: memref<16xi32>, %scores_out: memref<4x8xf32>)
        workgroup(%q: !q_tile, %s: !scores, %acc: !q_tile, %row_max: !rows, %row_sum: !rows)
        kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %zero = arith.constant 0 : i64
      %ids = pa.tile.page_ids %block_tables[%c1] tile %c0 visible [%zero, %context]
               {page_size = 16 : i64} : memref<?x?xi32> -> vector<16xi32>
      vector.store %ids, %ids_out[%c0] : memref<16xi32>, vector<16xi32>
      pa.tile.load_query %query[%c1, %c1, %c0] into %q
          {query_length = 2 : i64, group_size = 2 : i64} : !query, !q_tile
      pa.tile.init_softmax %row_max, %row_sum, %acc : !rows, !rows, !q_tile
      pa.tile.qk %q, %keys[%ids, %c1] tile_start %zero valid [%zero, %context]
          k_scale(%k_scale : !token_scales) into %s
          {page_size = 16 : i64, score_scale = 0.5 : f32,
           scale = #pa.scale<per_token>, compute = #pa.compute<fp8>}
          : !q_tile, !fp8_keys, vector<16xi32>, !scores
      scf.for %m = %c0 to %c4 step %c1 {
        scf.for %j = %c0 to %c8 step %c1 {
          %column = arith.addi %j, %c16 : index
          %score = memref.load %s[%m, %column] : !scores
          memref.store %score, %scores_out[%m, %j] : memref<4x8xf32>
        }
      }
      pa.tile.softmax %s, %row_max, %row_sum, %acc context %context
          tile_start %zero row_base %c0
          {query_length = 2 : i64, group_size = 2 : i64, sliding_window = 0 : i64}
          : !scores, !rows, !rows, !q_tile
      pa.tile.pv %s, %values[%ids, %c1] tile_start %zero valid [%zero, %context]
          v_scale(%v_scale : !token_scales) into %acc
          {page_size = 16 : i64, v_layout = #pa.v_layout<plain>,
           scale = #pa.scale<per_token>, compute = #pa.compute<fp8>}
          : !scores, !fp8_values, vector<16xi32>, !q_tile
      pa.tile.store_partials %row_max, %row_sum, %acc into %exp_sums, %max_logits,
          %tmp_out [%c1, %slot, %c0] {rows = 4 : i64}
          : !rows, !rows, !q_tile, !sums, !sums, !partial_out
      gpu.return
    }

    // Tiles 0 and 1 of sequence 1, KV head 1, window 10, C = 262: rows see
    // [251, 261) (q = 0) and [252, 262) (q = 1); the workgroup's visible
    // and valid ranges are [251, 262).
    gpu.func @attend_bf16(%query: !query, %keys: !bf16_keys, %values: !bf16_values,
                          %block_tables: memref<?x?xi32>, %k_scale: memref<1xf32>,
                          %v_scale: memref<1xf32>, %slot: index,
                          %exp_sums: !sums, %max_logits: !sums, %tmp_out: !partial_out,
                          %ids_out: memref<2x16xi32>)
        workgroup(%q: !q_tile, %s: !scores, %acc: !q_tile, %row_max: !rows, %row_sum: !rows)
        kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %context = arith.constant 262 : i64
      %begin = arith.constant 251 : i64
      pa.tile.load_query %query[%c1, %c1, %c0] into %q
          {query_length = 2 : i64, group_size = 2 : i64} : !query, !q_tile
      pa.tile.init_softmax %row_max, %row_sum, %acc : !rows, !rows, !q_tile
      %c2 = arith.constant 2 : index
      scf.for %tile = %c0 to %c2 step %c1 {
        %tile_i64 = arith.index_cast %tile : index to i64
        %c256 = arith.constant 256 : i64
        %tile_start = arith.muli %tile_i64, %c256 : i64
        %ids = pa.tile.page_ids %block_tables[%c1] tile %tile visible [%begin, %context]
                 {page_size = 16 : i64} : memref<?x?xi32> -> vector<16xi32>
        vector.store %ids, %ids_out[%tile, %c0] : memref<2x16xi32>, vector<16xi32>
        pa.tile.qk %q, %keys[%ids, %c1] tile_start %tile_start valid [%begin, %context]
            k_scale(%k_scale : memref<1xf32>) into %s
            {page_size = 16 : i64, score_scale = 1.0 : f32,
             scale = #pa.scale<per_tensor>, compute = #pa.compute<bf16>}
            : !q_tile, !bf16_keys, vector<16xi32>, !scores
        pa.tile.softmax %s, %row_max, %row_sum, %acc context %context
            tile_start %tile_start row_base %c0
            {query_length = 2 : i64, group_size = 2 : i64, sliding_window = 10 : i64}
            : !scores, !rows, !rows, !q_tile
        pa.tile.pv %s, %values[%ids, %c1] tile_start %tile_start valid [%begin, %context]
            v_scale(%v_scale : memref<1xf32>) into %acc
            {page_size = 16 : i64, v_layout = #pa.v_layout<transposed>,
             scale = #pa.scale<per_tensor>, compute = #pa.compute<bf16>}
            : !scores, !bf16_values, vector<16xi32>, !q_tile
      }
      pa.tile.store_partials %row_max, %row_sum, %acc into %exp_sums, %max_logits,
          %tmp_out [%c1, %slot, %c0] {rows = 4 : i64}
          : !rows, !rows, !q_tile, !sums, !sums, !partial_out
      gpu.return
    }
  }

  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
  func.func private @printMemrefI32(memref<*xi32>) attributes {llvm.emit_c_interface}

  //===--------------------------------------------------------------------===//
  // Test data
  //===--------------------------------------------------------------------===//

  /// A new 1-D buffer of n elements, all `value` (narrowed by truncf).
  func.func private @alloc_f8(%n: index, %value: f32) -> memref<?xf8E4M3FN> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %buffer = memref.alloc(%n) : memref<?xf8E4M3FN>
    %element = arith.truncf %value : f32 to f8E4M3FN
    scf.for %i = %c0 to %n step %c1 {
      memref.store %element, %buffer[%i] : memref<?xf8E4M3FN>
    }
    return %buffer : memref<?xf8E4M3FN>
  }
  func.func private @alloc_bf16(%n: index, %value: f32) -> memref<?xbf16> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %buffer = memref.alloc(%n) : memref<?xbf16>
    %element = arith.truncf %value : f32 to bf16
    scf.for %i = %c0 to %n step %c1 {
      memref.store %element, %buffer[%i] : memref<?xbf16>
    }
    return %buffer : memref<?xbf16>
  }
  func.func private @alloc_f32(%n: index, %value: f32) -> memref<?xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %buffer = memref.alloc(%n) : memref<?xf32>
    scf.for %i = %c0 to %n step %c1 {
      memref.store %value, %buffer[%i] : memref<?xf32>
    }
    return %buffer : memref<?xf32>
  }
  func.func private @alloc_i32(%n: index, %value: i32) -> memref<?xi32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %buffer = memref.alloc(%n) : memref<?xi32>
    scf.for %i = %c0 to %n step %c1 {
      memref.store %value, %buffer[%i] : memref<?xi32>
    }
    return %buffer : memref<?xi32>
  }

  /// float(t % n)
  func.func private @mod(%t: index, %n: index) -> f32 {
    %rem = arith.remui %t, %n : index
    %rem_i64 = arith.index_cast %rem : index to i64
    %f = arith.uitofp %rem_i64 : i64 to f32
    return %f : f32
  }

  /// V_t[0..3] = 1, (t % 8)/4, -(t % 4 + 1), t % 3 - 1
  func.func private @value(%t: index, %d: index) -> f32 {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %one = arith.constant 1.0 : f32
    %quarter = arith.constant 0.25 : f32
    %result = scf.index_switch %d -> f32
    case 0 {
      scf.yield %one : f32
    }
    case 1 {
      %m = func.call @mod(%t, %c8) : (index, index) -> f32
      %v = arith.mulf %m, %quarter : f32
      scf.yield %v : f32
    }
    case 2 {
      %m = func.call @mod(%t, %c4) : (index, index) -> f32
      %p = arith.addf %m, %one : f32
      %v = arith.negf %p : f32
      scf.yield %v : f32
    }
    case 3 {
      %m = func.call @mod(%t, %c3) : (index, index) -> f32
      %v = arith.subf %m, %one : f32
      scf.yield %v : f32
    }
    default {
      %zero = arith.constant 0.0 : f32
      scf.yield %zero : f32
    }
    return %result : f32
  }

  /// Rows r = q*2 + g of sequence 1, KV head 1: d0 = 1 + r/2, d9 = 1 - r/2,
  /// d17 = 2 - r, other d 0.
  func.func private @write_query(%query: !query) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c9 = arith.constant 9 : index
    %c17 = arith.constant 17 : index
    %c64 = arith.constant 64 : index
    %one = arith.constant 1.0 : f32
    %two = arith.constant 2.0 : f32
    %half = arith.constant 0.5 : f32
    %zero = arith.constant 0.0 : bf16
    scf.for %r = %c0 to %c4 step %c1 {
      %q = arith.divui %r, %c2 : index
      %g = arith.remui %r, %c2 : index
      %row = arith.addi %q, %c2 : index   // sequence 1 * Q + q
      %head = arith.addi %g, %c2 : index  // KV head 1 * G + g
      scf.for %d = %c0 to %c64 step %c1 {
        memref.store %zero, %query[%row, %head, %d] : !query
      }
      %r_f = func.call @mod(%r, %c4) : (index, index) -> f32
      %half_r = arith.mulf %r_f, %half : f32
      %d0 = arith.addf %one, %half_r : f32
      %d9 = arith.subf %one, %half_r : f32
      %d17 = arith.subf %two, %r_f : f32
      %d0_b = arith.truncf %d0 : f32 to bf16
      %d9_b = arith.truncf %d9 : f32 to bf16
      %d17_b = arith.truncf %d17 : f32 to bf16
      memref.store %d0_b, %query[%row, %head, %c0] : !query
      memref.store %d9_b, %query[%row, %head, %c9] : !query
      memref.store %d17_b, %query[%row, %head, %c17] : !query
    }
    return
  }

  /// Tokens [0, end) of sequence 1, KV head 1 in the fp8 caches.
  func.func private @write_fp8_tokens(%end: index, %block_tables: memref<?x?xi32>,
                                      %keys: !fp8_keys, %values: !fp8_values,
                                      %k_scale: !token_scales, %v_scale: !token_scales) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f8E4M3FN
    %one = arith.constant 1.0 : f32
    %half = arith.constant 0.5 : f32
    %quarter = arith.constant 0.25 : f32
    %two = arith.constant 2.0 : f32
    scf.for %t = %c0 to %end step %c1 {
      %page_index = arith.divui %t, %c16 : index
      %page_i32 = memref.load %block_tables[%c1, %page_index] : memref<?x?xi32>
      %page = arith.index_cast %page_i32 : i32 to index
      %slot = arith.remui %t, %c16 : index
      scf.for %d = %c0 to %c64 step %c1 {
        %d_hi = arith.divui %d, %c16 : index
        %d_lo = arith.remui %d, %c16 : index
        memref.store %zero, %keys[%page, %c1, %d_hi, %slot, %d_lo] : !fp8_keys
        %v = func.call @value(%t, %d) : (index, index) -> f32
        %v8 = arith.truncf %v : f32 to f8E4M3FN
        memref.store %v8, %values[%page, %c1, %d, %slot] : !fp8_values
      }
      %one8 = arith.truncf %one : f32 to f8E4M3FN
      memref.store %one8, %keys[%page, %c1, %c0, %slot, %c0] : !fp8_keys
      %m5 = func.call @mod(%t, %c5) : (index, index) -> f32
      %k17_2 = arith.subf %m5, %two : f32
      %k17 = arith.mulf %k17_2, %half : f32
      %k17_8 = arith.truncf %k17 : f32 to f8E4M3FN
      memref.store %k17_8, %keys[%page, %c1, %c1, %slot, %c1] : !fp8_keys
      %m3 = func.call @mod(%t, %c3) : (index, index) -> f32
      %ks_q = arith.mulf %m3, %quarter : f32
      %ks = arith.addf %one, %ks_q : f32
      memref.store %ks, %k_scale[%page, %c1, %slot] : !token_scales
      %m2 = func.call @mod(%t, %c2) : (index, index) -> f32
      %vs_2 = arith.addf %one, %m2 : f32
      %vs = arith.mulf %vs_2, %half : f32
      memref.store %vs, %v_scale[%page, %c1, %slot] : !token_scales
    }
    return
  }

  /// Tokens [begin, end) of sequence 1, KV head 1 in the bf16 caches
  /// (transposed V: slot s at [s / 8][d][s % 8]).
  func.func private @write_bf16_tokens(%begin: index, %end: index,
                                       %block_tables: memref<?x?xi32>,
                                       %keys: !bf16_keys, %values: !bf16_values) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %c250 = arith.constant 250 : index
    %zero = arith.constant 0.0 : bf16
    %one = arith.constant 1.0 : bf16
    %three = arith.constant 3.0 : f32
    %quarter = arith.constant 0.25 : f32
    scf.for %t = %begin to %end step %c1 {
      %page_index = arith.divui %t, %c16 : index
      %page_i32 = memref.load %block_tables[%c1, %page_index] : memref<?x?xi32>
      %page = arith.index_cast %page_i32 : i32 to index
      %slot = arith.remui %t, %c16 : index
      %slot_hi = arith.divui %slot, %c8 : index
      %slot_lo = arith.remui %slot, %c8 : index
      scf.for %d = %c0 to %c64 step %c1 {
        %d_hi = arith.divui %d, %c8 : index
        %d_lo = arith.remui %d, %c8 : index
        memref.store %zero, %keys[%page, %c1, %d_hi, %slot, %d_lo] : !bf16_keys
        %v = func.call @value(%t, %d) : (index, index) -> f32
        %vb = arith.truncf %v : f32 to bf16
        memref.store %vb, %values[%page, %c1, %slot_hi, %d, %slot_lo] : !bf16_values
      }
      memref.store %one, %keys[%page, %c1, %c0, %slot, %c0] : !bf16_keys
      %shifted = arith.subi %t, %c250 : index
      %m7 = func.call @mod(%shifted, %c7) : (index, index) -> f32
      %k9_4 = arith.subf %m7, %three : f32
      %k9 = arith.mulf %k9_4, %quarter : f32
      %k9_b = arith.truncf %k9 : f32 to bf16
      memref.store %k9_b, %keys[%page, %c1, %c1, %slot, %c1] : !bf16_keys
    }
    return
  }

  /// Partial-result buffers [Hkv = 2][slots = 2][R = 4](, D = 64), NaN until
  /// written.
  func.func private @alloc_partials(%nan: f32) -> (!sums, !sums, !partial_out) {
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
    %c1024 = arith.constant 1024 : index
    %es_flat = func.call @alloc_f32(%c16, %nan) : (index, f32) -> memref<?xf32>
    %exp_sums = memref.expand_shape %es_flat [[0, 1, 2]] output_shape [2, %c2, 4]
        : memref<?xf32> into !sums
    %ml_flat = func.call @alloc_f32(%c16, %nan) : (index, f32) -> memref<?xf32>
    %max_logits = memref.expand_shape %ml_flat [[0, 1, 2]] output_shape [2, %c2, 4]
        : memref<?xf32> into !sums
    %out_flat = func.call @alloc_f32(%c1024, %nan) : (index, f32) -> memref<?xf32>
    %tmp_out = memref.expand_shape %out_flat [[0, 1, 2, 3]] output_shape [2, %c2, 4, 64]
        : memref<?xf32> into !partial_out
    return %exp_sums, %max_logits, %tmp_out : !sums, !sums, !partial_out
  }

  /// Prints exp_sums, max_logits and tmp_out[1][*][*][0..3].
  func.func private @print_partials(%exp_sums: !sums, %max_logits: !sums,
                                    %tmp_out: !partial_out) {
    %es = memref.cast %exp_sums : !sums to memref<*xf32>
    func.call @printMemrefF32(%es) : (memref<*xf32>) -> ()
    %ml = memref.cast %max_logits : !sums to memref<*xf32>
    func.call @printMemrefF32(%ml) : (memref<*xf32>) -> ()
    %head1 = memref.subview %tmp_out[1, 0, 0, 0] [1, 2, 4, 4] [1, 1, 1, 1]
        : !partial_out to memref<2x4x4xf32, strided<[256, 64, 1], offset: ?>>
    %out = memref.cast %head1 : memref<2x4x4xf32, strided<[256, 64, 1], offset: ?>> to memref<*xf32>
    func.call @printMemrefF32(%out) : (memref<*xf32>) -> ()
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c15 = arith.constant 15 : index
    %c16 = arith.constant 16 : index
    %c20 = arith.constant 20 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c251 = arith.constant 251 : index
    %c262 = arith.constant 262 : index
    %c1024 = arith.constant 1024 : index
    %c8192 = arith.constant 8192 : index
    %nan = arith.constant 0x7FC00000 : f32
    %poison_id = arith.constant 99 : i32

    %query_flat = call @alloc_bf16(%c1024, %nan) : (index, f32) -> memref<?xbf16>
    %query = memref.expand_shape %query_flat [[0, 1, 2]] output_shape [%c4, 4, 64]
        : memref<?xbf16> into !query
    call @write_query(%query) : (!query) -> ()

    //===------------------------------------------------------------------===//
    // fp8 kernel: C = 20 into partition slot 0, then C = 1 into slot 1
    //===------------------------------------------------------------------===//
    %fp8_bt_flat = call @alloc_i32(%c32, %poison_id) : (index, i32) -> memref<?xi32>
    %fp8_bt_2 = memref.expand_shape %fp8_bt_flat [[0, 1]] output_shape [2, %c16]
        : memref<?xi32> into memref<2x?xi32>
    %fp8_bt = memref.cast %fp8_bt_2 : memref<2x?xi32> to memref<?x?xi32>
    %page3 = arith.constant 3 : i32
    %page1 = arith.constant 1 : i32
    memref.store %page3, %fp8_bt[%c1, %c0] : memref<?x?xi32>
    memref.store %page1, %fp8_bt[%c1, %c1] : memref<?x?xi32>
    %fp8_k_flat = call @alloc_f8(%c8192, %nan) : (index, f32) -> memref<?xf8E4M3FN>
    %fp8_k = memref.expand_shape %fp8_k_flat [[0, 1, 2, 3, 4]] output_shape [%c4, 2, 4, 16, 16]
        : memref<?xf8E4M3FN> into !fp8_keys
    %fp8_v_flat = call @alloc_f8(%c8192, %nan) : (index, f32) -> memref<?xf8E4M3FN>
    %fp8_v = memref.expand_shape %fp8_v_flat [[0, 1, 2, 3]] output_shape [%c4, 2, 64, 16]
        : memref<?xf8E4M3FN> into !fp8_values
    %ks_flat = call @alloc_f32(%c128, %nan) : (index, f32) -> memref<?xf32>
    %ks = memref.expand_shape %ks_flat [[0, 1, 2]] output_shape [%c4, 2, 16]
        : memref<?xf32> into !token_scales
    %vs_flat = call @alloc_f32(%c128, %nan) : (index, f32) -> memref<?xf32>
    %vs = memref.expand_shape %vs_flat [[0, 1, 2]] output_shape [%c4, 2, 16]
        : memref<?xf32> into !token_scales
    call @write_fp8_tokens(%c20, %fp8_bt, %fp8_k, %fp8_v, %ks, %vs)
        : (index, memref<?x?xi32>, !fp8_keys, !fp8_values, !token_scales, !token_scales) -> ()

    %fp8_es, %fp8_ml, %fp8_out = call @alloc_partials(%nan) : (f32) -> (!sums, !sums, !partial_out)
    %ids = memref.alloc() : memref<16xi32>
    %scores = memref.alloc() : memref<4x8xf32>
    %ids_u = memref.cast %ids : memref<16xi32> to memref<*xi32>
    %scores_u = memref.cast %scores : memref<4x8xf32> to memref<*xf32>
    %c1_i64 = arith.constant 1 : i64
    %c20_i64 = arith.constant 20 : i64

    // CHECK-LABEL: fp8, C = 20
    // Page ids: only the two visible pages are read from the block table.
    // CHECK:       [3,  1,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0]
    // Scores of rows 0..3, columns 16..23: columns 20..23 (NaN keys) are 0.
    // CHECK:       [0,   0.75,   1,   1.875,   0,   0,   0,   0],
    // CHECK-NEXT:  [0.625,   1.125,   1,   1.5625,   0,   0,   0,   0],
    // CHECK-NEXT:  [1.25,   1.5,   1,   1.25,   0,   0,   0,   0],
    // CHECK-NEXT:  [1.875,   1.875,   1,   0.9375,   0,   0,   0,   0]]
    vector.print str "fp8, C = 20\n"
    gpu.launch_func @pa_kernels::@attend_fp8 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%query : !query, %fp8_k : !fp8_keys, %fp8_v : !fp8_values,
             %fp8_bt : memref<?x?xi32>, %ks : !token_scales, %vs : !token_scales,
             %c20_i64 : i64, %c0 : index, %fp8_es : !sums, %fp8_ml : !sums,
             %fp8_out : !partial_out, %ids : memref<16xi32>, %scores : memref<4x8xf32>)
    call @printMemrefI32(%ids_u) : (memref<*xi32>) -> ()
    call @printMemrefF32(%scores_u) : (memref<*xf32>) -> ()

    // CHECK-LABEL: fp8, C = 1
    // CHECK:       [3,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0]
    vector.print str "fp8, C = 1\n"
    gpu.launch_func @pa_kernels::@attend_fp8 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%query : !query, %fp8_k : !fp8_keys, %fp8_v : !fp8_values,
             %fp8_bt : memref<?x?xi32>, %ks : !token_scales, %vs : !token_scales,
             %c1_i64 : i64, %c1 : index, %fp8_es : !sums, %fp8_ml : !sums,
             %fp8_out : !partial_out, %ids : memref<16xi32>, %scores : memref<4x8xf32>)
    call @printMemrefI32(%ids_u) : (memref<*xi32>) -> ()

    // Only [kv_head 1][slot][rows 0..3] is written (the padding rows 4..15
    // are not). Slot 1 (C = 1): rows 0 and 1 (q = 0) see no token and write
    // -inf / 0 / 0.
    // CHECK-LABEL: fp8 partials
    // exp_sums:
    // CHECK:       {{\[\[\[}}nan,   nan,   nan,   nan],
    // CHECK-NEXT:  [nan,   nan,   nan,   nan]],
    // CHECK-NEXT:  {{\[\[}}7.02934,   10.159,   16.836,   10.0409],
    // CHECK-NEXT:  [0,   0,   1,   1]]]
    // max_logits:
    // CHECK:       {{\[\[\[}}nan,   nan,   nan,   nan],
    // CHECK-NEXT:  [nan,   nan,   nan,   nan]],
    // CHECK-NEXT:  {{\[\[}}1.55958,   1.29965,   1.03972,   1.81951],
    // CHECK-NEXT:  [-inf,   -inf,   0.693147,   1.21301]]]
    // tmp_out[1][slot][row][0..3]:
    // (f32 rounds -0.005570825 either way in the last printed digit)
    // CHECK:       {{\[\[\[}}0.705347,   0.574849,   -1.73169,   -0.0055708{{2|3}}],
    // CHECK-NEXT:  [0.722243,   0.584987,   -1.81287,   0.0211507],
    // CHECK-NEXT:  [0.751987,   0.608782,   -1.99527,   0.0572859],
    // CHECK-NEXT:  [0.762787,   0.628948,   -2.01827,   0.106583]],
    // CHECK-NEXT:  {{\[\[}}0,   0,   0,   0],
    // CHECK-NEXT:  [0,   0,   0,   0],
    // CHECK-NEXT:  [0.5,   0,   -0.5,   -0.5],
    // CHECK-NEXT:  [0.5,   0,   -0.5,   -0.5]]]
    vector.print str "fp8 partials\n"
    call @print_partials(%fp8_es, %fp8_ml, %fp8_out) : (!sums, !sums, !partial_out) -> ()

    //===------------------------------------------------------------------===//
    // bf16 kernel: window 10, two tiles, into partition slot 1
    //===------------------------------------------------------------------===//
    %bf16_bt_flat = call @alloc_i32(%c64, %poison_id) : (index, i32) -> memref<?xi32>
    %bf16_bt_2 = memref.expand_shape %bf16_bt_flat [[0, 1]] output_shape [2, %c32]
        : memref<?xi32> into memref<2x?xi32>
    %bf16_bt = memref.cast %bf16_bt_2 : memref<2x?xi32> to memref<?x?xi32>
    %page2 = arith.constant 2 : i32
    memref.store %page2, %bf16_bt[%c1, %c15] : memref<?x?xi32>
    memref.store %page3, %bf16_bt[%c1, %c16] : memref<?x?xi32>
    %bf16_k_flat = call @alloc_bf16(%c8192, %nan) : (index, f32) -> memref<?xbf16>
    %bf16_k = memref.expand_shape %bf16_k_flat [[0, 1, 2, 3, 4]] output_shape [%c4, 2, 8, 16, 8]
        : memref<?xbf16> into !bf16_keys
    %bf16_v_flat = call @alloc_bf16(%c8192, %nan) : (index, f32) -> memref<?xbf16>
    %bf16_v = memref.expand_shape %bf16_v_flat [[0, 1, 2, 3, 4]] output_shape [%c4, 2, 2, 64, 8]
        : memref<?xbf16> into !bf16_values
    call @write_bf16_tokens(%c251, %c262, %bf16_bt, %bf16_k, %bf16_v)
        : (index, index, memref<?x?xi32>, !bf16_keys, !bf16_values) -> ()
    %half = arith.constant 0.5 : f32
    %two = arith.constant 2.0 : f32
    %k_scale = call @alloc_f32(%c1, %half) : (index, f32) -> memref<?xf32>
    %k_scale_1 = memref.cast %k_scale : memref<?xf32> to memref<1xf32>
    %v_scale = call @alloc_f32(%c1, %two) : (index, f32) -> memref<?xf32>
    %v_scale_1 = memref.cast %v_scale : memref<?xf32> to memref<1xf32>

    %bf16_es, %bf16_ml, %bf16_out = call @alloc_partials(%nan) : (f32) -> (!sums, !sums, !partial_out)
    %tile_ids = memref.alloc() : memref<2x16xi32>
    // CHECK-LABEL: bf16, window
    // Page ids of tiles 0 and 1: block-table entries 15 and 16 only.
    // CHECK:       {{\[\[}}0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   2],
    // CHECK-NEXT:  [3,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0]]
    // exp_sums, max_logits, tmp_out[1][slot][row][0..3]:
    // CHECK:       {{\[\[\[}}nan,   nan,   nan,   nan],
    // CHECK-NEXT:  [nan,   nan,   nan,   nan]],
    // CHECK-NEXT:  {{\[\[}}nan,   nan,   nan,   nan],
    // CHECK-NEXT:  [7.60577,   8.69425,   10,   8.80601]]]
    // CHECK:       {{\[\[\[}}nan,   nan,   nan,   nan],
    // CHECK-NEXT:  [nan,   nan,   nan,   nan]],
    // CHECK-NEXT:  {{\[\[}}nan,   nan,   nan,   nan],
    // CHECK-NEXT:  [0.606504,   0.649825,   0.693147,   0.996399]]]
    // CHECK:       {{\[\[\[}}nan,   nan,   nan,   nan],
    // CHECK-NEXT:  [nan,   nan,   nan,   nan],
    // CHECK-NEXT:  [nan,   nan,   nan,   nan],
    // CHECK-NEXT:  [nan,   nan,   nan,   nan]],
    // CHECK-NEXT:  {{\[\[}}2,   1.78751,   -4.93512,   0.153172],
    // CHECK-NEXT:  [2,   1.77083,   -4.96862,   0.176608],
    // CHECK-NEXT:  [2,   1.85,   -4.6,   -0.2],
    // CHECK-NEXT:  [2,   1.82398,   -4.60794,   -0.182086]]]
    vector.print str "bf16, window\n"
    gpu.launch_func @pa_kernels::@attend_bf16 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%query : !query, %bf16_k : !bf16_keys, %bf16_v : !bf16_values,
             %bf16_bt : memref<?x?xi32>, %k_scale_1 : memref<1xf32>, %v_scale_1 : memref<1xf32>,
             %c1 : index, %bf16_es : !sums, %bf16_ml : !sums, %bf16_out : !partial_out,
             %tile_ids : memref<2x16xi32>)
    %tile_ids_u = memref.cast %tile_ids : memref<2x16xi32> to memref<*xi32>
    call @printMemrefI32(%tile_ids_u) : (memref<*xi32>) -> ()
    call @print_partials(%bf16_es, %bf16_ml, %bf16_out) : (!sums, !sums, !partial_out) -> ()
    return
  }
}
