//===- Compiler.h - IR to bytecode: the per-function compiler --*- C++ -*-===//
//
// `OpCompiler` compiles one function: a slot per SSA value, instructions,
// payloads. The op handlers of the dialect files (Dialects/*.cpp) are
// `CompileFn`s in an `OpRegistry` keyed by the op's TypeID; the common
// shapes of ops (element-wise, a result from a few slots) are one call
// each (`emitElementwise`, `emitUnary`, ...), so a handler states only what
// is particular to its op.
//
//===----------------------------------------------------------------------===//
#ifndef PA_LIB_EMULATOR_COMPILER_H
#define PA_LIB_EMULATOR_COMPILER_H

#include "Bytecode.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::pa::emulator::detail {

class OpCompiler;
using CompileFn = LogicalResult (*)(OpCompiler &, Operation *);

/// The op handlers: the op's TypeID to the function that compiles it.
class OpRegistry {
public:
  template <typename... Ops> void add(CompileFn compile) {
    (table.try_emplace(TypeID::get<Ops>(), compile), ...);
  }
  CompileFn lookup(Operation *op) const {
    std::optional<RegisteredOperationName> name = op->getRegisteredInfo();
    return name ? table.lookup(name->getTypeID()) : nullptr;
  }

  /// Every dialect's handlers (Dialects/Dialects.h), built once.
  static const OpRegistry &get();

private:
  llvm::DenseMap<TypeID, CompileFn> table;
};

/// Element types accepted by `emitElementwise`.
enum class Elements { Integer, Float };

std::optional<ScalarKind> scalarKindOf(Type type);
Type elementTypeOf(Type type);
/// Words of a value of `type` in a frame, or 0 when unsupported.
uint32_t wordsOf(Type type);
/// Elements of a vector type, 1 for a scalar.
uint32_t elementCount(Type type);
/// Row-major strides of `sizes`.
SmallVector<int64_t, 4> rowMajorStrides(ArrayRef<int64_t> sizes);

class OpCompiler {
public:
  OpCompiler(ProgramImpl &program, Function &function, bool host,
             std::string &error)
      : program(program), fn(function), host(host), error(error) {}

  ProgramImpl &program;
  Function &fn;
  /// Compiling a host function (func.func), not a kernel.
  const bool host;

  /// Arguments, workgroup attributions and the body of the function.
  LogicalResult compileArguments(Block &entry, unsigned count);
  LogicalResult compileAttributions(Operation *kernel,
                                    ArrayRef<BlockArgument> workgroup,
                                    bool hasPrivate);
  LogicalResult compileBody(Region &body);

  /// Compiles the ops of `block` but its terminator.
  LogicalResult compileBlock(Block &block);

  /// An error naming `op` and its location.
  LogicalResult fail(Operation *op, const Twine &message);

  /// A new slot for `value`.
  FailureOr<uint32_t> define(Value value, Operation *op);
  FailureOr<SmallVector<uint32_t>> defineAll(ValueRange values, Operation *op);
  /// A slot shared by several values (loop results and iteration args).
  void alias(Value value, uint32_t slot) { slots[value] = slot; }
  uint32_t use(Value value) const { return slots.lookup(value); }
  /// A static or dynamic index (of offsets, sizes, positions).
  IndexOperand mixed(OpFoldResult value) const {
    if (auto attr = dyn_cast<Attribute>(value))
      return {false, cast<IntegerAttr>(attr).getInt()};
    return {true, int64_t(use(cast<Value>(value)))};
  }

  /// Appends an instruction; returns its index (stable, unlike references
  /// into the code).
  size_t emit(ExecuteFn execute, Operation *op);
  Instr &at(size_t index) { return fn.code[index]; }
  size_t here() const { return fn.code.size(); }
  /// Gives instruction `index` its payload.
  template <typename T> T &attach(size_t index, T payload) {
    auto owned = std::make_unique<T>(std::move(payload));
    T &result = *owned;
    fn.payloads.push_back(std::move(owned));
    at(index).payload = &result;
    return result;
  }

  FailureOr<ScalarKind> kindOf(Operation *op, Type type);
  /// fp8 values the chip cannot convert natively are rejected, as
  /// pa-convert-kernels-to-rocdl does (checkFp8Flavour).
  LogicalResult checkFp8(Operation *op, ScalarKind kind);
  LogicalResult kernelOnly(Operation *op);

  /// Parallel copy of `sources` into `destinations` under the exec mask.
  void emitMoves(Operation *op, ArrayRef<uint32_t> destinations,
                 ValueRange sources);

  /// Result 0 of `op` from its operands 0..2 (a, b, c), element-wise on
  /// the `elements` kind (floats: f32 and f64 only); returns the
  /// instruction's index.
  FailureOr<size_t> emitElementwise(Operation *op, ExecuteFn execute,
                                    Elements elements);
  /// Result 0 of `op` from `sources` (slots a, b, c), `count` its words.
  FailureOr<size_t> emitResult(Operation *op, ExecuteFn execute,
                               ValueRange sources = {});
  /// Result 0 of `op` a copy of `source`.
  LogicalResult emitMove(Operation *op, Value source);
  /// Result 0 of `op` the words `words`.
  LogicalResult emitConstant(Operation *op, std::vector<uint64_t> words);

private:
  std::string &error;
  DenseMap<Value, uint32_t> slots;
};

} // namespace mlir::pa::emulator::detail

#endif // PA_LIB_EMULATOR_COMPILER_H
