//===- Compiler.cpp - IR to the emulator's bytecode -----------------------===//
//
// One pass over each function: a slot per SSA value, flat code with mask
// frames for structured control flow, side tables for the wide ops. Every
// op or type the executor does not implement is an error here, so a run
// never meets an unknown op.
//
//===----------------------------------------------------------------------===//
#include "Bytecode.h"

#include "pa/Target/Chip.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::pa::emulator;
using namespace mlir::pa::emulator::detail;

namespace {

std::string describe(Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  loc.print(os);
  return text;
}

std::optional<ScalarKind> scalarKindOf(Type type) {
  if (type.isIndex())
    return ScalarKind::I64;
  if (auto integer = dyn_cast<IntegerType>(type)) {
    switch (integer.getWidth()) {
    case 1:
      return ScalarKind::I1;
    case 8:
      return ScalarKind::I8;
    case 16:
      return ScalarKind::I16;
    case 32:
      return ScalarKind::I32;
    case 64:
      return ScalarKind::I64;
    default:
      return std::nullopt;
    }
  }
  if (type.isF16())
    return ScalarKind::F16;
  if (type.isBF16())
    return ScalarKind::BF16;
  if (type.isF32())
    return ScalarKind::F32;
  if (type.isF64())
    return ScalarKind::F64;
  if (isa<Float8E4M3FNType>(type))
    return ScalarKind::F8E4M3FN;
  if (isa<Float8E4M3FNUZType>(type))
    return ScalarKind::F8E4M3FNUZ;
  if (isa<Float8E5M2Type>(type))
    return ScalarKind::F8E5M2;
  if (isa<Float8E5M2FNUZType>(type))
    return ScalarKind::F8E5M2FNUZ;
  return std::nullopt;
}

Type elementTypeOf(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.getElementType();
  return type;
}

/// Words of a value of `type` in a frame, or 0 when unsupported.
uint32_t wordsOf(Type type) {
  if (auto vector = dyn_cast<VectorType>(type)) {
    if (vector.isScalable() || !scalarKindOf(vector.getElementType()))
      return 0;
    return uint32_t(vector.getNumElements());
  }
  if (auto memref = dyn_cast<MemRefType>(type))
    return scalarKindOf(memref.getElementType())
               ? memrefWords(memref.getRank())
               : 0;
  return scalarKindOf(type) ? 1 : 0;
}

uint32_t elementCount(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return uint32_t(vector.getNumElements());
  return 1;
}

bool isFp8(ScalarKind kind) {
  return kind >= ScalarKind::F8E4M3FN;
}
bool isFnuz(ScalarKind kind) {
  return kind == ScalarKind::F8E4M3FNUZ || kind == ScalarKind::F8E5M2FNUZ;
}

/// Words of an attribute value of `type` (arith.constant).
std::optional<std::vector<uint64_t>> constantWords(Attribute value,
                                                   Type type) {
  auto wordOf = [](Attribute element) -> std::optional<uint64_t> {
    if (auto integer = dyn_cast<IntegerAttr>(element)) {
      APInt bits = integer.getValue();
      return bits.getBitWidth() <= 64 ? std::optional<uint64_t>(
                                            bits.getZExtValue())
                                      : std::nullopt;
    }
    if (auto real = dyn_cast<FloatAttr>(element))
      return real.getValue().bitcastToAPInt().getZExtValue();
    return std::nullopt;
  };
  std::vector<uint64_t> words;
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    for (Attribute element : dense.getValues<Attribute>()) {
      std::optional<uint64_t> word = wordOf(element);
      if (!word)
        return std::nullopt;
      words.push_back(*word);
    }
    return words;
  }
  std::optional<uint64_t> word = wordOf(value);
  if (!word || wordsOf(type) != 1)
    return std::nullopt;
  words.push_back(*word);
  return words;
}

/// Row-major strides of `sizes`.
SmallVector<int64_t, 4> rowMajorStrides(ArrayRef<int64_t> sizes) {
  SmallVector<int64_t, 4> strides(sizes.size(), 1);
  for (int64_t i = int64_t(sizes.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * sizes[i + 1];
  return strides;
}

class FunctionCompiler {
public:
  FunctionCompiler(ProgramImpl &program, Function &function, bool host,
                   std::string &error)
      : program(program), fn(function), host(host), error(error) {}

  /// The function's arguments: the first `count` arguments of its entry
  /// block. A gpu.func's entry block continues with its workgroup (and
  /// private) attributions, which are not arguments: a launch passes no
  /// words for them (compileAttributions places them in LDS).
  LogicalResult compileArguments(Block &entry, unsigned count) {
    for (BlockArgument argument : entry.getArguments().take_front(count)) {
      FailureOr<uint32_t> slot = define(argument, fn.op);
      if (failed(slot))
        return failure();
      fn.argumentSlots.push_back(*slot);
      fn.argumentWords.push_back(wordsOf(argument.getType()));
      auto memref = dyn_cast<MemRefType>(argument.getType());
      fn.argumentRanks.push_back(memref ? memref.getRank() : -1);
    }
    return success();
  }

  LogicalResult compileAttributions(gpu::GPUFuncOp kernel) {
    if (!kernel.getPrivateAttributions().empty())
      return fail(kernel, "private attributions are not supported");
    int64_t offset = 0;
    for (BlockArgument attribution : kernel.getWorkgroupAttributions()) {
      auto type = cast<MemRefType>(attribution.getType());
      std::optional<ScalarKind> kind = scalarKindOf(type.getElementType());
      if (!type.hasStaticShape() || !kind || !type.getLayout().isIdentity())
        return fail(kernel, "workgroup attributions must be statically "
                            "shaped identity-layout memrefs of scalars");
      FailureOr<uint32_t> slot = define(attribution, kernel);
      if (failed(slot))
        return failure();
      Attribution placed;
      placed.slot = *slot;
      placed.elementBytes = storageBytes(*kind);
      // 16-byte alignment keeps every element type aligned.
      offset = (offset + 15) / 16 * 16;
      placed.byteOffset = offset;
      placed.sizes.assign(type.getShape().begin(), type.getShape().end());
      placed.strides = rowMajorStrides(placed.sizes);
      offset += type.getNumElements() * placed.elementBytes;
      fn.workgroupMemory.push_back(placed);
    }
    fn.workgroupMemoryBytes = offset;
    return success();
  }

  /// The function's body: its one block and the return at its end.
  LogicalResult compileBody(Region &body) {
    if (!body.hasOneBlock())
      return fail(fn.op, "expected a function body of one block (structured "
                         "control flow)");
    if (failed(compileBlock(body.front())))
      return failure();
    Operation *terminator = body.front().getTerminator();
    if (!isa<gpu::ReturnOp, func::ReturnOp>(terminator) ||
        terminator->getNumOperands() != 0)
      return fail(terminator, "expected a return without values");
    emit(OpCode::Return, terminator);
    return success();
  }

private:
  ProgramImpl &program;
  Function &fn;
  bool host;
  std::string &error;
  DenseMap<Value, uint32_t> slots;

  LogicalResult fail(Operation *op, const Twine &message) {
    error = ("emulator: cannot compile '" + op->getName().getStringRef() +
             "' at " + describe(op->getLoc()) + ": " + message)
                .str();
    return failure();
  }

  FailureOr<uint32_t> define(Value value, Operation *op) {
    uint32_t words = wordsOf(value.getType());
    if (words == 0) {
      std::string type;
      llvm::raw_string_ostream os(type);
      value.getType().print(os);
      return fail(op, "values of type " + type + " are not supported");
    }
    uint32_t slot = fn.frameWords;
    fn.frameWords += words;
    slots[value] = slot;
    return slot;
  }

  /// A slot shared by several values (loop results and iteration args).
  void alias(Value value, uint32_t slot) { slots[value] = slot; }

  uint32_t use(Value value) { return slots.lookup(value); }

  size_t emit(OpCode code, Operation *op) {
    Instr instr;
    instr.code = code;
    instr.op = op;
    fn.code.push_back(instr);
    return fn.code.size() - 1;
  }
  Instr &at(size_t index) { return fn.code[index]; }
  size_t here() const { return fn.code.size(); }

  template <typename Table, typename Entry>
  uint32_t addTo(Table &table, Entry entry) {
    table.push_back(std::move(entry));
    return uint32_t(table.size() - 1);
  }

  FailureOr<ScalarKind> kindOf(Operation *op, Type type) {
    std::optional<ScalarKind> kind = scalarKindOf(elementTypeOf(type));
    if (!kind)
      return fail(op, "unsupported element type");
    return *kind;
  }

  /// fp8 values the chip cannot convert natively are rejected, as
  /// pa-convert-kernels-to-rocdl does (checkFp8Flavour).
  LogicalResult checkFp8(Operation *op, ScalarKind kind) {
    if (!isFp8(kind) || isFnuz(kind) == isFnuz(program.chipFp8))
      return success();
    return fail(op, Twine("chip ") + program.options.chip +
                        " converts " + scalarKindName(program.chipFp8) +
                        " fp8 values natively, not " + scalarKindName(kind));
  }

  //===------------------------------------------------------------------===//
  // Blocks and structured control flow
  //===------------------------------------------------------------------===//

  LogicalResult compileBlock(Block &block) {
    for (Operation &op : block.without_terminator())
      if (failed(compileOp(op)))
        return failure();
    return success();
  }

  /// Parallel copy of `sources` into `destinations` under the exec mask.
  void emitMoves(Operation *op, ArrayRef<uint32_t> destinations,
                 ValueRange sources) {
    MoveList list;
    for (auto [destination, source] : llvm::zip(destinations, sources)) {
      uint32_t from = use(source);
      if (from == destination)
        continue;
      list.moves.push_back({destination, from, wordsOf(source.getType())});
    }
    if (list.moves.empty())
      return;
    for (const Move &move : list.moves)
      for (const Move &other : list.moves)
        if (other.src < move.dst + move.words &&
            move.dst < other.src + other.words)
          list.overlapping = true;
    size_t instr = emit(OpCode::MoveMulti, op);
    at(instr).aux = addTo(fn.moveLists, std::move(list));
  }

  FailureOr<SmallVector<uint32_t>> defineAll(ValueRange values,
                                             Operation *op) {
    SmallVector<uint32_t> result;
    for (Value value : values) {
      FailureOr<uint32_t> slot = define(value, op);
      if (failed(slot))
        return failure();
      result.push_back(*slot);
    }
    return result;
  }

  LogicalResult compileIf(scf::IfOp op) {
    FailureOr<SmallVector<uint32_t>> results = defineAll(op.getResults(), op);
    if (failed(results))
      return failure();
    size_t begin = emit(OpCode::IfBegin, op);
    at(begin).a = use(op.getCondition());
    if (failed(compileBlock(*op.thenBlock())))
      return failure();
    emitMoves(op, *results, op.thenYield().getOperands());
    size_t elseAt = emit(OpCode::Else, op);
    at(begin).imm = int64_t(elseAt);
    if (Block *elseBlock = op.elseBlock()) {
      if (failed(compileBlock(*elseBlock)))
        return failure();
      emitMoves(op, *results, op.elseYield().getOperands());
    }
    size_t end = emit(OpCode::EndIf, op);
    at(elseAt).imm = int64_t(end);
    return success();
  }

  /// The loop head / step / exit around `body` for one induction variable
  /// (scf.for and each dim of scf.parallel).
  template <typename BodyFn>
  LogicalResult emitCountedLoop(Operation *op, Value iv, Value lower,
                                Value upper, Value step, bool unsignedCmp,
                                BodyFn &&body) {
    FailureOr<ScalarKind> kind = kindOf(op, iv.getType());
    if (failed(kind))
      return failure();
    FailureOr<uint32_t> ivSlot = define(iv, op);
    if (failed(ivSlot))
      return failure();
    size_t init = emit(OpCode::ForInit, op);
    at(init).dst = *ivSlot;
    at(init).a = use(lower);
    size_t head = emit(OpCode::ForHead, op);
    at(head).a = *ivSlot;
    at(head).b = use(upper);
    at(head).kind = *kind;
    at(head).mode = unsignedCmp;
    if (failed(body()))
      return failure();
    size_t stepAt = emit(OpCode::ForStep, op);
    at(stepAt).a = *ivSlot;
    at(stepAt).b = use(step);
    at(stepAt).kind = *kind;
    at(stepAt).imm = int64_t(head);
    size_t exit = emit(OpCode::ForExit, op);
    at(head).imm = int64_t(exit);
    return success();
  }

  LogicalResult compileFor(scf::ForOp op) {
    // The results share the iteration arguments' slots: lanes leave the
    // loop with their last values in place.
    SmallVector<uint32_t> iterSlots;
    for (auto [arg, result] :
         llvm::zip(op.getRegionIterArgs(), op.getResults())) {
      FailureOr<uint32_t> slot = define(arg, op);
      if (failed(slot))
        return failure();
      alias(result, *slot);
      iterSlots.push_back(*slot);
    }
    emitMoves(op, iterSlots, op.getInitArgs());
    return emitCountedLoop(
        op, op.getInductionVar(), op.getLowerBound(), op.getUpperBound(),
        op.getStep(), op.getUnsignedCmp(), [&]() -> LogicalResult {
          if (failed(compileBlock(*op.getBody())))
            return failure();
          auto yield = cast<scf::YieldOp>(op.getBody()->getTerminator());
          emitMoves(yield, iterSlots, yield.getOperands());
          return success();
        });
  }

  LogicalResult compileParallel(scf::ParallelOp op) {
    if (op.getNumResults() != 0)
      return fail(op, "scf.parallel with reductions is not supported");
    // Lanes run the iterations in order, one dim nested in the other.
    std::function<LogicalResult(unsigned)> nest =
        [&](unsigned dim) -> LogicalResult {
      if (dim == op.getNumLoops())
        return compileBlock(*op.getBody());
      return emitCountedLoop(op, op.getInductionVars()[dim],
                             op.getLowerBound()[dim], op.getUpperBound()[dim],
                             op.getStep()[dim], /*unsignedCmp=*/false,
                             [&] { return nest(dim + 1); });
    };
    return nest(0);
  }

  LogicalResult compileWhile(scf::WhileOp op) {
    Block &before = op.getBefore().front();
    Block &after = op.getAfter().front();
    FailureOr<SmallVector<uint32_t>> beforeArgs =
        defineAll(before.getArguments(), op);
    FailureOr<SmallVector<uint32_t>> afterArgs =
        defineAll(after.getArguments(), op);
    FailureOr<SmallVector<uint32_t>> results = defineAll(op.getResults(), op);
    if (failed(beforeArgs) || failed(afterArgs) || failed(results))
      return failure();
    emitMoves(op, *beforeArgs, op.getInits());
    emit(OpCode::WhileInit, op);
    size_t head = here();
    if (failed(compileBlock(before)))
      return failure();
    scf::ConditionOp condition = op.getConditionOp();
    ConditionInfo info;
    for (auto [i, arg] : llvm::enumerate(condition.getArgs())) {
      info.arguments.push_back(use(arg));
      info.results.push_back((*results)[i]);
      info.afterArguments.push_back((*afterArgs)[i]);
      info.words.push_back(wordsOf(arg.getType()));
    }
    size_t check = emit(OpCode::Condition, condition);
    at(check).a = use(condition.getCondition());
    at(check).aux = addTo(fn.conditions, std::move(info));
    if (failed(compileBlock(after)))
      return failure();
    emitMoves(op, *beforeArgs, op.getYieldOp().getOperands());
    size_t jump = emit(OpCode::Jump, op);
    at(jump).imm = int64_t(head);
    size_t exit = emit(OpCode::WhileExit, op);
    at(check).imm = int64_t(exit);
    return success();
  }

  //===------------------------------------------------------------------===//
  // Element-wise ops
  //===------------------------------------------------------------------===//

  LogicalResult elementwise(Operation *op, OpCode code, bool floatOnly) {
    FailureOr<ScalarKind> kind = kindOf(op, op->getOperand(0).getType());
    if (failed(kind))
      return failure();
    if (floatOnly && *kind != ScalarKind::F32 && *kind != ScalarKind::F64)
      return fail(op, "floating-point arithmetic is supported on f32 and "
                      "f64 only");
    if (!floatOnly && isFloatKind(*kind))
      return fail(op, "expected integer operands");
    FailureOr<uint32_t> dst = define(op->getResult(0), op);
    if (failed(dst))
      return failure();
    size_t instr = emit(code, op);
    at(instr).kind = *kind;
    at(instr).count = elementCount(op->getResult(0).getType());
    at(instr).dst = *dst;
    at(instr).a = use(op->getOperand(0));
    if (op->getNumOperands() > 1)
      at(instr).b = use(op->getOperand(1));
    if (op->getNumOperands() > 2)
      at(instr).c = use(op->getOperand(2));
    return success();
  }

  LogicalResult comparison(Operation *op, OpCode code, uint8_t predicate,
                           bool floatOperands) {
    if (failed(elementwise(op, code, floatOperands)))
      return failure();
    fn.code.back().mode = predicate;
    return success();
  }

  /// A conversion between element kinds (ext, trunc, int <-> float).
  LogicalResult conversion(Operation *op, OpCode code) {
    Type from = op->getOperand(0).getType(), to = op->getResult(0).getType();
    FailureOr<ScalarKind> fromKind = kindOf(op, from), toKind = kindOf(op, to);
    if (failed(fromKind) || failed(toKind))
      return failure();
    if (failed(checkFp8(op, *fromKind)) || failed(checkFp8(op, *toKind)))
      return failure();
    auto isWide = [](ScalarKind k) {
      return k == ScalarKind::F32 || k == ScalarKind::F64;
    };
    switch (code) {
    case OpCode::SIToFP:
    case OpCode::UIToFP:
      if (!isWide(*toKind))
        return fail(op, "integer to float conversions go to f32 or f64");
      break;
    case OpCode::FPToSI:
    case OpCode::FPToUI:
      if (!isWide(*fromKind))
        return fail(op, "float to integer conversions come from f32 or f64");
      break;
    case OpCode::ExtF:
      if (!isWide(*toKind))
        return fail(op, "arith.extf must produce f32 or f64");
      break;
    case OpCode::TruncF:
      if (!isWide(*fromKind))
        return fail(op, "arith.truncf must start from f32 or f64");
      break;
    default:
      break;
    }
    FailureOr<uint32_t> dst = define(op->getResult(0), op);
    if (failed(dst))
      return failure();
    size_t instr = emit(code, op);
    at(instr).kind = *fromKind;
    at(instr).kind2 = *toKind;
    at(instr).count = elementCount(to);
    at(instr).dst = *dst;
    at(instr).a = use(op->getOperand(0));
    return success();
  }

  /// index_cast and friends: an extension or a truncation by width.
  LogicalResult integerResize(Operation *op, bool signedExtension) {
    FailureOr<ScalarKind> from = kindOf(op, op->getOperand(0).getType());
    FailureOr<ScalarKind> to = kindOf(op, op->getResult(0).getType());
    if (failed(from) || failed(to))
      return failure();
    OpCode code = bitWidth(*to) > bitWidth(*from)
                      ? (signedExtension ? OpCode::ExtSI : OpCode::ExtUI)
                      : OpCode::TruncI;
    return conversion(op, code);
  }

  LogicalResult move(Operation *op, Value source) {
    FailureOr<uint32_t> dst = define(op->getResult(0), op);
    if (failed(dst))
      return failure();
    size_t instr = emit(OpCode::Move, op);
    at(instr).dst = *dst;
    at(instr).a = use(source);
    at(instr).count = wordsOf(source.getType());
    return success();
  }

  LogicalResult constant(Operation *op, Attribute value) {
    std::optional<std::vector<uint64_t>> words =
        constantWords(value, op->getResult(0).getType());
    if (!words)
      return fail(op, "unsupported constant");
    FailureOr<uint32_t> dst = define(op->getResult(0), op);
    if (failed(dst))
      return failure();
    size_t instr = emit(OpCode::Const, op);
    at(instr).dst = *dst;
    at(instr).count = uint32_t(words->size());
    at(instr).aux = addTo(fn.constants, std::move(*words));
    return success();
  }

  LogicalResult poison(Operation *op) {
    Type type = op->getResult(0).getType();
    uint32_t words = wordsOf(type);
    if (words == 0)
      return fail(op, "unsupported poison type");
    // A recognisable pattern (a NaN for f32) where poison is read.
    std::vector<uint64_t> pattern(words, 0x7FBADBADu);
    FailureOr<uint32_t> dst = define(op->getResult(0), op);
    if (failed(dst))
      return failure();
    size_t instr = emit(OpCode::Const, op);
    at(instr).dst = *dst;
    at(instr).count = words;
    at(instr).aux = addTo(fn.constants, std::move(pattern));
    return success();
  }

  LogicalResult select(arith::SelectOp op) {
    FailureOr<uint32_t> dst = define(op.getResult(), op);
    if (failed(dst))
      return failure();
    size_t instr = emit(OpCode::Select, op);
    at(instr).dst = *dst;
    at(instr).a = use(op.getCondition());
    at(instr).b = use(op.getTrueValue());
    at(instr).c = use(op.getFalseValue());
    at(instr).count = wordsOf(op.getType());
    at(instr).mode = isa<VectorType>(op.getCondition().getType());
    return success();
  }

  //===------------------------------------------------------------------===//
  // GPU and AMD ops
  //===------------------------------------------------------------------===//

  LogicalResult kernelOnly(Operation *op) {
    if (host)
      return fail(op, "only kernels (gpu.func) may use this op");
    return success();
  }

  LogicalResult gpuIndex(Operation *op, OpCode code, uint8_t dimension) {
    if (failed(kernelOnly(op)))
      return failure();
    FailureOr<uint32_t> dst = define(op->getResult(0), op);
    if (failed(dst))
      return failure();
    size_t instr = emit(code, op);
    at(instr).dst = *dst;
    at(instr).mode = dimension;
    return success();
  }

  LogicalResult shuffle(gpu::ShuffleOp op) {
    if (failed(kernelOnly(op)))
      return failure();
    FailureOr<uint32_t> value = define(op.getShuffleResult(), op);
    FailureOr<uint32_t> valid = define(op.getValid(), op);
    if (failed(value) || failed(valid))
      return failure();
    size_t instr = emit(OpCode::Shuffle, op);
    at(instr).dst = *value;
    at(instr).imm = *valid;
    at(instr).a = use(op.getValue());
    at(instr).b = use(op.getOffset());
    at(instr).c = use(op.getWidth());
    at(instr).count = wordsOf(op.getValue().getType());
    at(instr).mode = uint8_t(op.getMode());
    return success();
  }

  LogicalResult barrier(Operation *op) {
    if (failed(kernelOnly(op)))
      return failure();
    emit(OpCode::Barrier, op);
    return success();
  }

  LogicalResult mfma(amdgpu::MFMAOp op) {
    if (failed(kernelOnly(op)))
      return failure();
    if (op.getCbsz() != 0 || op.getAbid() != 0 ||
        op.getBlgp() != amdgpu::MFMAPermB::none || op.getNegateA() ||
        op.getNegateB() || op.getNegateC())
      return fail(op, "cbsz / abid / blgp / negate modifiers are not "
                      "supported");
    FailureOr<ScalarKind> input = kindOf(op, op.getSourceA().getType());
    FailureOr<ScalarKind> output = kindOf(op, op.getDestC().getType());
    if (failed(input) || failed(output))
      return failure();
    if (op.getSourceA().getType() != op.getSourceB().getType())
      return fail(op, "A and B must have the same type");
    std::optional<MFMAInstruction> instruction =
        lookupMFMA(int(op.getM()), int(op.getN()), int(op.getK()),
                   int(op.getBlocks()), *input);
    if (!instruction || *output != ScalarKind::F32)
      return fail(op, "no verified register layout for this MFMA (the "
                      "emulator executes the CDNA3 instructions of "
                      "shared/isa/mfma-layouts: 16x16x32 / 32x32x16 fp8, "
                      "16x16x16 / 32x32x8 bf16 and f16, and gfx950's "
                      "16x16x128 / 32x32x64 f8f6f4 on fp8; f32 "
                      "accumulators)");
    if (instruction->isF8F6F4() && program.options.chip != "gfx950")
      return fail(op, instruction->isaName() + " exists on gfx950 only, "
                      "not on " + program.options.chip);
    if (failed(checkFp8(op, *input)))
      return failure();
    if (elementCount(op.getSourceA().getType()) !=
            uint32_t(instruction->operandElements()) ||
        elementCount(op.getDestC().getType()) !=
            uint32_t(instruction->accumulatorElements()))
      return fail(op, "operand vector lengths do not match " +
                          instruction->isaName());
    FailureOr<uint32_t> dst = define(op.getDestD(), op);
    if (failed(dst))
      return failure();
    MFMAInfo info;
    info.instruction = *instruction;
    info.a = use(op.getSourceA());
    info.b = use(op.getSourceB());
    info.c = use(op.getDestC());
    info.dst = *dst;
    size_t instr = emit(OpCode::MFMA, op);
    at(instr).aux = addTo(fn.mfmas, info);
    return success();
  }

  LogicalResult dpp(amdgpu::DPPOp op) {
    if (failed(kernelOnly(op)))
      return failure();
    DPPInfo info;
    info.kind = int(op.getKind());
    info.rowMask = op.getRowMask();
    info.bankMask = op.getBankMask();
    info.boundCtrl = op.getBoundCtrl();
    info.words = wordsOf(op.getType());
    if (std::optional<Attribute> argument = op.getPermArgument()) {
      if (auto integer = dyn_cast<IntegerAttr>(*argument))
        info.argument.push_back(integer.getInt());
      else if (auto array = dyn_cast<ArrayAttr>(*argument))
        for (Attribute element : array)
          info.argument.push_back(cast<IntegerAttr>(element).getInt());
    }
    switch (op.getKind()) {
    case amdgpu::DPPPerm::quad_perm:
    case amdgpu::DPPPerm::row_shl:
    case amdgpu::DPPPerm::row_shr:
    case amdgpu::DPPPerm::row_ror:
    case amdgpu::DPPPerm::row_mirror:
    case amdgpu::DPPPerm::row_half_mirror:
    case amdgpu::DPPPerm::row_bcast_15:
    case amdgpu::DPPPerm::row_bcast_31:
      break;
    default:
      return fail(op, "unsupported DPP permutation");
    }
    FailureOr<uint32_t> dst = define(op.getResult(), op);
    if (failed(dst))
      return failure();
    info.old = use(op.getOld());
    info.src = use(op.getSrc());
    info.dst = *dst;
    size_t instr = emit(OpCode::DPP, op);
    at(instr).aux = addTo(fn.dpps, std::move(info));
    return success();
  }

  /// amdgpu.packed_trunc_2xfp8: two f32 into word `wordIndex` of a
  /// vector<4xfp8>, the other word from `existing` (or undefined).
  LogicalResult packedTrunc(amdgpu::PackedTrunc2xFp8Op op) {
    FailureOr<ScalarKind> kind = kindOf(op, op.getRes().getType());
    if (failed(kind) || failed(checkFp8(op, *kind)))
      return failure();
    FailureOr<uint32_t> dst = define(op.getRes(), op);
    if (failed(dst))
      return failure();
    size_t instr = emit(OpCode::PackedTruncFp8, op);
    at(instr).dst = *dst;
    at(instr).kind2 = *kind;
    at(instr).mode = uint8_t(op.getWordIndex());
    at(instr).a = use(op.getSourceA());
    // Absent operands: imm bit 0 (sourceB), bit 1 (existing).
    if (Value b = op.getSourceB())
      at(instr).b = use(b);
    else
      at(instr).imm |= 1;
    if (Value existing = op.getExisting())
      at(instr).c = use(existing);
    else
      at(instr).imm |= 2;
    return success();
  }

  /// amdgpu.ext_packed_fp8: element `index` (f32 result) or word `index`
  /// (vector<2xf32> result) of the fp8 source, widened.
  LogicalResult extPacked(amdgpu::ExtPackedFp8Op op) {
    FailureOr<ScalarKind> kind = kindOf(op, op.getSource().getType());
    if (failed(kind) || failed(checkFp8(op, *kind)))
      return failure();
    FailureOr<uint32_t> dst = define(op.getRes(), op);
    if (failed(dst))
      return failure();
    uint32_t results = elementCount(op.getRes().getType());
    uint32_t first = uint32_t(op.getIndex()) * results;
    if (first + results > elementCount(op.getSource().getType()))
      return fail(op, "reads past the end of the source vector (undefined)");
    size_t instr = emit(OpCode::ExtPackedFp8, op);
    at(instr).dst = *dst;
    at(instr).kind = *kind;
    at(instr).a = use(op.getSource());
    at(instr).b = first;
    at(instr).count = results;
    return success();
  }

  LogicalResult laneOp(Operation *op, OpCode code, uint8_t mode = 0) {
    if (failed(kernelOnly(op)))
      return failure();
    FailureOr<uint32_t> dst = define(op->getResult(0), op);
    if (failed(dst))
      return failure();
    size_t instr = emit(code, op);
    at(instr).dst = *dst;
    at(instr).a = use(op->getOperand(0));
    if (op->getNumOperands() > 1)
      at(instr).b = use(op->getOperand(1));
    at(instr).count = wordsOf(op->getResult(0).getType());
    at(instr).mode = mode;
    return success();
  }

  //===------------------------------------------------------------------===//
  // Memory
  //===------------------------------------------------------------------===//

  static bool isBufferMemRef(MemRefType type) {
    auto space =
        dyn_cast_or_null<amdgpu::AddressSpaceAttr>(type.getMemorySpace());
    return space && space.getValue() == amdgpu::AddressSpace::FatRawBuffer;
  }

  LogicalResult access(Operation *op, Value memref, ValueRange indices,
                       Value value, Type valueType, bool store,
                       MemAccess info = {}) {
    auto type = cast<MemRefType>(memref.getType());
    FailureOr<ScalarKind> element = kindOf(op, type.getElementType());
    if (failed(element))
      return failure();
    if (isa<VectorType>(valueType) && cast<VectorType>(valueType).getRank() != 1)
      return fail(op, "only 1-D vectors are loaded and stored");
    info.memref = use(memref);
    for (Value index : indices)
      info.indices.push_back(use(index));
    info.element = *element;
    info.elementBytes = storageBytes(*element);
    info.count = elementCount(valueType);
    info.store = store;
    info.buffer = info.buffer || isBufferMemRef(type);
    if (store) {
      info.value = use(value);
    } else {
      FailureOr<uint32_t> dst = define(value, op);
      if (failed(dst))
        return failure();
      info.value = *dst;
    }
    size_t instr = emit(store ? OpCode::Store : OpCode::Load, op);
    at(instr).aux = addTo(fn.accesses, std::move(info));
    return success();
  }

  LogicalResult transfer(Operation *op, Value memref, ValueRange indices,
                         Value value, VectorType vectorType, AffineMap map,
                         std::optional<ArrayAttr> inBounds, Value mask,
                         Value padding, bool store) {
    auto type = dyn_cast<MemRefType>(memref.getType());
    if (!type || mask || vectorType.getRank() != 1 ||
        map != AffineMap::getMinorIdentityMap(type.getRank(), 1,
                                              op->getContext()))
      return fail(op, "only unmasked 1-D transfers along the innermost "
                      "memref dim are supported");
    MemAccess info;
    info.transfer = true;
    info.inBounds =
        inBounds && !inBounds->empty() &&
        cast<BoolAttr>((*inBounds)[0]).getValue();
    if (padding)
      info.padding = use(padding);
    return access(op, memref, indices, value, vectorType, store,
                  std::move(info));
  }

  LogicalResult rawBufferAccess(Operation *op, Value memref,
                                ValueRange indices, Value value,
                                Type valueType, bool store,
                                std::optional<uint32_t> indexOffset,
                                Value sgprOffset) {
    if (failed(kernelOnly(op)))
      return failure();
    if (isa<VectorType>(valueType) && cast<VectorType>(valueType).getRank() != 1)
      return fail(op, "only 1-D vectors are loaded and stored");
    MemAccess info;
    info.buffer = true;
    info.indexKind = ScalarKind::I32;
    info.indexOffset = indexOffset ? int64_t(*indexOffset) : 0;
    if (sgprOffset)
      info.sgprOffset = use(sgprOffset);
    return access(op, memref, indices, value, valueType, store,
                  std::move(info));
  }

  IndexOperand mixed(OpFoldResult value) {
    if (auto attr = dyn_cast<Attribute>(value))
      return {false, cast<IntegerAttr>(attr).getInt()};
    return {true, int64_t(use(cast<Value>(value)))};
  }

  LogicalResult view(Operation *op, ViewInfo info, Value source) {
    FailureOr<uint32_t> dst = define(op->getResult(0), op);
    if (failed(dst))
      return failure();
    info.source = use(source);
    info.sourceRank = uint32_t(cast<MemRefType>(source.getType()).getRank());
    info.resultRank =
        uint32_t(cast<MemRefType>(op->getResult(0).getType()).getRank());
    size_t instr = emit(OpCode::View, op);
    at(instr).dst = *dst;
    at(instr).aux = addTo(fn.views, std::move(info));
    return success();
  }

  LogicalResult subview(memref::SubViewOp op) {
    ViewInfo info;
    info.kind = ViewKind::SubView;
    for (OpFoldResult v : op.getMixedOffsets())
      info.offsets.push_back(mixed(v));
    for (OpFoldResult v : op.getMixedSizes())
      info.sizes.push_back(mixed(v));
    for (OpFoldResult v : op.getMixedStrides())
      info.strides.push_back(mixed(v));
    llvm::SmallBitVector dropped = op.getDroppedDims();
    for (unsigned i = 0; i < dropped.size(); ++i)
      info.dropped.push_back(dropped.test(i));
    return view(op, std::move(info), op.getSource());
  }

  LogicalResult reinterpretCast(memref::ReinterpretCastOp op) {
    ViewInfo info;
    info.kind = ViewKind::ReinterpretCast;
    for (OpFoldResult v : op.getMixedOffsets())
      info.offsets.push_back(mixed(v));
    for (OpFoldResult v : op.getMixedSizes())
      info.sizes.push_back(mixed(v));
    for (OpFoldResult v : op.getMixedStrides())
      info.strides.push_back(mixed(v));
    return view(op, std::move(info), op.getSource());
  }

  template <typename ReshapeOp>
  LogicalResult reshape(ReshapeOp op, ViewKind kind) {
    ViewInfo info;
    info.kind = kind;
    for (ReassociationIndices group : op.getReassociationIndices())
      info.groups.push_back(SmallVector<int64_t, 2>(group.begin(), group.end()));
    if constexpr (std::is_same_v<ReshapeOp, memref::ExpandShapeOp>)
      for (OpFoldResult v : op.getMixedOutputShape())
        info.sizes.push_back(mixed(v));
    return view(op, std::move(info), op.getSrc());
  }

  LogicalResult fatRawBufferCast(amdgpu::FatRawBufferCastOp op) {
    if (failed(kernelOnly(op)))
      return failure();
    FailureOr<uint32_t> dst = define(op.getResult(), op);
    if (failed(dst))
      return failure();
    size_t instr = emit(OpCode::FatRawBufferCast, op);
    at(instr).dst = *dst;
    at(instr).a = use(op.getSource());
    at(instr).count = wordsOf(op.getType());
    at(instr).imm = op.getValidBytes() ? int64_t(use(op.getValidBytes())) : -1;
    at(instr).mode = op.getResetOffset();
    FailureOr<ScalarKind> element = kindOf(op, op.getType());
    if (failed(element))
      return failure();
    at(instr).kind = *element;
    return success();
  }

  LogicalResult dim(memref::DimOp op) {
    FailureOr<uint32_t> dst = define(op.getResult(), op);
    if (failed(dst))
      return failure();
    size_t instr = emit(OpCode::Dim, op);
    at(instr).dst = *dst;
    at(instr).a = use(op.getSource());
    at(instr).b = use(op.getIndex());
    at(instr).count = uint32_t(cast<MemRefType>(op.getSource().getType()).getRank());
    return success();
  }

  LogicalResult alloc(memref::AllocOp op) {
    if (!host)
      return fail(op, "kernels cannot allocate global memory");
    MemRefType type = op.getType();
    if (!type.getLayout().isIdentity())
      return fail(op, "only identity-layout allocations are supported");
    FailureOr<ScalarKind> element = kindOf(op, type);
    if (failed(element))
      return failure();
    AllocInfo info;
    info.elementBytes = storageBytes(*element);
    unsigned dynamicIndex = 0;
    for (int64_t size : type.getShape())
      info.sizes.push_back(ShapedType::isDynamic(size)
                               ? IndexOperand{true, int64_t(use(
                                                        op.getDynamicSizes()
                                                            [dynamicIndex++]))}
                               : IndexOperand{false, size});
    FailureOr<uint32_t> dst = define(op.getResult(), op);
    if (failed(dst))
      return failure();
    size_t instr = emit(OpCode::Alloc, op);
    at(instr).dst = *dst;
    at(instr).count = uint32_t(type.getRank());
    at(instr).aux = addTo(fn.allocs, std::move(info));
    return success();
  }

  //===------------------------------------------------------------------===//
  // Vectors
  //===------------------------------------------------------------------===//

  LogicalResult positioned(Operation *op, OpCode code, Value vector,
                           ArrayRef<OpFoldResult> positions, Value inserted) {
    auto type = cast<VectorType>(vector.getType());
    PositionInfo info;
    info.shape.assign(type.getShape().begin(), type.getShape().end());
    for (OpFoldResult position : positions)
      info.positions.push_back(mixed(position));
    FailureOr<uint32_t> dst = define(op->getResult(0), op);
    if (failed(dst))
      return failure();
    size_t instr = emit(code, op);
    at(instr).dst = *dst;
    at(instr).a = use(vector);
    if (inserted)
      at(instr).b = use(inserted);
    at(instr).count = wordsOf(op->getResult(0).getType());
    at(instr).aux = addTo(fn.positions, std::move(info));
    return success();
  }

  LogicalResult broadcast(Operation *op, Value source) {
    auto result = cast<VectorType>(op->getResult(0).getType());
    if (auto vector = dyn_cast<VectorType>(source.getType())) {
      ArrayRef<int64_t> from = vector.getShape(), to = result.getShape();
      if (from.size() > to.size() ||
          to.take_back(from.size()) != from)
        return fail(op, "only broadcasts of trailing dims are supported");
    }
    FailureOr<uint32_t> dst = define(op->getResult(0), op);
    if (failed(dst))
      return failure();
    size_t instr = emit(OpCode::Broadcast, op);
    at(instr).dst = *dst;
    at(instr).a = use(source);
    at(instr).b = wordsOf(source.getType());
    at(instr).count = uint32_t(result.getNumElements());
    return success();
  }

  LogicalResult bitcast(vector::BitCastOp op) {
    FailureOr<ScalarKind> from = kindOf(op, op.getSourceVectorType());
    FailureOr<ScalarKind> to = kindOf(op, op.getResultVectorType());
    if (failed(from) || failed(to) || *from == ScalarKind::I1 ||
        *to == ScalarKind::I1)
      return fail(op, "unsupported bitcast");
    FailureOr<uint32_t> dst = define(op.getResult(), op);
    if (failed(dst))
      return failure();
    size_t instr = emit(OpCode::VecBitcast, op);
    at(instr).dst = *dst;
    at(instr).a = use(op.getSource());
    at(instr).kind = *from;
    at(instr).kind2 = *to;
    at(instr).count = elementCount(op.getSourceVectorType());
    return success();
  }

  LogicalResult vectorShuffle(vector::ShuffleOp op) {
    if (op.getV1VectorType().getRank() != 1)
      return fail(op, "only 1-D shuffles are supported");
    FailureOr<uint32_t> dst = define(op.getResult(), op);
    if (failed(dst))
      return failure();
    size_t instr = emit(OpCode::VecShuffle, op);
    at(instr).dst = *dst;
    at(instr).a = use(op.getV1());
    at(instr).b = use(op.getV2());
    at(instr).c = elementCount(op.getV1VectorType());
    at(instr).aux = addTo(fn.lists, SmallVector<int64_t, 8>(
                                        op.getMask().begin(), op.getMask().end()));
    return success();
  }

  LogicalResult fromElements(vector::FromElementsOp op) {
    SmallVector<int64_t, 8> elements;
    for (Value element : op.getElements())
      elements.push_back(use(element));
    FailureOr<uint32_t> dst = define(op.getResult(), op);
    if (failed(dst))
      return failure();
    size_t instr = emit(OpCode::FromElements, op);
    at(instr).dst = *dst;
    at(instr).count = uint32_t(elements.size());
    at(instr).aux = addTo(fn.lists, std::move(elements));
    return success();
  }

  LogicalResult reduction(vector::ReductionOp op) {
    FailureOr<ScalarKind> kind = kindOf(op, op.getVector().getType());
    if (failed(kind))
      return failure();
    bool floating = isFloatKind(*kind);
    if (floating && *kind != ScalarKind::F32 && *kind != ScalarKind::F64)
      return fail(op, "float reductions are supported on f32 and f64 only");
    FailureOr<uint32_t> dst = define(op.getDest(), op);
    if (failed(dst))
      return failure();
    size_t instr = emit(OpCode::Reduction, op);
    at(instr).dst = *dst;
    at(instr).a = use(op.getVector());
    at(instr).kind = *kind;
    at(instr).count = elementCount(op.getVector().getType());
    at(instr).mode = uint8_t(op.getKind());
    at(instr).imm = op.getAcc() ? int64_t(use(op.getAcc())) : -1;
    return success();
  }

  LogicalResult stridedSlice(Operation *op, OpCode code, VectorType source,
                             VectorType result, ArrayAttr offsets,
                             ArrayAttr strides, Value input, Value dest) {
    for (Attribute stride : strides)
      if (cast<IntegerAttr>(stride).getInt() != 1)
        return fail(op, "only unit strides are supported");
    StridedSliceInfo info;
    info.sourceShape.assign(source.getShape().begin(), source.getShape().end());
    info.resultShape.assign(result.getShape().begin(), result.getShape().end());
    for (Attribute offset : offsets)
      info.offsets.push_back(cast<IntegerAttr>(offset).getInt());
    FailureOr<uint32_t> dst = define(op->getResult(0), op);
    if (failed(dst))
      return failure();
    size_t instr = emit(code, op);
    at(instr).dst = *dst;
    at(instr).a = use(input);
    if (dest)
      at(instr).b = use(dest);
    at(instr).count = wordsOf(op->getResult(0).getType());
    at(instr).aux = addTo(fn.slices, std::move(info));
    return success();
  }

  //===------------------------------------------------------------------===//
  // Host-side ops
  //===------------------------------------------------------------------===//

  LogicalResult launch(gpu::LaunchFuncOp op) {
    if (!host)
      return fail(op, "kernels cannot launch kernels");
    std::string kernelName = (op.getKernelModuleName().getValue() + "::" +
                              op.getKernelName().getValue())
                                 .str();
    auto found = program.kernelIndex.find(kernelName);
    if (found == program.kernelIndex.end())
      return fail(op, "unknown kernel @" + kernelName);
    if (op.hasClusterSize() || op.getAsyncToken())
      return fail(op, "clusters and async launches are not supported");
    LaunchInfo info;
    info.kernel = found->second;
    gpu::KernelDim3 grid = op.getGridSizeOperandValues();
    gpu::KernelDim3 block = op.getBlockSizeOperandValues();
    info.grid = {use(grid.x), use(grid.y), use(grid.z)};
    info.block = {use(block.x), use(block.y), use(block.z)};
    if (Value shared = op.getDynamicSharedMemorySize())
      info.dynamicSharedMemory = use(shared);
    for (Value argument : op.getKernelOperands()) {
      info.arguments.push_back(use(argument));
      info.argumentWords.push_back(wordsOf(argument.getType()));
    }
    // The kernel copies its arguments out of the launch's words: they must
    // agree word for word (kernels are compiled before host functions).
    const Function &kernel = program.functions[found->second];
    if (kernel.argumentWords != info.argumentWords)
      return fail(op, "the launch's " + Twine(info.argumentWords.size()) +
                          " operands do not match the " +
                          Twine(kernel.argumentWords.size()) +
                          " arguments of kernel @" + kernelName);
    size_t instr = emit(OpCode::Launch, op);
    at(instr).aux = addTo(fn.launches, std::move(info));
    return success();
  }

  LogicalResult call(func::CallOp op) {
    if (!host || op.getNumResults() != 0)
      return fail(op, "only host functions call, and only functions "
                      "without results");
    auto found = program.functionIndex.find(op.getCallee());
    if (found == program.functionIndex.end())
      return fail(op, "unknown function @" + op.getCallee());
    CallInfo info;
    info.callee = found->second;
    for (Value argument : op.getOperands()) {
      info.arguments.push_back(use(argument));
      info.argumentWords.push_back(wordsOf(argument.getType()));
    }
    size_t instr = emit(OpCode::Call, op);
    at(instr).aux = addTo(fn.calls, std::move(info));
    return success();
  }

  LogicalResult affine(Operation *op, AffineMap map, ValueRange operands,
                       uint8_t mode) {
    AffineInfo info;
    info.map = map;
    for (Value operand : operands)
      info.operands.push_back(use(operand));
    FailureOr<uint32_t> dst = define(op->getResult(0), op);
    if (failed(dst))
      return failure();
    size_t instr = emit(OpCode::Affine, op);
    at(instr).dst = *dst;
    at(instr).mode = mode;
    at(instr).aux = addTo(fn.affines, std::move(info));
    return success();
  }

  LogicalResult assertion(cf::AssertOp op) {
    size_t instr = emit(OpCode::Assert, op);
    at(instr).a = use(op.getArg());
    at(instr).aux = addTo(fn.messages, op.getMsg().str());
    return success();
  }

  LogicalResult noOp() { return success(); }

  //===------------------------------------------------------------------===//
  // Dispatch
  //===------------------------------------------------------------------===//

  LogicalResult compileOp(Operation &operation) {
    Operation *op = &operation;
    using arith::CmpFPredicate;
    return llvm::TypeSwitch<Operation *, LogicalResult>(op)
        // data
        .Case([&](arith::ConstantOp c) { return constant(op, c.getValue()); })
        .Case([&](ub::PoisonOp) { return poison(op); })
        .Case([&](arith::SelectOp s) { return select(s); })
        .Case([&](arith::BitcastOp b) { return move(op, b.getIn()); })
        // integers
        .Case([&](arith::AddIOp) { return elementwise(op, OpCode::AddI, false); })
        .Case([&](arith::SubIOp) { return elementwise(op, OpCode::SubI, false); })
        .Case([&](arith::MulIOp) { return elementwise(op, OpCode::MulI, false); })
        .Case([&](arith::DivSIOp) { return elementwise(op, OpCode::DivSI, false); })
        .Case([&](arith::DivUIOp) { return elementwise(op, OpCode::DivUI, false); })
        .Case([&](arith::RemSIOp) { return elementwise(op, OpCode::RemSI, false); })
        .Case([&](arith::RemUIOp) { return elementwise(op, OpCode::RemUI, false); })
        .Case([&](arith::CeilDivSIOp) { return elementwise(op, OpCode::CeilDivSI, false); })
        .Case([&](arith::CeilDivUIOp) { return elementwise(op, OpCode::CeilDivUI, false); })
        .Case([&](arith::FloorDivSIOp) { return elementwise(op, OpCode::FloorDivSI, false); })
        .Case([&](arith::AndIOp) { return elementwise(op, OpCode::AndI, false); })
        .Case([&](arith::OrIOp) { return elementwise(op, OpCode::OrI, false); })
        .Case([&](arith::XOrIOp) { return elementwise(op, OpCode::XOrI, false); })
        .Case([&](arith::ShLIOp) { return elementwise(op, OpCode::ShlI, false); })
        .Case([&](arith::ShRSIOp) { return elementwise(op, OpCode::ShrSI, false); })
        .Case([&](arith::ShRUIOp) { return elementwise(op, OpCode::ShrUI, false); })
        .Case([&](arith::MaxSIOp) { return elementwise(op, OpCode::MaxSI, false); })
        .Case([&](arith::MinSIOp) { return elementwise(op, OpCode::MinSI, false); })
        .Case([&](arith::MaxUIOp) { return elementwise(op, OpCode::MaxUI, false); })
        .Case([&](arith::MinUIOp) { return elementwise(op, OpCode::MinUI, false); })
        .Case([&](arith::CmpIOp c) {
          return comparison(op, OpCode::CmpI, uint8_t(c.getPredicate()), false);
        })
        .Case([&](arith::ExtSIOp) { return conversion(op, OpCode::ExtSI); })
        .Case([&](arith::ExtUIOp) { return conversion(op, OpCode::ExtUI); })
        .Case([&](arith::TruncIOp) { return conversion(op, OpCode::TruncI); })
        .Case([&](arith::IndexCastOp) { return integerResize(op, true); })
        .Case([&](arith::IndexCastUIOp) { return integerResize(op, false); })
        .Case([&](arith::SIToFPOp) { return conversion(op, OpCode::SIToFP); })
        .Case([&](arith::UIToFPOp) { return conversion(op, OpCode::UIToFP); })
        .Case([&](arith::FPToSIOp) { return conversion(op, OpCode::FPToSI); })
        .Case([&](arith::FPToUIOp) { return conversion(op, OpCode::FPToUI); })
        // floats
        .Case([&](arith::AddFOp) { return elementwise(op, OpCode::AddF, true); })
        .Case([&](arith::SubFOp) { return elementwise(op, OpCode::SubF, true); })
        .Case([&](arith::MulFOp) { return elementwise(op, OpCode::MulF, true); })
        .Case([&](arith::DivFOp) { return elementwise(op, OpCode::DivF, true); })
        .Case([&](arith::RemFOp) { return elementwise(op, OpCode::RemF, true); })
        .Case([&](arith::MaximumFOp) { return elementwise(op, OpCode::MaximumF, true); })
        .Case([&](arith::MinimumFOp) { return elementwise(op, OpCode::MinimumF, true); })
        .Case([&](arith::MaxNumFOp) { return elementwise(op, OpCode::MaxNumF, true); })
        .Case([&](arith::MinNumFOp) { return elementwise(op, OpCode::MinNumF, true); })
        .Case([&](arith::NegFOp) { return elementwise(op, OpCode::NegF, true); })
        .Case([&](arith::CmpFOp c) {
          return comparison(op, OpCode::CmpF, uint8_t(c.getPredicate()), true);
        })
        .Case([&](arith::ExtFOp) { return conversion(op, OpCode::ExtF); })
        .Case([&](arith::TruncFOp) { return conversion(op, OpCode::TruncF); })
        .Case([&](math::CopySignOp) { return elementwise(op, OpCode::CopySign, true); })
        .Case([&](math::PowFOp) { return elementwise(op, OpCode::PowF, true); })
        .Case([&](math::AbsFOp) { return elementwise(op, OpCode::AbsF, true); })
        .Case([&](math::Exp2Op) { return elementwise(op, OpCode::Exp2, true); })
        .Case([&](math::ExpOp) { return elementwise(op, OpCode::Exp, true); })
        .Case([&](math::LogOp) { return elementwise(op, OpCode::Log, true); })
        .Case([&](math::Log2Op) { return elementwise(op, OpCode::Log2, true); })
        .Case([&](math::SqrtOp) { return elementwise(op, OpCode::Sqrt, true); })
        .Case([&](math::RsqrtOp) { return elementwise(op, OpCode::Rsqrt, true); })
        .Case([&](math::TanhOp) { return elementwise(op, OpCode::Tanh, true); })
        .Case([&](math::FloorOp) { return elementwise(op, OpCode::Floor, true); })
        .Case([&](math::CeilOp) { return elementwise(op, OpCode::Ceil, true); })
        .Case([&](math::RoundEvenOp) { return elementwise(op, OpCode::RoundEven, true); })
        .Case([&](math::RoundOp) { return elementwise(op, OpCode::Round, true); })
        .Case([&](math::TruncOp) { return elementwise(op, OpCode::Trunc, true); })
        .Case([&](math::FmaOp) { return elementwise(op, OpCode::Fma, true); })
        .Case([&](vector::FMAOp) { return elementwise(op, OpCode::Fma, true); })
        // gpu
        .Case([&](gpu::ThreadIdOp o) {
          return gpuIndex(op, OpCode::ThreadId, uint8_t(o.getDimension()));
        })
        .Case([&](gpu::BlockIdOp o) {
          return gpuIndex(op, OpCode::BlockId, uint8_t(o.getDimension()));
        })
        .Case([&](gpu::BlockDimOp o) {
          return gpuIndex(op, OpCode::BlockDim, uint8_t(o.getDimension()));
        })
        .Case([&](gpu::GridDimOp o) {
          return gpuIndex(op, OpCode::GridDim, uint8_t(o.getDimension()));
        })
        .Case([&](gpu::LaneIdOp) { return gpuIndex(op, OpCode::LaneId, 0); })
        .Case([&](gpu::SubgroupIdOp) { return gpuIndex(op, OpCode::SubgroupId, 0); })
        .Case([&](gpu::NumSubgroupsOp) { return gpuIndex(op, OpCode::NumSubgroups, 0); })
        .Case([&](gpu::SubgroupSizeOp) { return gpuIndex(op, OpCode::SubgroupSize, 0); })
        .Case([&](gpu::ShuffleOp s) { return shuffle(s); })
        .Case([&](gpu::BarrierOp) { return barrier(op); })
        .Case([&](amdgpu::LDSBarrierOp) { return barrier(op); })
        .Case([&](ROCDL::SBarrierOp) { return barrier(op); })
        .Case([&](ROCDL::BarrierOp) { return barrier(op); })
        .Case([&](gpu::LaunchFuncOp l) { return launch(l); })
        .Case([&](func::CallOp c) { return call(c); })
        // AMD
        .Case([&](amdgpu::MFMAOp m) { return mfma(m); })
        .Case([&](amdgpu::DPPOp d) { return dpp(d); })
        .Case([&](amdgpu::FatRawBufferCastOp c) { return fatRawBufferCast(c); })
        .Case([&](amdgpu::PackedTrunc2xFp8Op t) { return packedTrunc(t); })
        .Case([&](amdgpu::ExtPackedFp8Op e) { return extPacked(e); })
        .Case([&](amdgpu::RawBufferLoadOp l) {
          return rawBufferAccess(op, l.getMemref(), l.getIndices(),
                                 l.getValue(), l.getValue().getType(), false,
                                 l.getIndexOffset(), l.getSgprOffset());
        })
        .Case([&](amdgpu::RawBufferStoreOp s) {
          return rawBufferAccess(op, s.getMemref(), s.getIndices(),
                                 s.getValue(), s.getValue().getType(), true,
                                 s.getIndexOffset(), s.getSgprOffset());
        })
        .Case([&](ROCDL::DsBpermuteOp) { return laneOp(op, OpCode::Bpermute); })
        .Case([&](ROCDL::ReadfirstlaneOp) { return laneOp(op, OpCode::ReadFirstLane); })
        .Case([&](ROCDL::ReadlaneOp) { return laneOp(op, OpCode::ReadLane); })
        .Case([&](ROCDL::MbcntLoOp) { return laneOp(op, OpCode::Mbcnt, 0); })
        .Case([&](ROCDL::MbcntHiOp) { return laneOp(op, OpCode::Mbcnt, 1); })
        .Case<amdgpu::SchedBarrierOp, amdgpu::MemoryCounterWaitOp,
              ROCDL::SchedBarrier, ROCDL::SWaitcntOp, memref::DeallocOp>(
            [&](Operation *) { return noOp(); })
        // memory
        .Case([&](memref::LoadOp l) {
          return access(op, l.getMemRef(), l.getIndices(), l.getResult(),
                        l.getType(), false);
        })
        .Case([&](memref::StoreOp s) {
          return access(op, s.getMemRef(), s.getIndices(), s.getValue(),
                        s.getValue().getType(), true);
        })
        .Case([&](vector::LoadOp l) {
          return access(op, l.getBase(), l.getIndices(), l.getResult(),
                        l.getVectorType(), false);
        })
        .Case([&](vector::StoreOp s) {
          return access(op, s.getBase(), s.getIndices(), s.getValueToStore(),
                        s.getVectorType(), true);
        })
        .Case([&](vector::TransferReadOp t) {
          return transfer(op, t.getBase(), t.getIndices(), t.getResult(),
                          t.getVectorType(), t.getPermutationMap(),
                          t.getInBounds(), t.getMask(), t.getPadding(), false);
        })
        .Case([&](vector::TransferWriteOp t) {
          if (t.getNumResults())
            return fail(op, "transfers on tensors are not supported");
          return transfer(op, t.getBase(), t.getIndices(), t.getVector(),
                          t.getVectorType(), t.getPermutationMap(),
                          t.getInBounds(), t.getMask(), Value(), true);
        })
        .Case([&](memref::DimOp d) { return dim(d); })
        .Case([&](memref::SubViewOp s) { return subview(s); })
        .Case([&](memref::ReinterpretCastOp r) { return reinterpretCast(r); })
        .Case([&](memref::ExpandShapeOp e) {
          return reshape(e, ViewKind::ExpandShape);
        })
        .Case([&](memref::CollapseShapeOp c) {
          return reshape(c, ViewKind::CollapseShape);
        })
        .Case([&](memref::CastOp c) { return move(op, c.getSource()); })
        .Case([&](memref::AssumeAlignmentOp a) { return move(op, a.getMemref()); })
        .Case([&](memref::MemorySpaceCastOp c) { return move(op, c.getSource()); })
        .Case([&](memref::AllocOp a) { return alloc(a); })
        // vectors
        .Case([&](vector::ExtractOp e) {
          return positioned(op, OpCode::VecExtract, e.getSource(),
                            e.getMixedPosition(), Value());
        })
        .Case([&](vector::InsertOp i) {
          return positioned(op, OpCode::VecInsert, i.getDest(),
                            i.getMixedPosition(), i.getValueToStore());
        })
        .Case([&](vector::BroadcastOp b) { return broadcast(op, b.getSource()); })
        .Case([&](vector::ShapeCastOp s) { return move(op, s.getSource()); })
        .Case([&](vector::BitCastOp b) { return bitcast(b); })
        .Case([&](vector::ShuffleOp s) { return vectorShuffle(s); })
        .Case([&](vector::FromElementsOp f) { return fromElements(f); })
        .Case([&](vector::ReductionOp r) { return reduction(r); })
        .Case([&](vector::ExtractStridedSliceOp e) {
          return stridedSlice(op, OpCode::ExtractStrided, e.getSourceVectorType(),
                              e.getType(), e.getOffsets(), e.getStrides(),
                              e.getSource(), Value());
        })
        .Case([&](vector::InsertStridedSliceOp i) {
          return stridedSlice(op, OpCode::InsertStrided, i.getDestVectorType(),
                              i.getSourceVectorType(), i.getOffsets(),
                              i.getStrides(), i.getValueToStore(), i.getDest());
        })
        // affine
        .Case([&](affine::AffineApplyOp a) {
          return affine(op, a.getAffineMap(), a.getMapOperands(), 0);
        })
        .Case([&](affine::AffineMinOp a) {
          return affine(op, a.getAffineMap(), a.getMapOperands(), 1);
        })
        .Case([&](affine::AffineMaxOp a) {
          return affine(op, a.getAffineMap(), a.getMapOperands(), 2);
        })
        // control flow
        .Case([&](scf::IfOp i) { return compileIf(i); })
        .Case([&](scf::ForOp f) { return compileFor(f); })
        .Case([&](scf::WhileOp w) { return compileWhile(w); })
        .Case([&](scf::ParallelOp p) { return compileParallel(p); })
        .Case([&](cf::AssertOp a) { return assertion(a); })
        .Default([&](Operation *) {
          return fail(op, "the emulator does not implement this op");
        });
  }
};

} // namespace

LogicalResult mlir::pa::emulator::compileModule(ModuleOp module,
                                                ProgramImpl &program,
                                                std::string &error) {
  std::optional<ChipInfo> chip = lookupChip(program.options.chip);
  if (!chip || chip->vendor != Vendor::AMD) {
    error = "emulator: unknown AMD chip '" + program.options.chip +
            "' (gfx942, gfx950)";
    return failure();
  }
  program.ldsLimitBytes = chip->workgroupMemoryBytes;
  program.chipFp8 = chip->fp8TypeName == "f8E4M3FNUZ" ? ScalarKind::F8E4M3FNUZ
                                                      : ScalarKind::F8E4M3FN;

  // Kernels first: launches refer to them.
  SmallVector<std::pair<Operation *, bool>> order;
  module.walk([&](gpu::GPUFuncOp kernel) {
    if (kernel.isKernel())
      order.push_back({kernel, false});
  });
  for (auto function : module.getOps<func::FuncOp>())
    if (!function.isExternal())
      order.push_back({function, true});
  for (auto [op, host] : order) {
    detail::Function function;
    function.op = op;
    function.isKernel = !host;
    function.name = SymbolTable::getSymbolName(op).str();
    uint32_t index = uint32_t(program.functions.size());
    if (host)
      program.functionIndex[function.name] = index;
    else
      program.kernelIndex[(SymbolTable::getSymbolName(op->getParentOp())
                               .getValue() +
                           "::" + function.name)
                              .str()] = index;
    program.functions.push_back(std::move(function));
  }
  for (detail::Function &function : program.functions) {
    FunctionCompiler compiler(program, function, !function.isKernel, error);
    Region *body;
    if (auto kernel = dyn_cast<gpu::GPUFuncOp>(function.op)) {
      body = &kernel.getBody();
      if (failed(compiler.compileArguments(kernel.getBody().front(),
                                           kernel.getNumArguments())) ||
          failed(compiler.compileAttributions(kernel)))
        return failure();
      if (std::optional<ArrayRef<int32_t>> known = kernel.getKnownBlockSize())
        for (auto [i, size] : llvm::enumerate(*known))
          function.knownBlockSize[i] = size;
    } else {
      auto host = cast<func::FuncOp>(function.op);
      body = &host.getBody();
      if (failed(compiler.compileArguments(host.getBody().front(),
                                           host.getNumArguments())))
        return failure();
    }
    if (failed(compiler.compileBody(*body)))
      return failure();
  }
  return success();
}
