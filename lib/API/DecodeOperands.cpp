//===- DecodeOperands.cpp - @pa_decode's memrefs on caller buffers --------===//
#include "OperandTable.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::pa;

std::vector<::pa::runtime::DecodeOperand>
mlir::pa::operandTable(const DecodeConfig &config, const HostBuffers &b) {
  return ::pa::runtime::decodeOperands(
      toCConfig(config),
      {b.batch, b.numPages, b.maxPagesPerSequence, b.capacity});
}

const void *mlir::pa::operandData(const HostBuffers &b, StringRef name) {
  return llvm::StringSwitch<const void *>(name)
      .Case("query", b.query)
      .Case("key_cache", b.keyCache)
      .Case("value_cache", b.valueCache)
      .Case("block_tables", b.blockTables)
      .Case("context_lengths", b.contextLengths)
      .Case("k_scale", b.kScale)
      .Case("v_scale", b.vScale)
      .Case("sinks", b.sinks)
      .Case("alibi_slopes", b.alibiSlopes)
      .Case("work_info", b.workInfo)
      .Case("reduce_info", b.reduceInfo)
      .Case("exp_sums", b.expSums)
      .Case("max_logits", b.maxLogits)
      .Case("tmp_out", b.tmpOut)
      .Case("output", b.output)
      .Case("lse", b.lse)
      .Default(nullptr);
}

SmallVector<DecodeOperand, 16>
mlir::pa::decodeOperands(const DecodeConfig &c, const HostBuffers &b) {
  SmallVector<DecodeOperand, 16> operands;
  for (const ::pa::runtime::DecodeOperand &entry : operandTable(c, b)) {
    DecodeOperand &operand = operands.emplace_back(DecodeOperand{
        entry.name, operandData(b, entry.name),
        SmallVector<int64_t, 5>(entry.sizes.begin(), entry.sizes.end()),
        entry.elementBytes, entry.input});
    // The strides a caller may choose: the query's row stride, an nhd /
    // hnd cache's page stride (0: row-major).
    StringRef name = entry.name;
    int64_t outerStride = name == "query"         ? b.queryRowStride
                        : name == "key_cache"   ? b.keyPageStride
                        : name == "value_cache" ? b.valuePageStride
                                                : 0;
    if (outerStride) {
      operand.strides = operand.effectiveStrides();
      operand.strides[0] = outerStride;
    }
  }
  return operands;
}

SmallVector<int64_t, 5> DecodeOperand::effectiveStrides() const {
  if (!strides.empty())
    return strides;
  SmallVector<int64_t, 5> rowMajor(sizes.size(), 1);
  for (size_t i = sizes.size(); i-- > 1;)
    rowMajor[i - 1] = rowMajor[i] * sizes[i];
  return rowMajor;
}

int64_t DecodeOperand::spanElements() const {
  SmallVector<int64_t, 5> steps = effectiveStrides();
  int64_t last = 0;
  for (auto [size, step] : llvm::zip(sizes, steps)) {
    if (size == 0)
      return 0;
    last += (size - 1) * step;
  }
  return last + 1;
}
