#include "hmo/analysis/heap_no_fragmentation_stats.h"

#include "gtest/gtest.h"
#include "heap_test_util.h"

namespace hmo {
namespace {

using testing::EventScript;
using testing::RunValid;

TEST(NoFragmentationStatsHeapTest, EmptyIsZero) {
  NoFragmentationStatsHeap<int> heap;
  EXPECT_EQ(RunValid(heap, EventScript().log()).heap_size, 0);
}

TEST(NoFragmentationStatsHeapTest, AllLiveAtOnceSumUp) {
  NoFragmentationStatsHeap<int> heap;
  EventScript events;
  events.Alloc(1, 10).Alloc(2, 20).Alloc(3, 30).Alloc(4, 30);
  events.Free(1, 10).Free(2, 20).Free(3, 30).Free(4, 30);
  const auto result = RunValid(heap, events.log());
  EXPECT_EQ(result.heap_size, 90);
  EXPECT_TRUE(result.heap_results.empty());
}

TEST(NoFragmentationStatsHeapTest, PeakOfShortLivedBuffers) {
  // 10 stays live; 20, 30 and 5 come and go one at a time: peak 10 + 30.
  NoFragmentationStatsHeap<int> heap;
  EventScript events;
  events.Alloc(1, 10);
  events.Alloc(2, 20).Free(2, 20);
  events.Alloc(3, 30).Free(3, 30);
  events.Alloc(4, 5).Free(4, 5);
  events.Free(1, 10);
  EXPECT_EQ(RunValid(heap, events.log()).heap_size, 40);
}

TEST(NoFragmentationStatsHeapTest, ShareWithCountsAsAlloc) {
  // XLA's default ShareWith is an Alloc, so a share adds its size again.
  NoFragmentationStatsHeap<int> heap;
  EventScript events;
  events.Alloc(1, 10).ShareWith(2, 1, 10).Free(1, 10).Free(2, 10);
  EXPECT_EQ(RunValid(heap, events.log()).heap_size, 20);
}

}  // namespace
}  // namespace hmo
