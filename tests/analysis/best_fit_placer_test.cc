// BestFitPlacer (the merged-list gap search behind best-fit packing) against
// a straightforward reference: every placed chunk scanned, the overlapping
// ones sorted and swept as XLA's FindChunkCandidate does.

#include "hmo/analysis/best_fit_placer.h"

#include <algorithm>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace hmo {
namespace {

struct Placed {
  HeapTimeInterval lifetime;
  int64_t offset = 0;
  int64_t size = 0;
};

int64_t AlignUp(int64_t value, int64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// XLA's rule, written out from its description (best_fit_placer.h) with no
// index: O(placed) per query.
int64_t ReferenceOffset(const std::vector<Placed>& placed,
                        const std::vector<HeapTimeInterval>& lifetimes, int64_t size,
                        int64_t group_size, int64_t alignment, ChunkPlacement placement,
                        int64_t preferred) {
  std::vector<std::pair<int64_t, int64_t>> used;
  for (const Placed& p : placed) {
    for (const HeapTimeInterval& l : lifetimes) {
      if (p.lifetime.start <= l.end && l.start <= p.lifetime.end) {
        used.emplace_back(p.offset, p.offset + p.size);
        break;
      }
    }
  }
  std::sort(used.begin(), used.end());
  std::vector<std::pair<int64_t, int64_t>> gaps;
  int64_t free_start = 0;
  size_t i = 0;
  while (i < used.size()) {
    int64_t run_offset = used[i].first, run_end = used[i].second;
    for (++i; i < used.size() && used[i].first < run_end; ++i) {
      run_end = std::max(run_end, used[i].second);
    }
    if (run_offset - free_start >= size) gaps.emplace_back(free_start, run_offset);
    free_start = std::max(free_start, AlignUp(run_end, alignment));
  }
  gaps.emplace_back(free_start, std::numeric_limits<int64_t>::max());
  if (preferred >= 0 && preferred % alignment == 0) {
    for (const auto& [start, end] : gaps) {
      if (start <= preferred && preferred < end && end - group_size >= preferred) return preferred;
    }
  }
  int64_t best = -1, best_size = 0;
  for (const auto& [start, end] : gaps) {
    const int64_t aligned = AlignUp(start, alignment);
    if (end - group_size < aligned) continue;
    if (placement == ChunkPlacement::kLowestOffset) return aligned;
    if (best < 0 || end - start < best_size) {
      best = aligned;
      best_size = end - start;
    }
  }
  return best;
}

// Random blocks (some with two lifetimes, as colocated groups have), placed
// in a random order; every query is compared before it is committed.
void CompareOnRandomInstance(uint64_t seed, int64_t alignment, ChunkPlacement placement) {
  std::mt19937_64 random(seed);
  const int blocks = 300;
  std::vector<std::vector<HeapTimeInterval>> lifetimes(blocks);
  std::vector<int64_t> sizes(blocks), points;
  for (int b = 0; b < blocks; ++b) {
    const int parts = random() % 5 == 0 ? 2 : 1;
    for (int p = 0; p < parts; ++p) {
      const int64_t start = static_cast<int64_t>(random() % 400);
      const int64_t end = start + static_cast<int64_t>(random() % (random() % 4 == 0 ? 300 : 30));
      lifetimes[b].push_back({start, end});
      points.push_back(start);
      points.push_back(end);
    }
    // Mostly distinct sizes, some tiny. (Size-0 buffers never reach the
    // placer: the heaps give them chunk (0, 0). For them the placer, like
    // before, treats chunks touching inside one index list as one run.)
    sizes[b] = 1 + static_cast<int64_t>(random() % (random() % 3 == 0 ? 8 : 500));
  }
  BestFitPlacer placer(alignment, placement, points);
  std::vector<Placed> placed;
  for (int b = 0; b < blocks; ++b) {
    const int64_t group_size = sizes[b] + static_cast<int64_t>(random() % 3);
    const int64_t preferred = random() % 4 == 0 ? static_cast<int64_t>(random() % 2000) : -1;
    const int64_t expected = ReferenceOffset(placed, lifetimes[b], sizes[b], group_size, alignment,
                                             placement, preferred);
    const int64_t offset = placer.FindOffset(lifetimes[b], sizes[b], group_size, preferred);
    ASSERT_EQ(offset, expected) << "seed " << seed << " block " << b;
    placer.Commit(lifetimes[b], HeapChunk::FromOffsetSize(offset, group_size));
    for (const HeapTimeInterval& l : lifetimes[b]) placed.push_back({l, offset, group_size});
  }
}

TEST(BestFitPlacerTest, BestFitMatchesTheReference) {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    CompareOnRandomInstance(seed, 1, ChunkPlacement::kBestFit);
    CompareOnRandomInstance(seed, 8, ChunkPlacement::kBestFit);
    CompareOnRandomInstance(seed, 3, ChunkPlacement::kBestFit);
  }
}

TEST(BestFitPlacerTest, LowestOffsetMatchesTheReference) {
  for (uint64_t seed = 100; seed <= 106; ++seed) {
    CompareOnRandomInstance(seed, 1, ChunkPlacement::kLowestOffset);
    CompareOnRandomInstance(seed, 16, ChunkPlacement::kLowestOffset);
  }
}

TEST(BestFitPlacerTest, ClearForgetsEveryChunk) {
  BestFitPlacer placer(1, ChunkPlacement::kBestFit, {0, 5, 10});
  const std::vector<HeapTimeInterval> life = {{0, 10}};
  placer.Commit(life, HeapChunk::FromOffsetSize(0, 7));
  EXPECT_EQ(placer.FindOffset(life, 3, 3), 7);
  placer.Clear();
  EXPECT_EQ(placer.FindOffset(life, 3, 3), 0);
}

}  // namespace
}  // namespace hmo
