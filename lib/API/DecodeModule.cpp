//===- DecodeModule.cpp - a DecodeConfig as pa ops and a pa module --------===//
//
// The operand shapes and types of the spec's table (static head counts, head
// dim, page size and rows; dynamic batch, page pool, block-table width and
// plan capacity), the op builders that take their attributes from a
// DecodeConfig (Builders.h), and `func.func @pa_decode` with the pa.plan ->
// pa.decode -> pa.reduce body, verified so that every rule of the dialect
// reaches the caller as the verifier's own diagnostic.
//
//===----------------------------------------------------------------------===//
#include "pa/API/Builders.h"

#include "DiagnosticCapture.h"
#include "OperandTable.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Verifier.h"
#include "pa/IR/PaOps.h"

#include "llvm/ADT/StringSwitch.h"

#include <array>

using namespace mlir;
using namespace mlir::pa;

namespace {
constexpr int64_t kDynamic = ShapedType::kDynamic;

Type kvElementType(MLIRContext &context, KVCacheType type) {
  switch (type) {
  case KVCacheType::e4m3fn:
    return Float8E4M3FNType::get(&context);
  case KVCacheType::e4m3fnuz:
    return Float8E4M3FNUZType::get(&context);
  case KVCacheType::bf16:
    return BFloat16Type::get(&context);
  }
  llvm_unreachable("unknown KV cache type");
}

Type queryElementType(MLIRContext &context, QueryType type) {
  return type == QueryType::bf16 ? Type(BFloat16Type::get(&context))
                                 : Type(Float16Type::get(&context));
}

/// The element type of the operand `name`.
Type operandElementType(MLIRContext &context, const DecodeConfig &config,
                        StringRef name) {
  if (name == "query" || name == "output")
    return queryElementType(context, config.queryType);
  if (name == "key_cache" || name == "value_cache")
    return kvElementType(context, config.kvType);
  if (name == "block_tables" || name == "context_lengths" ||
      name == "work_info" || name == "reduce_info")
    return IntegerType::get(&context, 32);
  return Float32Type::get(&context);
}

/// The operands in argument order (absent optional ones left out): the
/// operand table with B, N, max_pages and the plan capacity dynamic.
std::vector<::pa::runtime::DecodeOperand>
signatureOperands(const DecodeConfig &config) {
  static_assert(::pa::runtime::kDynamicSize == ShapedType::kDynamic);
  return ::pa::runtime::decodeOperands(
      toCConfig(config), {kDynamic, kDynamic, kDynamic, kDynamic});
}

// The destinations (DPS inits) of each op in the order of its results on
// tensors; absent optional ones are null.
template <typename Operands> auto planDestinations(Operands &operands) {
  return std::array{&operands.workInfo, &operands.reduceInfo};
}
template <typename Operands> auto decodeDestinations(Operands &operands) {
  return std::array{&operands.expSums, &operands.maxLogits, &operands.tmpOut};
}
template <typename Operands> auto reduceDestinations(Operands &operands) {
  return std::array{&operands.output, &operands.lse};
}

/// One tensor result per destination that is a tensor, of its type: none
/// on memrefs, which the op writes in place.
SmallVector<Type> tensorResultTypes(ArrayRef<const Value *> destinations) {
  SmallVector<Type> types;
  for (const Value *destination : destinations)
    if (*destination && isa<RankedTensorType>(destination->getType()))
      types.push_back(destination->getType());
  return types;
}

/// On tensors the ops after `op` read what it wrote, its results: they
/// replace its destinations. On memrefs (no results) nothing changes.
void takeWrittenValues(Operation *op, ArrayRef<Value *> destinations) {
  auto written = op->result_begin();
  for (Value *destination : destinations)
    if (*destination && written != op->result_end())
      *destination = *written++;
}
} // namespace

SmallVector<std::pair<StringRef, MemRefType>>
mlir::pa::decodeOperandTypes(MLIRContext &context,
                             const DecodeConfig &config) {
  SmallVector<std::pair<StringRef, MemRefType>> types;
  for (const ::pa::runtime::DecodeOperand &operand :
       signatureOperands(config)) {
    StringRef name = operand.name;
    ArrayRef<int64_t> shape = operand.sizes;
    Type element = operandElementType(context, config, name);
    // The query's row stride is a run-time value (its memref descriptor),
    // so one program reads packed queries and views of a fused qkv tensor
    // of any width alike: strided<[?, D, 1]>.
    MemRefLayoutAttrInterface layout;
    if (name == "query")
      layout = StridedLayoutAttr::get(
          &context, /*offset=*/0, {ShapedType::kDynamic, config.headDim, 1});
    // The nhd / hnd caches' page stride is a run-time value too, so that
    // one program reads contiguous caches and the K and V halves of a
    // combined [N, 2, ...] cache in place: strided<[?, ..., 1]>, the dims
    // within a page row-major.
    if (config.cacheLayout != CacheLayout::packed &&
        (name == "key_cache" || name == "value_cache")) {
      SmallVector<int64_t, 5> strides(shape.size(), 1);
      for (size_t d = shape.size() - 1; d-- > 1;)
        strides[d] = strides[d + 1] * shape[d + 1];
      strides[0] = ShapedType::kDynamic;
      layout = StridedLayoutAttr::get(&context, /*offset=*/0, strides);
    }
    types.push_back({name, MemRefType::get(shape, element, layout)});
  }
  return types;
}

Value *DecodeOperands::lookup(StringRef name) {
  return llvm::StringSwitch<Value *>(name)
      .Case("query", &query)
      .Case("key_cache", &keyCache)
      .Case("value_cache", &valueCache)
      .Case("block_tables", &blockTables)
      .Case("context_lengths", &contextLengths)
      .Case("k_scale", &kScale)
      .Case("v_scale", &vScale)
      .Case("sinks", &sinks)
      .Case("alibi_slopes", &alibiSlopes)
      .Case("work_info", &workInfo)
      .Case("reduce_info", &reduceInfo)
      .Case("exp_sums", &expSums)
      .Case("max_logits", &maxLogits)
      .Case("tmp_out", &tmpOut)
      .Case("output", &output)
      .Case("lse", &lse)
      .Default(nullptr);
}

PlanOp mlir::pa::buildPlanOp(OpBuilder &builder, Location loc,
                             const DecodeConfig &config,
                             const DecodeOperands &operands) {
  // The plan's budget is always explicit so that the IR and the runtime's
  // buffer sizes (DecodeConfig::planCapacity) agree by construction.
  return PlanOp::create(
      builder, loc, tensorResultTypes(planDestinations(operands)),
      operands.contextLengths, operands.workInfo, operands.reduceInfo,
      config.numKVHeads, config.queryLength, config.slidingWindow,
      builder.getI64IntegerAttr(config.effectiveBudget()),
      builder.getI64IntegerAttr(config.effectiveMaxPartitions()));
}

DecodeOp mlir::pa::buildDecodeOp(OpBuilder &builder, Location loc,
                                 const DecodeConfig &config,
                                 const DecodeOperands &operands) {
  MLIRContext *context = builder.getContext();
  auto layout =
      config.cacheLayout == CacheLayout::packed
          ? KVLayoutAttr::get(context, config.pageSize, config.packWidth(),
                              config.vLayout, CacheLayout::packed)
          : KVLayoutAttr::get(context, config.pageSize, /*k_pack=*/0,
                              VLayout::plain, config.cacheLayout);
  FloatAttr softmaxScale =
      config.softmaxScale ? builder.getF64FloatAttr(*config.softmaxScale)
                          : FloatAttr();
  ComputeTypeAttr compute =
      config.computeType ? ComputeTypeAttr::get(context, *config.computeType)
                         : ComputeTypeAttr();
  return DecodeOp::create(
      builder, loc, tensorResultTypes(decodeDestinations(operands)),
      operands.query, operands.keyCache, operands.valueCache,
      operands.blockTables, operands.contextLengths, operands.kScale,
      operands.vScale, operands.alibiSlopes, operands.workInfo,
      operands.expSums, operands.maxLogits, operands.tmpOut, layout,
      config.scaleMode, config.slidingWindow, softmaxScale, compute,
      config.logitsSoftCap);
}

ReduceOp mlir::pa::buildReduceOp(OpBuilder &builder, Location loc,
                                 const DecodeOperands &operands) {
  return ReduceOp::create(
      builder, loc, tensorResultTypes(reduceDestinations(operands)),
      operands.expSums, operands.maxLogits, operands.tmpOut,
      operands.reduceInfo, operands.sinks, operands.output, operands.lse);
}

DecodeOperands mlir::pa::buildDecodeSequence(OpBuilder &builder, Location loc,
                                             const DecodeConfig &config,
                                             const DecodeOperands &operands) {
  DecodeOperands current = operands;
  takeWrittenValues(buildPlanOp(builder, loc, config, current),
                    planDestinations(current));
  takeWrittenValues(buildDecodeOp(builder, loc, config, current),
                    decodeDestinations(current));
  takeWrittenValues(buildReduceOp(builder, loc, current),
                    reduceDestinations(current));
  return current;
}

OwningOpRef<ModuleOp> mlir::pa::buildDecodeModule(MLIRContext &context,
                                                  const DecodeConfig &config,
                                                  std::string &error) {
  if (std::string invalid = config.validate(); !invalid.empty()) {
    error = std::move(invalid);
    return nullptr;
  }
  context.loadDialect<func::FuncDialect, PaDialect>();
  DiagnosticCapture diagnostics(context);

  Location loc = NameLoc::get(StringAttr::get(&context, kDecodeFunctionName));
  OpBuilder builder(&context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());

  SmallVector<std::pair<StringRef, MemRefType>> operandTypes =
      decodeOperandTypes(context, config);
  SmallVector<Type> argumentTypes;
  for (const auto &[name, type] : operandTypes)
    argumentTypes.push_back(type);
  auto func = func::FuncOp::create(builder, loc, kDecodeFunctionName,
                                   builder.getFunctionType(argumentTypes, {}));
  // The runtime calls the C-interface wrapper (_mlir_ciface_pa_decode).
  func->setAttr("llvm.emit_c_interface", builder.getUnitAttr());
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToStart(body);

  DecodeOperands operands;
  for (auto [operand, argument] :
       llvm::zip_equal(operandTypes, body->getArguments()))
    *operands.lookup(operand.first) = argument;
  buildDecodeSequence(builder, loc, config, operands);
  func::ReturnOp::create(builder, loc);

  if (failed(verify(*module))) {
    error = diagnostics.textOr("the decode module failed verification");
    return nullptr;
  }
  return module;
}
