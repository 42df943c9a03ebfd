//===- Memory.h - buffers, the LDS shadow and memory accesses --*- C++ -*-===//
//
// The memory of a run: the caller's buffers with their exact extents, host
// allocations and the LDS of the workgroup being run (buffer 0). The LDS
// shadow records per byte the last writer (wave, epoch) and the readers of
// the current epoch, which is what the race checks need; global buffers
// record per byte the workgroup that wrote it last.
//
// `MemAccess` is the one access engine of every load and store
// (memref.load/store, vector.load/store/transfer_*, amdgpu.raw_buffer_*):
// compiled by `compileMemoryAccess` (Memory.cpp), run by
// `Executor::memoryAccess`.
//
//===----------------------------------------------------------------------===//
#ifndef PA_LIB_EMULATOR_MEMORY_H
#define PA_LIB_EMULATOR_MEMORY_H

#include "Bytecode.h"

#include <string>
#include <vector>

namespace mlir::pa::emulator::detail {

class OpCompiler;

struct Buffer {
  uint8_t *data = nullptr;
  int64_t bytes = 0;
  bool readOnly = false;
  bool workgroup = false;
  std::string name;
  std::vector<uint8_t> storage; // owned memory (allocations, LDS)
  /// Per byte, the serial number of the workgroup that last wrote it
  /// (0: none); allocated when a kernel first writes the buffer.
  std::vector<uint32_t> writers;
};

struct LdsShadow {
  uint32_t writeEpoch = 0;
  uint32_t readEpoch = 0;
  uint16_t readers = 0; // waves that read the byte in readEpoch
  uint8_t writer = 0;
};

struct Memory {
  std::vector<Buffer> buffers;
  uint32_t ldsBuffer = 0;
  std::vector<LdsShadow> shadow;
  /// Barrier epochs: `epoch` advances at each barrier and workgroup,
  /// `workgroupEpoch` is the first of the current workgroup.
  uint32_t epoch = 0, workgroupEpoch = 0;
  /// Workgroups are numbered from 1 in the order they run; the first number
  /// of the current launch tells which writes belong to it.
  uint32_t workgroupSerial = 0, launchFirstSerial = 1;
};

/// A memory access: memref.load/store, vector.load/store,
/// vector.transfer_read/write (1-D, innermost dim), amdgpu.raw_buffer_*.
struct MemAccess : Payload {
  uint32_t memref = 0;
  llvm::SmallVector<uint32_t, 5> indices;
  ScalarKind indexKind = ScalarKind::I64; // i32 for raw buffer ops
  ScalarKind element = ScalarKind::I32;
  uint32_t elementBytes = 4;
  uint32_t count = 1; // consecutive elements
  uint32_t value = 0; // result (load) or stored value (store)
  bool store = false;
  /// Buffer-descriptor semantics (range checked against the descriptor).
  bool buffer = false;
  int64_t indexOffset = 0;
  int64_t sgprOffset = -1; // slot, or -1
  /// vector.transfer_*: elements outside the innermost dim are padding /
  /// skipped instead of errors (unless in_bounds).
  bool transfer = false;
  bool inBounds = true;
  uint32_t padding = 0; // slot of the padding value
};

/// Compiles a load (`value` its result) or a store (`value` stored) of
/// `valueType` at `indices` of `memref`; `info` carries the op's extras
/// (buffer semantics, transfer padding).
LogicalResult compileMemoryAccess(OpCompiler &compiler, Operation *op,
                                  Value memref, ValueRange indices, Value value,
                                  Type valueType, bool store,
                                  MemAccess info = {});

uint64_t loadElement(const uint8_t *at, uint32_t bytes);
void storeElement(uint8_t *at, uint32_t bytes, uint64_t word);

} // namespace mlir::pa::emulator::detail

#endif // PA_LIB_EMULATOR_MEMORY_H
