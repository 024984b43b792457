// TightPackingHeap and its parts: never worse than XLA's best fit, valid
// everywhere, and at the lower bound where the lower bound is reachable.

#include "hmo/analysis/tight_packing_heap.h"

#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "heap_test_util.h"
#include "hmo/analysis/heap_packing_csv.h"
#include "hmo/analysis/tight_packing_branch_and_bound.h"
#include "hmo/analysis/tight_packing_repair.h"
#include "hmo/analysis/tight_packing_sweep.h"

namespace hmo {
namespace {

// Cuts the rectangle [0, height) x [0, horizon) (bytes x time) into
// `pieces` rectangles by random guillotine cuts. Every time step is covered
// by exactly `height` bytes, so the lower bound is `height` and the cut
// itself reaches it.
std::vector<HeapCsvBuffer> TiledInstance(std::mt19937_64& rng, int64_t height, int64_t horizon,
                                         int pieces) {
  struct Rect {
    int64_t x0, x1, t0, t1;
  };
  std::vector<Rect> rects = {{0, height, 0, horizon}};
  while (static_cast<int>(rects.size()) < pieces) {
    const size_t i = rng() % rects.size();
    const Rect r = rects[i];
    const bool cut_time = rng() % 2 == 0;
    if (cut_time && r.t1 - r.t0 >= 2) {
      const int64_t t = r.t0 + 1 + static_cast<int64_t>(rng() % (r.t1 - r.t0 - 1));
      rects[i] = {r.x0, r.x1, r.t0, t};
      rects.push_back({r.x0, r.x1, t, r.t1});
    } else if (!cut_time && r.x1 - r.x0 >= 2) {
      const int64_t x = r.x0 + 1 + static_cast<int64_t>(rng() % (r.x1 - r.x0 - 1));
      rects[i] = {r.x0, x, r.t0, r.t1};
      rects.push_back({x, r.x1, r.t0, r.t1});
    }
  }
  std::vector<HeapCsvBuffer> buffers;
  for (const Rect& r : rects) buffers.push_back({"r", r.t0, r.t1, r.x1 - r.x0});
  std::shuffle(buffers.begin(), buffers.end(), rng);
  return buffers;
}

HeapSimulatorResult<int32_t> RunAndCheck(HeapAlgorithm<int32_t>& heap, const HeapEventLog<int32_t>& events,
                                 int64_t alignment = 1) {
  events.Replay(heap);
  auto result = heap.Finish();
  EXPECT_TRUE(result.ok()) << result.status();
  if (!result.ok()) return {};
  const absl::Status valid = ValidateHeapSimulatorResult(events, *result, alignment);
  EXPECT_TRUE(valid.ok()) << valid;
  return *result;
}

int64_t BestFitHeight(const HeapEventLog<int32_t>& events, int64_t alignment = 1) {
  GlobalDecreasingSizeBestFitHeap<int32_t> best_fit(alignment);
  return RunAndCheck(best_fit, events, alignment).heap_size;
}

TEST(TightPackingHeapTest, ReachesTheLowerBoundOnTiledInstances) {
  std::mt19937_64 rng(2024);
  for (int trial = 0; trial < 12; ++trial) {
    const int64_t height = 64 + static_cast<int64_t>(rng() % 200);
    const auto events = HeapEventsFromCsvBuffers(TiledInstance(rng, height, 40, 30));
    TightPackingHeap<int32_t> tight(1);
    const auto result = RunAndCheck(tight, events);
    EXPECT_EQ(tight.report().lower_bound, height);
    EXPECT_EQ(result.heap_size, height) << "trial " << trial << " method "
                                        << tight.report().method;
    EXPECT_LE(result.heap_size, BestFitHeight(events));
  }
}

TEST(TightPackingHeapTest, NeverWorseThanBestFitWithColocationsAndAlignment) {
  std::mt19937_64 rng(77);
  for (int trial = 0; trial < 40; ++trial) {
    const int64_t alignment = trial % 3 == 0 ? 8 : (trial % 3 == 1 ? 1 : 12);
    // A random event stream with in-place shares and size-0 buffers.
    HeapEventLog<int32_t> events;
    std::vector<std::pair<int32_t, int64_t>> live;
    int32_t next = 0;
    for (int step = 0; step < 80; ++step) {
      const int op = static_cast<int>(rng() % 10);
      if (op < 4 || live.empty()) {
        const int64_t size = rng() % 9 == 0 ? 0 : 1 + static_cast<int64_t>(rng() % 100);
        events.Alloc(next, size);
        live.emplace_back(next++, size);
      } else if (op < 5) {
        // Free a buffer and let a new one take its place (in-place reuse).
        const size_t i = rng() % live.size();
        const auto [freed, size] = live[i];
        if (size == 0) continue;
        events.Free(freed, size);
        const int64_t shared_size = std::max<int64_t>(size, 1 + static_cast<int64_t>(rng() % 100));
        events.ShareWith(next, freed, shared_size);
        live[i] = {next++, shared_size};
      } else {
        const size_t i = rng() % live.size();
        events.Free(live[i].first, live[i].second);
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
    TightPackingOptions options;
    options.node_budget = 5'000;
    TightPackingHeap<int32_t> tight(alignment, options);
    const auto result = RunAndCheck(tight, events, alignment);
    const int64_t best_fit = BestFitHeight(events, alignment);
    EXPECT_LE(result.heap_size, best_fit) << "trial " << trial;
    EXPECT_GE(result.heap_size, tight.report().lower_bound);
  }
}

TEST(TightPackingHeapTest, RandomInstancesBeatOrMatchBestFit) {
  std::mt19937_64 rng(13);
  int strictly_better = 0;
  for (int trial = 0; trial < 30; ++trial) {
    const auto events = testing::RandomCsvEvents(rng, 60, 50, 1000);
    TightPackingHeap<int32_t> tight(1);
    const auto result = RunAndCheck(tight, events);
    const int64_t best_fit = BestFitHeight(events);
    EXPECT_LE(result.heap_size, best_fit);
    strictly_better += result.heap_size < best_fit ? 1 : 0;
  }
  EXPECT_GT(strictly_better, 0);
}

TEST(TightPackingHeapTest, DeterministicForGivenOptions) {
  std::mt19937_64 rng(99);
  const auto events = testing::RandomCsvEvents(rng, 120, 80, 500);
  TightPackingOptions options;
  options.node_budget = 20'000;
  TightPackingHeap<int32_t> first(4, options);
  TightPackingHeap<int32_t> second(4, options);
  const auto a = RunAndCheck(first, events, 4);
  const auto b = RunAndCheck(second, events, 4);
  EXPECT_EQ(a.heap_size, b.heap_size);
  EXPECT_EQ(a.heap_results[0].chunk_map, b.heap_results[0].chunk_map);
}

TEST(TightPackingHeapTest, WithoutSearchBudgetStillValid) {
  std::mt19937_64 rng(5);
  const auto events = testing::RandomCsvEvents(rng, 100, 60, 300);
  TightPackingOptions options;
  options.node_budget = 0;
  options.repair_attempts = 0;
  TightPackingHeap<int32_t> tight(1, options);
  const auto result = RunAndCheck(tight, events);
  EXPECT_LE(result.heap_size, BestFitHeight(events));
  EXPECT_EQ(tight.report().nodes, 0);
}

std::string DataFile(const std::string& name) {
  return std::string(HMO_SOURCE_DIR) + "/bench/minimalloc/data/" + name;
}

TEST(TightPackingHeapTest, MiniMallocExampleFitsItsCapacity) {
  auto buffers = ReadHeapCsvFile(DataFile("examples/input.12.csv"));
  ASSERT_TRUE(buffers.ok()) << buffers.status();
  TightPackingHeap<int32_t> tight(1);
  EXPECT_EQ(RunAndCheck(tight, HeapEventsFromCsvBuffers(*buffers)).heap_size, 12);
}

TEST(TightPackingHeapTest, MiniMallocChallengingAReachesItsOptimum) {
  // Best fit needs 1,374,208 bytes; the optimum is the lower bound 1,048,576.
  auto buffers = ReadHeapCsvFile(DataFile("challenging/A.1048576.csv"));
  ASSERT_TRUE(buffers.ok()) << buffers.status();
  const auto events = HeapEventsFromCsvBuffers(*buffers);
  EXPECT_EQ(BestFitHeight(events), 1374208);
  TightPackingHeap<int32_t> tight(1);
  const auto result = RunAndCheck(tight, events);
  EXPECT_EQ(result.heap_size, 1048576);
  EXPECT_TRUE(tight.report().proven_optimal);
}

TEST(TightPackingBranchAndBoundTest, DecidesFeasibility) {
  std::mt19937_64 rng(31);
  const auto buffers = TiledInstance(rng, 100, 20, 16);
  HeapPackingProblem problem;
  for (const auto& b : buffers) problem.blocks.push_back({b.size, {{b.lower, b.upper - 1}}});
  TightPackingSweep sweep;
  ASSERT_TRUE(BuildTightPackingSweep(problem, 1'000'000, sweep));
  TightPackingBranchAndBound search(problem, sweep);
  std::vector<int64_t> offsets;
  EXPECT_EQ(search.Decide(99, TightPackingPreorder::FromLetters("WAT"), 100'000, std::nullopt,
                          offsets),
            TightPackingOutcome::kInfeasible);
  ASSERT_EQ(search.Decide(100, TightPackingPreorder::FromLetters("TWA"), 100'000, std::nullopt,
                          offsets),
            TightPackingOutcome::kFound);
  EXPECT_TRUE(ValidateHeapPacking(problem, offsets).ok());
  EXPECT_LE(HeapPackingHeight(problem, offsets), 100);
  EXPECT_EQ(search.Decide(100, TightPackingPreorder::FromLetters("TWA"), 1, std::nullopt, offsets),
            TightPackingOutcome::kAborted);
}

TEST(RepairPeakTest, LowersTheTopBlockIntoAFreeGap) {
  // Two blocks that never overlap, stacked: the top one drops to 0.
  HeapPackingProblem problem;
  problem.blocks = {{10, {{0, 1}}}, {10, {{2, 3}}}, {4, {{0, 3}}}};
  std::vector<int64_t> offsets = {4, 14, 0};
  std::mt19937_64 rng(1);
  const PeakRepairResult repaired =
      RepairPeak(problem, HeapPackingLowerBound(problem), offsets, 100, rng, std::nullopt);
  EXPECT_EQ(repaired.height, 14);
  EXPECT_EQ(offsets[1], 4);
  EXPECT_TRUE(ValidateHeapPacking(problem, offsets).ok());
  EXPECT_GE(repaired.improvements, 1);
}

}  // namespace
}  // namespace hmo
