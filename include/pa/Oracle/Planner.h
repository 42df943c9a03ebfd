//===- Planner.h - Host form of the spec's split-K work plan ----*- C++ -*-===//
//
// Maps each sequence's visible 256-token tiles to partitions and partitions to
// workgroup slots, from the context lengths only. The buffers have exactly the
// device layout (int32 work_info[capacity][4], reduce_info[B][2]) so they can
// be compared with, or handed to, compiled kernels.
//
//===----------------------------------------------------------------------===//
#ifndef PA_ORACLE_PLANNER_H
#define PA_ORACLE_PLANNER_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pa::oracle {

struct PlanRequest {
  std::vector<int32_t> contextLengths; // [B]
  int64_t queryLen = 1;                // Q
  int64_t numKvHeads = 1;              // Hkv
  int64_t window = 0;                  // <= 0: no window
  int64_t computeUnits = 0; // CUs / SMs; needed only for the defaults below
  std::optional<int64_t> budget;        // default 2 * computeUnits
  std::optional<int64_t> maxPartitions; // default computeUnits
};

// One work_info row.
struct WorkItem {
  int32_t sequence = 0;
  int32_t beginTile = 0;
  int32_t endTile = 0; // exclusive
  int32_t contextLength = 0;
};

struct WorkPlan {
  int64_t capacity = 0;
  int64_t maxPartitions = 0;        // the value used (after defaulting)
  std::vector<int32_t> workInfo;    // [capacity][4]; unused slots all zero
  std::vector<int32_t> reduceInfo;  // [B][2] = (first slot, partition count)

  int64_t batch() const { return int64_t(reduceInfo.size() / 2); }
  WorkItem work(int64_t slot) const;
  int64_t firstSlot(int64_t sequence) const {
    return reduceInfo[size_t(2 * sequence)];
  }
  int64_t partitionCount(int64_t sequence) const {
    return reduceInfo[size_t(2 * sequence + 1)];
  }
};

// capacity = min(B * maxPartitions, max(B, ceil(budget / Hkv))).
int64_t planCapacity(int64_t batch, int64_t numKvHeads, int64_t budget,
                     int64_t maxPartitions);

bool computeWorkPlan(const PlanRequest &request, WorkPlan &plan,
                     std::string &error);

struct DecodeCase;
// The request for case `c` (its lengths, Q, Hkv and window) under the given
// plan limits: what every harness that checks a plan against the oracle's
// asks for.
PlanRequest planRequestFor(const DecodeCase &c, std::optional<int64_t> budget,
                           std::optional<int64_t> maxPartitions,
                           int64_t computeUnits = 0);

} // namespace pa::oracle

#endif // PA_ORACLE_PLANNER_H
