//===- DecodeOperands.cpp - the operands of a compiled decode -------------===//
#include "pa/Runtime/DecodeOperands.h"

namespace pa::runtime {

int64_t DecodeOperand::bytes() const {
  int64_t count = elementBytes;
  for (int64_t size : sizes)
    count *= size;
  return count;
}

std::vector<DecodeOperand> decodeOperands(const DecodeLayout &l,
                                          const DecodeDims &d) {
  const int64_t hq = l.numQueryHeads, hkv = l.numKVHeads, dim = l.headDim;
  const int64_t p = l.pageSize, x = l.packWidth(), r = l.rowsPerKVHead();
  const int64_t n = d.numPages, rows = d.batch * l.queryLength;
  const int64_t kv = l.kvElementBytes;
  std::vector<DecodeOperand> operands = {
      {"query", 2, {rows, hq, dim}},
      {"key_cache", kv, {n, hkv, dim / x, p, x}},
      l.transposedV ? DecodeOperand{"value_cache", kv, {n, hkv, p / x, dim, x}}
                    : DecodeOperand{"value_cache", kv, {n, hkv, dim, p}},
      {"block_tables", 4, {d.batch, d.maxPagesPerSequence}},
      {"context_lengths", 4, {d.batch}},
  };
  if (l.scale == DecodeLayout::Scale::PerTensor) {
    operands.push_back({"k_scale", 4, {1}});
    operands.push_back({"v_scale", 4, {1}});
  } else if (l.scale == DecodeLayout::Scale::PerToken) {
    operands.push_back({"k_scale", 4, {n, hkv, p}});
    operands.push_back({"v_scale", 4, {n, hkv, p}});
  }
  if (l.sinks)
    operands.push_back({"sinks", 4, {hq}});
  operands.push_back({"work_info", 4, {d.capacity, 4}});
  operands.push_back({"reduce_info", 4, {d.batch, 2}});
  operands.push_back({"exp_sums", 4, {hkv, d.capacity, r}});
  operands.push_back({"max_logits", 4, {hkv, d.capacity, r}});
  operands.push_back({"tmp_out", 4, {hkv, d.capacity, r, dim}});
  operands.push_back({"output", 2, {rows, hq, dim}});
  return operands;
}

} // namespace pa::runtime
