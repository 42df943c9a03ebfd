//===- DecodeOperands.cpp - @pa_decode's memrefs on caller buffers --------===//
#include "pa/API/HostProgram.h"

using namespace mlir;
using namespace mlir::pa;

SmallVector<DecodeOperand, 16>
mlir::pa::decodeOperands(const DecodeConfig &c, const HostBuffers &b) {
  const int64_t hq = c.numQueryHeads, hkv = c.numKVHeads, d = c.headDim;
  const int64_t p = c.pageSize, r = c.rowsPerKVHead();
  const int64_t n = b.numPages, rows = b.batch * c.queryLength;
  const int64_t cacheBytes = c.kvType == KVCacheType::bf16 ? 2 : 1;

  // Argument order of buildDecodeModule's @pa_decode.
  SmallVector<DecodeOperand, 16> operands;
  auto add = [&](const char *name, const void *data,
                 std::initializer_list<int64_t> sizes, int64_t elementBytes,
                 bool readOnly) {
    operands.push_back({name, data, SmallVector<int64_t, 5>(sizes),
                        elementBytes, readOnly});
  };
  add("query", b.query, {rows, hq, d}, 2, true);
  if (b.queryRowStride)
    operands.back().strides = {b.queryRowStride, d, 1};
  // The names are string literals (NUL-terminated).
  for (const auto &[name, shape] : c.cacheShapes(n)) {
    bool key = name == "key_cache";
    operands.push_back({name.data(), key ? b.keyCache : b.valueCache, shape,
                        cacheBytes, true});
    if (int64_t pageStride = key ? b.keyPageStride : b.valuePageStride) {
      DecodeOperand &cache = operands.back();
      cache.strides = cache.effectiveStrides();
      cache.strides[0] = pageStride;
    }
  }
  add("block_tables", b.blockTables, {b.batch, b.maxPagesPerSequence}, 4,
      true);
  add("context_lengths", b.contextLengths, {b.batch}, 4, true);
  if (c.scaleMode == ScaleMode::per_tensor) {
    add("k_scale", b.kScale, {1}, 4, true);
    add("v_scale", b.vScale, {1}, 4, true);
  } else if (c.scaleMode == ScaleMode::per_token) {
    add("k_scale", b.kScale, {n, hkv, p}, 4, true);
    add("v_scale", b.vScale, {n, hkv, p}, 4, true);
  }
  if (c.hasSinks)
    add("sinks", b.sinks, {hq}, 4, true);
  if (c.hasAlibi)
    add("alibi_slopes", b.alibiSlopes, {hq}, 4, true);
  add("work_info", b.workInfo, {b.capacity, 4}, 4, false);
  add("reduce_info", b.reduceInfo, {b.batch, 2}, 4, false);
  add("exp_sums", b.expSums, {hkv, b.capacity, r}, 4, false);
  add("max_logits", b.maxLogits, {hkv, b.capacity, r}, 4, false);
  add("tmp_out", b.tmpOut, {hkv, b.capacity, r, d}, 4, false);
  add("output", b.output, {rows, hq, d}, 2, false);
  if (c.returnLse)
    add("lse", b.lse, {rows, hq}, 4, false);
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
