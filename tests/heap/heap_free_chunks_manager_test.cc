#include "hmo/analysis/heap_free_chunks_manager.h"

#include <vector>

#include "gtest/gtest.h"

namespace hmo {
namespace {

using Ranges = std::vector<std::pair<int64_t, int64_t>>;

Ranges FreeRanges(const FreeChunksManager& manager) {
  Ranges out;
  for (const auto& chunk : manager.GetFreeChunks()) out.emplace_back(chunk.offset, chunk.end);
  return out;
}

constexpr int64_t kEnd = FreeChunksManager::kFreeSpaceEnd;

TEST(FreeChunksManagerTest, AllocateSplitsDeallocateMerges) {
  FreeChunksManager manager([](int64_t x) { return x; });
  EXPECT_EQ(FreeRanges(manager), (Ranges{{0, kEnd}}));
  ASSERT_TRUE(manager.Allocate(1, 4).ok());
  ASSERT_TRUE(manager.Allocate(4, 7).ok());
  ASSERT_TRUE(manager.Allocate(10, 15).ok());
  ASSERT_TRUE(manager.Allocate(18, 22).ok());
  EXPECT_EQ(FreeRanges(manager), (Ranges{{0, 1}, {7, 10}, {15, 18}, {22, kEnd}}));
  EXPECT_FALSE(manager.Allocate(8, 12).ok());  // not inside one free range
  manager.Deallocate(4, 7);                    // touches [7,10) on the right
  EXPECT_EQ(FreeRanges(manager), (Ranges{{0, 1}, {4, 10}, {15, 18}, {22, kEnd}}));
  manager.Deallocate(10, 15);  // touches both sides
  EXPECT_EQ(FreeRanges(manager), (Ranges{{0, 1}, {4, 18}, {22, kEnd}}));
}

TEST(FreeChunksManagerTest, JustLargeEnoughIsSmallestThenLowest) {
  FreeChunksManager manager([](int64_t x) { return x; });
  ASSERT_TRUE(manager.Allocate(1, 4).ok());
  ASSERT_TRUE(manager.Allocate(7, 10).ok());
  ASSERT_TRUE(manager.Allocate(13, 22).ok());
  // Free: [0,1) [4,7) [10,13) [22,end).
  EXPECT_EQ(manager.FindJustLargeEnough(1)->offset, 0);
  EXPECT_EQ(manager.FindJustLargeEnough(2)->offset, 4);  // [4,7) and [10,13) tie: lowest
  EXPECT_EQ(manager.FindJustLargeEnough(4)->offset, 22);
}

TEST(FreeChunksManagerTest, AlignedSize) {
  // Alignment 8: [1,12) holds only 4 aligned bytes ([8,12)).
  FreeChunksManager manager([](int64_t x) { return (x + 7) / 8 * 8; });
  ASSERT_TRUE(manager.Allocate(0, 1).ok());
  ASSERT_TRUE(manager.Allocate(12, 100).ok());
  auto chunk = manager.FindJustLargeEnough(4);
  ASSERT_TRUE(chunk.has_value());
  EXPECT_EQ(chunk->offset, 1);
  EXPECT_EQ(chunk->aligned_offset, 8);
  EXPECT_EQ(manager.FindJustLargeEnough(5)->offset, 100);
}

TEST(FreeChunksManagerTest, NothingLeft) {
  FreeChunksManager manager([](int64_t x) { return x; });
  ASSERT_TRUE(manager.Allocate(0, kEnd).ok());
  EXPECT_TRUE(manager.GetFreeChunks().empty());
  EXPECT_FALSE(manager.FindJustLargeEnough(1).has_value());
}

}  // namespace
}  // namespace hmo
