//===- Executor.cpp - running the bytecode wave by wave -------------------===//
//
// The host function runs on one lane; each gpu.launch_func runs its grid one
// workgroup after the other. A workgroup's waves take turns: each runs until
// it reaches a barrier or returns, then the next; when every wave waits at
// the same barrier, the barrier epoch advances and they all resume. The LDS
// shadow records per byte the last writer (wave, epoch) and the readers of
// the current epoch, which is what the race checks need.
//
//===----------------------------------------------------------------------===//
#include "Bytecode.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;
using namespace mlir::pa::emulator;
using namespace mlir::pa::emulator::detail;

namespace {

constexpr int kLanes = kWaveSize;
constexpr uint64_t kAllLanes = ~uint64_t(0);

uint64_t lowMask(unsigned bits) {
  return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
}
int64_t signExtend(uint64_t value, unsigned bits) {
  return bits >= 64 ? int64_t(value)
                    : int64_t(value << (64 - bits)) >> (64 - bits);
}
float asFloat(uint64_t word) {
  uint32_t bits = uint32_t(word);
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}
double asDouble(uint64_t word) {
  double value;
  std::memcpy(&value, &word, 8);
  return value;
}
uint64_t wordOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}
uint64_t wordOf(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, 8);
  return bits;
}

/// The f32 / f64 (or exactly widened small float) value of an element.
double floatValue(ScalarKind kind, uint64_t word) {
  switch (kind) {
  case ScalarKind::F32:
    return asFloat(word);
  case ScalarKind::F64:
    return asDouble(word);
  default:
    return smallFloatToF32(kind, uint32_t(word));
  }
}

template <typename T> T maximumOf(T x, T y) {
  if (std::isnan(x) || std::isnan(y))
    return std::numeric_limits<T>::quiet_NaN();
  if (x == 0 && y == 0)
    return std::signbit(x) ? y : x;
  return x > y ? x : y;
}
template <typename T> T minimumOf(T x, T y) {
  if (std::isnan(x) || std::isnan(y))
    return std::numeric_limits<T>::quiet_NaN();
  if (x == 0 && y == 0)
    return std::signbit(x) ? x : y;
  return x < y ? x : y;
}

bool compareFloats(arith::CmpFPredicate predicate, double x, double y) {
  bool unordered = std::isnan(x) || std::isnan(y);
  using P = arith::CmpFPredicate;
  switch (predicate) {
  case P::AlwaysFalse:
    return false;
  case P::OEQ:
    return !unordered && x == y;
  case P::OGT:
    return !unordered && x > y;
  case P::OGE:
    return !unordered && x >= y;
  case P::OLT:
    return !unordered && x < y;
  case P::OLE:
    return !unordered && x <= y;
  case P::ONE:
    return !unordered && x != y;
  case P::ORD:
    return !unordered;
  case P::UEQ:
    return unordered || x == y;
  case P::UGT:
    return unordered || x > y;
  case P::UGE:
    return unordered || x >= y;
  case P::ULT:
    return unordered || x < y;
  case P::ULE:
    return unordered || x <= y;
  case P::UNE:
    return unordered || x != y;
  case P::UNO:
    return unordered;
  case P::AlwaysTrue:
    return true;
  }
  return false;
}

bool compareIntegers(arith::CmpIPredicate predicate, uint64_t x, uint64_t y,
                     unsigned bits) {
  int64_t sx = signExtend(x, bits), sy = signExtend(y, bits);
  using P = arith::CmpIPredicate;
  switch (predicate) {
  case P::eq:
    return x == y;
  case P::ne:
    return x != y;
  case P::slt:
    return sx < sy;
  case P::sle:
    return sx <= sy;
  case P::sgt:
    return sx > sy;
  case P::sge:
    return sx >= sy;
  case P::ult:
    return x < y;
  case P::ule:
    return x <= y;
  case P::ugt:
    return x > y;
  case P::uge:
    return x >= y;
  }
  return false;
}

uint64_t loadElement(const uint8_t *at, uint32_t bytes) {
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

void storeElement(uint8_t *at, uint32_t bytes, uint64_t word) {
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

int64_t evaluate(AffineExpr expr, ArrayRef<int64_t> dims,
                 ArrayRef<int64_t> symbols) {
  auto floorDiv = [](int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
  };
  switch (expr.getKind()) {
  case AffineExprKind::Constant:
    return cast<AffineConstantExpr>(expr).getValue();
  case AffineExprKind::DimId:
    return dims[cast<AffineDimExpr>(expr).getPosition()];
  case AffineExprKind::SymbolId:
    return symbols[cast<AffineSymbolExpr>(expr).getPosition()];
  default:
    break;
  }
  auto binary = cast<AffineBinaryOpExpr>(expr);
  int64_t l = evaluate(binary.getLHS(), dims, symbols);
  int64_t r = evaluate(binary.getRHS(), dims, symbols);
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return l + r;
  case AffineExprKind::Mul:
    return l * r;
  case AffineExprKind::FloorDiv:
    return floorDiv(l, r);
  case AffineExprKind::CeilDiv:
    return -floorDiv(-l, r);
  case AffineExprKind::Mod: {
    int64_t m = l % r;
    return m < 0 ? m + r : m;
  }
  default:
    return 0;
  }
}

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

/// Exec mask saved by If / For / While, and the else-mask of an If.
struct MaskFrame {
  uint64_t saved = 0;
  uint64_t other = 0;
};

struct Wave {
  uint32_t index = 0;
  uint32_t frameWords = 0;
  uint64_t exec = 0;
  uint64_t launched = 0;
  size_t pc = 0;
  enum class State { Running, AtBarrier, Done } state = State::Running;
  std::vector<uint64_t> regs;
  std::vector<MaskFrame> frames;

  uint64_t *frame(int lane) {
    return regs.data() + size_t(lane) * frameWords;
  }
  void reset(uint32_t words, uint64_t lanes) {
    frameWords = words;
    if (regs.size() < size_t(words) * kLanes)
      regs.resize(size_t(words) * kLanes);
    exec = launched = lanes;
    pc = 0;
    state = State::Running;
    frames.clear();
  }
};

struct LdsShadow {
  uint32_t writeEpoch = 0;
  uint32_t readEpoch = 0;
  uint16_t readers = 0; // waves that read the byte in readEpoch
  uint8_t writer = 0;
};

class Executor {
public:
  Executor(const ProgramImpl &program, std::string &error, Stats &stats)
      : program(program), options(program.options), error(error),
        stats(stats) {}

  LogicalResult run(const Function &host, ArrayRef<MemRefBinding> arguments);

private:
  enum class Status { Done, Barrier, Failed };

  const ProgramImpl &program;
  const Options &options;
  std::string &error;
  Stats &stats;
  std::vector<Buffer> buffers;
  uint32_t ldsBuffer = 0;
  std::vector<LdsShadow> shadow;
  uint32_t epoch = 0, workgroupEpoch = 0;
  /// Workgroups are numbered from 1 in the order they run; the first number
  /// of the current launch tells which writes belong to it.
  uint32_t workgroupSerial = 0, launchFirstSerial = 1;

  // Where we are, for diagnostics and the gpu index ops.
  const Function *current = nullptr;
  std::array<int64_t, 3> gridSize{1, 1, 1}, blockSize{1, 1, 1};
  std::array<int64_t, 3> blockId{0, 0, 0};
  std::vector<Wave> waves;
  std::vector<uint64_t> scratch;
  uint64_t waveInstructions = 0, laneInstructions = 0;

  //===------------------------------------------------------------------===//
  // Diagnostics
  //===------------------------------------------------------------------===//

  std::string where(const Wave *wave, int lane) const {
    std::string text;
    llvm::raw_string_ostream os(text);
    if (current && current->isKernel) {
      os << "kernel @" << current->name << ", workgroup (" << blockId[0]
         << ", " << blockId[1] << ", " << blockId[2] << ")";
      if (wave)
        os << ", wave " << wave->index;
      if (wave && lane >= 0)
        os << ", lane " << lane << " (thread "
           << wave->index * kLanes + uint32_t(lane) << ")";
    } else if (current) {
      os << "host function @" << current->name;
    }
    return text;
  }

  Status fail(const Wave *wave, const Instr &instr, int lane,
              const Twine &message) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "emulator: " << message;
    if (instr.op) {
      os << "\n  at '" << instr.op->getName() << "' ";
      instr.op->getLoc().print(os);
      // Generated kernels share one location: the op itself (its types and
      // attributes) tells which one it is.
      if (!isa<FileLineColLoc>(instr.op->getLoc())) {
        std::string text;
        llvm::raw_string_ostream opText(text);
        instr.op->print(opText, OpPrintingFlags()
                                    .skipRegions()
                                    .elideLargeElementsAttrs()
                                    .useLocalScope());
        if (text.size() > 240)
          text = text.substr(0, 240) + "...";
        os << "\n  op: " << text;
      }
    }
    os << "\n  in " << where(wave, lane);
    error = text;
    return Status::Failed;
  }

  /// The grid coordinates of workgroup `serial` of the current launch.
  std::string workgroupOf(uint32_t serial) const {
    int64_t index = int64_t(serial - launchFirstSerial);
    int64_t x = index % gridSize[0], y = index / gridSize[0] % gridSize[1];
    int64_t z = index / (gridSize[0] * gridSize[1]);
    return "(" + std::to_string(x) + ", " + std::to_string(y) + ", " +
           std::to_string(z) + ")";
  }

  /// Workgroups of one launch are not ordered: a byte of global memory one
  /// of them writes must not be read or written by another.
  Status checkGlobal(Wave &wave, const Instr &in, int lane, Buffer &buffer,
                     int64_t offset, uint32_t bytes, const MemAccess &access,
                     const uint64_t *frame, const uint64_t *memref) {
    const bool store = access.store;
    if (!current->isKernel || (buffer.writers.empty() && !store))
      return Status::Done;
    if (buffer.writers.empty())
      buffer.writers.assign(size_t(buffer.bytes), 0);
    for (int64_t byte = offset; byte < offset + bytes; ++byte) {
      uint32_t &writer = buffer.writers[size_t(byte)];
      if (writer >= launchFirstSerial && writer != workgroupSerial)
        return fail(&wave, in, lane,
                    "global memory race: this " +
                        describeAccess(access, frame, memref) +
                        " touches byte " +
                        Twine(byte) + " of '" + buffer.name +
                        "', which workgroup " + workgroupOf(writer) +
                        " wrote during the same launch");
      if (store)
        writer = workgroupSerial;
    }
    return Status::Done;
  }

  /// The attribution of LDS byte `offset` and the element index in it.
  std::string describeLds(int64_t offset) const {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "byte " << offset << " of workgroup memory";
    if (!current)
      return text;
    for (auto [i, attribution] : llvm::enumerate(current->workgroupMemory)) {
      int64_t elements = 1;
      for (int64_t size : attribution.sizes)
        elements *= size;
      int64_t begin = attribution.byteOffset;
      int64_t end = begin + elements * attribution.elementBytes;
      if (offset < begin || offset >= end)
        continue;
      int64_t element = (offset - begin) / attribution.elementBytes;
      os << " (workgroup attribution #" << i << ", element [";
      for (size_t d = 0; d < attribution.sizes.size(); ++d)
        os << (d ? ", " : "")
           << element / attribution.strides[d] % attribution.sizes[d];
      os << "])";
    }
    return text;
  }

  //===------------------------------------------------------------------===//
  // Lane iteration
  //===------------------------------------------------------------------===//

  template <typename F> static void forLanes(Wave &wave, F &&f) {
    uint64_t mask = wave.exec;
    while (mask) {
      int lane = llvm::countr_zero(mask);
      mask &= mask - 1;
      f(lane, wave.frame(lane));
    }
  }

  /// Runs `f(lane, frame)` on the active lanes until it returns false.
  template <typename F> static int firstFailingLane(Wave &wave, F &&f) {
    uint64_t mask = wave.exec;
    while (mask) {
      int lane = llvm::countr_zero(mask);
      mask &= mask - 1;
      if (!f(lane, wave.frame(lane)))
        return lane;
    }
    return -1;
  }

  template <typename F> void integerBinary(Wave &wave, const Instr &in, F f) {
    const unsigned bits = bitWidth(in.kind);
    const uint64_t mask = lowMask(bits);
    forLanes(wave, [&](int, uint64_t *r) {
      for (uint32_t e = 0; e < in.count; ++e)
        r[in.dst + e] = f(r[in.a + e], r[in.b + e], bits) & mask;
    });
  }

  template <typename F> void floatUnary(Wave &wave, const Instr &in, F f) {
    if (in.kind == ScalarKind::F32)
      forLanes(wave, [&](int, uint64_t *r) {
        for (uint32_t e = 0; e < in.count; ++e)
          r[in.dst + e] = wordOf(float(f(asFloat(r[in.a + e]))));
      });
    else
      forLanes(wave, [&](int, uint64_t *r) {
        for (uint32_t e = 0; e < in.count; ++e)
          r[in.dst + e] = wordOf(double(f(asDouble(r[in.a + e]))));
      });
  }

  template <typename F> void floatBinary(Wave &wave, const Instr &in, F f) {
    if (in.kind == ScalarKind::F32)
      forLanes(wave, [&](int, uint64_t *r) {
        for (uint32_t e = 0; e < in.count; ++e)
          r[in.dst + e] =
              wordOf(float(f(asFloat(r[in.a + e]), asFloat(r[in.b + e]))));
      });
    else
      forLanes(wave, [&](int, uint64_t *r) {
        for (uint32_t e = 0; e < in.count; ++e)
          r[in.dst + e] =
              wordOf(double(f(asDouble(r[in.a + e]), asDouble(r[in.b + e]))));
      });
  }

  /// Integer ops that can fault (division, shifts).
  template <typename F>
  Status checkedIntegerBinary(Wave &wave, const Instr &in, const char *what,
                              F f) {
    const unsigned bits = bitWidth(in.kind);
    const uint64_t mask = lowMask(bits);
    int lane = firstFailingLane(wave, [&](int, uint64_t *r) {
      for (uint32_t e = 0; e < in.count; ++e) {
        uint64_t result;
        if (!f(r[in.a + e], r[in.b + e], bits, result))
          return false;
        r[in.dst + e] = result & mask;
      }
      return true;
    });
    if (lane >= 0)
      return fail(&wave, in, lane, what);
    return Status::Done;
  }

  //===------------------------------------------------------------------===//
  // Memory
  //===------------------------------------------------------------------===//

  Status checkLds(Wave &wave, const Instr &in, int lane, int64_t offset,
                  uint32_t bytes, bool store) {
    const uint16_t self = uint16_t(1u << wave.index);
    for (int64_t byte = offset; byte < offset + bytes; ++byte) {
      LdsShadow &s = shadow[size_t(byte)];
      if (store) {
        if (s.writeEpoch == epoch && s.writer != wave.index)
          return fail(&wave, in, lane,
                      "LDS race: wave " + Twine(wave.index) + " writes " +
                          describeLds(byte) + ", which wave " +
                          Twine(unsigned(s.writer)) +
                          " wrote since the last barrier");
        if (s.readEpoch == epoch && (s.readers & ~self)) {
          int reader = llvm::countr_zero(unsigned(s.readers & ~self));
          return fail(&wave, in, lane,
                      "LDS race: wave " + Twine(wave.index) + " writes " +
                          describeLds(byte) + ", which wave " +
                          Twine(reader) + " read since the last barrier");
        }
        s.writer = uint8_t(wave.index);
        s.writeEpoch = epoch;
      } else {
        if (options.checkUninitializedLds && s.writeEpoch < workgroupEpoch)
          return fail(&wave, in, lane,
                      "read of " + describeLds(byte) +
                          ", which no wave of this workgroup has written");
        if (s.writeEpoch == epoch && s.writer != wave.index)
          return fail(&wave, in, lane,
                      "LDS race: wave " + Twine(wave.index) + " reads " +
                          describeLds(byte) + ", which wave " +
                          Twine(unsigned(s.writer)) +
                          " wrote since the last barrier (missing barrier?)");
        if (s.readEpoch != epoch) {
          s.readEpoch = epoch;
          s.readers = 0;
        }
        s.readers |= self;
      }
    }
    return Status::Done;
  }

  std::string describeAccess(const MemAccess &access, const uint64_t *frame,
                             const uint64_t *memref) {
    std::string text;
    llvm::raw_string_ostream os(text);
    const Buffer &buffer = buffers[memref[kBuffer]];
    const size_t rank = access.indices.size();
    os << (access.store ? "store to '" : "load from '") << buffer.name
       << "'[";
    for (size_t d = 0; d < rank; ++d) {
      uint64_t raw = frame[access.indices[d]];
      os << (d ? ", " : "")
         << (access.indexKind == ScalarKind::I32 ? int64_t(int32_t(raw))
                                                 : int64_t(raw));
    }
    os << "]";
    if (access.count > 1)
      os << " (" << access.count << " elements)";
    os << " of a memref with sizes [";
    for (size_t d = 0; d < rank; ++d)
      os << (d ? ", " : "") << int64_t(memref[kSizes + d]);
    os << "]";
    return text;
  }

  Status memoryAccess(Wave &wave, const Instr &in) {
    const MemAccess &access = current->accesses[in.aux];
    const size_t rank = access.indices.size();
    const uint32_t bytes = access.elementBytes;
    Status status = Status::Done;
    firstFailingLane(wave, [&](int lane, uint64_t *f) {
      const uint64_t *memref = f + access.memref;
      Buffer &buffer = buffers[memref[kBuffer]];
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
        int64_t last = inner && !access.transfer ? index + access.count - 1
                                                 : index;
        bool inside = index >= 0 && last < sizes[d];
        if (inner && access.transfer && !access.inBounds)
          inside = true; // element-wise below
        if (!inside && !lenientBuffer) {
          status = fail(&wave, in, lane,
                        Twine("out-of-bounds ") +
                            (access.buffer ? "buffer " : "") +
                            describeAccess(access, f, memref) + " (dim " +
                            Twine(d) + ")");
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
              status = fail(&wave, in, lane,
                            "out-of-bounds buffer " +
                                describeAccess(access, f, memref) +
                                ": byte " + Twine(relative) +
                                " is outside the descriptor's " +
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
        if (buffer.workgroup
                ? checkLds(wave, in, lane, offset, bytes, access.store) ==
                      Status::Failed
                : checkGlobal(wave, in, lane, buffer, offset, bytes, access,
                              f, memref) ==
                      Status::Failed) {
          status = Status::Failed;
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

  int64_t operandValue(const IndexOperand &operand, const uint64_t *frame) {
    return operand.isSlot ? int64_t(frame[operand.value]) : operand.value;
  }

  Status view(Wave &wave, const Instr &in) {
    const ViewInfo &info = current->views[in.aux];
    Status status = Status::Done;
    firstFailingLane(wave, [&](int lane, uint64_t *f) {
      const uint64_t *src = f + info.source;
      uint64_t *dst = f + in.dst;
      const int64_t *sizes = reinterpret_cast<const int64_t *>(src + kSizes);
      const int64_t *strides = sizes + info.sourceRank;
      int64_t *outSizes = reinterpret_cast<int64_t *>(dst + kSizes);
      int64_t *outStrides = outSizes + info.resultRank;
      dst[kBuffer] = src[kBuffer];
      dst[kDescriptorBase] = src[kDescriptorBase];
      dst[kDescriptorBytes] = src[kDescriptorBytes];
      switch (info.kind) {
      case ViewKind::SubView: {
        int64_t offset = int64_t(src[kOffset]);
        unsigned out = 0;
        for (unsigned d = 0; d < info.sourceRank; ++d) {
          int64_t start = operandValue(info.offsets[d], f);
          int64_t size = operandValue(info.sizes[d], f);
          int64_t step = operandValue(info.strides[d], f);
          if (start < 0 || size < 0 ||
              (size > 0 && start + (size - 1) * step >= sizes[d])) {
            status = fail(&wave, in, lane,
                          "subview [" + Twine(start) + ", size " +
                              Twine(size) + ", stride " + Twine(step) +
                              "] of dim " + Twine(d) + " (size " +
                              Twine(sizes[d]) + ") is out of bounds");
            return false;
          }
          offset += start * strides[d];
          if (info.dropped[d])
            continue;
          outSizes[out] = size;
          outStrides[out] = strides[d] * step;
          ++out;
        }
        dst[kOffset] = uint64_t(offset);
        return true;
      }
      case ViewKind::ReinterpretCast:
        dst[kOffset] = uint64_t(operandValue(info.offsets[0], f));
        for (unsigned d = 0; d < info.resultRank; ++d) {
          outSizes[d] = operandValue(info.sizes[d], f);
          outStrides[d] = operandValue(info.strides[d], f);
        }
        return true;
      case ViewKind::ExpandShape:
        dst[kOffset] = src[kOffset];
        for (unsigned d = 0; d < info.sourceRank; ++d) {
          int64_t stride = strides[d];
          int64_t product = 1;
          const auto &group = info.groups[d];
          for (size_t i = group.size(); i-- > 0;) {
            int64_t size = operandValue(info.sizes[group[i]], f);
            outSizes[group[i]] = size;
            outStrides[group[i]] = stride;
            stride *= size;
            product *= size;
          }
          if (product != sizes[d]) {
            status = fail(&wave, in, lane,
                          "expand_shape of dim " + Twine(d) + " (size " +
                              Twine(sizes[d]) + ") into sizes of product " +
                              Twine(product));
            return false;
          }
        }
        return true;
      case ViewKind::CollapseShape:
        dst[kOffset] = src[kOffset];
        for (unsigned d = 0; d < info.resultRank; ++d) {
          const auto &group = info.groups[d];
          int64_t size = 1;
          for (int64_t source : group)
            size *= sizes[source];
          outSizes[d] = size;
          outStrides[d] = group.empty() ? 1 : strides[group.back()];
        }
        return true;
      }
      return true;
    });
    return status;
  }

  //===------------------------------------------------------------------===//
  // Cross-lane ops
  //===------------------------------------------------------------------===//

  Status shuffle(Wave &wave, const Instr &in) {
    // As the ROCDL lowering computes it: lanes past the end of the lane's
    // `width` segment read their own value and are not valid.
    Status status = Status::Done;
    firstFailingLane(wave, [&](int lane, uint64_t *f) {
      int32_t offset = int32_t(f[in.b]), width = int32_t(f[in.c]);
      int32_t end = (lane + width) & -width;
      int32_t source = 0;
      switch (gpu::ShuffleMode(in.mode)) {
      case gpu::ShuffleMode::XOR:
        source = lane ^ offset;
        break;
      case gpu::ShuffleMode::DOWN:
        source = lane + offset;
        break;
      case gpu::ShuffleMode::UP:
        source = lane - offset;
        break;
      case gpu::ShuffleMode::IDX:
        source = offset;
        break;
      }
      bool valid = source < end;
      int from = (valid ? source : lane) & (kLanes - 1);
      if (!(wave.exec >> from & 1)) {
        status = fail(&wave, in, lane,
                      "gpu.shuffle reads lane " + Twine(from) +
                          ", which is not active");
        return false;
      }
      const uint64_t *sourceFrame = wave.frame(from);
      for (uint32_t e = 0; e < in.count; ++e)
        f[in.dst + e] = sourceFrame[in.a + e];
      f[in.imm] = valid;
      return true;
    });
    return status;
  }

  Status dpp(Wave &wave, const Instr &in) {
    const DPPInfo &info = current->dpps[in.aux];
    // Sources first: every lane reads its source before any lane writes.
    std::array<int, kLanes> sources;
    for (int lane = 0; lane < kLanes; ++lane) {
      int row = lane & ~15, inRow = lane & 15;
      int source = -1;
      int64_t arg = info.argument.empty() ? 0 : info.argument[0];
      switch (amdgpu::DPPPerm(info.kind)) {
      case amdgpu::DPPPerm::quad_perm:
        source = (lane & ~3) + int(info.argument[lane & 3]);
        break;
      case amdgpu::DPPPerm::row_shl:
        source = inRow + arg < 16 ? lane + int(arg) : -1;
        break;
      case amdgpu::DPPPerm::row_shr:
        source = inRow - arg >= 0 ? lane - int(arg) : -1;
        break;
      case amdgpu::DPPPerm::row_ror:
        source = row + int((inRow - arg + 16) % 16);
        break;
      case amdgpu::DPPPerm::row_mirror:
        source = row + 15 - inRow;
        break;
      case amdgpu::DPPPerm::row_half_mirror:
        source = (lane & ~7) + 7 - (lane & 7);
        break;
      case amdgpu::DPPPerm::row_bcast_15:
        source = row ? row - 1 : -1;
        break;
      case amdgpu::DPPPerm::row_bcast_31:
        source = lane >= 32 ? 31 : -1;
        break;
      default:
        break;
      }
      if (source >= 0 && !(wave.exec >> source & 1))
        source = -1; // disabled source lanes are invalid
      sources[lane] = source;
    }
    uint64_t *temp = scratchFor(size_t(info.words) * kLanes);
    forLanes(wave, [&](int lane, uint64_t *f) {
      for (uint32_t e = 0; e < info.words; ++e)
        temp[size_t(lane) * info.words + e] =
            sources[lane] >= 0 ? wave.frame(sources[lane])[info.src + e] : 0;
    });
    forLanes(wave, [&](int lane, uint64_t *f) {
      bool enabled = (info.rowMask >> (lane >> 4) & 1) &&
                     (info.bankMask >> ((lane >> 2) & 3) & 1);
      for (uint32_t e = 0; e < info.words; ++e) {
        uint64_t value = f[info.old + e];
        if (enabled && sources[lane] >= 0)
          value = temp[size_t(lane) * info.words + e];
        else if (enabled && info.boundCtrl)
          value = 0;
        f[info.dst + e] = value;
      }
    });
    return Status::Done;
  }

  Status mfma(Wave &wave, const Instr &in) {
    const MFMAInfo &info = current->mfmas[in.aux];
    const MFMAInstruction &mfma = info.instruction;
    if (wave.exec != kAllLanes)
      return fail(&wave, in, -1,
                  "amdgpu.mfma needs all 64 lanes of the wave active (exec "
                  "mask 0x" + llvm::utohexstr(wave.exec) + ")");
    ++stats.mfmas;
    const int m = mfma.m, n = mfma.n, k = mfma.k;
    std::vector<double> a(size_t(m * k)), b(size_t(k * n));
    for (int row = 0; row < m; ++row)
      for (int kk = 0; kk < k; ++kk) {
        LaneElement at = mfmaOperandPosition(mfma, row, kk);
        a[size_t(row * k + kk)] = floatValue(
            mfma.input, wave.frame(at.lane)[info.a + uint32_t(at.element)]);
      }
    for (int kk = 0; kk < k; ++kk)
      for (int col = 0; col < n; ++col) {
        LaneElement at = mfmaOperandPosition(mfma, col, kk);
        b[size_t(kk * n + col)] = floatValue(
            mfma.input, wave.frame(at.lane)[info.b + uint32_t(at.element)]);
      }
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        LaneElement at = mfmaAccumulatorPosition(mfma, i, j);
        uint64_t *f = wave.frame(at.lane);
        double sum = asFloat(f[info.c + uint32_t(at.element)]);
        for (int kk = 0; kk < k; ++kk)
          sum += a[size_t(i * k + kk)] * b[size_t(kk * n + j)];
        f[info.dst + uint32_t(at.element)] = wordOf(float(sum));
      }
    return Status::Done;
  }

  uint64_t *scratchFor(size_t words) {
    if (scratch.size() < words)
      scratch.resize(words);
    return scratch.data();
  }

  //===------------------------------------------------------------------===//
  // Vectors
  //===------------------------------------------------------------------===//

  /// Offset of `positions` in a row-major vector of `shape`, and the words
  /// the positions select; false for a dynamic position out of range.
  bool position(const PositionInfo &info, const uint64_t *frame,
                int64_t &offset, int64_t &selected) {
    offset = 0;
    selected = 1;
    for (size_t d = info.positions.size(); d < info.shape.size(); ++d)
      selected *= info.shape[d];
    int64_t stride = selected;
    for (size_t d = info.positions.size(); d-- > 0;) {
      int64_t p = operandValue(info.positions[d], frame);
      if (p < 0 || p >= info.shape[d])
        return false;
      offset += p * stride;
      stride *= info.shape[d];
    }
    return true;
  }

  Status vectorAccess(Wave &wave, const Instr &in, bool insert) {
    const PositionInfo &info = current->positions[in.aux];
    Status status = Status::Done;
    firstFailingLane(wave, [&](int lane, uint64_t *f) {
      int64_t offset, selected;
      if (!position(info, f, offset, selected)) {
        status = fail(&wave, in, lane, "vector position out of range");
        return false;
      }
      if (insert) {
        for (uint32_t e = 0; e < in.count; ++e)
          f[in.dst + e] = f[in.a + e];
        for (int64_t e = 0; e < selected; ++e)
          f[in.dst + offset + e] = f[in.b + e];
      } else {
        for (int64_t e = 0; e < selected; ++e)
          f[in.dst + e] = f[in.a + offset + e];
      }
      return true;
    });
    return status;
  }

  /// Visits the elements of the small vector of a strided slice with their
  /// offset in the big one.
  template <typename F>
  static void forSliceElements(const StridedSliceInfo &info, F &&f) {
    const auto &big = info.sourceShape, &small = info.resultShape;
    int64_t total = 1;
    for (int64_t s : small)
      total *= s;
    SmallVector<int64_t, 4> bigStrides(big.size(), 1);
    for (int64_t d = int64_t(big.size()) - 2; d >= 0; --d)
      bigStrides[d] = bigStrides[d + 1] * big[d + 1];
    // `small` may have fewer dims (insert): align them to the trailing ones.
    size_t lead = big.size() - small.size();
    for (int64_t index = 0; index < total; ++index) {
      int64_t rest = index, offset = 0;
      for (size_t d = small.size(); d-- > 0;) {
        int64_t coordinate = rest % small[d];
        rest /= small[d];
        size_t bd = d + lead;
        int64_t start = bd < info.offsets.size() ? info.offsets[bd] : 0;
        offset += (coordinate + start) * bigStrides[bd];
      }
      for (size_t bd = 0; bd < lead; ++bd)
        offset += info.offsets[bd] * bigStrides[bd];
      f(index, offset);
    }
  }

  void vectorBitcast(Wave &wave, const Instr &in) {
    const unsigned fromBits = bitWidth(in.kind), toBits = bitWidth(in.kind2);
    const uint32_t toCount = in.count * fromBits / toBits;
    SmallVector<uint8_t, 256> bytes(size_t(in.count) * fromBits / 8);
    forLanes(wave, [&](int, uint64_t *f) {
      // Little endian: element e occupies bits [e * width, (e + 1) * width).
      for (uint32_t e = 0; e < in.count; ++e)
        storeElement(bytes.data() + e * fromBits / 8, fromBits / 8,
                     f[in.a + e]);
      for (uint32_t e = 0; e < toCount; ++e)
        f[in.dst + e] = loadElement(bytes.data() + e * toBits / 8, toBits / 8);
    });
  }

  Status reduction(Wave &wave, const Instr &in) {
    const unsigned bits = bitWidth(in.kind);
    const uint64_t mask = lowMask(bits);
    const bool isFloat = isFloatKind(in.kind);
    using K = vector::CombiningKind;
    K kind = K(in.mode);
    forLanes(wave, [&](int, uint64_t *f) {
      if (isFloat) {
        bool f32 = in.kind == ScalarKind::F32;
        auto get = [&](uint64_t w) { return f32 ? double(asFloat(w)) : asDouble(w); };
        auto round = [&](double v) { return f32 ? double(float(v)) : v; };
        double acc = in.imm >= 0 ? get(f[in.imm]) : get(f[in.a]);
        for (uint32_t e = in.imm >= 0 ? 0 : 1; e < in.count; ++e) {
          double x = get(f[in.a + e]);
          switch (kind) {
          case K::ADD:
            acc = round(acc + x);
            break;
          case K::MUL:
            acc = round(acc * x);
            break;
          case K::MAXNUMF:
            acc = std::fmax(acc, x);
            break;
          case K::MINNUMF:
            acc = std::fmin(acc, x);
            break;
          case K::MAXIMUMF:
            acc = maximumOf(acc, x);
            break;
          case K::MINIMUMF:
            acc = minimumOf(acc, x);
            break;
          default:
            break;
          }
        }
        f[in.dst] = f32 ? wordOf(float(acc)) : wordOf(acc);
        return;
      }
      uint64_t acc = in.imm >= 0 ? f[in.imm] : f[in.a];
      for (uint32_t e = in.imm >= 0 ? 0 : 1; e < in.count; ++e) {
        uint64_t x = f[in.a + e];
        switch (kind) {
        case K::ADD:
          acc = acc + x;
          break;
        case K::MUL:
          acc = acc * x;
          break;
        case K::AND:
          acc &= x;
          break;
        case K::OR:
          acc |= x;
          break;
        case K::XOR:
          acc ^= x;
          break;
        case K::MAXUI:
          acc = std::max(acc & mask, x & mask);
          break;
        case K::MINUI:
          acc = std::min(acc & mask, x & mask);
          break;
        case K::MAXSI:
          acc = uint64_t(std::max(signExtend(acc, bits), signExtend(x, bits)));
          break;
        case K::MINSI:
          acc = uint64_t(std::min(signExtend(acc, bits), signExtend(x, bits)));
          break;
        default:
          break;
        }
        acc &= mask;
      }
      f[in.dst] = acc & mask;
    });
    return Status::Done;
  }

  //===------------------------------------------------------------------===//
  // Conversions
  //===------------------------------------------------------------------===//

  Status convert(Wave &wave, const Instr &in) {
    const unsigned fromBits = bitWidth(in.kind), toBits = bitWidth(in.kind2);
    const uint64_t toMask = lowMask(toBits);
    Status status = Status::Done;
    firstFailingLane(wave, [&](int lane, uint64_t *f) {
      for (uint32_t e = 0; e < in.count; ++e) {
        uint64_t x = f[in.a + e];
        uint64_t &out = f[in.dst + e];
        switch (in.code) {
        case OpCode::ExtSI:
          out = uint64_t(signExtend(x, fromBits)) & toMask;
          break;
        case OpCode::ExtUI:
        case OpCode::TruncI:
          out = x & toMask;
          break;
        case OpCode::SIToFP:
        case OpCode::UIToFP: {
          bool isSigned = in.code == OpCode::SIToFP;
          int64_t s = signExtend(x, fromBits);
          if (in.kind2 == ScalarKind::F32)
            out = wordOf(isSigned ? float(s) : float(x));
          else
            out = wordOf(isSigned ? double(s) : double(x));
          break;
        }
        case OpCode::FPToSI:
        case OpCode::FPToUI: {
          double v = floatValue(in.kind, x);
          double t = std::trunc(v);
          bool isSigned = in.code == OpCode::FPToSI;
          double lo = isSigned ? -std::ldexp(1.0, int(toBits) - 1) : 0.0;
          double hi = isSigned ? std::ldexp(1.0, int(toBits) - 1)
                               : std::ldexp(1.0, int(toBits));
          if (!(t >= lo && t < hi)) {
            status = fail(&wave, in, lane,
                          "float to integer conversion of " + std::to_string(v) +
                              " is out of range (poison)");
            return false;
          }
          out = (isSigned ? uint64_t(int64_t(t)) : uint64_t(t)) & toMask;
          break;
        }
        case OpCode::ExtF: {
          double v = floatValue(in.kind, x);
          out = in.kind2 == ScalarKind::F32 ? wordOf(float(v)) : wordOf(v);
          break;
        }
        case OpCode::TruncF: {
          double v = floatValue(in.kind, x);
          if (in.kind2 == ScalarKind::F32)
            out = wordOf(float(v));
          else
            out = f32ToSmallFloat(in.kind2, float(v));
          break;
        }
        default:
          break;
        }
      }
      return true;
    });
    return status;
  }

  //===------------------------------------------------------------------===//
  // The interpreter loop
  //===------------------------------------------------------------------===//

  Status runWave(const Function &fn, Wave &wave);
  Status runWaveLoop(const Function &fn, Wave &wave);
  LogicalResult launch(const Function &host, Wave &hostWave,
                       const LaunchInfo &info, const Instr &in);
  LogicalResult runWorkgroup(const Function &kernel, const uint64_t *arguments,
                             int64_t threads);
};

Executor::Status Executor::runWave(const Function &fn, Wave &wave) {
  const Function *saved = current;
  current = &fn;
  Status status = runWaveLoop(fn, wave);
  current = saved;
  return status;
}

Executor::Status Executor::runWaveLoop(const Function &fn, Wave &wave) {
  const Instr *code = fn.code.data();
  uint64_t issued = 0, lanes = 0;
  auto flush = [&] {
    waveInstructions += issued;
    laneInstructions += lanes;
  };
  while (true) {
    const Instr &in = code[wave.pc];
    ++issued;
    lanes += uint64_t(llvm::popcount(wave.exec));
    Status status = Status::Done;
    switch (in.code) {
    // data
    case OpCode::Const: {
      const std::vector<uint64_t> &words = fn.constants[in.aux];
      forLanes(wave, [&](int, uint64_t *f) {
        std::memcpy(f + in.dst, words.data(), words.size() * 8);
      });
      break;
    }
    case OpCode::Move:
      forLanes(wave, [&](int, uint64_t *f) {
        std::memmove(f + in.dst, f + in.a, size_t(in.count) * 8);
      });
      break;
    case OpCode::MoveMulti: {
      const MoveList &list = fn.moveLists[in.aux];
      if (!list.overlapping) {
        forLanes(wave, [&](int, uint64_t *f) {
          for (const Move &move : list.moves)
            std::memcpy(f + move.dst, f + move.src, size_t(move.words) * 8);
        });
        break;
      }
      size_t total = 0;
      for (const Move &move : list.moves)
        total += move.words;
      uint64_t *temp = scratchFor(total);
      forLanes(wave, [&](int, uint64_t *f) {
        size_t at = 0;
        for (const Move &move : list.moves) {
          std::memcpy(temp + at, f + move.src, size_t(move.words) * 8);
          at += move.words;
        }
        at = 0;
        for (const Move &move : list.moves) {
          std::memcpy(f + move.dst, temp + at, size_t(move.words) * 8);
          at += move.words;
        }
      });
      break;
    }
    // integers
    case OpCode::AddI:
      integerBinary(wave, in, [](uint64_t x, uint64_t y, unsigned) { return x + y; });
      break;
    case OpCode::SubI:
      integerBinary(wave, in, [](uint64_t x, uint64_t y, unsigned) { return x - y; });
      break;
    case OpCode::MulI:
      integerBinary(wave, in, [](uint64_t x, uint64_t y, unsigned) { return x * y; });
      break;
    case OpCode::AndI:
      integerBinary(wave, in, [](uint64_t x, uint64_t y, unsigned) { return x & y; });
      break;
    case OpCode::OrI:
      integerBinary(wave, in, [](uint64_t x, uint64_t y, unsigned) { return x | y; });
      break;
    case OpCode::XOrI:
      integerBinary(wave, in, [](uint64_t x, uint64_t y, unsigned) { return x ^ y; });
      break;
    case OpCode::MaxSI:
      integerBinary(wave, in, [](uint64_t x, uint64_t y, unsigned bits) {
        return signExtend(x, bits) > signExtend(y, bits) ? x : y;
      });
      break;
    case OpCode::MinSI:
      integerBinary(wave, in, [](uint64_t x, uint64_t y, unsigned bits) {
        return signExtend(x, bits) < signExtend(y, bits) ? x : y;
      });
      break;
    case OpCode::MaxUI:
      integerBinary(wave, in, [](uint64_t x, uint64_t y, unsigned) { return x > y ? x : y; });
      break;
    case OpCode::MinUI:
      integerBinary(wave, in, [](uint64_t x, uint64_t y, unsigned) { return x < y ? x : y; });
      break;
    case OpCode::DivSI:
    case OpCode::RemSI:
    case OpCode::CeilDivSI:
    case OpCode::FloorDivSI: {
      OpCode code = in.code;
      status = checkedIntegerBinary(
          wave, in, "signed division by zero or overflow",
          [code](uint64_t x, uint64_t y, unsigned bits, uint64_t &out) {
            int64_t a = signExtend(x, bits), b = signExtend(y, bits);
            int64_t smallest = bits >= 64 ? std::numeric_limits<int64_t>::min()
                                          : -(int64_t(1) << (bits - 1));
            if (b == 0 || (a == smallest && b == -1))
              return false;
            int64_t q = a / b, r = a % b;
            switch (code) {
            case OpCode::DivSI:
              out = uint64_t(q);
              break;
            case OpCode::RemSI:
              out = uint64_t(r);
              break;
            case OpCode::CeilDivSI:
              out = uint64_t(r != 0 && ((r > 0) == (b > 0)) ? q + 1 : q);
              break;
            default:
              out = uint64_t(r != 0 && ((r < 0) != (b < 0)) ? q - 1 : q);
              break;
            }
            return true;
          });
      break;
    }
    case OpCode::DivUI:
    case OpCode::RemUI:
    case OpCode::CeilDivUI: {
      OpCode code = in.code;
      status = checkedIntegerBinary(
          wave, in, "unsigned division by zero",
          [code](uint64_t x, uint64_t y, unsigned, uint64_t &out) {
            if (y == 0)
              return false;
            out = code == OpCode::DivUI   ? x / y
                  : code == OpCode::RemUI ? x % y
                                          : x / y + (x % y != 0);
            return true;
          });
      break;
    }
    case OpCode::ShlI:
    case OpCode::ShrSI:
    case OpCode::ShrUI: {
      OpCode code = in.code;
      status = checkedIntegerBinary(
          wave, in, "shift by at least the bit width (poison)",
          [code](uint64_t x, uint64_t y, unsigned bits, uint64_t &out) {
            if (y >= bits)
              return false;
            out = code == OpCode::ShlI ? x << y
                  : code == OpCode::ShrUI
                      ? x >> y
                      : uint64_t(signExtend(x, bits) >> y);
            return true;
          });
      break;
    }
    case OpCode::CmpI: {
      const unsigned bits = bitWidth(in.kind);
      const auto predicate = arith::CmpIPredicate(in.mode);
      forLanes(wave, [&](int, uint64_t *f) {
        for (uint32_t e = 0; e < in.count; ++e)
          f[in.dst + e] =
              compareIntegers(predicate, f[in.a + e], f[in.b + e], bits);
      });
      break;
    }
    case OpCode::ExtSI:
    case OpCode::ExtUI:
    case OpCode::TruncI:
    case OpCode::SIToFP:
    case OpCode::UIToFP:
    case OpCode::FPToSI:
    case OpCode::FPToUI:
    case OpCode::ExtF:
    case OpCode::TruncF:
      status = convert(wave, in);
      break;
    // floats
    case OpCode::AddF:
      floatBinary(wave, in, [](auto x, auto y) { return x + y; });
      break;
    case OpCode::SubF:
      floatBinary(wave, in, [](auto x, auto y) { return x - y; });
      break;
    case OpCode::MulF:
      floatBinary(wave, in, [](auto x, auto y) { return x * y; });
      break;
    case OpCode::DivF:
      floatBinary(wave, in, [](auto x, auto y) { return x / y; });
      break;
    case OpCode::RemF:
      floatBinary(wave, in, [](auto x, auto y) { return std::fmod(x, y); });
      break;
    case OpCode::MaximumF:
      floatBinary(wave, in, [](auto x, auto y) { return maximumOf(x, y); });
      break;
    case OpCode::MinimumF:
      floatBinary(wave, in, [](auto x, auto y) { return minimumOf(x, y); });
      break;
    case OpCode::MaxNumF:
      floatBinary(wave, in, [](auto x, auto y) { return std::fmax(x, y); });
      break;
    case OpCode::MinNumF:
      floatBinary(wave, in, [](auto x, auto y) { return std::fmin(x, y); });
      break;
    case OpCode::CopySign:
      floatBinary(wave, in, [](auto x, auto y) { return std::copysign(x, y); });
      break;
    case OpCode::PowF:
      floatBinary(wave, in, [](auto x, auto y) { return std::pow(x, y); });
      break;
    case OpCode::CmpF: {
      const auto predicate = arith::CmpFPredicate(in.mode);
      const ScalarKind kind = in.kind;
      forLanes(wave, [&](int, uint64_t *f) {
        for (uint32_t e = 0; e < in.count; ++e)
          f[in.dst + e] =
              compareFloats(predicate, floatValue(kind, f[in.a + e]),
                            floatValue(kind, f[in.b + e]));
      });
      break;
    }
    case OpCode::NegF:
      floatUnary(wave, in, [](auto x) { return -x; });
      break;
    case OpCode::AbsF:
      floatUnary(wave, in, [](auto x) { return std::fabs(x); });
      break;
    case OpCode::Exp2:
      floatUnary(wave, in, [](auto x) { return std::exp2(x); });
      break;
    case OpCode::Exp:
      floatUnary(wave, in, [](auto x) { return std::exp(x); });
      break;
    case OpCode::Log:
      floatUnary(wave, in, [](auto x) { return std::log(x); });
      break;
    case OpCode::Log2:
      floatUnary(wave, in, [](auto x) { return std::log2(x); });
      break;
    case OpCode::Sqrt:
      floatUnary(wave, in, [](auto x) { return std::sqrt(x); });
      break;
    case OpCode::Rsqrt:
      floatUnary(wave, in, [](auto x) { return decltype(x)(1) / std::sqrt(x); });
      break;
    case OpCode::Tanh:
      floatUnary(wave, in, [](auto x) { return std::tanh(x); });
      break;
    case OpCode::Floor:
      floatUnary(wave, in, [](auto x) { return std::floor(x); });
      break;
    case OpCode::Ceil:
      floatUnary(wave, in, [](auto x) { return std::ceil(x); });
      break;
    case OpCode::RoundEven:
      floatUnary(wave, in, [](auto x) { return std::nearbyint(x); });
      break;
    case OpCode::Round:
      floatUnary(wave, in, [](auto x) { return std::round(x); });
      break;
    case OpCode::Trunc:
      floatUnary(wave, in, [](auto x) { return std::trunc(x); });
      break;
    case OpCode::Fma:
      if (in.kind == ScalarKind::F32)
        forLanes(wave, [&](int, uint64_t *f) {
          for (uint32_t e = 0; e < in.count; ++e)
            f[in.dst + e] = wordOf(std::fma(asFloat(f[in.a + e]),
                                            asFloat(f[in.b + e]),
                                            asFloat(f[in.c + e])));
        });
      else
        forLanes(wave, [&](int, uint64_t *f) {
          for (uint32_t e = 0; e < in.count; ++e)
            f[in.dst + e] = wordOf(std::fma(asDouble(f[in.a + e]),
                                            asDouble(f[in.b + e]),
                                            asDouble(f[in.c + e])));
        });
      break;
    case OpCode::Select:
      forLanes(wave, [&](int, uint64_t *f) {
        for (uint32_t e = 0; e < in.count; ++e) {
          bool take = f[in.a + (in.mode ? e : 0)] & 1;
          f[in.dst + e] = take ? f[in.b + e] : f[in.c + e];
        }
      });
      break;
    // gpu
    case OpCode::ThreadId: {
      const int dim = in.mode;
      forLanes(wave, [&](int lane, uint64_t *f) {
        int64_t thread = int64_t(wave.index) * kLanes + lane;
        int64_t value = dim == 0   ? thread % blockSize[0]
                        : dim == 1 ? thread / blockSize[0] % blockSize[1]
                                   : thread / (blockSize[0] * blockSize[1]);
        f[in.dst] = uint64_t(value);
      });
      break;
    }
    case OpCode::BlockId:
    case OpCode::BlockDim:
    case OpCode::GridDim: {
      const std::array<int64_t, 3> &source =
          in.code == OpCode::BlockId    ? blockId
          : in.code == OpCode::BlockDim ? blockSize
                                        : gridSize;
      uint64_t value = uint64_t(source[in.mode]);
      forLanes(wave, [&](int, uint64_t *f) { f[in.dst] = value; });
      break;
    }
    case OpCode::LaneId:
      forLanes(wave, [&](int lane, uint64_t *f) { f[in.dst] = uint64_t(lane); });
      break;
    case OpCode::SubgroupId:
      forLanes(wave, [&](int, uint64_t *f) { f[in.dst] = wave.index; });
      break;
    case OpCode::NumSubgroups: {
      uint64_t count = uint64_t(waves.size());
      forLanes(wave, [&](int, uint64_t *f) { f[in.dst] = count; });
      break;
    }
    case OpCode::SubgroupSize:
      forLanes(wave, [&](int, uint64_t *f) { f[in.dst] = kLanes; });
      break;
    case OpCode::Shuffle:
      status = shuffle(wave, in);
      break;
    case OpCode::Barrier:
      if (wave.exec != wave.launched)
        return flush(), fail(&wave, in, llvm::countr_zero(wave.launched & ~wave.exec),
                    "barrier in divergent control flow: lanes 0x" +
                        llvm::utohexstr(wave.launched & ~wave.exec) +
                        " of the wave do not reach it");
      wave.state = Wave::State::AtBarrier;
      flush();
      return Status::Barrier;
    // AMD
    case OpCode::MFMA:
      status = mfma(wave, in);
      break;
    case OpCode::DPP:
      status = dpp(wave, in);
      break;
    case OpCode::Bpermute: {
      int lane = firstFailingLane(wave, [&](int, uint64_t *f) {
        int from = int(uint32_t(f[in.a]) >> 2) & (kLanes - 1);
        if (!(wave.exec >> from & 1))
          return false;
        f[in.dst] = wave.frame(from)[in.b];
        return true;
      });
      if (lane >= 0)
        status = fail(&wave, in, lane, "ds_bpermute reads a lane that is "
                                       "not active");
      break;
    }
    case OpCode::ReadFirstLane: {
      int first = llvm::countr_zero(wave.exec);
      const uint64_t *source = wave.frame(first);
      forLanes(wave, [&](int, uint64_t *f) {
        for (uint32_t e = 0; e < in.count; ++e)
          f[in.dst + e] = source[in.a + e];
      });
      break;
    }
    case OpCode::ReadLane:
      forLanes(wave, [&](int, uint64_t *f) {
        const uint64_t *source = wave.frame(int(f[in.b] & (kLanes - 1)));
        for (uint32_t e = 0; e < in.count; ++e)
          f[in.dst + e] = source[in.a + e];
      });
      break;
    case OpCode::Mbcnt: {
      const bool high = in.mode;
      forLanes(wave, [&](int lane, uint64_t *f) {
        uint64_t below = lane >= 64 ? kAllLanes : (uint64_t(1) << lane) - 1;
        uint32_t part = high ? uint32_t(below >> 32) : uint32_t(below);
        f[in.dst] = uint32_t(llvm::popcount(uint32_t(f[in.a]) & part) +
                             uint32_t(f[in.b]));
      });
      break;
    }
    case OpCode::PackedTruncFp8: {
      // v_cvt_pk_fp8_f32 without clamp: an out-of-range value becomes NaN
      // (only arith.truncf is clamped first by the ROCDL lowering).
      const uint64_t undefined = f32ToSmallFloat(in.kind2, NAN);
      forLanes(wave, [&](int, uint64_t *f) {
        uint64_t word[4];
        for (int e = 0; e < 4; ++e)
          word[e] = (in.imm & 2) ? undefined : f[in.c + e];
        word[2 * in.mode] =
            f32ToSmallFloatUnsaturated(in.kind2, asFloat(f[in.a]));
        word[2 * in.mode + 1] =
            (in.imm & 1) ? undefined
                         : f32ToSmallFloatUnsaturated(in.kind2,
                                                      asFloat(f[in.b]));
        std::memcpy(f + in.dst, word, sizeof word);
      });
      break;
    }
    case OpCode::ExtPackedFp8:
      forLanes(wave, [&](int, uint64_t *f) {
        for (uint32_t e = 0; e < in.count; ++e)
          f[in.dst + e] = wordOf(
              smallFloatToF32(in.kind, uint32_t(f[in.a + in.b + e])));
      });
      break;
    // vectors
    case OpCode::VecExtract:
      status = vectorAccess(wave, in, /*insert=*/false);
      break;
    case OpCode::VecInsert:
      status = vectorAccess(wave, in, /*insert=*/true);
      break;
    case OpCode::Broadcast:
      forLanes(wave, [&](int, uint64_t *f) {
        for (uint32_t e = 0; e < in.count; ++e)
          f[in.dst + e] = f[in.a + e % in.b];
      });
      break;
    case OpCode::VecShuffle: {
      const auto &mask = fn.lists[in.aux];
      forLanes(wave, [&](int, uint64_t *f) {
        for (size_t e = 0; e < mask.size(); ++e) {
          int64_t from = mask[e];
          f[in.dst + e] = from < 0               ? 0x7FBADBADu
                          : from < int64_t(in.c) ? f[in.a + from]
                                                 : f[in.b + from - in.c];
        }
      });
      break;
    }
    case OpCode::VecBitcast:
      vectorBitcast(wave, in);
      break;
    case OpCode::FromElements: {
      const auto &elements = fn.lists[in.aux];
      forLanes(wave, [&](int, uint64_t *f) {
        for (size_t e = 0; e < elements.size(); ++e)
          f[in.dst + e] = f[elements[e]];
      });
      break;
    }
    case OpCode::Reduction:
      status = reduction(wave, in);
      break;
    case OpCode::ExtractStrided: {
      const StridedSliceInfo &info = fn.slices[in.aux];
      forLanes(wave, [&](int, uint64_t *f) {
        forSliceElements(info, [&](int64_t index, int64_t offset) {
          f[in.dst + index] = f[in.a + offset];
        });
      });
      break;
    }
    case OpCode::InsertStrided: {
      const StridedSliceInfo &info = fn.slices[in.aux];
      forLanes(wave, [&](int, uint64_t *f) {
        std::memmove(f + in.dst, f + in.b, size_t(in.count) * 8);
        forSliceElements(info, [&](int64_t index, int64_t offset) {
          f[in.dst + offset] = f[in.a + index];
        });
      });
      break;
    }
    // memory
    case OpCode::Load:
    case OpCode::Store:
      status = memoryAccess(wave, in);
      break;
    case OpCode::Dim: {
      int lane = firstFailingLane(wave, [&](int, uint64_t *f) {
        uint64_t dim = f[in.b];
        if (dim >= in.count)
          return false;
        f[in.dst] = f[in.a + kSizes + dim];
        return true;
      });
      if (lane >= 0)
        status = fail(&wave, in, lane, "memref.dim of a dim the memref does "
                                       "not have");
      break;
    }
    case OpCode::View:
      status = view(wave, in);
      break;
    case OpCode::FatRawBufferCast: {
      const uint32_t rank = (in.count - 4) / 2;
      const uint32_t elementBytes = storageBytes(in.kind);
      forLanes(wave, [&](int, uint64_t *f) {
        std::memmove(f + in.dst, f + in.a, size_t(in.count) * 8);
        uint64_t *out = f + in.dst;
        out[kDescriptorBase] = in.mode ? out[kOffset] : 0;
        int64_t range = 0;
        if (in.imm >= 0) {
          range = int64_t(f[in.imm]);
        } else {
          const int64_t *sizes = reinterpret_cast<const int64_t *>(out + kSizes);
          for (uint32_t d = 0; d < rank; ++d)
            range = std::max(range, sizes[d] * sizes[rank + d] *
                                        int64_t(elementBytes));
        }
        out[kDescriptorBytes] = uint64_t(range);
      });
      break;
    }
    case OpCode::Alloc: {
      const AllocInfo &info = fn.allocs[in.aux];
      uint64_t *f = wave.frame(llvm::countr_zero(wave.exec));
      SmallVector<int64_t, 4> sizes;
      int64_t elements = 1;
      for (const IndexOperand &size : info.sizes) {
        sizes.push_back(operandValue(size, f));
        elements *= sizes.back();
      }
      if (elements < 0 || elements > (int64_t(1) << 34)) {
        status = fail(&wave, in, -1, "allocation of " + Twine(elements) +
                                         " elements");
        break;
      }
      Buffer buffer;
      buffer.storage.assign(size_t(elements) * info.elementBytes, 0xFF);
      buffer.data = buffer.storage.data();
      buffer.bytes = int64_t(buffer.storage.size());
      buffer.name = "memref.alloc #" + std::to_string(buffers.size());
      buffers.push_back(std::move(buffer));
      uint64_t *out = f + in.dst;
      out[kBuffer] = buffers.size() - 1;
      out[kOffset] = 0;
      out[kDescriptorBase] = 0;
      out[kDescriptorBytes] = uint64_t(-1);
      SmallVector<int64_t, 4> strides = [&] {
        SmallVector<int64_t, 4> s(sizes.size(), 1);
        for (int64_t d = int64_t(sizes.size()) - 2; d >= 0; --d)
          s[d] = s[d + 1] * sizes[d + 1];
        return s;
      }();
      for (size_t d = 0; d < sizes.size(); ++d) {
        out[kSizes + d] = uint64_t(sizes[d]);
        out[kSizes + sizes.size() + d] = uint64_t(strides[d]);
      }
      break;
    }
    case OpCode::Affine: {
      const AffineInfo &info = fn.affines[in.aux];
      const unsigned dims = info.map.getNumDims();
      forLanes(wave, [&](int, uint64_t *f) {
        SmallVector<int64_t, 8> values;
        for (uint32_t slot : info.operands)
          values.push_back(int64_t(f[slot]));
        ArrayRef<int64_t> all(values);
        int64_t result = 0;
        for (auto [i, expr] : llvm::enumerate(info.map.getResults())) {
          int64_t v = evaluate(expr, all.take_front(dims), all.drop_front(dims));
          if (i == 0 || (in.mode == 1 && v < result) ||
              (in.mode == 2 && v > result))
            result = v;
        }
        f[in.dst] = uint64_t(result);
      });
      break;
    }
    // control flow
    case OpCode::IfBegin: {
      uint64_t taken = 0;
      forLanes(wave, [&](int lane, uint64_t *f) {
        taken |= (f[in.a] & 1) << lane;
      });
      wave.frames.push_back({wave.exec, wave.exec & ~taken});
      wave.exec &= taken;
      if (!wave.exec) {
        wave.pc = size_t(in.imm);
        continue;
      }
      break;
    }
    case OpCode::Else:
      wave.exec = wave.frames.back().other;
      if (!wave.exec) {
        wave.pc = size_t(in.imm);
        continue;
      }
      break;
    case OpCode::EndIf:
    case OpCode::ForExit:
    case OpCode::WhileExit:
      wave.exec = wave.frames.back().saved;
      wave.frames.pop_back();
      break;
    case OpCode::ForInit:
      wave.frames.push_back({wave.exec, 0});
      forLanes(wave, [&](int, uint64_t *f) { f[in.dst] = f[in.a]; });
      break;
    case OpCode::ForHead: {
      const unsigned bits = bitWidth(in.kind);
      uint64_t staying = 0;
      if (in.mode)
        forLanes(wave, [&](int lane, uint64_t *f) {
          staying |= uint64_t(f[in.a] < f[in.b]) << lane;
        });
      else
        forLanes(wave, [&](int lane, uint64_t *f) {
          staying |= uint64_t(signExtend(f[in.a], bits) <
                              signExtend(f[in.b], bits))
                     << lane;
        });
      wave.exec = staying;
      if (!staying) {
        wave.pc = size_t(in.imm);
        continue;
      }
      break;
    }
    case OpCode::ForStep: {
      const uint64_t mask = lowMask(bitWidth(in.kind));
      forLanes(wave, [&](int, uint64_t *f) {
        f[in.a] = (f[in.a] + f[in.b]) & mask;
      });
      wave.pc = size_t(in.imm);
      continue;
    }
    case OpCode::WhileInit:
      wave.frames.push_back({wave.exec, 0});
      break;
    case OpCode::Condition: {
      const ConditionInfo &info = fn.conditions[in.aux];
      uint64_t staying = 0;
      forLanes(wave, [&](int lane, uint64_t *f) {
        bool stay = f[in.a] & 1;
        staying |= uint64_t(stay) << lane;
        for (size_t i = 0; i < info.arguments.size(); ++i)
          std::memmove(f + (stay ? info.afterArguments[i] : info.results[i]),
                       f + info.arguments[i], size_t(info.words[i]) * 8);
      });
      wave.exec = staying;
      if (!staying) {
        wave.pc = size_t(in.imm);
        continue;
      }
      break;
    }
    case OpCode::Jump:
      wave.pc = size_t(in.imm);
      continue;
    case OpCode::Return:
      wave.state = Wave::State::Done;
      flush();
      return Status::Done;
    case OpCode::Launch: {
      flush();
      issued = lanes = 0;
      if (failed(launch(fn, wave, fn.launches[in.aux], in)))
        return Status::Failed;
      break;
    }
    case OpCode::Call: {
      const CallInfo &info = fn.calls[in.aux];
      const Function &callee = program.functions[info.callee];
      Wave frame;
      frame.reset(callee.frameWords, 1);
      const uint64_t *f = wave.frame(0);
      for (auto [i, slot] : llvm::enumerate(info.arguments))
        std::memcpy(frame.frame(0) + callee.argumentSlots[i], f + slot,
                    size_t(info.argumentWords[i]) * 8);
      flush();
      issued = lanes = 0;
      if (runWave(callee, frame) == Status::Failed)
        return Status::Failed;
      break;
    }
    case OpCode::Assert: {
      int lane = firstFailingLane(
          wave, [&](int, uint64_t *f) { return (f[in.a] & 1) != 0; });
      if (lane >= 0)
        status = fail(&wave, in, lane,
                      "assertion failed: " + fn.messages[in.aux]);
      break;
    }
    }
    if (status == Status::Failed) {
      flush();
      return status;
    }
    ++wave.pc;
  }
}

LogicalResult Executor::launch(const Function &host, Wave &hostWave,
                               const LaunchInfo &info, const Instr &in) {
  const Function &kernel = program.functions[info.kernel];
  const uint64_t *f = hostWave.frame(0);
  std::array<int64_t, 3> grid, block;
  for (int d = 0; d < 3; ++d) {
    grid[d] = int64_t(f[info.grid[d]]);
    block[d] = int64_t(f[info.block[d]]);
  }
  auto failLaunch = [&](const Twine &message) {
    fail(&hostWave, in, -1, message);
    return failure();
  };
  int64_t threads = block[0] * block[1] * block[2];
  if (block[0] < 1 || block[1] < 1 || block[2] < 1 || threads > 1024)
    return failLaunch("workgroups of " + Twine(block[0]) + " x " +
                      Twine(block[1]) + " x " + Twine(block[2]) +
                      " threads are not launchable");
  for (int d = 0; d < 3; ++d)
    if (kernel.knownBlockSize[d] && kernel.knownBlockSize[d] != block[d])
      return failLaunch("the launch's block size does not match the "
                        "kernel's known_block_size");
  if (grid[0] < 0 || grid[1] < 0 || grid[2] < 0)
    return failLaunch("negative grid size");
  if (info.dynamicSharedMemory >= 0 && f[info.dynamicSharedMemory] != 0)
    return failLaunch("dynamic shared memory is not supported");
  if (kernel.workgroupMemoryBytes > program.ldsLimitBytes)
    return failLaunch("kernel @" + kernel.name + " uses " +
                      Twine(kernel.workgroupMemoryBytes) +
                      " bytes of workgroup memory; " + options.chip +
                      " has " + Twine(program.ldsLimitBytes));
  // The kernel's arguments, words in argument order.
  SmallVector<uint64_t, 128> arguments;
  for (auto [slot, words] : llvm::zip(info.arguments, info.argumentWords))
    arguments.append(f + slot, f + slot + words);
  ++stats.launches;

  const Function *saved = current;
  gridSize = grid;
  blockSize = block;
  launchFirstSerial = workgroupSerial + 1;
  for (int64_t z = 0; z < grid[2]; ++z)
    for (int64_t y = 0; y < grid[1]; ++y)
      for (int64_t x = 0; x < grid[0]; ++x) {
        blockId = {x, y, z};
        current = &kernel;
        if (failed(runWorkgroup(kernel, arguments.data(), threads)))
          return failure();
      }
  current = saved;
  gridSize = blockSize = {1, 1, 1};
  blockId = {0, 0, 0};
  return success();
}

LogicalResult Executor::runWorkgroup(const Function &kernel,
                                     const uint64_t *arguments,
                                     int64_t threads) {
  ++stats.workgroups;
  ++workgroupSerial;
  ++epoch;
  workgroupEpoch = epoch;
  const size_t waveCount = size_t((threads + kLanes - 1) / kLanes);
  waves.resize(waveCount);
  for (size_t i = 0; i < waveCount; ++i) {
    Wave &wave = waves[i];
    int64_t first = int64_t(i) * kLanes;
    int64_t count = std::min<int64_t>(kLanes, threads - first);
    wave.index = uint32_t(i);
    wave.reset(kernel.frameWords,
               count >= kLanes ? kAllLanes : (uint64_t(1) << count) - 1);
    for (int lane = 0; lane < kLanes; ++lane) {
      uint64_t *f = wave.frame(lane);
      size_t at = 0;
      for (auto [slot, words] :
           llvm::zip(kernel.argumentSlots, kernel.argumentWords)) {
        std::memcpy(f + slot, arguments + at, size_t(words) * 8);
        at += words;
      }
      for (const Attribution &attribution : kernel.workgroupMemory) {
        uint64_t *m = f + attribution.slot;
        m[kBuffer] = ldsBuffer;
        m[kOffset] = uint64_t(attribution.byteOffset / attribution.elementBytes);
        m[kDescriptorBase] = 0;
        m[kDescriptorBytes] = uint64_t(-1);
        size_t rank = attribution.sizes.size();
        for (size_t d = 0; d < rank; ++d) {
          m[kSizes + d] = uint64_t(attribution.sizes[d]);
          m[kSizes + rank + d] = uint64_t(attribution.strides[d]);
        }
      }
    }
  }

  const Instr *code = kernel.code.data();
  while (true) {
    for (Wave &wave : waves) {
      if (wave.state != Wave::State::Running)
        continue;
      if (runWave(kernel, wave) == Status::Failed)
        return failure();
    }
    SmallVector<uint32_t, 16> done, waiting;
    for (const Wave &wave : waves)
      (wave.state == Wave::State::Done ? done : waiting).push_back(wave.index);
    if (waiting.empty())
      return success();
    const Wave &first = waves[waiting.front()];
    if (!done.empty()) {
      fail(&first, code[first.pc], -1,
           "barrier not reached by all waves: wave " + Twine(done.front()) +
               " returned while wave " + Twine(first.index) +
               " waits at this barrier");
      return failure();
    }
    for (uint32_t index : waiting)
      if (waves[index].pc != first.pc) {
        const Wave &other = waves[index];
        std::string otherLoc;
        llvm::raw_string_ostream os(otherLoc);
        code[other.pc].op->getLoc().print(os);
        fail(&first, code[first.pc], -1,
             "waves wait at different barriers: wave " + Twine(other.index) +
                 " waits at " + otherLoc);
        return failure();
      }
    ++stats.barriers;
    ++epoch;
    for (uint32_t index : waiting) {
      waves[index].state = Wave::State::Running;
      ++waves[index].pc;
    }
  }
}

LogicalResult Executor::run(const Function &host,
                            ArrayRef<MemRefBinding> arguments) {
  current = &host;
  if (arguments.size() != host.argumentSlots.size()) {
    error = "emulator: @" + host.name + " takes " +
            std::to_string(host.argumentSlots.size()) + " arguments, " +
            std::to_string(arguments.size()) + " given";
    return failure();
  }
  // Buffer 0 is the LDS of the workgroup being run.
  int64_t lds = 0;
  for (const Function &function : program.functions)
    lds = std::max(lds, function.workgroupMemoryBytes);
  Buffer workgroup;
  workgroup.storage.assign(size_t(lds), 0);
  workgroup.data = workgroup.storage.data();
  workgroup.bytes = lds;
  workgroup.workgroup = true;
  workgroup.name = "workgroup memory";
  buffers.push_back(std::move(workgroup));
  ldsBuffer = 0;
  shadow.assign(size_t(lds), LdsShadow());

  Wave hostWave;
  hostWave.reset(host.frameWords, 1);
  uint64_t *f = hostWave.frame(0);
  for (auto [i, binding] : llvm::enumerate(arguments)) {
    int64_t rank = host.argumentRanks[i];
    if (rank < 0 || size_t(rank) != binding.sizes.size() ||
        binding.strides.size() != binding.sizes.size()) {
      error = "emulator: argument " + std::to_string(i) + " of @" +
              host.name + " is not a memref of rank " +
              std::to_string(binding.sizes.size());
      return failure();
    }
    Buffer buffer;
    buffer.data = static_cast<uint8_t *>(binding.data);
    buffer.bytes = binding.bytes;
    buffer.readOnly = binding.readOnly;
    buffer.name = binding.name.empty() ? "argument " + std::to_string(i)
                                       : binding.name;
    buffers.push_back(std::move(buffer));
    uint64_t *m = f + host.argumentSlots[i];
    m[kBuffer] = buffers.size() - 1;
    m[kOffset] = uint64_t(binding.offset);
    m[kDescriptorBase] = 0;
    m[kDescriptorBytes] = uint64_t(-1);
    for (size_t d = 0; d < size_t(rank); ++d) {
      m[kSizes + d] = uint64_t(binding.sizes[d]);
      m[kSizes + rank + d] = uint64_t(binding.strides[d]);
    }
  }
  auto start = std::chrono::steady_clock::now();
  Status status = runWave(host, hostWave);
  stats.seconds += std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  stats.waveInstructions += waveInstructions;
  stats.laneInstructions += laneInstructions;
  return success(status == Status::Done);
}

} // namespace

LogicalResult mlir::pa::emulator::executeProgram(
    const ProgramImpl &program, const detail::Function &function,
    ArrayRef<MemRefBinding> arguments, std::string &error, Stats &stats) {
  Executor executor(program, error, stats);
  return executor.run(function, arguments);
}
