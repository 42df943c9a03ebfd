//===- PlanCapacity.h - the plan's slot count, for every layer --*- C++ -*-===//
//
// The work plan's capacity (slots, work_info rows) for `batch` sequences:
//   min(B * max_partitions, max(B, ceil(budget / Hkv))).
// The IR (pa.plan's verifier and lowering), the host planner and the
// launchers (which refuse a workspace of another capacity) use this one
// definition. Plain C++.
//
//===----------------------------------------------------------------------===//
#ifndef PA_SUPPORT_PLANCAPACITY_H
#define PA_SUPPORT_PLANCAPACITY_H

#include <algorithm>
#include <cstdint>
#include <limits>

namespace pa {

/// Defined for any int64 arguments (a static batch may be huge, a caller's
/// configuration invalid): no division by zero, the ceiling without
/// budget + kvHeads - 1, and a saturated product.
inline int64_t planCapacity(int64_t batch, int64_t kvHeads, int64_t budget,
                            int64_t maxPartitions) {
  if (kvHeads < 1)
    return 0;
  int64_t perHead = budget / kvHeads + (budget % kvHeads > 0 ? 1 : 0);
  int64_t all;
  if (__builtin_mul_overflow(batch, maxPartitions, &all))
    all = (batch < 0) != (maxPartitions < 0)
              ? std::numeric_limits<int64_t>::min()
              : std::numeric_limits<int64_t>::max();
  return std::min(all, std::max(batch, perHead));
}

} // namespace pa

#endif // PA_SUPPORT_PLANCAPACITY_H
