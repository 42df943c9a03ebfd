//===- Bytecode.h - the emulator's compiled form of a function -*- C++ -*-===//
//
// Every SSA value of a function gets a slot of `words` 64-bit words in a
// lane's frame (a scalar one word, a vector one per element, a memref the
// MemRefWord layout below); a wave keeps 64 frames. Instructions name slots
// and execute on the active lanes of the wave's exec mask. Structured
// control flow becomes flat code with explicit mask frames (If/Else/EndIf,
// For*, While*), so a wave can stop at a barrier anywhere and resume.
//
// An instruction carries the function that executes it (`execute`): the
// file of the op's dialect (Dialects/*.cpp) compiles the op into
// instructions pointing at that file's execute functions, so the executor
// has no list of ops. What an op needs beyond slots and a few scalars is
// its `payload`, a type of that dialect file.
//
//===----------------------------------------------------------------------===//
#ifndef PA_LIB_EMULATOR_BYTECODE_H
#define PA_LIB_EMULATOR_BYTECODE_H

#include "pa/Emulator/Emulator.h"
#include "pa/Emulator/FloatFormats.h"

#include "mlir/IR/Operation.h"

#include <array>
#include <memory>
#include <vector>

namespace mlir::pa::emulator::detail {

/// Words of a memref value: buffer id, offset in elements, then (for AMD
/// buffer descriptors) the descriptor's base element and its range in
/// bytes (-1: not a buffer descriptor), then sizes and strides.
enum MemRefWord : uint32_t {
  kBuffer = 0,
  kOffset = 1,
  kDescriptorBase = 2,
  kDescriptorBytes = 3,
  kSizes = 4,
};
inline uint32_t memrefWords(int64_t rank) { return 4 + 2 * uint32_t(rank); }

class Executor;
struct Wave;
struct Instr;

/// What an instruction tells the wave loop: go on with the next
/// instruction, continue where it set the wave's pc, or stop the wave.
enum class Step : uint8_t { Next, Jumped, Barrier, Returned, Failed };

using ExecuteFn = Step (*)(Executor &, Wave &, const Instr &);

/// Side data of an instruction, owned by its function.
struct Payload {
  virtual ~Payload() = default;
};

struct Instr {
  ExecuteFn execute = nullptr;
  ScalarKind kind = ScalarKind::I64;  // operand elements
  ScalarKind kind2 = ScalarKind::I64; // result elements (conversions)
  uint8_t mode = 0;                   // predicate, dimension, sub-operation
  uint32_t count = 1;                 // elements (words) per lane
  uint32_t dst = 0, a = 0, b = 0, c = 0;
  int64_t imm = 0; // jump target or small immediate
  const Payload *payload = nullptr;
  Operation *op = nullptr;

  template <typename T> const T &get() const {
    return static_cast<const T &>(*payload);
  }
};

/// An operand that is either a constant or a slot (mixed static/dynamic).
struct IndexOperand {
  bool isSlot = false;
  int64_t value = 0; // constant, or slot
};

/// A workgroup attribution of a kernel, placed in the workgroup's LDS.
struct Attribution {
  uint32_t slot = 0;
  int64_t byteOffset = 0;
  uint32_t elementBytes = 4;
  llvm::SmallVector<int64_t, 4> sizes, strides;
};

struct Function {
  Function() = default;
  Function(Function &&) = default;
  Function &operator=(Function &&) = default;
  Function(const Function &) = delete;

  std::string name;
  Operation *op = nullptr;
  bool isKernel = false;
  std::vector<Instr> code;
  uint32_t frameWords = 0;
  llvm::SmallVector<uint32_t, 16> argumentSlots;
  llvm::SmallVector<uint32_t, 16> argumentWords;
  llvm::SmallVector<int64_t, 16> argumentRanks; // -1 for scalars
  // kernels
  std::vector<Attribution> workgroupMemory;
  int64_t workgroupMemoryBytes = 0;
  std::array<int64_t, 3> knownBlockSize{0, 0, 0};
  std::vector<std::unique_ptr<Payload>> payloads;
};

} // namespace mlir::pa::emulator::detail

namespace mlir::pa::emulator {

/// The compiled module.
class ProgramImpl {
public:
  Options options;
  int64_t ldsLimitBytes = 0;
  ScalarKind chipFp8 = ScalarKind::F8E4M3FN;
  /// The chip has v_mfma_*_f8f6f4 (ChipInfo::hasF8F6F4Mfma).
  bool chipHasF8F6F4Mfma = false;
  std::vector<detail::Function> functions;
  /// Host functions by name, kernels by "gpu_module::kernel".
  llvm::StringMap<uint32_t> functionIndex, kernelIndex;
};

/// Builds the functions of `module` into `program` (Compiler.cpp).
LogicalResult compileModule(ModuleOp module, ProgramImpl &program,
                            std::string &error);
/// Runs a host function (Scheduler.cpp).
LogicalResult executeProgram(const ProgramImpl &program,
                             const detail::Function &function,
                             llvm::ArrayRef<MemRefBinding> arguments,
                             std::string &error, Stats &stats);

} // namespace mlir::pa::emulator

#endif // PA_LIB_EMULATOR_BYTECODE_H
