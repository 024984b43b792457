// ImprovePacking: valid, never above its start, deterministic for a budget,
// and able to reach the optimum where XLA's best fit misses it.

#include "hmo/analysis/packing_improver.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hmo/analysis/buffer_packing_csv.h"
#include "hmo/analysis/tight_packing_greedy.h"

namespace hmo {
namespace {

// XLA's spatial order on a problem: size descending, then longer first.
std::vector<int64_t> BestFit(const HeapPackingProblem& problem) {
  std::vector<int32_t> order(problem.blocks.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    const HeapPackingBlock& x = problem.blocks[a];
    const HeapPackingBlock& y = problem.blocks[b];
    if (x.size != y.size) return x.size > y.size;
    return x.lifetimes[0].end - x.lifetimes[0].start > y.lifetimes[0].end - y.lifetimes[0].start;
  });
  std::vector<int64_t> offsets;
  PlaceBlocksInOrder(problem, order, ChunkPlacement::kBestFit, offsets);
  return offsets;
}

HeapPackingProblem RandomProblem(uint64_t seed, int blocks, int64_t alignment) {
  std::mt19937_64 random(seed);
  HeapPackingProblem problem;
  problem.alignment = alignment;
  for (int b = 0; b < blocks; ++b) {
    HeapPackingBlock block;
    const int64_t start = static_cast<int64_t>(random() % 300);
    const int64_t length = random() % 5 == 0 ? static_cast<int64_t>(random() % 250)
                                              : static_cast<int64_t>(random() % 25);
    block.lifetimes.push_back({start, start + length});
    block.size = 1 + static_cast<int64_t>(random() % (random() % 4 == 0 ? 4 : 200));
    problem.blocks.push_back(block);
  }
  return problem;
}

// A perfect packing cut into blocks: the rectangle time [0, T) x bytes
// [0, W) split by random guillotine cuts (an explicit stack, no recursion)
// until the pieces are small; each piece is a block. Every time step is fully
// covered, so the optimum is W, the lower bound.
HeapPackingProblem TiledProblem(uint64_t seed, int64_t width, int64_t time) {
  struct Piece {
    int64_t t0, t1, b0, b1;  // [t0, t1) x [b0, b1)
  };
  std::mt19937_64 random(seed);
  HeapPackingProblem problem;
  std::vector<Piece> stack = {{0, time, 0, width}};
  while (!stack.empty()) {
    const Piece p = stack.back();
    stack.pop_back();
    const int64_t dt = p.t1 - p.t0, db = p.b1 - p.b0;
    const bool small = dt * db <= width * time / 40;
    if ((small && random() % 3 != 0) || (dt < 2 && db < 2)) {
      problem.blocks.push_back({db, {{p.t0, p.t1 - 1}}});
      continue;
    }
    if (db < 2 || (dt >= 2 && random() % 2 == 0)) {
      const int64_t cut = p.t0 + 1 + static_cast<int64_t>(random() % (dt - 1));
      stack.push_back({p.t0, cut, p.b0, p.b1});
      stack.push_back({cut, p.t1, p.b0, p.b1});
    } else {
      const int64_t cut = p.b0 + 1 + static_cast<int64_t>(random() % (db - 1));
      stack.push_back({p.t0, p.t1, p.b0, cut});
      stack.push_back({p.t0, p.t1, cut, p.b1});
    }
  }
  return problem;
}

TEST(PackingImproverTest, ValidNeverHigherAndDeterministic) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    for (int64_t alignment : {int64_t{1}, int64_t{4}}) {
      const HeapPackingProblem problem = RandomProblem(seed, 150, alignment);
      const std::vector<int64_t> start = BestFit(problem);
      const int64_t start_height = HeapPackingHeight(problem, start);
      PackingImproverOptions options;
      options.work_budget = 6000;
      options.time_limit_seconds = 60;  // the work budget decides
      options.seed = seed;
      std::vector<int64_t> first = start, second = start;
      const PackingImproverReport report = ImprovePacking(problem, first, options);
      ImprovePacking(problem, second, options);
      ASSERT_TRUE(ValidateHeapPacking(problem, first).ok()) << "seed " << seed;
      EXPECT_EQ(report.initial_height, start_height);
      EXPECT_EQ(report.height, HeapPackingHeight(problem, first));
      EXPECT_LE(report.height, start_height);
      EXPECT_GE(report.height, report.lower_bound);
      EXPECT_EQ(first, second) << "seed " << seed;
      EXPECT_FALSE(report.stopped_by_time);
      EXPECT_GT(report.greedy_passes, 0);
      // The search runs unless the greedy passes already reached the bound.
      if (report.height > report.lower_bound) {
        EXPECT_GT(report.moves, 0);
      }
    }
  }
}

TEST(PackingImproverTest, ReachesTheOptimumOfTiledInstances) {
  // Best fit is 5% to 30% above the optimum here; the improver gets every
  // instance lower and some to the optimum (the lower bound).
  int optimal = 0;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const HeapPackingProblem problem = TiledProblem(seed, 64, 40);
    const int64_t bound = HeapPackingLowerBound(problem);
    ASSERT_EQ(bound, 64);
    std::vector<int64_t> offsets = BestFit(problem);
    const int64_t best_fit = HeapPackingHeight(problem, offsets);
    ASSERT_GT(best_fit, bound) << "seed " << seed;
    PackingImproverOptions options;
    options.work_budget = 40'000;
    options.time_limit_seconds = 60;  // the work budget decides
    const PackingImproverReport report = ImprovePacking(problem, offsets, options);
    ASSERT_TRUE(ValidateHeapPacking(problem, offsets).ok());
    EXPECT_LT(report.height, best_fit) << "seed " << seed;
    EXPECT_LE(report.height, bound + bound / 5) << "seed " << seed;
    if (report.height == bound) ++optimal;
  }
  EXPECT_GE(optimal, 2);
}

TEST(PackingImproverTest, KeepsAnOptimalStart) {
  // Best fit is optimal here (a stack of disjoint-in-time pairs): nothing to do.
  HeapPackingProblem problem;
  for (int64_t t = 0; t < 10; ++t) {
    problem.blocks.push_back({8, {{2 * t, 2 * t + 1}}});
    problem.blocks.push_back({4, {{2 * t, 2 * t + 1}}});
  }
  std::vector<int64_t> offsets = BestFit(problem);
  const std::vector<int64_t> start = offsets;
  const PackingImproverReport report = ImprovePacking(problem, offsets);
  EXPECT_EQ(report.height, 12);
  EXPECT_EQ(report.method, "initial");
  EXPECT_EQ(report.work, 0);
  EXPECT_EQ(offsets, start);
}

TEST(PackingImproverTest, IsTheDefaultPackBuffersAlgorithm) {
  EXPECT_EQ(PackingAlgorithmNames().front(), "best-fit-improved");
  std::mt19937_64 random(9);
  PackingInstance instance;
  for (int i = 0; i < 120; ++i) {
    HeapCsvBuffer buffer;
    buffer.id = "b" + std::to_string(i);
    buffer.lower = static_cast<int64_t>(random() % 100);
    buffer.upper = buffer.lower + 1 + static_cast<int64_t>(random() % (i % 7 == 0 ? 90 : 15));
    buffer.size = 1 + static_cast<int64_t>(random() % (i % 7 == 0 ? 3 : 100));
    instance.push_back(buffer);
  }
  auto best_fit = PackBuffers(instance, "best-fit");
  auto improved = PackBuffers(instance, "best-fit-improved");
  ASSERT_TRUE(best_fit.ok()) << best_fit.status();
  ASSERT_TRUE(improved.ok()) << improved.status();
  EXPECT_TRUE(ValidatePacking(instance, improved->offsets).ok());
  EXPECT_LE(improved->height, best_fit->height);
  EXPECT_FALSE(improved->detail.empty());
  EXPECT_TRUE(best_fit->detail.empty());
}

// The goal on a real instance: PanGu-alpha 2.6B's 18,692 tensors
// (MiniMalloc's real-world set) within 1.5% of the most bytes live at once.
// XLA's best fit is +3.34% and MiniMalloc +2.96% after 138 s; the skyline dive
// in size order is +0.76% and its random orders go lower. A generous time cap
// so the work budget alone decides (as on a slow or sanitized build).
TEST(PackingImproverTest, PanguWithinOnePointFivePercent) {
  absl::StatusOr<PackingInstance> instance = ReadHeapCsvFile(
      std::string(HMO_SOURCE_DIR) + "/bench/minimalloc/data/realworld/pangu_2.6B.csv");
  ASSERT_TRUE(instance.ok()) << instance.status();
  const HeapPackingProblem problem = ToHeapPackingProblem(*instance);
  absl::StatusOr<PackingResult> best_fit = PackBuffers(*instance, "best-fit");
  ASSERT_TRUE(best_fit.ok()) << best_fit.status();
  std::vector<int64_t> offsets = best_fit->offsets;
  PackingImproverOptions options;
  options.time_limit_seconds = 600;
  const PackingImproverReport report = ImprovePacking(problem, offsets, options);
  ASSERT_TRUE(ValidatePacking(*instance, offsets).ok());
  EXPECT_EQ(report.lower_bound, 5'530'099'775);
  EXPECT_EQ(best_fit->height, 5'714'911'299);  // +3.34%, as the reference lists
  EXPECT_LE(report.height, report.lower_bound + report.lower_bound * 15 / 1000)
      << "by " << report.method;
  EXPECT_FALSE(report.stopped_by_time);
}

}  // namespace
}  // namespace hmo
