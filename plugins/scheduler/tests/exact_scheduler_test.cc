// ExactScheduler: the optimum of small graphs, checked against brute force
// over every order; and the same cost model as MemoryModel.

#include "core/exact_scheduler.h"

#include <gtest/gtest.h>

#include <random>

#include "core/list_scheduler.h"
#include "core/schedule_improver.h"
#include "test_support.h"

namespace hmo::scheduler {
namespace {

TEST(ExactScheduler, CostModelMatchesMemoryModel) {
  std::mt19937 rng(3);
  for (int round = 0; round < 100; ++round) {
    SchedulingGraph graph = testing::RandomGraph(rng, 5 + round % 30);
    MemoryModel model(graph);
    ExactProblem problem = MakeComputationProblem(model);
    std::vector<int> order = testing::RandomOrder(graph, rng);
    EXPECT_EQ(problem.Peak(order), model.Peak(order)) << "round " << round;
  }
}

TEST(ExactScheduler, FindsTheBruteForceOptimum) {
  std::mt19937 rng(17);
  int beat_list = 0;
  for (int round = 0; round < 150; ++round) {
    SchedulingGraph graph = testing::RandomGraph(rng, 3 + round % 7);
    MemoryModel model(graph);
    const int64_t optimum = testing::BruteForcePeak(model);
    std::vector<int> list = ListSchedule(graph);
    ExactResult result = SolveExact(MakeComputationProblem(model), list);
    ASSERT_TRUE(result.optimal);
    ASSERT_TRUE(graph.ValidateOrder(result.order).ok());
    EXPECT_EQ(result.peak, optimum) << "round " << round;
    EXPECT_EQ(model.Peak(result.order), optimum) << "round " << round;
    beat_list += optimum < model.Peak(list);
  }
  // The list scheduler is not optimal on a fair share of these.
  EXPECT_GT(beat_list, 5);
}

TEST(ExactScheduler, ImproverReachesTheOptimumOnSmallGraphs) {
  std::mt19937 rng(23);
  int at_optimum = 0;
  const int rounds = 100;
  for (int round = 0; round < rounds; ++round) {
    SchedulingGraph graph = testing::RandomGraph(rng, 4 + round % 6);
    MemoryModel model(graph);
    const int64_t optimum = testing::BruteForcePeak(model);
    const int64_t improved = model.Peak(ImprovedSchedule(model));
    EXPECT_GE(improved, optimum);
    at_optimum += improved == optimum;
  }
  // Windows of 20 steps cover these graphs whole.
  EXPECT_EQ(at_optimum, rounds);
}

TEST(ExactScheduler, GivesUpWithinItsBudget) {
  std::mt19937 rng(29);
  SchedulingGraph graph = testing::RandomGraph(rng, 120);
  MemoryModel model(graph);
  std::vector<int> order = testing::RandomOrder(graph, rng);
  ExactOptions options;
  options.max_states = 50;
  ExactResult result = SolveExact(MakeComputationProblem(model), order, options);
  EXPECT_LE(result.states, 51);
  EXPECT_TRUE(graph.ValidateOrder(result.order).ok());
  EXPECT_LE(result.peak, model.Peak(order));
}

}  // namespace
}  // namespace hmo::scheduler
