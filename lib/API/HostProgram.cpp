//===- HostProgram.cpp - JIT-compiled decode on the CPU -------------------===//
#include "pa/API/HostProgram.h"

#include "pa/API/Builders.h"

#include "DiagnosticCapture.h"
#include "OperandTable.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "pa/IR/NestingDepth.h"
#include "pa/Runtime/DecodeOperands.h"
#include "pa/Transforms/Passes.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <limits>
#include <mutex>

using namespace mlir;
using namespace mlir::pa;

namespace {

/// A context that holds every dialect the decode module and its lowering
/// use and the LLVM IR translations the JIT needs. No thread pool: one small
/// module gains nothing from it, and callers may compile from many threads.
std::unique_ptr<MLIRContext> makeContext() {
  DialectRegistry registry;
  registry.insert<PaDialect, func::FuncDialect, memref::MemRefDialect,
                  arith::ArithDialect, scf::SCFDialect, gpu::GPUDialect,
                  math::MathDialect, vector::VectorDialect>();
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  auto context = std::make_unique<MLIRContext>(
      registry, MLIRContext::Threading::DISABLED);
  context->loadAllAvailableDialects();
  return context;
}

/// The native target the JIT compiles for, once per process.
void initializeNativeTargetOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

/// Lowers the decode module in place to the LLVM dialect for `chip`.
LogicalResult lowerToHost(ModuleOp module, llvm::StringRef chip) {
  PassManager pm(module.getContext());
  buildHostPipeline(pm, chip);
  return pm.run(module);
}

/// Checks that `module`'s @pa_decode takes the memref types of
/// decodeOperandTypes(config), the query and the caches strided like those
/// or row-major; failure with `error` otherwise. `rowMajor`: which of them
/// are row-major.
LogicalResult checkDecodeSignature(ModuleOp module, const DecodeConfig &config,
                                   HostProgram::RowMajorOperands &rowMajor,
                                   std::string &error) {
  auto function = module.lookupSymbol<func::FuncOp>(kDecodeFunctionName);
  if (!function) {
    error = ("the module has no func.func @" + kDecodeFunctionName).str();
    return failure();
  }
  SmallVector<std::pair<StringRef, MemRefType>> expected =
      decodeOperandTypes(*module.getContext(), config);
  FunctionType type = function.getFunctionType();
  std::string message;
  llvm::raw_string_ostream os(message);
  if (type.getNumResults() != 0 || type.getNumInputs() != expected.size()) {
    os << "@" << kDecodeFunctionName << " must take " << expected.size()
       << " memrefs and return nothing, got " << type;
    error = std::move(message);
    return failure();
  }
  rowMajor = {};
  for (auto [operand, argument] : llvm::zip(expected, type.getInputs())) {
    auto [name, want] = operand;
    if (argument == want)
      continue;
    if (argument == MemRefType::get(want.getShape(), want.getElementType())) {
      if (name == "query") {
        rowMajor.query = true;
        continue;
      }
      if (name == "key_cache" || name == "value_cache") {
        rowMajor.caches = true;
        continue;
      }
    }
    os << "@" << kDecodeFunctionName << " operand '" << name << "' must be "
       << want << ", got " << argument;
    error = std::move(message);
    return failure();
  }
  return success();
}

/// The lowered module `build` makes for `config` in `context`, or null with
/// `error`.
OwningOpRef<ModuleOp> buildLoweredModule(MLIRContext &context,
                                         const DecodeConfig &config,
                                         DecodeModuleBuilder build,
                                         HostProgram::RowMajorOperands &rowMajor,
                                         std::string &error) {
  initializeNativeTargetOnce();
  OwningOpRef<ModuleOp> module = build(context, config, error);
  if (!module ||
      failed(checkDecodeSignature(*module, config, rowMajor, error)))
    return nullptr;
  DiagnosticCapture diagnostics(context);
  if (failed(lowerToHost(*module, config.chip))) {
    error = diagnostics.textOr("the host pipeline failed");
    return nullptr;
  }
  return module;
}

//===----------------------------------------------------------------------===//
// Memref descriptors
//===----------------------------------------------------------------------===//

/// StridedMemRefType descriptors of the operands, kept alive for
/// one call, and the argument array of the packed C-interface wrapper:
/// `_mlir_ciface_pa_decode` takes one pointer to a descriptor per memref, and
/// the packed wrapper takes a pointer to each of those arguments.
class DescriptorPack {
public:
  explicit DescriptorPack(size_t count) { descriptors.reserve(count); }

  template <size_t Rank>
  void add(const DecodeOperand &operand) {
    // The element type does not change the descriptor's layout.
    auto descriptor = std::make_shared<StridedMemRefType<char, Rank>>();
    char *pointer = static_cast<char *>(const_cast<void *>(operand.data));
    descriptor->basePtr = pointer;
    descriptor->data = pointer;
    descriptor->offset = 0;
    SmallVector<int64_t, 5> strides = operand.effectiveStrides();
    for (size_t i = 0; i < Rank; ++i) {
      descriptor->sizes[i] = operand.sizes[i];
      descriptor->strides[i] = strides[i];
    }
    descriptors.push_back(descriptor.get());
    owners.push_back(std::move(descriptor));
  }

  void add(const DecodeOperand &operand) {
    switch (operand.sizes.size()) {
    case 1:
      return add<1>(operand);
    case 2:
      return add<2>(operand);
    case 3:
      return add<3>(operand);
    case 4:
      return add<4>(operand);
    default:
      return add<5>(operand);
    }
  }

  /// Valid while this pack lives and no descriptor is added.
  SmallVector<void *> packedArguments() {
    SmallVector<void *> arguments;
    for (void *&descriptor : descriptors)
      arguments.push_back(&descriptor);
    return arguments;
  }

private:
  std::vector<std::shared_ptr<void>> owners;
  std::vector<void *> descriptors;
};

/// Checks the buffers against the configuration, including the values that
/// decide which memory the program reads (lengths and page ids), so that bad
/// input is an error instead of a stray read.
std::string checkBuffers(const DecodeConfig &config, const HostBuffers &b) {
  std::string message;
  llvm::raw_string_ostream os(message);
  if (b.batch < 0 || b.numPages < 0 || b.maxPagesPerSequence < 0)
    return "batch, page count and block-table width must be >= 0";
  // The plan stores sequence numbers as i32.
  if (b.batch > std::numeric_limits<int32_t>::max())
    return "batch must be at most 2^31-1, got " + std::to_string(b.batch);
  int64_t capacity = config.planCapacity(b.batch);
  if (b.capacity != capacity) {
    os << "the partial buffers hold " << b.capacity << " plan slots, but "
       << b.batch << " sequences need exactly " << capacity;
    return message;
  }
  const int64_t q = config.queryLength, hq = config.numQueryHeads;
  const int64_t hkv = config.numKVHeads, d = config.headDim;
  const int64_t p = config.pageSize;
  if (b.queryRowStride != 0 && b.queryRowStride < hq * d) {
    os << "the query row stride must be 0 (packed) or at least Hq * D = "
       << hq * d << " elements, got " << b.queryRowStride;
    return message;
  }
  for (auto [name, pageStride] : {std::pair{"key_cache", b.keyPageStride},
                                  std::pair{"value_cache", b.valuePageStride}}) {
    if (pageStride < 0) {
      os << "the " << name << " page stride must be >= 0 (0: contiguous), got "
         << pageStride;
      return message;
    }
    if (pageStride != 0 && config.cacheLayout == CacheLayout::packed &&
        pageStride != p * hkv * d) {
      os << "packed caches are read contiguous: the " << name
         << " page stride must be 0 or " << p * hkv * d << " elements, got "
         << pageStride << " (nhd / hnd caches may have any page stride)";
      return message;
    }
  }
  // Optional buffers the program does not take are refused, not ignored.
  if (config.scaleMode == ScaleMode::none && (b.kScale || b.vScale))
    return "scales are given but the program was compiled without scales";
  if (!config.hasSinks && b.sinks)
    return "sinks are given but the program was compiled without sinks";
  if (!config.hasAlibi && b.alibiSlopes)
    return "alibi_slopes are given but the program was compiled without "
           "ALiBi";
  if (!config.returnLse && b.lse)
    return "lse is given but the program was compiled without it";
  // Every operand of the table needs a buffer when it has elements, i.e.
  // when none of its dims is 0 (not multiplied: huge sizes must not
  // overflow).
  for (const ::pa::runtime::DecodeOperand &operand : operandTable(config, b))
    if (!operandData(b, operand.name) && !llvm::is_contained(operand.sizes, 0))
      return "'" + std::string(operand.name) + "' is missing";

  return ::pa::runtime::checkSequences(
      config.pageSize, q, config.slidingWindow, b.batch, b.numPages,
      b.maxPagesPerSequence, b.contextLengths, b.blockTables);
}
} // namespace

std::string mlir::pa::checkHostBuffers(const DecodeConfig &config,
                                       const HostBuffers &buffers) {
  return checkBuffers(config, buffers);
}

//===----------------------------------------------------------------------===//
// HostProgram
//===----------------------------------------------------------------------===//

HostProgram::HostProgram(DecodeConfig config,
                         std::unique_ptr<ExecutionEngine> engine,
                         void (*entry)(void **), RowMajorOperands rowMajor)
    : decodeConfig(std::move(config)), engine(std::move(engine)), entry(entry),
      rowMajor(rowMajor) {}

HostProgram::~HostProgram() = default;

FailureOr<std::unique_ptr<HostProgram>>
HostProgram::compile(const DecodeConfig &config, std::string &error,
                     DecodeModuleBuilder build) {
  std::unique_ptr<MLIRContext> context = makeContext();
  RowMajorOperands rowMajor;
  OwningOpRef<ModuleOp> module =
      buildLoweredModule(*context, config, build, rowMajor, error);
  if (!module)
    return failure();

  DiagnosticCapture diagnostics(*context);
  ExecutionEngineOptions options;
  auto optimize = makeOptimizingTransformer(/*optLevel=*/2, /*sizeLevel=*/0,
                                            /*targetMachine=*/nullptr);
  options.transformer = optimize;
  options.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Default;
  options.enableGDBNotificationListener = false;
  options.enablePerfNotificationListener = false;
  llvm::Expected<std::unique_ptr<ExecutionEngine>> engine =
      ExecutionEngine::create(*module, options);
  if (!engine) {
    error = diagnostics.text();
    if (!error.empty())
      error += '\n';
    error += "JIT compilation failed: " + llvm::toString(engine.takeError());
    return failure();
  }
  (*engine)->initialize();
  std::string wrapper =
      ("_mlir_ciface_" + llvm::Twine(kDecodeFunctionName)).str();
  llvm::Expected<void (*)(void **)> entry = (*engine)->lookupPacked(wrapper);
  if (!entry) {
    error = "the compiled module has no " + wrapper + ": " +
            llvm::toString(entry.takeError());
    return failure();
  }
  return std::unique_ptr<HostProgram>(
      new HostProgram(config, std::move(*engine), *entry, rowMajor));
}

LogicalResult HostProgram::run(const HostBuffers &b, std::string &error) const {
  const DecodeConfig &c = decodeConfig;
  if (std::string problem = checkBuffers(c, b); !problem.empty()) {
    error = std::move(problem);
    return failure();
  }
  if (rowMajor.query && b.queryRowStride != 0 &&
      b.queryRowStride != c.numQueryHeads * c.headDim) {
    error = "this program reads packed query rows (a row-major query), got "
            "a row stride of " +
            std::to_string(b.queryRowStride) + " elements";
    return failure();
  }
  const int64_t pageElements = c.pageSize * c.numKVHeads * c.headDim;
  for (auto [name, pageStride] : {std::pair{"key_cache", b.keyPageStride},
                                  std::pair{"value_cache", b.valuePageStride}})
    if (rowMajor.caches && pageStride != 0 && pageStride != pageElements) {
      error = "this program reads contiguous caches (row-major '" +
              std::string(name) + "'), got a page stride of " +
              std::to_string(pageStride) + " elements";
      return failure();
    }
  DescriptorPack pack(16);
  for (const DecodeOperand &operand : decodeOperands(c, b))
    pack.add(operand);

  SmallVector<void *> arguments = pack.packedArguments();
  entry(arguments.data());
  return success();
}

//===----------------------------------------------------------------------===//
// Text entry points
//===----------------------------------------------------------------------===//

FailureOr<std::string>
mlir::pa::lowerDecodeToHostText(const DecodeConfig &config,
                                std::string &error) {
  std::unique_ptr<MLIRContext> context = makeContext();
  HostProgram::RowMajorOperands rowMajor;
  OwningOpRef<ModuleOp> module = buildLoweredModule(
      *context, config, buildDecodeModule, rowMajor, error);
  if (!module)
    return failure();
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}

LogicalResult mlir::pa::verifyModuleText(llvm::StringRef text,
                                         std::string &error) {
  // Deeper text would overflow even the compiler's stack
  // (docs/reliability.md).
  if (std::string tooDeep = checkNestingDepth(text); !tooDeep.empty()) {
    error = "input:" + tooDeep;
    return failure();
  }
  LogicalResult result = failure();
  // Parsing verifies the module as well; both recurse with the input's
  // depth, so not on the caller's stack.
  if (!runOnCompilerStack([&] {
        std::unique_ptr<MLIRContext> context = makeContext();
        DiagnosticCapture diagnostics(*context);
        // MLIR's lexer reads one byte past the text (its NUL terminator),
        // which a StringRef need not have: parse a NUL-terminated copy.
        const std::string terminated = text.str();
        OwningOpRef<ModuleOp> module =
            parseSourceString<ModuleOp>(terminated, context.get(), "input");
        if (module)
          result = success();
        else
          error = diagnostics.textOr("the module could not be parsed");
      }))
    error = compilerStackError();
  return result;
}
