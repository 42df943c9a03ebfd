// RUN: pa-opt %s -pa-lower-tiled-to-host \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs \
// RUN: | FileCheck %s

// Hand-written tiled IR (kernels in gpu.module @pa_kernels, launched with
// gpu.launch_func) lowered by the host half of pa-lower-to-host and
// JIT-compiled: every workgroup of every launch runs, sees its own id and
// the grid, and has its own workgroup memory.

// Each workgroup (x, y, z) of a 2x3x4 grid writes 100 z + 10 y + x, staged
// through its workgroup buffer.
// CHECK:      sizes = [4, 3, 2]
// CHECK-NEXT: {{\[\[\[}}0,   1],
// CHECK-NEXT:   [10,   11],
// CHECK-NEXT:   [20,   21]],
// CHECK-NEXT:  {{\[\[}}100,   101],
// CHECK-NEXT:   [110,   111],
// CHECK-NEXT:   [120,   121]],
// CHECK-NEXT:  {{\[\[}}200,   201],
// CHECK-NEXT:   [210,   211],
// CHECK-NEXT:   [220,   221]],
// CHECK-NEXT:  {{\[\[}}300,   301],
// CHECK-NEXT:   [310,   311],
// CHECK-NEXT:   [320,   321]]]

// Row r of 3 workgroups: exp2 of the bf16 inputs r + c (an scf.parallel
// over workgroup memory), their sum, and the grid size.
// CHECK:      sizes = [3, 6]
// CHECK-NEXT: {{\[\[}}1,   2,   4,   8,   15,   3],
// CHECK-NEXT:  [2,   4,   8,   16,   30,   3],
// CHECK-NEXT:  [4,   8,   16,   32,   60,   3]]

// fp8 bytes 0x38, 0x7E, 0xC0, 0x01 (1, 448, -2, 2^-9) loaded as a vector,
// extended and doubled.
// CHECK:      sizes = [4]
// CHECK-NEXT: [2,  896,  -4,  0.00390625]

module attributes {gpu.container_module} {
  gpu.module @pa_kernels {
    gpu.func @write_ids(%out: memref<4x3x2xi32>)
        workgroup(%scratch: memref<8xi32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %x = gpu.block_id x
      %y = gpu.block_id y
      %z = gpu.block_id z
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %c10 = arith.constant 10 : index
      %c100 = arith.constant 100 : index
      %zz = arith.muli %z, %c100 : index
      %yy = arith.muli %y, %c10 : index
      %zy = arith.addi %zz, %yy : index
      %id = arith.addi %zy, %x : index
      %id_i32 = arith.index_cast %id : index to i32
      %splat = vector.broadcast %id_i32 : i32 to vector<4xi32>
      %view = memref.subview %scratch[2] [4] [1]
          : memref<8xi32, #gpu.address_space<workgroup>>
          to memref<4xi32, strided<[1], offset: 2>, #gpu.address_space<workgroup>>
      vector.store %splat, %view[%c0]
          : memref<4xi32, strided<[1], offset: 2>, #gpu.address_space<workgroup>>, vector<4xi32>
      gpu.barrier
      %staged = memref.load %scratch[%c2] : memref<8xi32, #gpu.address_space<workgroup>>
      memref.store %staged, %out[%z, %y, %x] : memref<4x3x2xi32>
      gpu.return
    }

    gpu.func @exp2_rows(%in: memref<3x4xbf16>, %out: memref<3x6xf32>)
        workgroup(%row_buf: memref<4xf32, #gpu.address_space<workgroup>>) kernel {
      %r = gpu.block_id x
      %grid = gpu.grid_dim x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %zero = arith.constant 0.0 : f32
      scf.parallel (%c) = (%c0) to (%c4) step (%c1) {
        %v = memref.load %in[%r, %c] : memref<3x4xbf16>
        %v32 = arith.extf %v : bf16 to f32
        %e = math.exp2 %v32 : f32
        memref.store %e, %row_buf[%c] : memref<4xf32, #gpu.address_space<workgroup>>
        scf.reduce
      }
      gpu.barrier
      %sum = scf.for %c = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f32) {
        %e = memref.load %row_buf[%c] : memref<4xf32, #gpu.address_space<workgroup>>
        memref.store %e, %out[%r, %c] : memref<3x6xf32>
        %next = arith.addf %acc, %e : f32
        scf.yield %next : f32
      }
      memref.store %sum, %out[%r, %c4] : memref<3x6xf32>
      %grid_i32 = arith.index_cast %grid : index to i32
      %grid_f32 = arith.sitofp %grid_i32 : i32 to f32
      memref.store %grid_f32, %out[%r, %c5] : memref<3x6xf32>
      gpu.return
    }

    gpu.func @decode_fp8(%in: memref<4xf8E4M3FN>, %out: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %two = arith.constant dense<2.0> : vector<4xf32>
      %v = vector.load %in[%c0] : memref<4xf8E4M3FN>, vector<4xf8E4M3FN>
      %w = arith.extf %v : vector<4xf8E4M3FN> to vector<4xf32>
      %d = arith.mulf %w, %two : vector<4xf32>
      vector.store %d, %out[%c0] : memref<4xf32>, vector<4xf32>
      gpu.return
    }
  }

  func.func @run_write_ids() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %out = memref.alloc() : memref<4x3x2xi32>
    gpu.launch_func @pa_kernels::@write_ids blocks in (%c2, %c3, %c4)
        threads in (%c256, %c1, %c1) args(%out : memref<4x3x2xi32>)
    %printable = memref.cast %out : memref<4x3x2xi32> to memref<*xi32>
    call @printMemrefI32(%printable) : (memref<*xi32>) -> ()
    memref.dealloc %out : memref<4x3x2xi32>
    return
  }

  func.func @run_exp2_rows() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %in = memref.alloc() : memref<3x4xbf16>
    scf.for %r = %c0 to %c3 step %c1 {
      scf.for %c = %c0 to %c4 step %c1 {
        %rc = arith.addi %r, %c : index
        %rc_i32 = arith.index_cast %rc : index to i32
        %rc_f32 = arith.sitofp %rc_i32 : i32 to f32
        %rc_bf16 = arith.truncf %rc_f32 : f32 to bf16
        memref.store %rc_bf16, %in[%r, %c] : memref<3x4xbf16>
      }
    }
    %out = memref.alloc() : memref<3x6xf32>
    gpu.launch_func @pa_kernels::@exp2_rows blocks in (%c3, %c1, %c1)
        threads in (%c256, %c1, %c1) args(%in : memref<3x4xbf16>, %out : memref<3x6xf32>)
    %printable = memref.cast %out : memref<3x6xf32> to memref<*xf32>
    call @printMemrefF32(%printable) : (memref<*xf32>) -> ()
    memref.dealloc %in : memref<3x4xbf16>
    memref.dealloc %out : memref<3x6xf32>
    return
  }

  func.func @run_decode_fp8() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c256 = arith.constant 256 : index
    %bytes = memref.alloc() : memref<4xi8>
    %b0 = arith.constant 0x38 : i8
    %b1 = arith.constant 0x7E : i8
    %b2 = arith.constant 0xC0 : i8
    %b3 = arith.constant 0x01 : i8
    memref.store %b0, %bytes[%c0] : memref<4xi8>
    memref.store %b1, %bytes[%c1] : memref<4xi8>
    memref.store %b2, %bytes[%c2] : memref<4xi8>
    memref.store %b3, %bytes[%c3] : memref<4xi8>
    %in = memref.view %bytes[%c0][] : memref<4xi8> to memref<4xf8E4M3FN>
    %out = memref.alloc() : memref<4xf32>
    gpu.launch_func @pa_kernels::@decode_fp8 blocks in (%c1, %c1, %c1)
        threads in (%c256, %c1, %c1) args(%in : memref<4xf8E4M3FN>, %out : memref<4xf32>)
    %printable = memref.cast %out : memref<4xf32> to memref<*xf32>
    call @printMemrefF32(%printable) : (memref<*xf32>) -> ()
    memref.dealloc %bytes : memref<4xi8>
    memref.dealloc %out : memref<4xf32>
    return
  }

  func.func @main() {
    call @run_write_ids() : () -> ()
    call @run_exp2_rows() : () -> ()
    call @run_decode_fp8() : () -> ()
    return
  }

  func.func private @printMemrefI32(memref<*xi32>) attributes {llvm.emit_c_interface}
  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
}
