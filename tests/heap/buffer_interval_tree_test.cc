// BufferIntervalTree and BestFitChunkIndex against brute-force scans.

#include "hmo/analysis/buffer_interval_tree.h"

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

#include "gtest/gtest.h"
#include "hmo/analysis/best_fit_chunk_index.h"

namespace hmo {
namespace {

struct Node {
  int64_t start, end;
  HeapChunk chunk;
};

bool Overlaps(const Node& node, int64_t start, int64_t end) {
  return node.start <= end && node.end >= start;
}

std::vector<std::tuple<int64_t, int64_t>> Sorted(std::vector<HeapChunk> chunks) {
  std::vector<std::tuple<int64_t, int64_t>> out;
  for (const HeapChunk& c : chunks) out.emplace_back(c.offset, c.size);
  std::sort(out.begin(), out.end());
  return out;
}

TEST(BufferIntervalTreeTest, AddRemove) {
  BufferIntervalTree tree;
  const HeapChunk chunk = HeapChunk::FromOffsetSize(1, 2);
  tree.Add(1, 2, chunk);
  EXPECT_EQ(tree.size(), 1);
  EXPECT_TRUE(tree.Remove(1, 2, chunk));
  EXPECT_FALSE(tree.Remove(1, 2, chunk));
  EXPECT_EQ(tree.size(), 0);
  // Remove matches (start, end, offset) only.
  tree.Add(20, 36, chunk);
  tree.Add(1, 45, chunk);
  EXPECT_FALSE(tree.Remove(20, 36, HeapChunk::FromOffsetSize(2, 2)));
  EXPECT_TRUE(tree.Remove(20, 36, HeapChunk::FromOffsetSize(1, 99)));
  EXPECT_EQ(tree.NumChunksOverlappingInTime(30, 30), 1);
}

TEST(BufferIntervalTreeTest, InclusiveBoundsAndMemoryQueries) {
  // [0,4] bytes [0,10); [5,9] bytes [10,30); [3,6] bytes [40,45).
  BufferIntervalTree tree;
  tree.Add(0, 4, HeapChunk::FromOffsetSize(0, 10));
  tree.Add(5, 9, HeapChunk::FromOffsetSize(10, 20));
  tree.Add(3, 6, HeapChunk::FromOffsetSize(40, 5));
  EXPECT_EQ(tree.NumChunksOverlappingInTime(4, 4), 2);  // [0,4] and [3,6]
  EXPECT_EQ(tree.NumChunksOverlappingInTime(5, 5), 2);  // [5,9] and [3,6]
  EXPECT_EQ(tree.NumChunksOverlappingInTime(10, 20), 0);
  EXPECT_EQ(tree.MemoryUsedInInterval(2, 7), (std::vector<int64_t>{10, 15, 15, 25, 25, 20}));
  EXPECT_EQ(tree.HeapSizeInInterval(0, 2), 10);
  EXPECT_EQ(tree.HeapSizeInInterval(4, 5), 45);
  EXPECT_EQ(tree.HeapSizeInInterval(7, 9), 30);
  EXPECT_EQ(tree.HeapSizeInInterval(11, 12), 0);
  EXPECT_TRUE(tree.MemoryUsedInInterval(3, 2).empty());
}

TEST(BufferIntervalTreeTest, RandomAgainstBruteForce) {
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<int64_t> time(0, 200);
  std::uniform_int_distribution<int64_t> offset(0, 1000);
  std::uniform_int_distribution<int64_t> size(1, 64);
  BufferIntervalTree tree;
  std::vector<Node> nodes;
  for (int step = 0; step < 3000; ++step) {
    const int op = static_cast<int>(rng() % 10);
    if (op < 6 || nodes.empty()) {
      int64_t a = time(rng), b = time(rng);
      if (a > b) std::swap(a, b);
      Node node{a, b, HeapChunk::FromOffsetSize(offset(rng), size(rng))};
      tree.Add(node.start, node.end, node.chunk);
      nodes.push_back(node);
    } else if (op < 8) {
      const size_t victim = rng() % nodes.size();
      ASSERT_TRUE(tree.Remove(nodes[victim].start, nodes[victim].end, nodes[victim].chunk));
      nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(victim));
    } else {
      int64_t a = time(rng), b = time(rng);
      if (a > b) std::swap(a, b);
      std::vector<HeapChunk> expected;
      int64_t heap_size = 0;
      std::vector<int64_t> used(b - a + 1, 0);
      for (const Node& node : nodes) {
        if (!Overlaps(node, a, b)) continue;
        expected.push_back(node.chunk);
        heap_size = std::max(heap_size, node.chunk.chunk_end());
        for (int64_t t = std::max(a, node.start); t <= std::min(b, node.end); ++t) {
          used[t - a] += node.chunk.size;
        }
      }
      EXPECT_EQ(Sorted(tree.ChunksOverlappingInTime(a, b)), Sorted(expected));
      EXPECT_EQ(tree.NumChunksOverlappingInTime(a, b), static_cast<int64_t>(expected.size()));
      EXPECT_EQ(tree.HeapSizeInInterval(a, b), heap_size);
      EXPECT_EQ(tree.MemoryUsedInInterval(a, b), used);
    }
    ASSERT_EQ(tree.size(), static_cast<int64_t>(nodes.size()));
  }
}

TEST(BestFitChunkIndexTest, OccupiedBytesMatchBruteForce) {
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<int64_t> time(0, 120);
  std::vector<std::pair<int64_t, int64_t>> lifetimes;
  std::vector<int64_t> points;
  for (int i = 0; i < 300; ++i) {
    int64_t a = time(rng), b = time(rng);
    if (a > b) std::swap(a, b);
    lifetimes.emplace_back(a, b);
    points.push_back(a);
    points.push_back(b);
  }
  BestFitChunkIndex index(points);
  std::vector<Node> added;
  for (int round = 0; round < 2; ++round) {
    for (size_t i = 0; i < lifetimes.size(); ++i) {
      const Node node{lifetimes[i].first, lifetimes[i].second,
                      HeapChunk::FromOffsetSize(static_cast<int64_t>(rng() % 2000),
                                                1 + static_cast<int64_t>(rng() % 40))};
      index.Add(node.start, node.end, node.chunk);
      added.push_back(node);
      if (i % 7 != 0) continue;
      // Any window, including times that are not points.
      int64_t a = static_cast<int64_t>(rng() % 130) - 5, b = static_cast<int64_t>(rng() % 130);
      if (a > b) std::swap(a, b);
      std::vector<char> expected(2100, 0), actual(2100, 0);
      for (const Node& n : added) {
        if (!Overlaps(n, a, b)) continue;
        for (int64_t x = n.chunk.offset; x < n.chunk.chunk_end(); ++x) expected[x] = 1;
      }
      std::vector<BestFitChunkIndex::ByteRange> ranges;
      index.AppendOccupied(a, b, ranges);
      for (const auto& [first, second] : ranges) {
        for (int64_t x = first; x < second; ++x) actual[x] = 1;
      }
      ASSERT_EQ(actual, expected) << "window [" << a << "," << b << "]";
    }
    index.Clear();
    added.clear();
  }
}

}  // namespace
}  // namespace hmo
