// DecideTightPacking, the decision version of the tight packer: placements
// within a capacity on MiniMalloc's challenging instances, proofs of
// infeasibility that an exhaustive search confirms, and node budgets that
// bound the work.

#include <algorithm>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hmo/analysis/buffer_packing_csv.h"
#include "hmo/analysis/tight_packing_branch_and_bound.h"
#include "hmo/analysis/tight_packing_solver.h"
#include "hmo/analysis/tight_packing_sweep.h"

namespace hmo {
namespace {

constexpr int64_t kChallengingCapacity = 1048576;

// MiniMalloc's challenging instances (bench/minimalloc/data/README.md gives
// their origin and license).
PackingInstance ReadChallenging(const std::string& letter) {
  auto instance = ReadHeapCsvFile(std::string(HMO_SOURCE_DIR) +
                                  "/bench/minimalloc/data/challenging/" + letter + ".1048576.csv");
  EXPECT_TRUE(instance.ok()) << instance.status();
  return instance.ok() ? *instance : PackingInstance{};
}

int64_t Height(const PackingInstance& instance, const std::vector<int64_t>& offsets) {
  int64_t height = 0;
  for (size_t i = 0; i < instance.size(); ++i) {
    if (instance[i].size > 0) height = std::max(height, offsets[i] + instance[i].size);
  }
  return height;
}

// Exhaustive: is there any placement of height <= capacity? Only for tiny
// instances (it tries every offset of every buffer).
bool FitsExhaustively(const PackingInstance& instance, int64_t capacity) {
  const size_t n = instance.size();
  std::vector<int64_t> offsets(n, -1);
  auto overlaps_in_time = [&](size_t a, size_t b) {
    return instance[a].lower < instance[b].upper && instance[b].lower < instance[a].upper;
  };
  std::function<bool(size_t)> place = [&](size_t i) {
    if (i == n) return true;
    for (int64_t offset = 0; offset + instance[i].size <= capacity; ++offset) {
      bool free = true;
      for (size_t j = 0; j < i && free; ++j) {
        free = !overlaps_in_time(i, j) || offset + instance[i].size <= offsets[j] ||
               offsets[j] + instance[j].size <= offset;
      }
      if (!free) continue;
      offsets[i] = offset;
      if (place(i + 1)) return true;
    }
    return false;
  };
  return place(0);
}

// Seven buffers whose most bytes live at once is 5, but which need 6: the
// greedy orders and section inference alone cannot tell.
constexpr char kNeedsSix[] =
    "id,lower,upper,size\n"
    "a,5,7,3\n"
    "b,0,2,3\n"
    "c,1,4,2\n"
    "d,3,5,2\n"
    "e,2,6,1\n"
    "f,6,8,2\n"
    "g,4,6,1\n";

class ChallengingDecisionTest : public testing::TestWithParam<const char*> {};

TEST_P(ChallengingDecisionTest, FindsAValidPlacementWithinTheCapacity) {
  // Best fit needs about a third more than the capacity on each of these;
  // the branch and bound finds a placement within a few thousand nodes.
  const PackingInstance instance = ReadChallenging(GetParam());
  ASSERT_FALSE(instance.empty());
  TightPackingOptions options;
  options.node_budget = 100'000;
  const TightPackingDecision decision =
      DecideTightPacking(ToHeapPackingProblem(instance), kChallengingCapacity, options);
  ASSERT_EQ(decision.outcome, TightPackingOutcome::kFound) << decision.method;
  EXPECT_EQ(decision.method, "branch-and-bound");
  ASSERT_EQ(decision.offsets.size(), instance.size());
  EXPECT_TRUE(ValidatePacking(instance, decision.offsets).ok());
  EXPECT_LE(Height(instance, decision.offsets), kChallengingCapacity);
  EXPECT_LE(decision.lower_bound, kChallengingCapacity);
  EXPECT_GT(decision.nodes, 0);
  EXPECT_LE(decision.nodes, options.node_budget);
}

// B and H reach their lower bound (the capacity); J's lower bound is 989,184.
INSTANTIATE_TEST_SUITE_P(MiniMalloc, ChallengingDecisionTest, testing::Values("B", "H", "J"));

class ChallengingOptimumTest : public testing::TestWithParam<const char*> {};

TEST_P(ChallengingOptimumTest, SolveReachesTheMostBytesLiveAtOnce) {
  // The nine instances whose optimum is their lower bound
  // (../shared/bench/minimalloc/README.md; D's and J's are open): the solve
  // `hmo pack --algorithm tight` runs, from XLA's best fit, within its
  // default node budget, reaches it and proves it.
  const PackingInstance instance = ReadChallenging(GetParam());
  ASSERT_FALSE(instance.empty());
  absl::StatusOr<PackingResult> best_fit = PackBuffers(instance, "best-fit");
  ASSERT_TRUE(best_fit.ok()) << best_fit.status();
  const HeapPackingProblem problem = ToHeapPackingProblem(instance);
  TightPackingOptions options;
  options.node_budget = 1'000'000;
  TightPackingReport report;
  const std::vector<int64_t> offsets =
      SolveTightPacking(problem, best_fit->offsets, options, &report);
  EXPECT_TRUE(ValidatePacking(instance, offsets).ok());
  EXPECT_GT(best_fit->height, PackingLowerBound(instance));
  EXPECT_EQ(Height(instance, offsets), PackingLowerBound(instance)) << report.method;
  EXPECT_TRUE(report.proven_optimal);
}

INSTANTIATE_TEST_SUITE_P(MiniMalloc, ChallengingOptimumTest,
                         testing::Values("A", "B", "C", "E", "F", "G", "H", "I", "K"));

TEST(DecideTightPackingTest, DeterministicForGivenOptions) {
  const PackingInstance instance = ReadChallenging("B");
  ASSERT_FALSE(instance.empty());
  const HeapPackingProblem problem = ToHeapPackingProblem(instance);
  TightPackingOptions options;
  options.node_budget = 100'000;
  const TightPackingDecision first = DecideTightPacking(problem, kChallengingCapacity, options);
  const TightPackingDecision second = DecideTightPacking(problem, kChallengingCapacity, options);
  EXPECT_EQ(first.outcome, second.outcome);
  EXPECT_EQ(first.nodes, second.nodes);
  EXPECT_EQ(first.offsets, second.offsets);
}

TEST(DecideTightPackingTest, AbortsWhenTheNodeBudgetRunsOut) {
  const PackingInstance instance = ReadChallenging("E");
  ASSERT_FALSE(instance.empty());
  TightPackingOptions options;
  options.node_budget = 1000;
  const TightPackingDecision decision =
      DecideTightPacking(ToHeapPackingProblem(instance), kChallengingCapacity, options);
  EXPECT_EQ(decision.outcome, TightPackingOutcome::kAborted);
  EXPECT_EQ(decision.method, "node budget");
  EXPECT_EQ(decision.nodes, options.node_budget);
  EXPECT_TRUE(decision.offsets.empty());
}

TEST(DecideTightPackingTest, ProvesASmallInstanceInfeasible) {
  auto instance = ParseHeapCsv(kNeedsSix);
  ASSERT_TRUE(instance.ok()) << instance.status();
  const HeapPackingProblem problem = ToHeapPackingProblem(*instance);
  ASSERT_EQ(PackingLowerBound(*instance), 5);
  ASSERT_FALSE(FitsExhaustively(*instance, 5));
  ASSERT_TRUE(FitsExhaustively(*instance, 6));

  const TightPackingDecision at_bound = DecideTightPacking(problem, 5, {});
  EXPECT_EQ(at_bound.outcome, TightPackingOutcome::kInfeasible);
  EXPECT_EQ(at_bound.method, "branch-and-bound");
  EXPECT_TRUE(at_bound.offsets.empty());

  const TightPackingDecision below = DecideTightPacking(problem, 4, {});
  EXPECT_EQ(below.outcome, TightPackingOutcome::kInfeasible);
  EXPECT_EQ(below.method, "lower-bound");

  const TightPackingDecision above = DecideTightPacking(problem, 6, {});
  ASSERT_EQ(above.outcome, TightPackingOutcome::kFound);
  EXPECT_TRUE(ValidatePacking(*instance, above.offsets).ok());
  EXPECT_LE(Height(*instance, above.offsets), 6);
}

TEST(TightPackingBranchAndBoundTest, AgreesWithExhaustiveSearchOnRandomInstances) {
  // The pruning (canonical order, dominance, hatless blocks, section
  // inference) must never lose a placement. The branch and bound runs
  // alone (no greedy first), in every default preorder, at the lower bound
  // and one above it, where the hard cases are.
  std::mt19937_64 rng(20231);
  int decided = 0;
  for (int round = 0; round < 300; ++round) {
    PackingInstance instance;
    const int n = 5 + static_cast<int>(rng() % 5);
    for (int i = 0; i < n; ++i) {
      const int64_t lower = static_cast<int64_t>(rng() % 8);
      const int64_t upper = std::min<int64_t>(8, lower + 1 + static_cast<int64_t>(rng() % 4));
      const int64_t size = 1 + static_cast<int64_t>(rng() % 3);
      instance.push_back({"b" + std::to_string(i), lower, upper, size});
    }
    const int64_t bound = PackingLowerBound(instance);
    if (bound > 6) continue;
    const HeapPackingProblem problem = ToHeapPackingProblem(instance);
    TightPackingSweep sweep;
    ASSERT_TRUE(BuildTightPackingSweep(problem, 1'000'000, sweep));
    TightPackingBranchAndBound search(problem, sweep);
    for (int64_t capacity : {bound, bound + 1}) {
      const bool fits = FitsExhaustively(instance, capacity);
      for (const TightPackingPreorder& preorder : TightPackingDefaultPreorders()) {
        std::vector<int64_t> offsets;
        const TightPackingOutcome outcome =
            search.Decide(capacity, preorder, 100'000, std::nullopt, offsets);
        ASSERT_NE(outcome, TightPackingOutcome::kAborted) << "round " << round;
        EXPECT_EQ(outcome == TightPackingOutcome::kFound, fits)
            << "round " << round << ", capacity " << capacity;
        if (outcome == TightPackingOutcome::kFound) {
          EXPECT_TRUE(ValidatePacking(instance, offsets).ok()) << "round " << round;
          EXPECT_LE(Height(instance, offsets), capacity) << "round " << round;
        }
        ++decided;
      }
    }
  }
  EXPECT_GT(decided, 600);
}

}  // namespace
}  // namespace hmo
