// PlaceBlocksOnSkyline: the canonical dive it promises (checked against a
// direct quadratic reading of its contract), valid and deterministic, and
// filling valleys that a fixed-order best fit leaves empty.

#include "hmo/analysis/skyline_placement.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "hmo/analysis/tight_packing_greedy.h"

namespace hmo {
namespace {

bool Conflict(const HeapPackingBlock& a, const HeapPackingBlock& b) {
  for (const HeapTimeInterval& x : a.lifetimes) {
    for (const HeapTimeInterval& y : b.lifetimes) {
      if (x.start <= y.end && y.start <= x.end) return true;
    }
  }
  return false;
}

// The contract read literally: repeatedly, every unplaced block's min offset
// is the highest end of a placed block it conflicts with (aligned up); the
// lowest goes next, earlier in `priority` on ties. O(n^3).
std::vector<int64_t> ReferenceSkyline(const HeapPackingProblem& problem,
                                      const std::vector<int32_t>& priority) {
  const size_t n = problem.blocks.size();
  std::vector<int64_t> offsets(n, 0);
  std::vector<bool> placed(n, false);
  for (size_t b = 0; b < n; ++b) placed[b] = problem.blocks[b].size == 0;
  while (true) {
    int32_t next = -1;
    int64_t next_offset = 0;
    for (int32_t b : priority) {
      if (placed[b]) continue;
      int64_t floor = 0;
      for (size_t o = 0; o < n; ++o) {
        if (placed[o] && problem.blocks[o].size > 0 &&
            Conflict(problem.blocks[b], problem.blocks[o])) {
          floor = std::max(floor, offsets[o] + problem.blocks[o].size);
        }
      }
      const int64_t offset = AlignHeapOffsetUp(floor, problem.alignment);
      if (next < 0 || offset < next_offset) {
        next = b;
        next_offset = offset;
      }
    }
    if (next < 0) return offsets;
    offsets[next] = next_offset;
    placed[next] = true;
  }
}

HeapPackingProblem RandomProblem(uint64_t seed, int blocks, int64_t alignment) {
  std::mt19937_64 random(seed);
  HeapPackingProblem problem;
  problem.alignment = alignment;
  for (int b = 0; b < blocks; ++b) {
    HeapPackingBlock block;
    const int64_t start = static_cast<int64_t>(random() % 60);
    block.lifetimes.push_back({start, start + static_cast<int64_t>(random() % 20)});
    // Some blocks live twice (a buffer with its colocations).
    if (random() % 5 == 0) {
      const int64_t again = start + 25 + static_cast<int64_t>(random() % 30);
      block.lifetimes.push_back({again, again + static_cast<int64_t>(random() % 5)});
    }
    block.size = random() % 10 == 0 ? 0 : 1 + static_cast<int64_t>(random() % 50);
    problem.blocks.push_back(block);
  }
  return problem;
}

TEST(SkylinePlacementTest, IsTheCanonicalDiveItDescribes) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const HeapPackingProblem problem = RandomProblem(seed, 60, seed % 3 == 0 ? 8 : 1);
    std::vector<int32_t> priority(problem.blocks.size());
    std::iota(priority.begin(), priority.end(), 0);
    std::shuffle(priority.begin(), priority.end(), std::mt19937_64(seed));
    const std::optional<SkylinePlacement> placed = PlaceBlocksOnSkyline(problem, priority, 0);
    ASSERT_TRUE(placed.has_value());
    EXPECT_EQ(placed->offsets, ReferenceSkyline(problem, priority)) << "seed " << seed;
    EXPECT_TRUE(ValidateHeapPacking(problem, placed->offsets).ok()) << "seed " << seed;
    EXPECT_EQ(placed->height, HeapPackingHeight(problem, placed->offsets));
    // Deterministic, and the step count is what the limit compares with.
    const std::optional<SkylinePlacement> again =
        PlaceBlocksOnSkyline(problem, priority, placed->steps);
    ASSERT_TRUE(again.has_value()) << "seed " << seed;
    EXPECT_EQ(again->offsets, placed->offsets);
    EXPECT_FALSE(PlaceBlocksOnSkyline(problem, priority, placed->steps - 1).has_value());
  }
}

// Best fit in size order puts c on top of b and d, leaving the 1-byte gap
// above d at time 2 too small for a. The skyline places a in that valley
// first (its min offset, 3, is lower than c's, 4) and c above both: the
// lower bound, where best fit is one byte over.
//
//   time:    0   1   2   3
//   b (4)                #
//   d (3)    #   #   #
//   c (2)            #   #
//   a (2)            #
TEST(SkylinePlacementTest, FillsTheValleyBestFitLeaves) {
  HeapPackingProblem problem;
  problem.blocks = {{2, {{2, 2}}}, {4, {{3, 3}}}, {2, {{2, 3}}}, {3, {{0, 2}}}};  // a, b, c, d
  const int64_t lower_bound = HeapPackingLowerBound(problem);
  ASSERT_EQ(lower_bound, 7);
  const std::vector<int32_t> size_order = SizeOrder(ComputeBlockOrderKeys(problem));
  const std::optional<SkylinePlacement> placed = PlaceBlocksOnSkyline(problem, size_order, 0);
  ASSERT_TRUE(placed.has_value());
  EXPECT_EQ(placed->height, lower_bound);
  EXPECT_EQ(placed->offsets, (std::vector<int64_t>{3, 0, 5, 0}));
  EXPECT_TRUE(ValidateHeapPacking(problem, placed->offsets).ok());
  std::vector<int64_t> best_fit;
  EXPECT_EQ(PlaceBlocksInOrder(problem, size_order, ChunkPlacement::kBestFit, best_fit),
            lower_bound + 1);
}

TEST(SkylinePlacementTest, AlignsEveryOffset) {
  HeapPackingProblem problem;
  problem.alignment = 16;
  problem.blocks = {{5, {{0, 3}}}, {7, {{1, 2}}}, {16, {{2, 5}}}, {3, {{4, 6}}}};
  std::vector<int32_t> priority = {0, 1, 2, 3};
  const std::optional<SkylinePlacement> placed = PlaceBlocksOnSkyline(problem, priority, 0);
  ASSERT_TRUE(placed.has_value());
  for (int64_t offset : placed->offsets) EXPECT_EQ(offset % 16, 0);
  EXPECT_TRUE(ValidateHeapPacking(problem, placed->offsets).ok());
  EXPECT_EQ(placed->offsets, ReferenceSkyline(problem, priority));
}

}  // namespace
}  // namespace hmo
