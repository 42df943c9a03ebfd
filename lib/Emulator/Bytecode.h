//===- Bytecode.h - the emulator's compiled form of a function -*- C++ -*-===//
//
// Every SSA value of a function gets a slot of `words` 64-bit words in a
// lane's frame (a scalar one word, a vector one per element, a memref the
// MemRefWord layout below); a wave keeps 64 frames. Instructions name slots
// and execute on the active lanes of the wave's exec mask. Structured
// control flow becomes flat code with explicit mask frames (If/Else/EndIf,
// For*, While*), so a wave can stop at a barrier anywhere and resume.
//
//===----------------------------------------------------------------------===//
#ifndef PA_LIB_EMULATOR_BYTECODE_H
#define PA_LIB_EMULATOR_BYTECODE_H

#include "pa/Emulator/Emulator.h"
#include "pa/Emulator/FloatFormats.h"
#include "pa/Emulator/MFMALayout.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Operation.h"

#include <array>
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

enum class OpCode : uint16_t {
  // data
  Const,
  Move,
  MoveMulti,
  // integers
  AddI,
  SubI,
  MulI,
  DivSI,
  DivUI,
  RemSI,
  RemUI,
  CeilDivSI,
  CeilDivUI,
  FloorDivSI,
  AndI,
  OrI,
  XOrI,
  ShlI,
  ShrSI,
  ShrUI,
  MaxSI,
  MinSI,
  MaxUI,
  MinUI,
  CmpI,
  ExtSI,
  ExtUI,
  TruncI,
  SIToFP,
  UIToFP,
  FPToSI,
  FPToUI,
  // floats (f32 / f64)
  AddF,
  SubF,
  MulF,
  DivF,
  RemF,
  MaximumF,
  MinimumF,
  MaxNumF,
  MinNumF,
  CopySign,
  PowF,
  CmpF,
  NegF,
  AbsF,
  Exp2,
  Exp,
  Log,
  Log2,
  Sqrt,
  Rsqrt,
  Tanh,
  Floor,
  Ceil,
  RoundEven,
  Round,
  Trunc,
  Fma,
  ExtF,
  TruncF,
  Select,
  // gpu
  ThreadId,
  BlockId,
  BlockDim,
  GridDim,
  LaneId,
  SubgroupId,
  NumSubgroups,
  SubgroupSize,
  Shuffle,
  Barrier,
  // AMD
  MFMA,
  DPP,
  Bpermute,
  ReadFirstLane,
  ReadLane,
  Mbcnt,
  PackedTruncFp8,
  ExtPackedFp8,
  // vectors
  VecExtract,
  VecInsert,
  Broadcast,
  VecShuffle,
  VecBitcast,
  FromElements,
  Reduction,
  ExtractStrided,
  InsertStrided,
  // memory
  Load,
  Store,
  Dim,
  View,
  FatRawBufferCast,
  Alloc,
  // affine
  Affine,
  // control
  IfBegin,
  Else,
  EndIf,
  ForInit,
  ForHead,
  ForStep,
  ForExit,
  WhileInit,
  Condition,
  Jump,
  WhileExit,
  Return,
  Launch,
  Call,
  Assert,
};

struct Instr {
  OpCode code;
  ScalarKind kind = ScalarKind::I64;  // operand elements
  ScalarKind kind2 = ScalarKind::I64; // result elements (conversions)
  uint8_t mode = 0;   // predicate, dimension, sub-operation
  uint32_t count = 1; // elements (words) per lane
  uint32_t dst = 0, a = 0, b = 0, c = 0;
  int64_t imm = 0;   // jump target or small immediate
  uint32_t aux = 0;  // index into a side table of the function
  Operation *op = nullptr;
};

struct Move {
  uint32_t dst, src, words;
};
struct MoveList {
  std::vector<Move> moves;
  /// Some source is also a destination: copy through a temporary.
  bool overlapping = false;
};

/// A memory access: memref.load/store, vector.load/store,
/// vector.transfer_read/write (1-D, innermost dim), amdgpu.raw_buffer_*.
struct MemAccess {
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

/// An operand that is either a constant or a slot (mixed static/dynamic).
struct IndexOperand {
  bool isSlot = false;
  int64_t value = 0; // constant, or slot
};

enum class ViewKind : uint8_t { SubView, ReinterpretCast, ExpandShape, CollapseShape };

struct ViewInfo {
  ViewKind kind;
  uint32_t source = 0, sourceRank = 0, resultRank = 0;
  llvm::SmallVector<IndexOperand, 4> offsets, sizes, strides;
  /// subview: source dims dropped from the result (rank reduction).
  llvm::SmallVector<bool, 4> dropped;
  /// expand / collapse: the groups of result (expand) or source (collapse)
  /// dims of each source (expand) or result (collapse) dim.
  llvm::SmallVector<llvm::SmallVector<int64_t, 2>, 4> groups;
};

struct MFMAInfo {
  MFMAInstruction instruction;
  uint32_t a = 0, b = 0, c = 0, dst = 0;
};

struct DPPInfo {
  uint32_t old = 0, src = 0, dst = 0, words = 1;
  int kind = 0;
  llvm::SmallVector<int64_t, 4> argument; // quad_perm lanes or row shift
  uint32_t rowMask = 0xF, bankMask = 0xF;
  bool boundCtrl = false;
};

struct AffineInfo {
  AffineMap map;
  llvm::SmallVector<uint32_t, 4> operands;
};

struct LaunchInfo {
  uint32_t kernel = 0;
  std::array<uint32_t, 3> grid{}, block{};
  int64_t dynamicSharedMemory = -1; // slot, or -1
  llvm::SmallVector<uint32_t, 16> arguments; // slots
  llvm::SmallVector<uint32_t, 16> argumentWords;
};

/// func.call of a host function without results (test drivers).
struct CallInfo {
  uint32_t callee = 0;
  llvm::SmallVector<uint32_t, 8> arguments, argumentWords;
};

struct AllocInfo {
  uint32_t elementBytes = 4;
  llvm::SmallVector<IndexOperand, 4> sizes;
};

/// Vector positions of vector.extract / vector.insert.
struct PositionInfo {
  llvm::SmallVector<IndexOperand, 4> positions;
  llvm::SmallVector<int64_t, 4> shape; // of the vector indexed
};

struct StridedSliceInfo {
  llvm::SmallVector<int64_t, 4> sourceShape, resultShape, offsets;
};

/// scf.condition: lanes whose condition is false leave with `arguments`
/// as the loop results; the others enter the after region with them.
struct ConditionInfo {
  llvm::SmallVector<uint32_t, 4> arguments, results, afterArguments, words;
};

/// A workgroup attribution of a kernel, placed in the workgroup's LDS.
struct Attribution {
  uint32_t slot = 0;
  int64_t byteOffset = 0;
  uint32_t elementBytes = 4;
  llvm::SmallVector<int64_t, 4> sizes, strides;
};

struct Function {
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
  // side tables
  std::vector<std::vector<uint64_t>> constants;
  std::vector<MoveList> moveLists;
  std::vector<MemAccess> accesses;
  std::vector<ViewInfo> views;
  std::vector<MFMAInfo> mfmas;
  std::vector<DPPInfo> dpps;
  std::vector<AffineInfo> affines;
  std::vector<LaunchInfo> launches;
  std::vector<CallInfo> calls;
  std::vector<AllocInfo> allocs;
  std::vector<PositionInfo> positions;
  std::vector<StridedSliceInfo> slices;
  std::vector<ConditionInfo> conditions;
  std::vector<llvm::SmallVector<int64_t, 8>> lists;
  std::vector<std::string> messages;
};

} // namespace mlir::pa::emulator::detail

namespace mlir::pa::emulator {

/// The compiled module.
class ProgramImpl {
public:
  Options options;
  int64_t ldsLimitBytes = 0;
  ScalarKind chipFp8 = ScalarKind::F8E4M3FN;
  std::vector<detail::Function> functions;
  /// Host functions by name, kernels by "gpu_module::kernel".
  llvm::StringMap<uint32_t> functionIndex, kernelIndex;
};

/// Builds the functions of `module` into `program` (Compiler.cpp).
LogicalResult compileModule(ModuleOp module, ProgramImpl &program,
                            std::string &error);
/// Runs a host function (Executor.cpp).
LogicalResult executeProgram(const ProgramImpl &program,
                             const detail::Function &function,
                             llvm::ArrayRef<MemRefBinding> arguments,
                             std::string &error, Stats &stats);

} // namespace mlir::pa::emulator

#endif // PA_LIB_EMULATOR_BYTECODE_H
