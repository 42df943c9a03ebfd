//===- Visibility.cpp - Which KV tokens a query row sees ------------------===//
#include "pa/Oracle/Visibility.h"

#include <algorithm>

namespace pa::oracle {

IndexRange visibleTokenRange(int64_t contextLength, int64_t queryLen,
                             int64_t q, int64_t window) {
  int64_t end = std::max<int64_t>(0, contextLength - queryLen + 1 + q);
  int64_t begin = hasWindow(window) ? std::max<int64_t>(0, end - window) : 0;
  return {begin, end};
}

IndexRange visibleToAnyRow(int64_t contextLength, int64_t queryLen,
                           int64_t window) {
  IndexRange all;
  for (int64_t q = 0; q < queryLen; ++q) {
    IndexRange row = visibleTokenRange(contextLength, queryLen, q, window);
    if (row.empty())
      continue;
    all = all.empty() ? row
                      : IndexRange{std::min(all.begin, row.begin),
                                   std::max(all.end, row.end)};
  }
  return all;
}

IndexRange visibleTileRange(int64_t contextLength, int64_t queryLen,
                            int64_t window) {
  // The spec's W > 0 ? max(0, C - (Q - 1) - W) / 256 : 0 is the tile of row
  // 0's first visible token (rows further right start later).
  int64_t first =
      visibleTokenRange(contextLength, queryLen, 0, window).begin / kTileTokens;
  int64_t end = (std::max<int64_t>(0, contextLength) + kTileTokens - 1) /
                kTileTokens;
  return {first, std::max(first, end)};
}

IndexRange tileTokenRange(IndexRange tiles, int64_t contextLength) {
  return intersect({tiles.begin * kTileTokens, tiles.end * kTileTokens},
                   {0, contextLength});
}

IndexRange intersect(IndexRange a, IndexRange b) {
  int64_t begin = std::max(a.begin, b.begin);
  return {begin, std::max(begin, std::min(a.end, b.end))};
}

} // namespace pa::oracle
