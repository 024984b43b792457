// ConstrainedGlobalDecreasingSizeBestFitHeap: several heaps under a soft
// size limit. Golden numbers worked by hand.

#include "hmo/analysis/best_fit_constrained_heap.h"

#include <limits>

#include "gtest/gtest.h"
#include "heap_test_util.h"

namespace hmo {
namespace {

using testing::ChunkOf;
using testing::EventScript;
using testing::RunValid;

HeapChunk Chunk(int64_t offset, int64_t size) { return HeapChunk::FromOffsetSize(offset, size); }

// a(1) 30 [0,3], b(2) 25 [1,4], c(3) 20 [2,5]: all live at step 2.
EventScript ThreeOverlapping() {
  EventScript events;
  events.Alloc(1, 30).Alloc(2, 25).Alloc(3, 20).Free(1, 30).Free(2, 25).Free(3, 20);
  return events;
}

TEST(ConstrainedHeapTest, SplitsIntoHeapsUnderTheLimit) {
  // Heap 0: a -> 0; b -> 30 would end at 55 > 50, left for later; c -> 30
  // ends at 50. Heap 1: b -> 0.
  ConstrainedGlobalDecreasingSizeBestFitHeap<int> heap(50, 1);
  const auto result = RunValid(heap, ThreeOverlapping().log());
  ASSERT_EQ(result.heap_results.size(), 2u);
  EXPECT_EQ(result.heap_size, 75);
  EXPECT_EQ(result.heap_results[0].heap_size, 50);
  EXPECT_EQ(ChunkOf(result, 1, 0), Chunk(0, 30));
  EXPECT_EQ(ChunkOf(result, 3, 0), Chunk(30, 20));
  EXPECT_EQ(ChunkOf(result, 2, 1), Chunk(0, 25));
}

TEST(ConstrainedHeapTest, OversizeBufferGetsAHeapOfItsOwn) {
  // Limit 20: a (30) and b (25) exceed it but start empty heaps; c fits
  // alone in a third.
  ConstrainedGlobalDecreasingSizeBestFitHeap<int> heap(20, 1);
  const auto result = RunValid(heap, ThreeOverlapping().log());
  ASSERT_EQ(result.heap_results.size(), 3u);
  EXPECT_EQ(result.heap_size, 75);
  EXPECT_EQ(ChunkOf(result, 1, 0), Chunk(0, 30));
  EXPECT_EQ(ChunkOf(result, 2, 1), Chunk(0, 25));
  EXPECT_EQ(ChunkOf(result, 3, 2), Chunk(0, 20));
}

TEST(ConstrainedHeapTest, UnlimitedIsOneHeapLikeBestFit) {
  ConstrainedGlobalDecreasingSizeBestFitHeap<int> heap(std::numeric_limits<uint64_t>::max(), 1);
  const auto result = RunValid(heap, ThreeOverlapping().log());
  ASSERT_EQ(result.heap_results.size(), 1u);
  EXPECT_EQ(result.heap_size, 75);
  EXPECT_EQ(ChunkOf(result, 2), Chunk(30, 25));
  EXPECT_EQ(ChunkOf(result, 3), Chunk(55, 20));
}

TEST(ConstrainedHeapTest, EmptyInputStillHasOneHeap) {
  ConstrainedGlobalDecreasingSizeBestFitHeap<int> heap(10, 1);
  const auto result = RunValid(heap, EventScript().log());
  EXPECT_EQ(result.heap_results.size(), 1u);
  EXPECT_EQ(result.heap_size, 0);
}

// a(1) 30 [0,1]; b(2) 20 [2,5]; c(3) shares a with size 40, [3,4].
EventScript SharedGroup() {
  EventScript events;
  events.Alloc(1, 30).Free(1, 30).Alloc(2, 20).ShareWith(3, 1, 40).Free(3, 40).Free(2, 20);
  return events;
}

TEST(ConstrainedHeapTest, ColocatedGroupStaysInOneHeap) {
  // Limit 40: group {a, c} -> (0, 40) in heap 0; b overlaps c, would go to
  // 40 and end at 60: heap 1.
  ConstrainedGlobalDecreasingSizeBestFitHeap<int> heap(40, 1);
  const auto result = RunValid(heap, SharedGroup().log());
  ASSERT_EQ(result.heap_results.size(), 2u);
  EXPECT_EQ(ChunkOf(result, 1, 0), Chunk(0, 40));
  EXPECT_EQ(ChunkOf(result, 3, 0), Chunk(0, 40));
  EXPECT_EQ(ChunkOf(result, 2, 1), Chunk(0, 20));
  EXPECT_EQ(result.heap_size, 60);
}

TEST(ConstrainedHeapTest, LimitIsCheckedOnTheBuffersOwnSize) {
  // As in XLA, the limit test uses the candidate chunk of the buffer itself
  // (a: 30 bytes, within 35) although the group's chunk is 40 bytes.
  ConstrainedGlobalDecreasingSizeBestFitHeap<int> heap(35, 1);
  const auto result = RunValid(heap, SharedGroup().log());
  ASSERT_EQ(result.heap_results.size(), 2u);
  EXPECT_EQ(result.heap_results[0].heap_size, 40);
  EXPECT_EQ(result.heap_size, 60);
}

// a(1) 30 [0,3], b(2) 10 [1,6], c(3) 20 [2,7], d(4) 8 [4,5].
EventScript SweepScenario() {
  EventScript events;
  events.Alloc(1, 30).Alloc(2, 10).Alloc(3, 20).Free(1, 30).Alloc(4, 8);
  events.Free(4, 8).Free(2, 10).Free(3, 20);
  return events;
}

TEST(ConstrainedHeapTest, FastMergeSweepsByStartTime) {
  // In start order: a -> [0,30), b -> 30, c -> 40; before d (start 4) a has
  // ended (3 <= 4) and [0,30) is free again: the just-large-enough range for
  // 8 bytes -> 0.
  ConstrainedGlobalDecreasingSizeBestFitHeap<int> heap(std::numeric_limits<uint64_t>::max(), 1,
                                                       PackingStrategy::kFastMerge);
  const auto result = RunValid(heap, SweepScenario().log());
  ASSERT_EQ(result.heap_results.size(), 1u);
  EXPECT_EQ(result.heap_size, 60);
  EXPECT_EQ(ChunkOf(result, 1), Chunk(0, 30));
  EXPECT_EQ(ChunkOf(result, 2), Chunk(30, 10));
  EXPECT_EQ(ChunkOf(result, 3), Chunk(40, 20));
  EXPECT_EQ(ChunkOf(result, 4), Chunk(0, 8));
}

TEST(ConstrainedHeapTest, FastMergeWithLimit) {
  // Limit 50: c -> 40 would end at 60: heap 1.
  ConstrainedGlobalDecreasingSizeBestFitHeap<int> heap(50, 1, PackingStrategy::kFastMerge);
  const auto result = RunValid(heap, SweepScenario().log());
  ASSERT_EQ(result.heap_results.size(), 2u);
  EXPECT_EQ(ChunkOf(result, 4, 0), Chunk(0, 8));
  EXPECT_EQ(ChunkOf(result, 3, 1), Chunk(0, 20));
  EXPECT_EQ(result.heap_size, 40 + 20);
}

TEST(ConstrainedHeapTest, FastSplitOfFewBuffersIsTheIntervalTreePass) {
  // Under 500 buffers everything takes the interval-tree pass in kSpatial
  // order: a 0, c 30 (overlaps a), b 50, d: gap [0,30) -> 0.
  ConstrainedGlobalDecreasingSizeBestFitHeap<int> heap(std::numeric_limits<uint64_t>::max(), 1,
                                                       PackingStrategy::kFastSplit);
  const auto result = RunValid(heap, SweepScenario().log());
  EXPECT_EQ(ChunkOf(result, 1), Chunk(0, 30));
  EXPECT_EQ(ChunkOf(result, 3), Chunk(30, 20));
  EXPECT_EQ(ChunkOf(result, 2), Chunk(50, 10));
  EXPECT_EQ(ChunkOf(result, 4), Chunk(0, 8));
  EXPECT_EQ(result.heap_size, 60);
}

TEST(ConstrainedHeapTest, FastSplitManyBuffersIsValid) {
  // Over 500 buffers: the tail is swept by start time above the first pass.
  std::mt19937_64 rng(7);
  const auto events = testing::RandomCsvEvents(rng, 800, 400, 64);
  ConstrainedGlobalDecreasingSizeBestFitHeap<int32_t> heap(std::numeric_limits<uint64_t>::max(),
                                                           4, PackingStrategy::kFastSplit);
  events.Replay(heap);
  auto result = heap.Finish();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(ValidateHeapSimulatorResult(events, *result, 4).ok());
}

}  // namespace
}  // namespace hmo
