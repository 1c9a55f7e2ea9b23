//===- ArenaPlannerTest.cpp - unit tests of tfc::planArena ----------------===//
//
// The planner's one promise is that two buffers whose lifetimes overlap
// never overlap in bytes; every test checks it with an independent
// brute-force check, plus alignment, the arena size and the reuse that makes
// planning worth it.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/ArenaPlanner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>

using tfc::ArenaPlan;
using tfc::BufferLifetime;
using tfc::planArena;

namespace {

/// Checks every property of a valid plan independently of the planner.
void expectValidPlan(const std::vector<int64_t> &sizes,
                     const std::vector<BufferLifetime> &lifetimes,
                     int64_t alignment, const ArenaPlan &plan) {
  ASSERT_EQ(plan.offsets.size(), sizes.size());
  EXPECT_EQ(plan.size % alignment, 0);
  for (size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_GE(plan.offsets[i], 0) << "buffer " << i;
    EXPECT_EQ(plan.offsets[i] % alignment, 0) << "buffer " << i;
    EXPECT_LE(plan.offsets[i] + sizes[i], plan.size) << "buffer " << i;
    for (size_t j = i + 1; j < sizes.size(); ++j) {
      bool liveTogether = lifetimes[i].first <= lifetimes[j].last &&
                          lifetimes[j].first <= lifetimes[i].last;
      bool bytesOverlap = sizes[i] > 0 && sizes[j] > 0 &&
                          plan.offsets[i] < plan.offsets[j] + sizes[j] &&
                          plan.offsets[j] < plan.offsets[i] + sizes[i];
      EXPECT_FALSE(liveTogether && bytesOverlap)
          << "buffers " << i << " [" << plan.offsets[i] << ", +" << sizes[i]
          << ") and " << j << " [" << plan.offsets[j] << ", +" << sizes[j]
          << ") are live together and overlap";
    }
  }
}

TEST(ArenaPlanner, EmptyPlanHasSizeZero) {
  std::optional<ArenaPlan> plan = planArena({}, {}, 256);
  ASSERT_TRUE(plan);
  EXPECT_TRUE(plan->offsets.empty());
  EXPECT_EQ(plan->size, 0);
}

TEST(ArenaPlanner, LiveTogetherBuffersAreDisjointAndAligned) {
  std::vector<int64_t> sizes = {100, 300, 1};
  std::vector<BufferLifetime> lifetimes = {{0, 2}, {1, 2}, {2, 2}};
  std::optional<ArenaPlan> plan = planArena(sizes, lifetimes, 256);
  ASSERT_TRUE(plan);
  expectValidPlan(sizes, lifetimes, 256, *plan);
  EXPECT_EQ(plan->offsets, (std::vector<int64_t>{0, 256, 768}));
  EXPECT_EQ(plan->size, 1024);
}

TEST(ArenaPlanner, DeadBuffersAreReused) {
  // A chain a -> b -> c -> d: each buffer dies when the next is written, so
  // two slots suffice (a kernel never writes over its own input).
  std::vector<int64_t> sizes = {1024, 1024, 1024, 1024};
  std::vector<BufferLifetime> lifetimes = {{0, 1}, {1, 2}, {2, 3}, {3, 3}};
  std::optional<ArenaPlan> plan = planArena(sizes, lifetimes, 256);
  ASSERT_TRUE(plan);
  expectValidPlan(sizes, lifetimes, 256, *plan);
  EXPECT_EQ(plan->offsets, (std::vector<int64_t>{0, 1024, 0, 1024}));
  EXPECT_EQ(plan->size, 2048);
}

TEST(ArenaPlanner, FirstFitTakesTheLowestGap) {
  // Buffer 1 dies before buffer 3 is written, leaving a gap between 0 and 2
  // that 3 fits into.
  std::vector<int64_t> sizes = {256, 512, 256, 512};
  std::vector<BufferLifetime> lifetimes = {{0, 5}, {1, 2}, {2, 5}, {3, 5}};
  std::optional<ArenaPlan> plan = planArena(sizes, lifetimes, 256);
  ASSERT_TRUE(plan);
  expectValidPlan(sizes, lifetimes, 256, *plan);
  EXPECT_EQ(plan->offsets[3], 256);
  EXPECT_EQ(plan->size, 1024);
}

TEST(ArenaPlanner, ZeroByteBuffersConflictWithNothing) {
  std::vector<int64_t> sizes = {0, 64};
  std::vector<BufferLifetime> lifetimes = {{0, 1}, {0, 1}};
  std::optional<ArenaPlan> plan = planArena(sizes, lifetimes, 64);
  ASSERT_TRUE(plan);
  expectValidPlan(sizes, lifetimes, 64, *plan);
  EXPECT_EQ(plan->size, 64);
}

TEST(ArenaPlanner, RandomProgramsNeverOverlapLiveBuffers) {
  std::mt19937_64 random(20240611);
  for (int trial = 0; trial < 200; ++trial) {
    size_t count = random() % 60;
    std::vector<int64_t> sizes;
    std::vector<BufferLifetime> lifetimes;
    for (size_t i = 0; i < count; ++i) {
      sizes.push_back(static_cast<int64_t>(random() % 5000));
      int64_t first = static_cast<int64_t>(random() % 40);
      lifetimes.push_back({first, first + static_cast<int64_t>(random() % 10)});
    }
    int64_t alignment = int64_t{1} << (random() % 9);
    std::optional<ArenaPlan> plan = planArena(sizes, lifetimes, alignment);
    ASSERT_TRUE(plan) << "trial " << trial;
    expectValidPlan(sizes, lifetimes, alignment, *plan);
    if (::testing::Test::HasFailure())
      FAIL() << "trial " << trial;
  }
}

/// The offsets the documented rule gives, by brute force: buffers in the
/// order they become live (ties by index), each at the lowest multiple of
/// `alignment` where it overlaps no placed buffer whose lifetime intersects
/// its own (the lowest such offset is 0 or just after one of those).
std::vector<int64_t> firstFitByBruteForce(
    const std::vector<int64_t> &sizes,
    const std::vector<BufferLifetime> &lifetimes, int64_t alignment) {
  std::vector<size_t> order;
  for (size_t i = 0; i < sizes.size(); ++i)
    order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return lifetimes[a].first < lifetimes[b].first;
  });
  std::vector<int64_t> offsets(sizes.size(), 0);
  std::vector<size_t> placed;
  for (size_t buffer : order) {
    if (sizes[buffer] == 0)
      continue;
    std::vector<size_t> conflicts;
    for (size_t other : placed)
      if (lifetimes[buffer].first <= lifetimes[other].last &&
          lifetimes[other].first <= lifetimes[buffer].last)
        conflicts.push_back(other);
    std::vector<int64_t> candidates{0};
    for (size_t other : conflicts) {
      int64_t end = offsets[other] + sizes[other];
      candidates.push_back((end + alignment - 1) / alignment * alignment);
    }
    int64_t best = std::numeric_limits<int64_t>::max();
    for (int64_t candidate : candidates) {
      bool fits = true;
      for (size_t other : conflicts)
        fits = fits && (candidate + sizes[buffer] <= offsets[other] ||
                        offsets[other] + sizes[other] <= candidate);
      if (fits)
        best = std::min(best, candidate);
    }
    offsets[buffer] = best;
    placed.push_back(buffer);
  }
  return offsets;
}

TEST(ArenaPlanner, RandomProgramsGetTheFirstFit) {
  std::mt19937_64 random(20261130);
  for (int trial = 0; trial < 300; ++trial) {
    size_t count = random() % 80;
    // Long and short lifetimes mixed: many buffers live at once, and many
    // that die while others stay.
    int64_t span = 1 + static_cast<int64_t>(random() % 50);
    std::vector<int64_t> sizes;
    std::vector<BufferLifetime> lifetimes;
    for (size_t i = 0; i < count; ++i) {
      sizes.push_back(random() % 4 == 0 ? 0
                                        : static_cast<int64_t>(random() % 3000));
      int64_t first = static_cast<int64_t>(random()) % span;
      int64_t length = random() % 3 == 0 ? static_cast<int64_t>(random() % 60)
                                         : static_cast<int64_t>(random() % 4);
      lifetimes.push_back({first, first + length});
    }
    int64_t alignment = int64_t{1} << (random() % 9);
    std::optional<ArenaPlan> plan = planArena(sizes, lifetimes, alignment);
    ASSERT_TRUE(plan) << "trial " << trial;
    std::vector<int64_t> expected =
        firstFitByBruteForce(sizes, lifetimes, alignment);
    for (size_t i = 0; i < count; ++i) {
      if (sizes[i] > 0) {
        ASSERT_EQ(plan->offsets[i], expected[i])
            << "trial " << trial << ", buffer " << i;
      }
    }
    expectValidPlan(sizes, lifetimes, alignment, *plan);
    if (::testing::Test::HasFailure())
      FAIL() << "trial " << trial;
  }
}

TEST(ArenaPlanner, RejectsBadInput) {
  std::string error;
  EXPECT_FALSE(planArena({1, 2}, {{0, 0}}, 256, &error));
  EXPECT_NE(error.find("2 sizes but 1 lifetimes"), std::string::npos) << error;
  EXPECT_FALSE(planArena({1}, {{0, 0}}, 48, &error));
  EXPECT_NE(error.find("alignment 48"), std::string::npos) << error;
  EXPECT_FALSE(planArena({1}, {{0, 0}}, 0, &error));
  EXPECT_FALSE(planArena({-4}, {{0, 0}}, 256, &error));
  EXPECT_NE(error.find("negative size"), std::string::npos) << error;
  EXPECT_FALSE(planArena({4}, {{3, 1}}, 256, &error));
  EXPECT_NE(error.find("ends before it begins"), std::string::npos) << error;
  // No error pointer: still fails cleanly.
  EXPECT_FALSE(planArena({4}, {{3, 1}}, 256));
}

TEST(ArenaPlanner, RejectsArenasBeyondInt64) {
  int64_t huge = std::numeric_limits<int64_t>::max() - 10;
  std::string error;
  EXPECT_FALSE(planArena({huge, huge}, {{0, 1}, {0, 1}}, 256, &error));
  EXPECT_NE(error.find("INT64_MAX"), std::string::npos) << error;
  EXPECT_FALSE(planArena({huge}, {{0, 1}}, 256, &error));
}

} // namespace
