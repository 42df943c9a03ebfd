//===- Compiler.cpp - IR to the emulator's bytecode -----------------------===//
//
// One pass over each function: a slot per SSA value, flat code with mask
// frames for structured control flow, payloads for the wide ops. Each op is
// compiled by its dialect's handler (OpRegistry, Dialects/*.cpp); an op or
// type the emulator does not implement is an error here, so a run never
// meets an unknown op. The moves, constants and the return every dialect
// uses are compiled and executed here.
//
//===----------------------------------------------------------------------===//
#include "Compiler.h"
#include "Dialects/Dialects.h"
#include "Executor.h"

#include "pa/IR/Chip.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::pa::emulator;
using namespace mlir::pa::emulator::detail;

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

std::optional<ScalarKind> mlir::pa::emulator::detail::scalarKindOf(Type type) {
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

Type mlir::pa::emulator::detail::elementTypeOf(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.getElementType();
  return type;
}

uint32_t mlir::pa::emulator::detail::wordsOf(Type type) {
  if (auto vector = dyn_cast<VectorType>(type)) {
    if (vector.isScalable() || !scalarKindOf(vector.getElementType()))
      return 0;
    return uint32_t(vector.getNumElements());
  }
  if (auto memref = dyn_cast<MemRefType>(type))
    return scalarKindOf(memref.getElementType()) ? memrefWords(memref.getRank())
                                                 : 0;
  return scalarKindOf(type) ? 1 : 0;
}

uint32_t mlir::pa::emulator::detail::elementCount(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return uint32_t(vector.getNumElements());
  return 1;
}

SmallVector<int64_t, 4>
mlir::pa::emulator::detail::rowMajorStrides(ArrayRef<int64_t> sizes) {
  SmallVector<int64_t, 4> strides(sizes.size(), 1);
  for (int64_t i = int64_t(sizes.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * sizes[i + 1];
  return strides;
}

namespace {

bool isFp8(ScalarKind kind) { return kind >= ScalarKind::F8E4M3FN; }
bool isFnuz(ScalarKind kind) {
  return kind == ScalarKind::F8E4M3FNUZ || kind == ScalarKind::F8E5M2FNUZ;
}

//===----------------------------------------------------------------------===//
// The instructions every dialect uses
//===----------------------------------------------------------------------===//

struct Words : Payload {
  std::vector<uint64_t> words;
};

struct Move {
  uint32_t dst, src, words;
};
struct MoveList : Payload {
  std::vector<Move> moves;
  /// Some source is also a destination: copy through a temporary.
  bool overlapping = false;
};

Step executeConstant(Executor &, Wave &wave, const Instr &in) {
  const std::vector<uint64_t> &words = in.get<Words>().words;
  forLanes(wave, [&](int, uint64_t *f) {
    std::memcpy(f + in.dst, words.data(), words.size() * 8);
  });
  return Step::Next;
}

Step executeMove(Executor &, Wave &wave, const Instr &in) {
  forLanes(wave, [&](int, uint64_t *f) {
    std::memmove(f + in.dst, f + in.a, size_t(in.count) * 8);
  });
  return Step::Next;
}

Step executeMoves(Executor &ex, Wave &wave, const Instr &in) {
  const MoveList &list = in.get<MoveList>();
  if (!list.overlapping) {
    forLanes(wave, [&](int, uint64_t *f) {
      for (const Move &move : list.moves)
        std::memcpy(f + move.dst, f + move.src, size_t(move.words) * 8);
    });
    return Step::Next;
  }
  size_t total = 0;
  for (const Move &move : list.moves)
    total += move.words;
  uint64_t *temp = ex.scratchFor(total);
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
  return Step::Next;
}

Step executeReturn(Executor &, Wave &wave, const Instr &) {
  wave.state = Wave::State::Done;
  return Step::Returned;
}

} // namespace

//===----------------------------------------------------------------------===//
// OpCompiler
//===----------------------------------------------------------------------===//

LogicalResult OpCompiler::compileArguments(Block &entry, unsigned count) {
  // A gpu.func's entry block continues with its workgroup (and private)
  // attributions, which are not arguments: a launch passes no words for
  // them (compileAttributions places them in LDS).
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

LogicalResult OpCompiler::compileAttributions(Operation *kernel,
                                              ArrayRef<BlockArgument> workgroup,
                                              bool hasPrivate) {
  if (hasPrivate)
    return fail(kernel, "private attributions are not supported");
  int64_t offset = 0;
  for (BlockArgument attribution : workgroup) {
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

LogicalResult OpCompiler::compileBody(Region &body) {
  if (!body.hasOneBlock())
    return fail(fn.op, "expected a function body of one block (structured "
                       "control flow)");
  if (failed(compileBlock(body.front())))
    return failure();
  Operation *terminator = body.front().getTerminator();
  if (!isa<gpu::ReturnOp, func::ReturnOp>(terminator) ||
      terminator->getNumOperands() != 0)
    return fail(terminator, "expected a return without values");
  emit(executeReturn, terminator);
  return success();
}

LogicalResult OpCompiler::compileBlock(Block &block) {
  const OpRegistry &registry = OpRegistry::get();
  for (Operation &op : block.without_terminator()) {
    CompileFn compile = registry.lookup(&op);
    if (!compile)
      return fail(&op, "the emulator does not implement this op");
    if (failed(compile(*this, &op)))
      return failure();
  }
  return success();
}

FailureOr<uint32_t> OpCompiler::define(Value value, Operation *op) {
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

FailureOr<SmallVector<uint32_t>> OpCompiler::defineAll(ValueRange values,
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

size_t OpCompiler::emit(ExecuteFn execute, Operation *op) {
  Instr instr;
  instr.execute = execute;
  instr.op = op;
  fn.code.push_back(instr);
  return fn.code.size() - 1;
}

FailureOr<ScalarKind> OpCompiler::kindOf(Operation *op, Type type) {
  std::optional<ScalarKind> kind = scalarKindOf(elementTypeOf(type));
  if (!kind)
    return fail(op, "unsupported element type");
  return *kind;
}

LogicalResult OpCompiler::checkFp8(Operation *op, ScalarKind kind) {
  if (!isFp8(kind) || isFnuz(kind) == isFnuz(program.chipFp8))
    return success();
  return fail(op, Twine("chip ") + program.options.chip + " converts " +
                      scalarKindName(program.chipFp8) +
                      " fp8 values natively, not " + scalarKindName(kind));
}

LogicalResult OpCompiler::kernelOnly(Operation *op) {
  if (host)
    return fail(op, "only kernels (gpu.func) may use this op");
  return success();
}

void OpCompiler::emitMoves(Operation *op, ArrayRef<uint32_t> destinations,
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
  attach(emit(executeMoves, op), std::move(list));
}

FailureOr<size_t> OpCompiler::emitResult(Operation *op, ExecuteFn execute,
                                         ValueRange sources) {
  FailureOr<uint32_t> dst = define(op->getResult(0), op);
  if (failed(dst))
    return failure();
  size_t instr = emit(execute, op);
  at(instr).dst = *dst;
  at(instr).count = wordsOf(op->getResult(0).getType());
  uint32_t *operands[] = {&at(instr).a, &at(instr).b, &at(instr).c};
  for (auto [i, source] : llvm::enumerate(sources.take_front(3)))
    *operands[i] = use(source);
  return instr;
}

FailureOr<size_t> OpCompiler::emitElementwise(Operation *op, ExecuteFn execute,
                                              Elements elements) {
  FailureOr<ScalarKind> kind = kindOf(op, op->getOperand(0).getType());
  if (failed(kind))
    return failure();
  if (elements == Elements::Float && *kind != ScalarKind::F32 &&
      *kind != ScalarKind::F64)
    return fail(op, "floating-point arithmetic is supported on f32 and "
                    "f64 only");
  if (elements == Elements::Integer && isFloatKind(*kind))
    return fail(op, "expected integer operands");
  FailureOr<size_t> instr = emitResult(op, execute, op->getOperands());
  if (failed(instr))
    return failure();
  at(*instr).kind = *kind;
  at(*instr).count = elementCount(op->getResult(0).getType());
  return instr;
}

LogicalResult OpCompiler::emitMove(Operation *op, Value source) {
  FailureOr<size_t> instr = emitResult(op, executeMove, source);
  if (failed(instr))
    return failure();
  at(*instr).count = wordsOf(source.getType());
  return success();
}

LogicalResult OpCompiler::emitConstant(Operation *op,
                                       std::vector<uint64_t> words) {
  FailureOr<size_t> instr = emitResult(op, executeConstant);
  if (failed(instr))
    return failure();
  at(*instr).count = uint32_t(words.size());
  Words payload;
  payload.words = std::move(words);
  attach(*instr, std::move(payload));
  return success();
}

//===----------------------------------------------------------------------===//
// The registry and the module
//===----------------------------------------------------------------------===//

const OpRegistry &OpRegistry::get() {
  static const OpRegistry registry = [] {
    OpRegistry r;
    registerDialectHandlers(r);
    return r;
  }();
  return registry;
}

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
  program.chipFp8 = chip->fp8Format == Fp8Format::E4M3FNUZ
                        ? ScalarKind::F8E4M3FNUZ
                        : ScalarKind::F8E4M3FN;
  program.chipHasF8F6F4Mfma = chip->hasF8F6F4Mfma;

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
    OpCompiler compiler(program, function, !function.isKernel, error);
    Region *body;
    if (auto kernel = dyn_cast<gpu::GPUFuncOp>(function.op)) {
      body = &kernel.getBody();
      if (failed(compiler.compileArguments(kernel.getBody().front(),
                                           kernel.getNumArguments())) ||
          failed(compiler.compileAttributions(
              kernel, kernel.getWorkgroupAttributions(),
              !kernel.getPrivateAttributions().empty())))
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
