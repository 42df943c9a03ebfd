//===- Memory.cpp - loads, stores and their checks ------------------------===//
#include "Compiler.h"
#include "Executor.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::pa::emulator;
using namespace mlir::pa::emulator::detail;

uint64_t mlir::pa::emulator::detail::loadElement(const uint8_t *at,
                                                 uint32_t bytes) {
  switch (bytes) {
  case 1:
    return *at;
  case 2: {
    uint16_t v;
    std::memcpy(&v, at, 2);
    return v;
  }
  case 4: {
    uint32_t v;
    std::memcpy(&v, at, 4);
    return v;
  }
  default: {
    uint64_t v;
    std::memcpy(&v, at, 8);
    return v;
  }
  }
}

void mlir::pa::emulator::detail::storeElement(uint8_t *at, uint32_t bytes,
                                              uint64_t word) {
  switch (bytes) {
  case 1:
    *at = uint8_t(word);
    return;
  case 2: {
    uint16_t v = uint16_t(word);
    std::memcpy(at, &v, 2);
    return;
  }
  case 4: {
    uint32_t v = uint32_t(word);
    std::memcpy(at, &v, 4);
    return;
  }
  default:
    std::memcpy(at, &word, 8);
    return;
  }
}

namespace {

Step executeMemoryAccess(Executor &ex, Wave &wave, const Instr &in) {
  return ex.memoryAccess(wave, in);
}

bool isBufferMemRef(MemRefType type) {
  auto space =
      dyn_cast_or_null<amdgpu::AddressSpaceAttr>(type.getMemorySpace());
  return space && space.getValue() == amdgpu::AddressSpace::FatRawBuffer;
}

/// The LDS shadow: a race or a read of an unwritten byte is an error.
Step checkLds(Executor &ex, Wave &wave, const Instr &in, int lane,
              int64_t offset, uint32_t bytes, bool store) {
  Memory &memory = ex.memory;
  const uint32_t epoch = memory.epoch;
  const uint16_t self = uint16_t(1u << wave.index);
  for (int64_t byte = offset; byte < offset + bytes; ++byte) {
    LdsShadow &s = memory.shadow[size_t(byte)];
    if (store) {
      if (s.writeEpoch == epoch && s.writer != wave.index)
        return ex.fail(&wave, in, lane,
                       "LDS race: wave " + Twine(wave.index) + " writes " +
                           ex.describeLds(byte) + ", which wave " +
                           Twine(unsigned(s.writer)) +
                           " wrote since the last barrier");
      if (s.readEpoch == epoch && (s.readers & ~self)) {
        int reader = llvm::countr_zero(unsigned(s.readers & ~self));
        return ex.fail(&wave, in, lane,
                       "LDS race: wave " + Twine(wave.index) + " writes " +
                           ex.describeLds(byte) + ", which wave " +
                           Twine(reader) + " read since the last barrier");
      }
      s.writer = uint8_t(wave.index);
      s.writeEpoch = epoch;
    } else {
      if (ex.options.checkUninitializedLds &&
          s.writeEpoch < memory.workgroupEpoch)
        return ex.fail(&wave, in, lane,
                       "read of " + ex.describeLds(byte) +
                           ", which no wave of this workgroup has written");
      if (s.writeEpoch == epoch && s.writer != wave.index)
        return ex.fail(&wave, in, lane,
                       "LDS race: wave " + Twine(wave.index) + " reads " +
                           ex.describeLds(byte) + ", which wave " +
                           Twine(unsigned(s.writer)) +
                           " wrote since the last barrier (missing barrier?)");
      if (s.readEpoch != epoch) {
        s.readEpoch = epoch;
        s.readers = 0;
      }
      s.readers |= self;
    }
  }
  return Step::Next;
}

/// Workgroups of one launch are not ordered: a byte of global memory one
/// of them writes must not be read or written by another.
Step checkGlobal(Executor &ex, Wave &wave, const Instr &in, int lane,
                 Buffer &buffer, int64_t offset, uint32_t bytes,
                 const MemAccess &access, const uint64_t *frame,
                 const uint64_t *memref) {
  const bool store = access.store;
  if (!ex.current->isKernel || (buffer.writers.empty() && !store))
    return Step::Next;
  if (buffer.writers.empty())
    buffer.writers.assign(size_t(buffer.bytes), 0);
  const Memory &memory = ex.memory;
  for (int64_t byte = offset; byte < offset + bytes; ++byte) {
    uint32_t &writer = buffer.writers[size_t(byte)];
    if (writer >= memory.launchFirstSerial && writer != memory.workgroupSerial)
      return ex.fail(
          &wave, in, lane,
          "global memory race: this " +
              ex.describeAccess(access, frame, memref) + " touches byte " +
              Twine(byte) + " of '" + buffer.name + "', which workgroup " +
              ex.workgroupOf(writer) + " wrote during the same launch");
    if (store)
      writer = memory.workgroupSerial;
  }
  return Step::Next;
}

} // namespace

LogicalResult mlir::pa::emulator::detail::compileMemoryAccess(
    OpCompiler &compiler, Operation *op, Value memref, ValueRange indices,
    Value value, Type valueType, bool store, MemAccess info) {
  auto type = cast<MemRefType>(memref.getType());
  FailureOr<ScalarKind> element = compiler.kindOf(op, type.getElementType());
  if (failed(element))
    return failure();
  if (isa<VectorType>(valueType) && cast<VectorType>(valueType).getRank() != 1)
    return compiler.fail(op, "only 1-D vectors are loaded and stored");
  info.memref = compiler.use(memref);
  for (Value index : indices)
    info.indices.push_back(compiler.use(index));
  info.element = *element;
  info.elementBytes = storageBytes(*element);
  info.count = elementCount(valueType);
  info.store = store;
  info.buffer = info.buffer || isBufferMemRef(type);
  if (store) {
    info.value = compiler.use(value);
  } else {
    FailureOr<uint32_t> dst = compiler.define(value, op);
    if (failed(dst))
      return failure();
    info.value = *dst;
  }
  size_t instr = compiler.emit(executeMemoryAccess, op);
  compiler.attach(instr, std::move(info));
  return success();
}

uint32_t Executor::allocate(int64_t bytes, uint8_t fill) {
  Buffer buffer;
  buffer.storage.assign(size_t(bytes), fill);
  buffer.data = buffer.storage.data();
  buffer.bytes = bytes;
  buffer.name = "memref.alloc #" + std::to_string(memory.buffers.size());
  memory.buffers.push_back(std::move(buffer));
  return uint32_t(memory.buffers.size() - 1);
}

Step Executor::memoryAccess(Wave &wave, const Instr &in) {
  const MemAccess &access = in.get<MemAccess>();
  const size_t rank = access.indices.size();
  const uint32_t bytes = access.elementBytes;
  Step status = Step::Next;
  firstFailingLane(wave, [&](int lane, uint64_t *f) {
    const uint64_t *memref = f + access.memref;
    Buffer &buffer = memory.buffers[memref[kBuffer]];
    const int64_t *sizes = reinterpret_cast<const int64_t *>(memref + kSizes);
    const int64_t *strides = sizes + rank;
    const bool lenientBuffer = access.buffer && !options.strictBufferBounds;
    int64_t linear = int64_t(memref[kOffset]);
    int64_t firstInner = 0; // innermost index
    for (size_t d = 0; d < rank; ++d) {
      uint64_t raw = f[access.indices[d]];
      int64_t index = access.indexKind == ScalarKind::I32
                          ? int64_t(int32_t(raw))
                          : int64_t(raw);
      bool inner = d + 1 == rank;
      int64_t last =
          inner && !access.transfer ? index + access.count - 1 : index;
      bool inside = index >= 0 && last < sizes[d];
      if (inner && access.transfer && !access.inBounds)
        inside = true; // element-wise below
      if (!inside && !lenientBuffer) {
        status = fail(
            &wave, in, lane,
            Twine("out-of-bounds ") + (access.buffer ? "buffer " : "") +
                describeAccess(access, f, memref) + " (dim " + Twine(d) + ")");
        return false;
      }
      if (inner)
        firstInner = index;
      linear += index * strides[d];
    }
    linear += access.indexOffset;
    if (access.sgprOffset >= 0)
      linear += int64_t(int32_t(f[access.sgprOffset]));
    const int64_t innerStride = rank ? strides[rank - 1] : 1;
    const int64_t innerSize = rank ? sizes[rank - 1] : 1;

    // The range of an AMD buffer descriptor: explicit (fat_raw_buffer_cast)
    // or, for raw_buffer ops on plain memrefs, the memref's extent.
    int64_t descriptorBase = 0, descriptorBytes = -1;
    if (access.buffer) {
      descriptorBase = int64_t(memref[kDescriptorBase]);
      descriptorBytes = int64_t(memref[kDescriptorBytes]);
      if (descriptorBytes < 0) {
        descriptorBase = 0;
        descriptorBytes = 0;
        for (size_t d = 0; d < rank; ++d)
          descriptorBytes =
              std::max(descriptorBytes, sizes[d] * strides[d] * bytes);
      }
    }
    for (uint32_t e = 0; e < access.count; ++e) {
      int64_t element = linear + int64_t(e) * innerStride;
      uint64_t &word = f[access.value + e];
      if (access.transfer && !access.inBounds) {
        int64_t index = firstInner + e;
        if (index < 0 || index >= innerSize) {
          if (!access.store)
            word = f[access.padding];
          continue;
        }
      }
      if (access.buffer) {
        int64_t relative = (element - descriptorBase) * int64_t(bytes);
        if (relative < 0 || relative + bytes > descriptorBytes) {
          if (options.strictBufferBounds) {
            status =
                fail(&wave, in, lane,
                     "out-of-bounds buffer " +
                         describeAccess(access, f, memref) + ": byte " +
                         Twine(relative) + " is outside the descriptor's " +
                         Twine(descriptorBytes) + " bytes");
            return false;
          }
          ++stats.maskedBufferAccesses;
          if (!access.store)
            word = 0; // the hardware returns 0 and drops the store
          continue;
        }
      }
      int64_t offset = element * int64_t(bytes);
      if (offset < 0 || offset + bytes > buffer.bytes) {
        status = fail(&wave, in, lane,
                      describeAccess(access, f, memref) +
                          " reaches outside the memory of '" + buffer.name +
                          "' (byte " + Twine(offset) + " of " +
                          Twine(buffer.bytes) + ")");
        return false;
      }
      if (access.store && buffer.readOnly) {
        status = fail(&wave, in, lane,
                      "store to read-only memory '" + buffer.name + "'");
        return false;
      }
      if ((buffer.workgroup
               ? checkLds(*this, wave, in, lane, offset, bytes, access.store)
               : checkGlobal(*this, wave, in, lane, buffer, offset, bytes,
                             access, f, memref)) == Step::Failed) {
        status = Step::Failed;
        return false;
      }
      if (access.store)
        storeElement(buffer.data + offset, bytes, word);
      else
        word = loadElement(buffer.data + offset, bytes);
    }
    return true;
  });
  return status;
}
