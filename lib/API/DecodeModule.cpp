//===- DecodeModule.cpp - a DecodeConfig as a pa module -------------------===//
//
// Builds `func.func @pa_decode` with the operand types of the spec's table
// (static head counts, head dim, page size and rows; dynamic batch, page
// pool, block-table width and plan capacity) and the pa.plan -> pa.decode ->
// pa.reduce body, then runs the verifier so that every rule of the dialect
// reaches the caller as the verifier's own diagnostic.
//
//===----------------------------------------------------------------------===//
#include "pa/API/DecodeConfig.h"

#include "DiagnosticCapture.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Verifier.h"
#include "pa/IR/PaOps.h"

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

/// The memref type of every operand of @pa_decode, in argument order; the
/// optional ones are null when the configuration has none.
struct DecodeSignature {
  MemRefType query, keyCache, valueCache, blockTables, contextLengths;
  MemRefType kScale, vScale, sinks;
  MemRefType workInfo, reduceInfo, expSums, maxLogits, tmpOut, output;

  SmallVector<Type> argumentTypes() const {
    SmallVector<Type> types = {query, keyCache, valueCache, blockTables,
                               contextLengths};
    for (MemRefType optional : {kScale, vScale, sinks})
      if (optional)
        types.push_back(optional);
    types.append({workInfo, reduceInfo, expSums, maxLogits, tmpOut, output});
    return types;
  }
};

DecodeSignature decodeSignature(MLIRContext &context,
                                const DecodeConfig &config) {
  const int64_t hq = config.numQueryHeads, hkv = config.numKVHeads;
  const int64_t d = config.headDim, p = config.pageSize;
  const int64_t x = config.packWidth(), rows = config.rowsPerKVHead();
  Type kv = kvElementType(context, config.kvType);
  Type query = queryElementType(context, config.queryType);
  Type i32 = IntegerType::get(&context, 32);
  Type f32 = Float32Type::get(&context);
  auto memref = [](ArrayRef<int64_t> shape, Type element) {
    return MemRefType::get(shape, element);
  };

  DecodeSignature sig;
  sig.query = memref({kDynamic, hq, d}, query);
  sig.keyCache = config.keyLayout == KeyLayout::packed
                     ? memref({kDynamic, hkv, d / x, p, x}, kv)
                     : memref({kDynamic, hkv, p, d}, kv);
  sig.valueCache = config.vLayout == VLayout::plain
                       ? memref({kDynamic, hkv, d, p}, kv)
                       : memref({kDynamic, hkv, p / x, d, x}, kv);
  sig.blockTables = memref({kDynamic, kDynamic}, i32);
  sig.contextLengths = memref({kDynamic}, i32);
  if (config.scaleMode == ScaleMode::per_tensor)
    sig.kScale = sig.vScale = memref({1}, f32);
  else if (config.scaleMode == ScaleMode::per_token)
    sig.kScale = sig.vScale = memref({kDynamic, hkv, p}, f32);
  if (config.hasSinks)
    sig.sinks = memref({hq}, f32);
  sig.workInfo = memref({kDynamic, 4}, i32);
  sig.reduceInfo = memref({kDynamic, 2}, i32);
  sig.expSums = sig.maxLogits = memref({hkv, kDynamic, rows}, f32);
  sig.tmpOut = memref({hkv, kDynamic, rows, d}, f32);
  sig.output = memref({kDynamic, hq, d}, query);
  return sig;
}
} // namespace

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

  DecodeSignature sig = decodeSignature(context, config);
  auto func = func::FuncOp::create(
      builder, loc, kDecodeFunctionName,
      builder.getFunctionType(sig.argumentTypes(), {}));
  // The runtime calls the C-interface wrapper (_mlir_ciface_pa_decode).
  func->setAttr("llvm.emit_c_interface", builder.getUnitAttr());
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToStart(body);

  auto next = body->args_begin();
  auto take = [&](MemRefType type) { return type ? Value(*next++) : Value(); };
  Value query = take(sig.query), keyCache = take(sig.keyCache),
        valueCache = take(sig.valueCache), blockTables = take(sig.blockTables),
        contextLengths = take(sig.contextLengths), kScale = take(sig.kScale),
        vScale = take(sig.vScale), sinks = take(sig.sinks),
        workInfo = take(sig.workInfo), reduceInfo = take(sig.reduceInfo),
        expSums = take(sig.expSums), maxLogits = take(sig.maxLogits),
        tmpOut = take(sig.tmpOut), output = take(sig.output);

  // The plan's budget is always explicit so that the IR and the runtime's
  // buffer sizes (DecodeConfig::planCapacity) agree by construction.
  PlanOp::create(builder, loc, contextLengths, workInfo, reduceInfo,
                 config.numKVHeads, config.queryLength, config.slidingWindow,
                 builder.getI64IntegerAttr(config.effectiveBudget()),
                 builder.getI64IntegerAttr(config.effectiveMaxPartitions()));

  auto layout = KVLayoutAttr::get(&context, config.pageSize,
                                  config.packWidth(), config.vLayout);
  FloatAttr softmaxScale =
      config.softmaxScale ? builder.getF64FloatAttr(*config.softmaxScale)
                          : FloatAttr();
  ComputeTypeAttr compute =
      config.computeType ? ComputeTypeAttr::get(&context, *config.computeType)
                         : ComputeTypeAttr();
  DecodeOp::create(builder, loc, query, keyCache, valueCache, blockTables,
                   contextLengths, kScale, vScale, workInfo, expSums,
                   maxLogits, tmpOut, layout, config.scaleMode,
                   config.slidingWindow, softmaxScale, compute);
  ReduceOp::create(builder, loc, expSums, maxLogits, tmpOut, reduceInfo, sinks,
                   output);
  func::ReturnOp::create(builder, loc);

  if (failed(verify(*module))) {
    error = diagnostics.textOr("the decode module failed verification");
    return nullptr;
  }
  return module;
}
