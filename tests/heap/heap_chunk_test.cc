#include "hmo/analysis/heap_chunk.h"

#include <sstream>

#include "gtest/gtest.h"

namespace hmo {
namespace {

TEST(HeapChunkTest, ConstructorsAndEnd) {
  const HeapChunk a = HeapChunk::FromOffsetSize(8, 16);
  EXPECT_EQ(a.offset, 8);
  EXPECT_EQ(a.size, 16);
  EXPECT_EQ(a.chunk_end(), 24);
  EXPECT_EQ(HeapChunk::FromOffsetEnd(8, 24), a);
}

TEST(HeapChunkTest, HalfOpenOverlap) {
  const HeapChunk a = HeapChunk::FromOffsetEnd(0, 10);
  EXPECT_TRUE(a.OverlapsWith(HeapChunk::FromOffsetEnd(9, 12)));
  EXPECT_FALSE(a.OverlapsWith(HeapChunk::FromOffsetEnd(10, 12)));  // touching
  EXPECT_TRUE(a.OverlapsWith(HeapChunk::FromOffsetEnd(2, 3)));     // inside
  EXPECT_FALSE(a.OverlapsWith(HeapChunk::FromOffsetSize(5, 0)));   // empty
}

TEST(HeapChunkTest, PrintsHalfOpenRange) {
  std::ostringstream out;
  out << HeapChunk::FromOffsetSize(40, 8);
  EXPECT_EQ(out.str(), "[40,48)");
}

TEST(HeapChunkTest, AlignUpPowerOfTwoAndOther) {
  EXPECT_EQ(AlignHeapOffsetUp(0, 8), 0);
  EXPECT_EQ(AlignHeapOffsetUp(1, 8), 8);
  EXPECT_EQ(AlignHeapOffsetUp(16, 8), 16);
  EXPECT_EQ(AlignHeapOffsetUp(13, 12), 24);
  EXPECT_EQ(AlignHeapOffsetUp(36, 12), 36);
  EXPECT_EQ(AlignHeapOffsetUp(7, 1), 7);
}

}  // namespace
}  // namespace hmo
