//===- PlannerTest.cpp - Work plan goldens and properties -----------------===//
#include "TestSupport.h"

#include "pa/Oracle/Visibility.h"

#include <random>

using namespace pa::oracle;
using pa::oracle::test::plan;

namespace {

PlanRequest request(std::vector<int32_t> lengths, int64_t queryLen,
                    int64_t numKvHeads, int64_t window, int64_t budget,
                    int64_t maxPartitions) {
  PlanRequest r;
  r.contextLengths = std::move(lengths);
  r.queryLen = queryLen;
  r.numKvHeads = numKvHeads;
  r.window = window;
  r.budget = budget;
  r.maxPartitions = maxPartitions;
  return r;
}

void expectTiles(const WorkPlan &p, int64_t slot, int32_t sequence,
                 int32_t begin, int32_t end) {
  WorkItem item = p.work(slot);
  EXPECT_EQ(item.sequence, sequence) << "slot " << slot;
  EXPECT_EQ(item.beginTile, begin) << "slot " << slot;
  EXPECT_EQ(item.endTile, end) << "slot " << slot;
}

int64_t usedSlots(const WorkPlan &p) {
  int64_t used = 0;
  for (int64_t b = 0; b < p.batch(); ++b)
    used += p.partitionCount(b);
  return used;
}

} // namespace

TEST(Planner, GoldenLongContextsWithShortTail) {
  WorkPlan p = plan(request({200000, 200000, 200000, 200000, 257}, 4, 1, 0,
                            512, 256));
  EXPECT_EQ(p.capacity, 512);
  const int64_t counts[] = {127, 128, 128, 127, 2};
  for (int64_t b = 0; b < 5; ++b)
    EXPECT_EQ(p.partitionCount(b), counts[b]) << "sequence " << b;
  expectTiles(p, 0, 0, 0, 6);
  expectTiles(p, 1, 0, 6, 12);
  expectTiles(p, 2, 0, 12, 18);
  EXPECT_EQ(p.work(0).contextLength, 200000);
  expectTiles(p, 510, 4, 0, 1);
  expectTiles(p, 511, 4, 1, 2);
}

TEST(Planner, GoldenEmptyAndTinySequences) {
  WorkPlan p = plan(request({8192, 0, 1, 300}, 1, 2, 0, 64, 64));
  EXPECT_EQ(p.capacity, 32);
  EXPECT_EQ(p.reduceInfo, (std::vector<int32_t>{0, 27, 27, 0, 27, 1, 28, 2}));
  EXPECT_EQ(p.work(27).sequence, 2);
  EXPECT_EQ(p.work(27).contextLength, 1);
  for (int64_t slot = 30; slot < 32; ++slot)
    expectTiles(p, slot, 0, 0, 0);
}

TEST(Planner, GoldenWindowSkipsLeadingTiles) {
  WorkPlan p = plan(request({100000, 4099}, 2, 1, 257, 16, 16));
  EXPECT_EQ(p.capacity, 16);
  EXPECT_EQ(p.reduceInfo, (std::vector<int32_t>{0, 2, 2, 2}));
  expectTiles(p, 0, 0, 389, 390);
  expectTiles(p, 1, 0, 390, 391);
  expectTiles(p, 2, 1, 15, 16);
  expectTiles(p, 3, 1, 16, 17);
}

TEST(Planner, DefaultsComeFromComputeUnits) {
  PlanRequest r;
  r.contextLengths = {1 << 20, 1 << 20};
  r.computeUnits = 80; // budget 160, maxPartitions 80
  WorkPlan p = plan(r);
  EXPECT_EQ(p.capacity, 160);
  EXPECT_EQ(p.maxPartitions, 80);
  EXPECT_EQ(p.partitionCount(0), 80);
  r.budget = 1000; // explicit budget wins; maxPartitions still defaulted
  EXPECT_EQ(plan(r).capacity, 160); // min(2 * 80, 1000)
  r.computeUnits = 0;
  WorkPlan unused;
  std::string error;
  EXPECT_FALSE(computeWorkPlan(r, unused, error));
  EXPECT_NE(error.find("computeUnits"), std::string::npos);
}

TEST(Planner, RejectsBadRequests) {
  WorkPlan p;
  std::string error;
  EXPECT_FALSE(computeWorkPlan(request({10}, 0, 1, 0, 4, 4), p, error));
  EXPECT_FALSE(computeWorkPlan(request({-1}, 1, 1, 0, 4, 4), p, error));
  EXPECT_FALSE(computeWorkPlan(request({10}, 1, 1, 0, 0, 4), p, error));
  EXPECT_FALSE(computeWorkPlan(request({10}, 1, 1, 0, 4, 0), p, error));
  EXPECT_FALSE(error.empty());
}

// Products cum * remaining far beyond 2^31: four maximal contexts of 2^23
// tiles share 2^20 - 4 extra slots evenly.
TEST(Planner, LargeProductsDoNotOverflow) {
  const int32_t longest = 2147483647;
  WorkPlan p = plan(request({longest, longest, longest, longest}, 1, 1,
                            longest, 1 << 20, 1 << 20));
  EXPECT_EQ(p.capacity, 1 << 20);
  for (int64_t b = 0; b < 4; ++b) {
    EXPECT_EQ(p.partitionCount(b), 1 << 18) << b;
    EXPECT_EQ(p.firstSlot(b), b << 18) << b;
  }
  expectTiles(p, (1 << 20) - 1, 3, (1 << 23) - 32, 1 << 23);
}

TEST(Visibility, TileRangeHelper) {
  EXPECT_TRUE(visibleTileRange(0, 1, 0).empty());
  EXPECT_TRUE(visibleTileRange(0, 4, 100).empty());
  EXPECT_EQ(visibleTileRange(256, 1, 0).end, 1);
  EXPECT_EQ(visibleTileRange(257, 1, 0).end, 2);
  EXPECT_EQ(visibleTileRange(100000, 2, 257).begin, 389);
  EXPECT_EQ(visibleTileRange(4099, 2, 257).begin, 15);
  EXPECT_EQ(visibleTileRange(1000, 1, 1).begin, 3); // only token 999
  EXPECT_EQ(visibleTileRange(1000, 1, -1).begin, 0);
  EXPECT_EQ(visibleTileRange(2147483647, 8, 2147483647).begin, 0);
  EXPECT_EQ(visibleTileRange(2147483647, 1, 1).begin, 8388607);
}

TEST(Visibility, TokenRangeHelper) {
  // C = 10, Q = 3: rows see tokens < 8, < 9, < 10.
  EXPECT_EQ(visibleTokenRange(10, 3, 0, 0).begin, 0);
  EXPECT_EQ(visibleTokenRange(10, 3, 0, 0).end, 8);
  EXPECT_EQ(visibleTokenRange(10, 3, 2, 1).begin, 9); // W = 1: only itself
  EXPECT_EQ(visibleTokenRange(10, 3, 2, 1).end, 10);
  EXPECT_EQ(visibleTokenRange(10, 3, 1, 4).begin, 5);
  EXPECT_TRUE(visibleTokenRange(1, 3, 1, 0).empty()); // C - Q + 1 + q = 0
  EXPECT_EQ(visibleTokenRange(1, 3, 2, 0).size(), 1);
  EXPECT_TRUE(visibleTokenRange(0, 1, 0, 5).empty());
  EXPECT_EQ(visibleTokenRange(2147483647, 8, 7, 2147483647).begin, 0);
  EXPECT_EQ(visibleTokenRange(2147483647, 8, 0, 2).begin, 2147483638);
  EXPECT_EQ(visibleToAnyRow(10, 3, 2).begin, 6);
  EXPECT_EQ(visibleToAnyRow(10, 3, 2).end, 10);
  EXPECT_TRUE(visibleToAnyRow(0, 3, 2).empty());
}

// Random plans: every visible tile covered exactly once, in order, by
// non-empty partitions; counts and capacity within their bounds; unused slots
// zero. The expected tile ranges and capacity are recomputed here.
TEST(Planner, PropertiesOverRandomRequests) {
  std::mt19937_64 random(2024);
  auto below = [&](int64_t n) { return int64_t(random() % uint64_t(n)); };
  const int64_t windows[] = {0, -1, 1, 2, 17, 255, 256, 257, 8193, 2147483647};
  for (int iteration = 0; iteration < 3000; ++iteration) {
    std::vector<int32_t> lengths(size_t(1 + below(12)));
    for (int32_t &length : lengths) {
      switch (below(4)) {
      case 0: length = int32_t(below(3)); break;
      case 1: length = int32_t(below(1000)); break;
      case 2: length = int32_t(below(20000)); break;
      default: length = int32_t(below(400000)); break;
      }
    }
    const int64_t queryLen = 1 + below(8);
    const int64_t numKvHeads = int64_t(1) << below(4);
    const int64_t window = windows[below(10)];
    const int64_t budget = 1 + below(iteration % 2 ? 64 : 3000);
    const int64_t maxPartitions = 1 + below(iteration % 3 ? 16 : 400);
    SCOPED_TRACE(::testing::Message() << "iteration " << iteration);
    WorkPlan p = plan(request(lengths, queryLen, numKvHeads, window, budget,
                              maxPartitions));
    const int64_t batch = int64_t(lengths.size());
    const int64_t budgetPerHead = (budget + numKvHeads - 1) / numKvHeads;
    ASSERT_EQ(p.capacity, std::min(batch * maxPartitions,
                                   std::max(batch, budgetPerHead)));
    ASSERT_EQ(p.workInfo.size(), size_t(4 * p.capacity));
    ASSERT_EQ(p.batch(), batch);
    int64_t nextSlot = 0;
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t C = lengths[size_t(b)];
      const int64_t first =
          window > 0 ? std::max<int64_t>(0, C - (queryLen - 1) - window) / 256
                     : 0;
      const int64_t end = (C + 255) / 256;
      const int64_t tiles = std::max<int64_t>(0, end - first);
      const int64_t count = p.partitionCount(b);
      ASSERT_EQ(p.firstSlot(b), nextSlot);
      ASSERT_LE(count, maxPartitions);
      ASSERT_LE(count, tiles);
      ASSERT_EQ(count > 0, tiles > 0);
      int64_t covered = first;
      for (int64_t slot = nextSlot; slot < nextSlot + count; ++slot) {
        const WorkItem item = p.work(slot);
        ASSERT_EQ(item.sequence, b);
        ASSERT_EQ(item.contextLength, C);
        ASSERT_EQ(item.beginTile, covered);
        ASSERT_GT(item.endTile, item.beginTile);
        covered = item.endTile;
      }
      if (count > 0) {
        ASSERT_EQ(covered, end);
      }
      nextSlot += count;
    }
    ASSERT_EQ(usedSlots(p), nextSlot);
    ASSERT_LE(nextSlot, p.capacity);
    for (size_t i = size_t(4 * nextSlot); i < p.workInfo.size(); ++i)
      ASSERT_EQ(p.workInfo[i], 0) << "unused slot data at " << i;
  }
}

// When no clamp binds, apportioning hands out exactly the capacity.
TEST(Planner, UnclampedPlansFillCapacity) {
  WorkPlan p = plan(request({5000, 70000, 1, 30000}, 1, 1, 0, 40, 1000));
  EXPECT_EQ(p.capacity, 40);
  EXPECT_EQ(usedSlots(p), 40);
}
