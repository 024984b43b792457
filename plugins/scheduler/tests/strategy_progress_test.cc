// The exact and local-search strategies report their searches through the
// C ABI's progress callback (HmoScheduleRequest.report_progress, ABI 1.2)
// when the host listens: loaded as plugins, run by the host adapter with a
// recording ProgressSink, their reports count up against the budget, name
// the best peak so far, and end with the strategy; and the orders are those
// of a run nobody watches.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/module_views.h"
#include "fmt/format.h"
#include "hmo/base/progress_sink.h"
#include "hmo/plugin/plugin_host.h"
#include "hmo/strategy_host/scheduler_strategy_adapter.h"
#include "module_families.h"
#include "test_support.h"
#include "support/recording_progress.h"

namespace hmo {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;

using test_support::RecordingProgress;

struct StrategyRun {
  std::vector<std::vector<std::string>> orders;  // per computation, names
  RecordingProgress progress;
  int computations = 0;
};

// Schedules every computation of `text` with `strategy` (a plugin of this
// build), through the host adapter, as the memory-scheduler pass does.
void ScheduleWith(std::string_view text, const std::string& strategy,
                  const StrategyOptions& options, bool watch, StrategyRun& run) {
  PluginHost host;
  const std::filesystem::path file =
      std::filesystem::path(HMO_TEST_PLUGIN_DIR) / fmt::format("libhmo_{}_strategy.so", strategy);
  ASSERT_TRUE(host.LoadPlugin(file).ok()) << file;
  absl::StatusOr<std::unique_ptr<scheduler::testing::AnalyzedModule>> module =
      scheduler::testing::AnalyzedModule::Parse(text);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::vector<scheduler::ComputationView>> views =
      scheduler::BuildModuleViews((*module)->module(), (*module)->inputs());
  ASSERT_TRUE(views.ok()) << views.status();
  const std::string name = strategy == "local_search" ? "local-search" : strategy;
  for (const auto& [computation, view] : *views) {
    absl::StatusOr<std::vector<HloInstruction*>> sequence =
        ScheduleViewWithStrategy(*host.registries().strategies.Find(name), *view, *computation,
                                 options, watch ? &run.progress : nullptr);
    ASSERT_TRUE(sequence.ok()) << sequence.status();
    std::vector<std::string> order;
    for (const HloInstruction* instruction : *sequence) order.push_back(instruction->name());
    run.orders.push_back(std::move(order));
    ++run.computations;
  }
}

// Reports of one strategy's task: counting up within the total, naming the
// search and the best peak; the best peak never rises.
void ExpectReportsCountUp(const RecordingProgress& progress, std::string_view strategy) {
  ASSERT_FALSE(progress.updates.empty());
  int64_t last_done = 0;
  int64_t last_peak = INT64_MAX;
  std::string last_task;
  for (const auto& update : progress.updates) {
    EXPECT_THAT(update.task, HasSubstr(std::string(strategy) + " scheduling "));
    if (update.task != last_task) {
      last_done = 0;
      last_peak = INT64_MAX;
      last_task = update.task;
    }
    EXPECT_GE(update.done, last_done);
    EXPECT_GT(update.total, 0);
    EXPECT_LE(update.done, update.total);
    EXPECT_THAT(update.detail, MatchesRegex("(local|exact) search, best peak [0-9]+ B"));
    const int64_t peak = std::stoll(update.detail.substr(update.detail.find("peak ") + 5));
    EXPECT_LE(peak, last_peak) << update.detail;
    last_done = update.done;
    last_peak = peak;
  }
}

TEST(StrategyProgressTest, LocalSearchReportsEvaluationsAndTheBestPeak) {
  const std::string text = bench::MlpTrainStep(4, 8, 32);
  const StrategyOptions options = {{"exact-instructions", "0"}};
  StrategyRun watched, quiet;
  ScheduleWith(text, "local_search", options, /*watch=*/true, watched);
  ScheduleWith(text, "local_search", options, /*watch=*/false, quiet);
  EXPECT_EQ(watched.orders, quiet.orders);
  ExpectReportsCountUp(watched.progress, "local-search");
  for (const auto& update : watched.progress.updates) {
    EXPECT_EQ(update.total, 20'000'000);  // the default max-evaluations
    EXPECT_THAT(update.detail, HasSubstr("local search"));
  }
  EXPECT_GE(watched.progress.done_calls, 1);
  EXPECT_LE(watched.progress.done_calls, watched.computations);
}

TEST(StrategyProgressTest, ExactReportsStatesAfterTheLocalSearch) {
  // Six branches whose order decides the peak: the branch and bound spends
  // its whole budget.
  const std::string text = bench::WideFanOut(6, 3);
  const StrategyOptions options = {{"max-instructions", "256"}, {"max-states", "20000"}};
  StrategyRun watched, quiet;
  ScheduleWith(text, "exact", options, /*watch=*/true, watched);
  ScheduleWith(text, "exact", options, /*watch=*/false, quiet);
  EXPECT_EQ(watched.orders, quiet.orders);
  ExpectReportsCountUp(watched.progress, "exact");
  bool exact_search = false;
  for (const auto& update : watched.progress.updates) {
    EXPECT_EQ(update.total, 20'000'000 + 20'000);  // max-evaluations + max-states
    if (update.detail.rfind("exact search", 0) == 0) {
      exact_search = true;
      EXPECT_GT(update.done, 20'000'000);
    }
  }
  EXPECT_TRUE(exact_search);
  EXPECT_GE(watched.progress.done_calls, 1);
}

}  // namespace
}  // namespace hmo
