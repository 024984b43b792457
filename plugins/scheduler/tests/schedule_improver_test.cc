// ScheduleImprover: its incremental move scores agree with recounting the
// whole profile, applied moves keep the profile exact, and improving never
// raises the peak; on XLA's documented weakness it finds the better order.

#include "core/schedule_improver.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "core/list_scheduler.h"
#include "test_modules.h"
#include "test_support.h"

namespace hmo::scheduler {
namespace {

using testing::kWeakness;

using testing::AnalyzedModule;
using testing::Names;

// (peak with baseline, steps at the peak) of `order`, counted from scratch.
PeakCount Recount(const MemoryModel& model, const std::vector<int>& order) {
  PeakCount result;
  for (int64_t bytes : model.Profile(order)) {
    result = Combine(result, PeakCount::Of(bytes + model.baseline_bytes()));
  }
  return result;
}

std::vector<int> Moved(std::vector<int> order, int x, int gap) {
  int i = static_cast<int>(std::find(order.begin(), order.end(), x) - order.begin());
  order.erase(order.begin() + i);
  order.insert(order.begin() + (gap > i ? gap - 1 : gap), x);
  return order;
}

TEST(ScheduleImprover, MoveScoresMatchARecount) {
  std::mt19937 rng(7);
  int checked = 0;
  for (int round = 0; round < 60; ++round) {
    SchedulingGraph graph = testing::RandomGraph(rng, 8 + round % 40);
    MemoryModel model(graph);
    std::vector<int> order = testing::RandomOrder(graph, rng);
    ScheduleImprover improver(model, order);
    for (int trial = 0; trial < 10; ++trial) {
      int x = static_cast<int>(rng() % graph.instruction_count());
      auto [first, last] = improver.MoveRange(x);
      const int i = static_cast<int>(
          std::find(improver.order().begin(), improver.order().end(), x) -
          improver.order().begin());
      for (int gap = first; gap <= last; ++gap) {
        if (gap == i || gap == i + 1) continue;
        std::vector<int> moved = Moved(improver.order(), x, gap);
        ASSERT_TRUE(graph.ValidateOrder(moved).ok());
        PeakCount expected = Recount(model, moved);
        PeakCount got = improver.EvaluateMove(x, gap);
        ASSERT_EQ(got.peak, expected.peak) << "round " << round << " x " << x << " gap " << gap;
        ASSERT_EQ(got.count, expected.count) << "round " << round << " x " << x << " gap " << gap;
        ++checked;
      }
      // Apply one of them and check the maintained profile.
      if (last - first >= 2) {
        int gap = first + static_cast<int>(rng() % (last - first + 1));
        if (gap != i && gap != i + 1) {
          std::vector<int> moved = Moved(improver.order(), x, gap);
          improver.ApplyMove(x, gap);
          ASSERT_EQ(improver.order(), moved);
          ASSERT_EQ(improver.profile(), model.Profile(moved)) << "round " << round;
        }
      }
    }
  }
  EXPECT_GT(checked, 1000);
}

TEST(ScheduleImprover, NeverRaisesThePeak) {
  std::mt19937 rng(11);
  int improved = 0;
  for (int round = 0; round < 80; ++round) {
    SchedulingGraph graph = testing::RandomGraph(rng, 10 + round);
    MemoryModel model(graph);
    std::vector<int> order = testing::RandomOrder(graph, rng);
    const int64_t before = model.Peak(order);
    ScheduleImprover improver(model, order);
    improver.Improve();
    ASSERT_TRUE(graph.ValidateOrder(improver.order()).ok());
    const int64_t after = model.Peak(improver.order());
    EXPECT_LE(after, before);
    EXPECT_EQ(improver.peak().peak, after);
    EXPECT_EQ(improver.profile(), model.Profile(improver.order()));
    improved += after < before;
  }
  // Random orders leave room: most rounds improve.
  EXPECT_GT(improved, 40);
}

TEST(ScheduleImprover, MovesAloneNeverRaiseThePeak) {
  std::mt19937 rng(5);
  ImproverOptions moves_only;
  moves_only.window = 0;
  for (int round = 0; round < 40; ++round) {
    SchedulingGraph graph = testing::RandomGraph(rng, 20 + round);
    MemoryModel model(graph);
    std::vector<int> order = testing::RandomOrder(graph, rng);
    ScheduleImprover improver(model, order);
    improver.Improve(moves_only);
    EXPECT_LE(model.Peak(improver.order()), model.Peak(order));
    EXPECT_EQ(improver.stats().windows, 0);
  }
}

TEST(ScheduleImprover, FixesTheListSchedulersWeakness) {
  absl::StatusOr<std::unique_ptr<AnalyzedModule>> m = AnalyzedModule::Parse(kWeakness);
  ASSERT_TRUE(m.ok()) << m.status();
  SchedulingGraph graph = (*m)->Graph();
  MemoryModel model(graph);
  std::vector<int> list = ListSchedule(graph);
  EXPECT_EQ(model.Peak(list), 48);
  // No single move helps: b must go early together with c.
  ImproverOptions moves_only;
  moves_only.window = 0;
  ScheduleImprover by_moves(model, list);
  by_moves.Improve(moves_only);
  EXPECT_EQ(by_moves.peak().peak, 48);
  // A window re-orders them together.
  ScheduleImprover improver(model, list);
  improver.Improve();
  EXPECT_EQ(improver.peak().peak, 40);
  EXPECT_GE(improver.stats().windows, 1);
  // The heap simulator agrees.
  std::vector<int> improved = improver.order();
  EXPECT_EQ((*m)->Peak((*m)->Schedule([&](const SchedulingGraph&) { return improved; })), 40);
}

}  // namespace
}  // namespace hmo::scheduler
