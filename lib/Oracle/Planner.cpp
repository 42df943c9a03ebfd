//===- Planner.cpp - Host form of the spec's split-K work plan ------------===//
#include "pa/Oracle/Planner.h"

#include "pa/Oracle/DecodeCase.h"

#include "pa/Oracle/Visibility.h"
#include "pa/Support/PlanCapacity.h"

#include <algorithm>
#include <limits>

namespace pa::oracle {
namespace {
__extension__ typedef unsigned __int128 Uint128;
} // namespace

WorkItem WorkPlan::work(int64_t slot) const {
  const int32_t *row = &workInfo[size_t(4 * slot)];
  return {row[0], row[1], row[2], row[3]};
}

int64_t planCapacity(int64_t batch, int64_t numKvHeads, int64_t budget,
                     int64_t maxPartitions) {
  return ::pa::planCapacity(batch, numKvHeads, budget, maxPartitions);
}

bool computeWorkPlan(const PlanRequest &request, WorkPlan &plan,
                     std::string &error) {
  const int64_t batch = int64_t(request.contextLengths.size());
  if (request.queryLen < 1 || request.numKvHeads < 1) {
    error = "queryLen and numKvHeads must be positive";
    return false;
  }
  if ((!request.budget || !request.maxPartitions) && request.computeUnits < 1) {
    error = "computeUnits must be positive when budget or maxPartitions "
            "is defaulted";
    return false;
  }
  const int64_t budget = request.budget.value_or(2 * request.computeUnits);
  const int64_t maxPartitions =
      request.maxPartitions.value_or(request.computeUnits);
  // The bounds keep every product below in int64 and every slot id in int32.
  const int64_t int32Max = std::numeric_limits<int32_t>::max();
  if (budget < 1 || budget > int32Max || maxPartitions < 1 ||
      maxPartitions > int32Max || batch > int32Max) {
    error = "budget and maxPartitions must be in [1, 2^31)";
    return false;
  }
  for (int32_t length : request.contextLengths) {
    if (length < 0) {
      error = "context lengths must be non-negative";
      return false;
    }
  }

  std::vector<IndexRange> tiles(static_cast<size_t>(batch));
  int64_t totalTiles = 0;
  int64_t nonEmpty = 0;
  for (int64_t b = 0; b < batch; ++b) {
    tiles[size_t(b)] = visibleTileRange(request.contextLengths[size_t(b)],
                                        request.queryLen, request.window);
    totalTiles += tiles[size_t(b)].size();
    nonEmpty += tiles[size_t(b)].empty() ? 0 : 1;
  }

  const int64_t capacity =
      planCapacity(batch, request.numKvHeads, budget, maxPartitions);
  if (capacity > int32Max) {
    error = "plan capacity exceeds 2^31 - 1 slots";
    return false;
  }
  plan.capacity = capacity;
  plan.maxPartitions = maxPartitions;
  plan.workInfo.assign(size_t(4 * capacity), 0);
  plan.reduceInfo.assign(size_t(2 * batch), 0);

  // Integer prefix-sum apportioning: the extras of all sequences sum to
  // exactly `remaining`, and each sequence's share depends only on prefix
  // sums. cum * remaining reaches 2^54 and more, hence 128-bit products.
  const Uint128 remaining = Uint128(capacity - nonEmpty);
  const Uint128 denominator = Uint128(std::max<int64_t>(totalTiles, 1));
  int64_t cumulative = 0;
  int64_t nextSlot = 0;
  for (int64_t b = 0; b < batch; ++b) {
    const IndexRange range = tiles[size_t(b)];
    const int64_t n = range.size();
    const int64_t before = cumulative;
    cumulative += n;
    const int64_t extra =
        int64_t(Uint128(cumulative) * remaining / denominator -
                Uint128(before) * remaining / denominator);
    const int64_t count = std::min({1 + extra, n, maxPartitions});
    plan.reduceInfo[size_t(2 * b)] = int32_t(nextSlot);
    plan.reduceInfo[size_t(2 * b + 1)] = int32_t(count);
    for (int64_t k = 0; k < count; ++k, ++nextSlot) {
      int32_t *row = &plan.workInfo[size_t(4 * nextSlot)];
      row[0] = int32_t(b);
      row[1] = int32_t(range.begin + k * n / count);
      row[2] = int32_t(range.begin + (k + 1) * n / count);
      row[3] = request.contextLengths[size_t(b)];
    }
  }
  return true;
}

PlanRequest planRequestFor(const DecodeCase &c, std::optional<int64_t> budget,
                           std::optional<int64_t> maxPartitions,
                           int64_t computeUnits) {
  PlanRequest request;
  request.contextLengths = c.contextLengths;
  request.queryLen = c.queryLen;
  request.numKvHeads = c.numKvHeads;
  request.window = c.window;
  request.computeUnits = computeUnits;
  request.budget = budget;
  request.maxPartitions = maxPartitions;
  return request;
}

} // namespace pa::oracle
