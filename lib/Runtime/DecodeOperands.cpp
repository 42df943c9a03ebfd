//===- DecodeOperands.cpp - the operands of a compiled decode -------------===//
#include "pa/Runtime/DecodeOperands.h"

#include <algorithm>
#include <iterator>
#include <map>

namespace pa::runtime {

int64_t DecodeOperand::bytes() const {
  int64_t count = elementBytes;
  for (int64_t size : sizes)
    count *= size;
  return count;
}

std::vector<DecodeOperand> decodeOperands(const PaDecodeConfig &c,
                                          const DecodeDims &d) {
  const int64_t hq = c.numQueryHeads, hkv = c.numKVHeads, dim = c.headDim;
  const int64_t p = c.pageSize, n = d.numPages;
  const int64_t kv = c.kvType == PA_KV_BF16 ? 2 : 1;
  const int64_t x = 16 / kv; // elements of a 16-byte vector
  const int64_t r = c.queryLength * (hq / hkv);
  // B * Q query rows; unknown while the batch is.
  const int64_t rows =
      d.batch == kDynamicSize ? kDynamicSize : d.batch * c.queryLength;
  std::vector<DecodeOperand> operands;
  auto input = [&](const char *name, const char *pattern,
                   int64_t elementBytes, std::vector<int64_t> sizes) {
    operands.push_back({name, pattern, elementBytes, std::move(sizes), true});
  };
  auto output = [&](const char *name, const char *pattern,
                    int64_t elementBytes, std::vector<int64_t> sizes) {
    operands.push_back({name, pattern, elementBytes, std::move(sizes), false});
  };
  input("query", "[B*Q, Hq, D]", 2, {rows, hq, dim});
  if (c.kvLayout == PA_KV_LAYOUT_NHD) {
    input("key_cache", "nhd [N, P, Hkv, D]", kv, {n, p, hkv, dim});
    input("value_cache", "nhd [N, P, Hkv, D]", kv, {n, p, hkv, dim});
  } else if (c.kvLayout == PA_KV_LAYOUT_HND) {
    input("key_cache", "hnd [N, Hkv, P, D]", kv, {n, hkv, p, dim});
    input("value_cache", "hnd [N, Hkv, P, D]", kv, {n, hkv, p, dim});
  } else {
    // An unpacked key is described as given; the verifier rejects it.
    if (c.keyLayout == PA_KEY_PACKED)
      input("key_cache", "[N, Hkv, D/x, P, x]", kv, {n, hkv, dim / x, p, x});
    else
      input("key_cache", "[N, Hkv, P, D]", kv, {n, hkv, p, dim});
    if (c.vLayout == PA_V_PLAIN)
      input("value_cache", "[N, Hkv, D, P]", kv, {n, hkv, dim, p});
    else
      input("value_cache", "[N, Hkv, P/x, D, x]", kv,
            {n, hkv, p / x, dim, x});
  }
  input("block_tables", "[B, max_pages]", 4, {d.batch, d.maxPagesPerSequence});
  input("context_lengths", "[B]", 4, {d.batch});
  if (c.scaleMode == PA_SCALE_PER_TENSOR) {
    input("k_scale", "[1]", 4, {1});
    input("v_scale", "[1]", 4, {1});
  } else if (c.scaleMode == PA_SCALE_PER_TOKEN) {
    input("k_scale", "[N, Hkv, P]", 4, {n, hkv, p});
    input("v_scale", "[N, Hkv, P]", 4, {n, hkv, p});
  }
  if (c.hasSinks)
    input("sinks", "[Hq]", 4, {hq});
  if (c.hasAlibi)
    input("alibi_slopes", "[Hq]", 4, {hq});
  output("work_info", "[capacity, 4]", 4, {d.capacity, 4});
  output("reduce_info", "[B, 2]", 4, {d.batch, 2});
  output("exp_sums", "[Hkv, capacity, Q*G]", 4, {hkv, d.capacity, r});
  output("max_logits", "[Hkv, capacity, Q*G]", 4, {hkv, d.capacity, r});
  output("tmp_out", "[Hkv, capacity, Q*G, D]", 4, {hkv, d.capacity, r, dim});
  output("output", "[B*Q, Hq, D]", 2, {rows, hq, dim});
  if (c.returnLse)
    output("lse", "[B*Q, Hq]", 4, {rows, hq});
  return operands;
}

SharedSize sharedSizeOf(const std::string &operand, int64_t dim) {
  // The table's patterns, of a configuration with every optional operand
  // (per-token scales, sinks, ALiBi, LSE): the shared sizes sit in the same
  // dims whatever the layout (the caches' N first).
  static const std::map<std::string, std::vector<SharedSize>> byOperand = [] {
    PaDecodeConfig config{};
    config.numQueryHeads = config.numKVHeads = config.headDim = 1;
    config.pageSize = config.queryLength = 1;
    config.scaleMode = PA_SCALE_PER_TOKEN;
    config.hasSinks = config.hasAlibi = config.returnLse = true;
    std::map<std::string, std::vector<SharedSize>> table;
    for (const DecodeOperand &o : decodeOperands(config, DecodeDims{})) {
      std::string pattern = o.pattern;
      pattern = pattern.substr(pattern.find('[') + 1);
      pattern.pop_back(); // ']'
      std::vector<SharedSize> &dims = table[o.name];
      for (size_t at = 0; at <= pattern.size();) {
        size_t end = std::min(pattern.find(", ", at), pattern.size());
        std::string symbol = pattern.substr(at, end - at);
        const char *const *known =
            std::find(std::begin(kSharedSizeSymbols),
                      std::end(kSharedSizeSymbols), symbol);
        dims.push_back(known == std::end(kSharedSizeSymbols)
                           ? SharedSize::None
                           : static_cast<SharedSize>(
                                 known - std::begin(kSharedSizeSymbols)));
        at = end + 2;
      }
    }
    return table;
  }();
  auto it = byOperand.find(operand);
  if (it == byOperand.end() || dim < 0 ||
      dim >= static_cast<int64_t>(it->second.size()))
    return SharedSize::None;
  return it->second[static_cast<size_t>(dim)];
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
