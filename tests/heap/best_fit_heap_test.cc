// GlobalDecreasingSizeBestFitHeap: golden offsets worked by hand, as XLA's
// heap_simulator_test does. Times are event counters: every Alloc, ShareWith
// and Free of a non-empty buffer takes the next step, lifetimes are inclusive.

#include "hmo/analysis/best_fit_heap.h"

#include <vector>

#include "gtest/gtest.h"
#include "heap_test_util.h"

namespace hmo {
namespace {

using testing::ChunkOf;
using testing::EventScript;
using testing::RunValid;

HeapChunk Chunk(int64_t offset, int64_t size) { return HeapChunk::FromOffsetSize(offset, size); }

TEST(GlobalDecreasingSizeBestFitHeapTest, EmptyHasOneEmptyHeap) {
  GlobalDecreasingSizeBestFitHeap<int> heap(1);
  const auto result = RunValid(heap, EventScript().log());
  EXPECT_EQ(result.heap_size, 0);
  ASSERT_EQ(result.heap_results.size(), 1u);
  EXPECT_TRUE(result.heap_results[0].chunk_map.empty());
}

TEST(GlobalDecreasingSizeBestFitHeapTest, AllOverlappingStackLargestFirst) {
  // a[0,4] 10, b[1,5] 30, c[2,6] 20, d[3,7] 40 are all live at step 3.
  // Order by size: d -> 0, b -> 40, c -> 70, a -> 90.
  GlobalDecreasingSizeBestFitHeap<int> heap(1);
  EventScript events;
  events.Alloc(1, 10).Alloc(2, 30).Alloc(3, 20).Alloc(4, 40);
  events.Free(1, 10).Free(2, 30).Free(3, 20).Free(4, 40);
  const auto result = RunValid(heap, events.log());
  EXPECT_EQ(result.heap_size, 100);
  EXPECT_EQ(ChunkOf(result, 4), Chunk(0, 40));
  EXPECT_EQ(ChunkOf(result, 2), Chunk(40, 30));
  EXPECT_EQ(ChunkOf(result, 3), Chunk(70, 20));
  EXPECT_EQ(ChunkOf(result, 1), Chunk(90, 10));
}

// The gap scenario of the next tests:
//   step: 0 Alloc big1(1) 50, 1 Alloc big2(2) 40, 2 Free big1,
//         3 Alloc m(3) 30, 4 Alloc n(4) 12, 5 Free m, 6 Alloc e(5) 8,
//         7 Free n, 8 Free e, 9 Free big2
//   big1 [0,2], big2 [1,9], m [3,5], n [4,7], e [6,8].
// Placement order (size): big1, big2, m, n, e.
//   big1 -> 0; big2 overlaps big1 -> 50; m overlaps only big2: gap [0,50)
//   -> 0; n overlaps m [0,30) and big2 [50,90): gap [30,50) -> 30;
//   e overlaps n [30,42) and big2 [50,90): gaps [0,30) (30 bytes),
//   [42,50) (8 bytes) and [90,inf).
EventScript GapScenario() {
  EventScript events;
  events.Alloc(1, 50).Alloc(2, 40).Free(1, 50).Alloc(3, 30).Alloc(4, 12);
  events.Free(3, 30).Alloc(5, 8).Free(4, 12).Free(5, 8).Free(2, 40);
  return events;
}

TEST(GlobalDecreasingSizeBestFitHeapTest, BestFitTakesTheSmallestGap) {
  GlobalDecreasingSizeBestFitHeap<int> heap(1);
  const auto result = RunValid(heap, GapScenario().log());
  EXPECT_EQ(result.heap_size, 90);
  EXPECT_EQ(ChunkOf(result, 1), Chunk(0, 50));
  EXPECT_EQ(ChunkOf(result, 2), Chunk(50, 40));
  EXPECT_EQ(ChunkOf(result, 3), Chunk(0, 30));
  EXPECT_EQ(ChunkOf(result, 4), Chunk(30, 12));
  EXPECT_EQ(ChunkOf(result, 5), Chunk(42, 8));  // the 8-byte gap, not [0,30)
}

TEST(GlobalDecreasingSizeBestFitHeapTest, LowestOffsetTakesTheFirstGap) {
  GlobalDecreasingSizeBestFitHeap<int> heap(1, PackingStrategy::kSpatial, nullptr,
                                            ChunkPlacement::kLowestOffset);
  const auto result = RunValid(heap, GapScenario().log());
  EXPECT_EQ(result.heap_size, 90);
  EXPECT_EQ(ChunkOf(result, 4), Chunk(30, 12));
  EXPECT_EQ(ChunkOf(result, 5), Chunk(0, 8));
}

TEST(GlobalDecreasingSizeBestFitHeapTest, PowerOfTwoAlignment) {
  // Alignment 8: big2 -> align(50) = 56; m -> 0; n: free space starts at
  // align(30) = 32 -> [32,56) -> 32; e: gaps [0,32) and [align(44) = 48, 56)
  // (8 bytes) -> 48.
  GlobalDecreasingSizeBestFitHeap<int> heap(8);
  const auto result = RunValid(heap, GapScenario().log(), 8);
  EXPECT_EQ(result.heap_size, 96);
  EXPECT_EQ(ChunkOf(result, 2), Chunk(56, 40));
  EXPECT_EQ(ChunkOf(result, 3), Chunk(0, 30));
  EXPECT_EQ(ChunkOf(result, 4), Chunk(32, 12));
  EXPECT_EQ(ChunkOf(result, 5), Chunk(48, 8));
}

TEST(GlobalDecreasingSizeBestFitHeapTest, NonPowerOfTwoAlignment) {
  // Alignment 12: big2 -> 60; n -> align(30) = 36; e: gaps [0,36) and
  // [align(48) = 48, 60) (12 bytes) -> 48.
  GlobalDecreasingSizeBestFitHeap<int> heap(12);
  const auto result = RunValid(heap, GapScenario().log(), 12);
  EXPECT_EQ(result.heap_size, 100);
  EXPECT_EQ(ChunkOf(result, 2), Chunk(60, 40));
  EXPECT_EQ(ChunkOf(result, 4), Chunk(36, 12));
  EXPECT_EQ(ChunkOf(result, 5), Chunk(48, 8));
}

TEST(GlobalDecreasingSizeBestFitHeapTest, SizeZeroBuffersGoToOffsetZeroAndTakeNoTime) {
  // The zero-size buffer 9 does not shift the event-counter times, so the
  // placement is exactly the gap scenario's.
  GlobalDecreasingSizeBestFitHeap<int> heap(1);
  EventScript events;
  events.Alloc(1, 50).Alloc(9, 0).Alloc(2, 40).Free(1, 50).Alloc(3, 30).Alloc(4, 12);
  events.Free(9, 0).Free(3, 30).Alloc(5, 8).Free(4, 12).Free(5, 8).Free(2, 40);
  const auto result = RunValid(heap, events.log());
  EXPECT_EQ(ChunkOf(result, 9), Chunk(0, 0));
  EXPECT_EQ(ChunkOf(result, 5), Chunk(42, 8));
  EXPECT_EQ(result.heap_size, 90);
}

// Colocation scenario:
//   step: 0 Alloc x(1) 16, 1 Alloc a(2) 20, 2 Alloc y(3) 8, 3 Free a,
//         4 ShareWith c(4) -> a size 24, 5 Free y, 6 Free c, 7 Free x
//   x [0,7], a [1,3] (colocated with c), y [2,5], c [4,6] (no allocation).
// The group {a, c} takes one chunk of the largest size, 24, and is placed
// avoiding everything live during [1,3] or [4,6].
EventScript ColocationScenario() {
  EventScript events;
  events.Alloc(1, 16).Alloc(2, 20).Alloc(3, 8).Free(2, 20);
  events.ShareWith(4, 2, 24).Free(3, 8).Free(4, 24).Free(1, 16);
  return events;
}

TEST(GlobalDecreasingSizeBestFitHeapTest, SpatialColocatedGroupSharesTheLargestChunk) {
  // Order: c (size 24, skipped: it shares), a 20, x 16, y 8.
  // a -> 0 with chunk (0, 24) for a and c; x overlaps both -> 24; y overlaps
  // a, c and x ([0,40) used) -> 40.
  GlobalDecreasingSizeBestFitHeap<int> heap(1);
  const auto result = RunValid(heap, ColocationScenario().log());
  EXPECT_EQ(result.heap_size, 48);
  EXPECT_EQ(ChunkOf(result, 2), Chunk(0, 24));
  EXPECT_EQ(ChunkOf(result, 4), Chunk(0, 24));
  EXPECT_EQ(ChunkOf(result, 1), Chunk(24, 16));
  EXPECT_EQ(ChunkOf(result, 3), Chunk(40, 8));
}

TEST(GlobalDecreasingSizeBestFitHeapTest, TemporalOrdersByColocatedLiveRange) {
  // Keys (min start - max end, -size): x -7, a -5 (spans [1,6] with c),
  // y -3, c -2. x -> 0; a/c -> 16 (chunk 24); y -> 40.
  GlobalDecreasingSizeBestFitHeap<int> heap(1, PackingStrategy::kTemporal);
  const auto result = RunValid(heap, ColocationScenario().log());
  EXPECT_EQ(result.heap_size, 48);
  EXPECT_EQ(ChunkOf(result, 1), Chunk(0, 16));
  EXPECT_EQ(ChunkOf(result, 2), Chunk(16, 24));
  EXPECT_EQ(ChunkOf(result, 4), Chunk(16, 24));
  EXPECT_EQ(ChunkOf(result, 3), Chunk(40, 8));
}

TEST(GlobalDecreasingSizeBestFitHeapTest, SpatialTemporalUsesColocatedArea) {
  // Areas: a 24 x 6 steps = 144 (union of [1,3] and [4,6]), x 16 x 8 = 128,
  // c 24 x 3 = 72, y 8 x 4 = 32 -> a, x, y: same chunks as kSpatial.
  GlobalDecreasingSizeBestFitHeap<int> heap(1, PackingStrategy::kSpatialTemporal);
  const auto result = RunValid(heap, ColocationScenario().log());
  EXPECT_EQ(ChunkOf(result, 2), Chunk(0, 24));
  EXPECT_EQ(ChunkOf(result, 1), Chunk(24, 16));
  EXPECT_EQ(ChunkOf(result, 3), Chunk(40, 8));
}

// Long-thin vs short-fat: l(1) 10 [0,5], f(2) 12 [1,2], g(3) 12 [3,4].
EventScript LongThinScenario() {
  EventScript events;
  events.Alloc(1, 10).Alloc(2, 12).Free(2, 12).Alloc(3, 12).Free(3, 12).Free(1, 10);
  return events;
}

std::vector<int> SortedOrder(const GlobalDecreasingSizeBestFitHeap<int>& heap) {
  std::vector<int> order;
  for (const auto& interval : heap.GetSortedBufferIntervals()) order.push_back(interval.buffer);
  return order;
}

TEST(GlobalDecreasingSizeBestFitHeapTest, StrategiesSortOrders) {
  struct Case {
    PackingStrategy strategy;
    std::vector<int> order;
    HeapChunk l_chunk;
  };
  const std::vector<Case> cases = {
      // (-size, start - end, id): f and g tie on size and duration -> id.
      {PackingStrategy::kSpatial, {2, 3, 1}, Chunk(12, 10)},
      // (start - end, -size, id): l spans 5 steps.
      {PackingStrategy::kTemporal, {1, 2, 3}, Chunk(0, 10)},
      // area: l 10 x 6 = 60, f and g 12 x 2 = 24.
      {PackingStrategy::kSpatialTemporal, {1, 2, 3}, Chunk(0, 10)},
      // start ascending: l 0, f 1, g 3.
      {PackingStrategy::kFastMerge, {1, 2, 3}, Chunk(0, 10)},
      {PackingStrategy::kPhaseWindow, {1, 2, 3}, Chunk(0, 10)},
      // end ascending: f 2, g 4, l 5.
      {PackingStrategy::kPhaseWindowEnd, {2, 3, 1}, Chunk(12, 10)},
  };
  for (const Case& c : cases) {
    GlobalDecreasingSizeBestFitHeap<int> heap(1, c.strategy);
    const auto result = RunValid(heap, LongThinScenario().log());
    EXPECT_EQ(SortedOrder(heap), c.order) << static_cast<int>(c.strategy);
    EXPECT_EQ(ChunkOf(result, 1), c.l_chunk) << static_cast<int>(c.strategy);
    EXPECT_EQ(result.heap_size, 22);
  }
}

TEST(GlobalDecreasingSizeBestFitHeapTest, CustomCompareAndBufferOrder) {
  // Latest start first: g, f, l. And a reversed buffer order flips the
  // spatial tie between f and g.
  GlobalDecreasingSizeBestFitHeap<int> custom(
      1, PackingStrategy::kCustom,
      [](const auto& a, const auto& b) { return a.start > b.start; });
  RunValid(custom, LongThinScenario().log());
  EXPECT_EQ(SortedOrder(custom), (std::vector<int>{3, 2, 1}));

  GlobalDecreasingSizeBestFitHeap<int> reversed(
      1, PackingStrategy::kSpatial, nullptr, ChunkPlacement::kBestFit,
      [](const int& a, const int& b) { return a > b; });
  RunValid(reversed, LongThinScenario().log());
  EXPECT_EQ(SortedOrder(reversed), (std::vector<int>{3, 2, 1}));
}

TEST(GlobalDecreasingSizeBestFitHeapTest, BufferOrderByIdForPointers) {
  // Pointers are ordered by an id function, not by address.
  struct Value {
    int id;
  };
  Value values[2] = {{7}, {3}};
  GlobalDecreasingSizeBestFitHeap<const Value*> heap(
      1, PackingStrategy::kSpatial, nullptr, ChunkPlacement::kBestFit,
      BufferOrderById<const Value*>([](const Value* v) { return v->id; }));
  heap.Alloc(&values[0], 8);
  heap.Alloc(&values[1], 8);
  heap.Free(&values[0], 8);
  heap.Free(&values[1], 8);
  auto result = heap.Finish();
  ASSERT_TRUE(result.ok());
  // Same size and duration: id 3 is placed first, at 0.
  EXPECT_EQ(result->heap_results[0].chunk_map.at(&values[1]), Chunk(0, 8));
  EXPECT_EQ(result->heap_results[0].chunk_map.at(&values[0]), Chunk(8, 8));
}

TEST(GlobalDecreasingSizeBestFitHeapTest, PreferredOffset) {
  // a(1) [0,2], b(2) [1,3], c(3) [4,5], all 10 bytes, placed by hand.
  EventScript events;
  events.Alloc(1, 10).Alloc(2, 10).Free(1, 10).Free(2, 10).Alloc(3, 10).Free(3, 10);
  GlobalDecreasingSizeBestFitHeap<int> heap(1);
  events.log().Replay(heap);
  ASSERT_TRUE(heap.PrepareForPlacement().ok());
  const auto sorted = heap.GetSortedBufferIntervals();
  ASSERT_EQ(sorted[0].buffer, 1);
  ASSERT_EQ(sorted[1].buffer, 2);
  ASSERT_EQ(sorted[2].buffer, 3);
  // a: the empty heap has room at 40.
  EXPECT_EQ(heap.FindChunkCandidate(sorted[0], 40), Chunk(40, 10));
  heap.CommitChunkAndInterval(sorted[0], Chunk(40, 10));
  // b overlaps a: 45 is inside a, so best fit picks the gap [0,40) -> 0.
  EXPECT_EQ(heap.FindChunkCandidate(sorted[1], 45), Chunk(0, 10));
  // b at 30 fits in [0,40).
  EXPECT_EQ(heap.FindChunkCandidate(sorted[1], 30), Chunk(30, 10));
  // b at 35 would end at 45, past the gap: best fit.
  EXPECT_EQ(heap.FindChunkCandidate(sorted[1], 35), Chunk(0, 10));
  heap.CommitChunkAndInterval(sorted[1], Chunk(0, 10));
  // c overlaps neither: any offset.
  EXPECT_EQ(heap.FindChunkCandidate(sorted[2], 7), Chunk(7, 10));

  // With alignment 8 an unaligned preferred offset is ignored.
  GlobalDecreasingSizeBestFitHeap<int> aligned(8);
  events.log().Replay(aligned);
  ASSERT_TRUE(aligned.PrepareForPlacement().ok());
  const auto aligned_sorted = aligned.GetSortedBufferIntervals();
  EXPECT_EQ(aligned.FindChunkCandidate(aligned_sorted[2], 7), Chunk(0, 10));
  EXPECT_EQ(aligned.FindChunkCandidate(aligned_sorted[2], 16), Chunk(16, 10));
}

TEST(GlobalDecreasingSizeBestFitHeapTest, TransitiveColocations) {
  // a(1) 10 [0,1]; b(2) shares a, 16, [2,4]; y(4) 8 [3,6]; c(3) shares b
  // (so, transitively, a), 12, [5,7]. The group {a,b,c} takes one 16-byte
  // chunk at 0; y overlaps b and c and goes above it.
  EventScript events;
  events.Alloc(1, 10).Free(1, 10).ShareWith(2, 1, 16).Alloc(4, 8).Free(2, 16);
  events.ShareWith(3, 2, 12).Free(4, 8).Free(3, 12);
  GlobalDecreasingSizeBestFitHeap<int> heap(1);
  const auto result = RunValid(heap, events.log());
  EXPECT_EQ(ChunkOf(result, 1), Chunk(0, 16));
  EXPECT_EQ(ChunkOf(result, 2), Chunk(0, 16));
  EXPECT_EQ(ChunkOf(result, 3), Chunk(0, 16));
  EXPECT_EQ(ChunkOf(result, 4), Chunk(16, 8));
  EXPECT_EQ(result.heap_size, 24);
}

TEST(GlobalDecreasingSizeBestFitHeapTest, MisuseIsReportedByFinish) {
  {
    GlobalDecreasingSizeBestFitHeap<int> heap(1);
    heap.Free(1, 10);
    EXPECT_EQ(heap.Finish().status().code(), absl::StatusCode::kFailedPrecondition);
  }
  {
    GlobalDecreasingSizeBestFitHeap<int> heap(1);
    heap.Alloc(1, 10);
    heap.Free(1, 12);
    EXPECT_EQ(heap.Finish().status().code(), absl::StatusCode::kInvalidArgument);
  }
  {
    GlobalDecreasingSizeBestFitHeap<int> heap(1);
    heap.ShareWith(2, 1, 10);
    EXPECT_FALSE(heap.Finish().ok());
  }
  {
    GlobalDecreasingSizeBestFitHeap<int> heap(1);
    heap.Alloc(1, 10);
    heap.Alloc(1, 10);
    EXPECT_FALSE(heap.Finish().ok());
  }
  {
    GlobalDecreasingSizeBestFitHeap<int> heap(0);
    EXPECT_EQ(heap.Finish().status().code(), absl::StatusCode::kInvalidArgument);
  }
  {
    GlobalDecreasingSizeBestFitHeap<int> heap(1, PackingStrategy::kCustom);
    EXPECT_EQ(heap.Finish().status().code(), absl::StatusCode::kInvalidArgument);
  }
}

TEST(GlobalDecreasingSizeBestFitHeapTest, UnfreedBuffersLiveToTheEnd) {
  // 1 is never freed: it must still not overlap 2.
  GlobalDecreasingSizeBestFitHeap<int> heap(1);
  EventScript events;
  events.Alloc(1, 10).Alloc(2, 20).Free(2, 20);
  const auto result = RunValid(heap, events.log());
  EXPECT_EQ(ChunkOf(result, 2), Chunk(0, 20));
  EXPECT_EQ(ChunkOf(result, 1), Chunk(20, 10));
}

}  // namespace
}  // namespace hmo
