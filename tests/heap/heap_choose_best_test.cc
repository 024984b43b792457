// ChooseBestHeapAlgorithm, CreateHeapWithPackingSearch and
// HeapAlgorithmWithFallback.

#include "hmo/analysis/heap_choose_best.h"

#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "heap_test_util.h"
#include "hmo/analysis/heap_algorithm_with_fallback.h"
#include "hmo/analysis/heap_no_fragmentation_stats.h"

namespace hmo {
namespace {

using testing::ChunkOf;
using testing::EventScript;
using testing::RunValid;

// A heap algorithm that counts its events and reports a fixed answer.
class FixedHeap : public HeapAlgorithm<int> {
 public:
  FixedHeap(int64_t heap_size, int64_t* events, absl::Status status = absl::OkStatus())
      : heap_size_(heap_size), events_(events), status_(std::move(status)) {}
  void Alloc(const int&, int64_t) override { ++*events_; }
  void Free(const int&, int64_t) override { ++*events_; }
  void ShareWith(const int&, const int&, int64_t) override { ++*events_; }
  absl::StatusOr<Result> Finish() override {
    if (!status_.ok()) return status_;
    Result result;
    result.heap_size = heap_size_;
    result.heap_results.resize(1);
    result.heap_results[0].heap_size = heap_size_;
    return result;
  }

 private:
  int64_t heap_size_;
  int64_t* events_;
  absl::Status status_;
};

TEST(ChooseBestHeapAlgorithmTest, BroadcastsAndPicksTheFirstStrictlySmallest) {
  int64_t events[4] = {0, 0, 0, 0};
  std::vector<std::unique_ptr<HeapAlgorithm<int>>> candidates;
  for (int i = 0; i < 4; ++i) {
    const int64_t sizes[4] = {30, 20, 20, 25};
    candidates.push_back(std::make_unique<FixedHeap>(sizes[i], &events[i]));
  }
  ChooseBestHeapAlgorithm<int> best(std::move(candidates));
  best.Alloc(1, 8);
  best.ShareWith(2, 1, 8);
  best.Free(1, 8);
  auto result = best.Finish();
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->heap_size, 20);
  EXPECT_EQ(best.chosen_index(), 1);  // not 2: ties keep the first
  for (int64_t count : events) EXPECT_EQ(count, 3);
}

TEST(ChooseBestHeapAlgorithmTest, ErrorsAndNoCandidates) {
  int64_t events = 0;
  std::vector<std::unique_ptr<HeapAlgorithm<int>>> candidates;
  candidates.push_back(std::make_unique<FixedHeap>(10, &events));
  candidates.push_back(
      std::make_unique<FixedHeap>(5, &events, absl::InternalError("candidate failed")));
  ChooseBestHeapAlgorithm<int> best(std::move(candidates));
  EXPECT_EQ(best.Finish().status().code(), absl::StatusCode::kInternal);
  ChooseBestHeapAlgorithm<int> none({});
  EXPECT_EQ(none.Finish().status().code(), absl::StatusCode::kInvalidArgument);
}

// b(1) 12 [0,2]; a(2) 10 [1,7]; c(3) 12 [3,4]; d(4) 11 [5,6].
// kSpatial places b, c, d first: b -> 0, c -> 0 (after b ends), d -> 0;
// a overlaps all three and goes to 12: height 22.
// kTemporal places the long a first (0) and b, c, d above it at 10: 22.
// 22 bytes are live at once (a + b), so no candidate does better and the
// first one's placement is returned.
TEST(CreateHeapWithPackingSearchTest, SixCandidatesKeepTheFirstOnTies) {
  EventScript events;
  events.Alloc(1, 12).Alloc(2, 10).Free(1, 12).Alloc(3, 12).Free(3, 12);
  events.Alloc(4, 11).Free(4, 11).Free(2, 10);
  auto search = CreateHeapWithPackingSearch<int>(1);
  const auto result = RunValid(*search, events.log());
  EXPECT_EQ(result.heap_size, 22);
  // The first candidate (best fit, kSpatial) wins the tie.
  EXPECT_EQ(ChunkOf(result, 2), HeapChunk::FromOffsetSize(12, 10));
  EXPECT_EQ(ChunkOf(result, 1), HeapChunk::FromOffsetSize(0, 12));
}

// p(2) 40 [0,2]; q(3) 30 [1,6]; r(0) 30 [3,5]; s(1) 20 [4,7].
// kSpatial: p -> 0; q (30, the longer of the two 30s) overlaps p -> 40;
// r overlaps only q -> [0,40) fits -> 0; s overlaps r [0,30) and q [40,70):
// the 10-byte hole is too small -> 70. Height 90.
// kTemporal (live range, then size): q [1,6], s [4,7], p, r.
// q -> 0; s -> 30; p overlaps q only -> 30; r overlaps q and s -> 50.
// Height 80 = the 80 bytes live at steps 4-5 (q + r + s).
TEST(CreateHeapWithPackingSearchTest, LaterCandidateWinsWhenStrictlySmaller) {
  EventScript events;
  events.Alloc(2, 40).Alloc(3, 30).Free(2, 40).Alloc(0, 30).Alloc(1, 20);
  events.Free(0, 30).Free(3, 30).Free(1, 20);
  GlobalDecreasingSizeBestFitHeap<int> spatial(1);
  EXPECT_EQ(RunValid(spatial, events.log()).heap_size, 90);
  auto search = CreateHeapWithPackingSearch<int>(1);
  const auto result = RunValid(*search, events.log());
  EXPECT_EQ(result.heap_size, 80);
  EXPECT_EQ(static_cast<ChooseBestHeapAlgorithm<int>&>(*search).chosen_index(), 1);
  EXPECT_EQ(ChunkOf(result, 3), HeapChunk::FromOffsetSize(0, 30));
  EXPECT_EQ(ChunkOf(result, 1), HeapChunk::FromOffsetSize(30, 20));
  EXPECT_EQ(ChunkOf(result, 2), HeapChunk::FromOffsetSize(30, 40));
  EXPECT_EQ(ChunkOf(result, 0), HeapChunk::FromOffsetSize(50, 30));
}

TEST(CreateHeapWithPackingSearchTest, NeverWorseThanSpatialBestFit) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 30; ++trial) {
    const auto events = testing::RandomCsvEvents(rng, 40, 30, 100);
    GlobalDecreasingSizeBestFitHeap<int32_t> spatial(8);
    events.Replay(spatial);
    auto search = CreateHeapWithPackingSearch<int32_t>(8);
    events.Replay(*search);
    auto a = spatial.Finish();
    auto b = search->Finish();
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_LE(b->heap_size, a->heap_size);
    EXPECT_TRUE(ValidateHeapSimulatorResult(events, *b, 8).ok());
  }
}

TEST(HeapAlgorithmWithFallbackTest, ResourceExhaustedReplaysIntoTheFallback) {
  int64_t events = 0;
  HeapAlgorithmWithFallback<int> heap(
      std::make_unique<FixedHeap>(0, &events, absl::ResourceExhaustedError("too big")),
      [] { return std::make_unique<GlobalDecreasingSizeBestFitHeap<int>>(1); },
      /*memory_limit=*/0);
  EventScript script;
  script.Alloc(1, 10).Alloc(2, 20).Free(1, 10).Free(2, 20);
  const auto result = RunValid(heap, script.log());
  EXPECT_TRUE(heap.used_fallback());
  EXPECT_EQ(result.heap_size, 30);
  EXPECT_EQ(ChunkOf(result, 2), HeapChunk::FromOffsetSize(0, 20));
}

TEST(HeapAlgorithmWithFallbackTest, OverTheLimitFallsBackOtherwiseNot) {
  EventScript script;
  script.Alloc(1, 10).Alloc(2, 20).Free(1, 10).Free(2, 20);
  auto fallback = [] { return std::make_unique<NoFragmentationStatsHeap<int>>(); };
  {
    HeapAlgorithmWithFallback<int> heap(std::make_unique<GlobalDecreasingSizeBestFitHeap<int>>(1),
                                        fallback, /*memory_limit=*/25);
    script.log().Replay(heap);
    auto result = heap.Finish();
    ASSERT_TRUE(result.ok());
    EXPECT_TRUE(heap.used_fallback());
    EXPECT_TRUE(result->heap_results.empty());  // the stats heap's answer
  }
  {
    HeapAlgorithmWithFallback<int> heap(std::make_unique<GlobalDecreasingSizeBestFitHeap<int>>(1),
                                        fallback, /*memory_limit=*/30);
    const auto result = RunValid(heap, script.log());
    EXPECT_FALSE(heap.used_fallback());
    EXPECT_EQ(result.heap_size, 30);
  }
}

}  // namespace
}  // namespace hmo
