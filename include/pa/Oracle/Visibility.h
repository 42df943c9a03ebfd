//===- Visibility.h - Which KV tokens a query row sees ----------*- C++ -*-===//
//
// The causal + sliding-window rule of the spec, in one place. The reference,
// the planner and the case generator all call these; int64 throughout because
// C - Q + 1 + q - W underflows int32 for W near 2^31.
//
//===----------------------------------------------------------------------===//
#ifndef PA_ORACLE_VISIBILITY_H
#define PA_ORACLE_VISIBILITY_H

#include <cstdint>

namespace pa::oracle {

// Tokens per KV tile; partitions are whole tiles.
constexpr int64_t kTileTokens = 256;

// Half-open index range [begin, end).
struct IndexRange {
  int64_t begin = 0;
  int64_t end = 0;
  bool empty() const { return end <= begin; }
  int64_t size() const { return empty() ? 0 : end - begin; }
};

// Positive windows limit how far back a row looks; 0 and -1 mean no window.
inline bool hasWindow(int64_t window) { return window > 0; }

// Tokens visible to MTP position `q` (0-based) of a sequence holding
// `contextLength` tokens, `queryLen` of them new:
//   [max(0, C - Q + 1 + q - W), C - Q + 1 + q), empty when the end is <= 0.
IndexRange visibleTokenRange(int64_t contextLength, int64_t queryLen,
                             int64_t q, int64_t window);

// Tokens visible to at least one of the Q rows. Row ranges slide right one
// token per row and a window is at least 1 wide, so the union is one range.
IndexRange visibleToAnyRow(int64_t contextLength, int64_t queryLen,
                           int64_t window);

// Tiles a sequence's partitions cover: [first, ceil(C / 256)) with
// first = W > 0 ? max(0, C - (Q - 1) - W) / 256 : 0. Empty when C == 0.
IndexRange visibleTileRange(int64_t contextLength, int64_t queryLen,
                            int64_t window);

// Tokens of tiles [tiles.begin, tiles.end) that lie inside the context.
IndexRange tileTokenRange(IndexRange tiles, int64_t contextLength);

IndexRange intersect(IndexRange a, IndexRange b);

} // namespace pa::oracle

#endif // PA_ORACLE_VISIBILITY_H
