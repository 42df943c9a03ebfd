//===- DecodeOperands.cpp - the operands of a compiled decode -------------===//
#include "pa/Runtime/DecodeOperands.h"

#include <algorithm>

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
  using Cache = DecodeLayout::Cache;
  auto paged = [&](const char *name) {
    return l.cache == Cache::Nhd ? DecodeOperand{name, kv, {n, p, hkv, dim}}
                                 : DecodeOperand{name, kv, {n, hkv, p, dim}};
  };
  std::vector<DecodeOperand> operands = {
      {"query", 2, {rows, hq, dim}},
      l.cache != Cache::Packed
          ? paged("key_cache")
          : DecodeOperand{"key_cache", kv, {n, hkv, dim / x, p, x}},
      l.cache != Cache::Packed ? paged("value_cache")
      : l.transposedV
          ? DecodeOperand{"value_cache", kv, {n, hkv, p / x, dim, x}}
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
  if (l.alibi)
    operands.push_back({"alibi_slopes", 4, {hq}});
  operands.push_back({"work_info", 4, {d.capacity, 4}});
  operands.push_back({"reduce_info", 4, {d.batch, 2}});
  operands.push_back({"exp_sums", 4, {hkv, d.capacity, r}});
  operands.push_back({"max_logits", 4, {hkv, d.capacity, r}});
  operands.push_back({"tmp_out", 4, {hkv, d.capacity, r, dim}});
  operands.push_back({"output", 2, {rows, hq, dim}});
  if (l.lse)
    operands.push_back({"lse", 4, {rows, hq}});
  return operands;
}

std::string checkSequences(int64_t pageSize, int64_t queryLength,
                           int64_t slidingWindow, int64_t batch,
                           int64_t numPages, int64_t maxPagesPerSequence,
                           const int32_t *contextLengths,
                           const int32_t *blockTables) {
  // Any int64 page size, query length and window (pageSize, queryLength >=
  // 1): nothing below may overflow, or a bad id could pass unchecked.
  for (int64_t seq = 0; seq < batch; ++seq) {
    int64_t length = contextLengths[seq];
    // ceil(C / P) pages, without C + P - 1 or max_pages * P (either may
    // overflow).
    int64_t pagesUsed =
        length < 0 ? 0 : length / pageSize + (length % pageSize != 0);
    if (length < 0 || pagesUsed > maxPagesPerSequence)
      return "context_lengths[" + std::to_string(seq) +
             "] = " + std::to_string(length) +
             " is outside [0, max_pages * P] (max_pages = " +
             std::to_string(maxPagesPerSequence) +
             ", P = " + std::to_string(pageSize) + ")";
    // Token t lives in block_tables[b][t / P] (the spec); only the pages
    // some row can see are read: with a window W > 0 the first visible
    // token is max(0, C - (Q - 1) - W), and the entries before its page may
    // hold anything (a serving engine may have freed those pages).
    // The last row's position C - (Q - 1) stays within (-2^63, 2^31): C is
    // an i32 >= 0 and Q - 1 >= 0.
    int64_t lastRowEnd = length - (queryLength - 1);
    int64_t firstVisible = slidingWindow > 0 && lastRowEnd > slidingWindow
                               ? lastRowEnd - slidingWindow
                               : 0;
    for (int64_t page = firstVisible / pageSize; page < pagesUsed; ++page) {
      int64_t id = blockTables[seq * maxPagesPerSequence + page];
      if (id < 0 || id >= numPages)
        return "block_tables[" + std::to_string(seq) + "][" +
               std::to_string(page) + "] = " + std::to_string(id) +
               " is not a page of the pool [0, " + std::to_string(numPages) +
               ")";
    }
  }
  return {};
}

} // namespace pa::runtime
