// The tight packer's progress reports (TightPackingOptions::progress): the
// branch and bound's nodes of the node budget, never going back, with the
// best height against the lower bound (or the capacity being decided), the
// task ended once; nothing when the search does not run; and the same
// result as without a sink.

#include <string>
#include <string_view>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hmo/analysis/buffer_packing_csv.h"
#include "hmo/analysis/tight_packing_branch_and_bound.h"
#include "hmo/analysis/tight_packing_solver.h"
#include "hmo/base/progress_sink.h"
#include "support/recording_progress.h"

namespace hmo {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kChallengingCapacity = 1048576;

// MiniMalloc's challenging instances (bench/minimalloc/data/README.md gives
// their origin and license).
PackingInstance ReadChallenging(const std::string& letter) {
  auto instance = ReadHeapCsvFile(std::string(HMO_SOURCE_DIR) +
                                  "/bench/minimalloc/data/challenging/" + letter + ".1048576.csv");
  EXPECT_TRUE(instance.ok()) << instance.status();
  return instance.ok() ? *instance : PackingInstance{};
}

using test_support::RecordingProgress;

// Every update is the tight search's, within the budget, counting up.
void ExpectCountsUp(const RecordingProgress& progress, int64_t budget) {
  int64_t last = 0;
  for (const auto& update : progress.updates) {
    EXPECT_EQ(update.task, "tight search");
    EXPECT_EQ(update.total, budget);
    EXPECT_GE(update.done, last) << update.detail;
    EXPECT_GT(update.done, 0);
    EXPECT_LE(update.done, budget);
    last = update.done;
  }
}

TEST(TightPackingProgressTest, SolveReportsNodesAndTheBestHeight) {
  const PackingInstance instance = ReadChallenging("E");
  ASSERT_FALSE(instance.empty());
  absl::StatusOr<PackingResult> best_fit = PackBuffers(instance, "best-fit");
  ASSERT_TRUE(best_fit.ok()) << best_fit.status();
  const HeapPackingProblem problem = ToHeapPackingProblem(instance);
  TightPackingOptions options;
  options.node_budget = 20'000;
  options.repair_attempts = 0;
  TightPackingReport quiet_report;
  const std::vector<int64_t> quiet =
      SolveTightPacking(problem, best_fit->offsets, options, &quiet_report);
  ASSERT_GT(quiet_report.nodes, 4 * TightPackingBranchAndBound::kProgressNodes);

  RecordingProgress progress;
  options.progress = &progress;
  TightPackingReport report;
  const std::vector<int64_t> offsets =
      SolveTightPacking(problem, best_fit->offsets, options, &report);
  // Watching changes nothing.
  EXPECT_EQ(offsets, quiet);
  EXPECT_EQ(report.nodes, quiet_report.nodes);
  EXPECT_EQ(report.height, quiet_report.height);

  ASSERT_GE(progress.updates.size(), 4u);
  ExpectCountsUp(progress, options.node_budget);
  EXPECT_LE(progress.updates.back().done, report.nodes);
  const std::string bound = std::to_string(PackingLowerBound(instance));
  for (const auto& update : progress.updates) {
    EXPECT_THAT(update.detail, HasSubstr("best height "));
    EXPECT_THAT(update.detail, HasSubstr(" against the lower bound " + bound + " (+"));
  }
  // The best height named is never above the starting placement's, and the
  // last is at least the final one.
  EXPECT_THAT(progress.updates.front().detail,
              testing::ContainsRegex("best height [0-9]+ against"));
  EXPECT_EQ(progress.done_calls, 1);
}

TEST(TightPackingProgressTest, DecisionReportsTheCapacity) {
  const PackingInstance instance = ReadChallenging("E");
  ASSERT_FALSE(instance.empty());
  TightPackingOptions options;
  options.node_budget = 5'000;
  RecordingProgress progress;
  options.progress = &progress;
  const TightPackingDecision decision =
      DecideTightPacking(ToHeapPackingProblem(instance), kChallengingCapacity, options);
  EXPECT_EQ(decision.outcome, TightPackingOutcome::kAborted);
  EXPECT_EQ(decision.nodes, options.node_budget);
  ASSERT_GE(progress.updates.size(), 4u);
  ExpectCountsUp(progress, options.node_budget);
  EXPECT_THAT(progress.updates.back().detail,
              HasSubstr("deciding capacity 1048576 (lower bound " +
                        std::to_string(PackingLowerBound(instance)) + ")"));
  EXPECT_EQ(progress.done_calls, 1);
}

TEST(TightPackingProgressTest, NothingWhenTheSearchDoesNotRun) {
  // Three buffers that best fit already packs at the lower bound.
  auto instance = ParseHeapCsv(
      "id,lower,upper,size\n"
      "a,0,2,4\n"
      "b,1,3,2\n"
      "c,2,4,4\n");
  ASSERT_TRUE(instance.ok()) << instance.status();
  absl::StatusOr<PackingResult> best_fit = PackBuffers(*instance, "best-fit");
  ASSERT_TRUE(best_fit.ok()) << best_fit.status();
  RecordingProgress progress;
  TightPackingOptions options;
  options.progress = &progress;
  SolveTightPacking(ToHeapPackingProblem(*instance), best_fit->offsets, options, nullptr);
  DecideTightPacking(ToHeapPackingProblem(*instance), 100, options);
  EXPECT_TRUE(progress.updates.empty());
  EXPECT_EQ(progress.done_calls, 0);
}

}  // namespace
}  // namespace hmo
