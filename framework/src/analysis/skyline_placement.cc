#include "hmo/analysis/skyline_placement.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <tuple>

#include "analysis_check.h"
#include "hmo/analysis/heap_chunk.h"

namespace hmo {
namespace {

// Per time step, the skyline height. A placed block's end is above the whole
// skyline under it, so "set to its end" is the same as "raise to at least its
// end"; raises commute, so a raise is recorded on the O(log steps) nodes that
// cover its range and never pushed down, and both operations are loops (no
// recursion): a bottom-up segment tree over a power-of-two number of leaves.
class Skyline {
 public:
  explicit Skyline(int64_t steps) {
    while (leaves_ < steps) leaves_ *= 2;
    below_.assign(2 * static_cast<size_t>(leaves_), 0);
    raised_.assign(2 * static_cast<size_t>(leaves_), 0);
  }

  // Highest skyline over the inclusive steps [first, last]: the nodes that
  // cover the range exactly, and the raises recorded on the ancestors of its
  // two end leaves (every node above a covering node is one of those).
  int64_t Max(int64_t first, int64_t last) const {
    int64_t result = 0;
    for (int64_t lo = first + leaves_, hi = last + leaves_ + 1; lo < hi; lo /= 2, hi /= 2) {
      if (lo & 1) result = std::max(result, below_[lo++]);
      if (hi & 1) result = std::max(result, below_[--hi]);
    }
    for (int64_t node = (first + leaves_) / 2; node > 0; node /= 2) {
      result = std::max(result, raised_[node]);
    }
    for (int64_t node = (last + leaves_) / 2; node > 0; node /= 2) {
      result = std::max(result, raised_[node]);
    }
    return result;
  }

  // Raises the skyline over [first, last] to at least `value`.
  void Raise(int64_t first, int64_t last, int64_t value) {
    for (int64_t lo = first + leaves_, hi = last + leaves_ + 1; lo < hi; lo /= 2, hi /= 2) {
      if (lo & 1) Record(lo++, value);
      if (hi & 1) Record(--hi, value);
    }
    for (int64_t node = (first + leaves_) / 2; node > 0; node /= 2) {
      below_[node] = std::max(below_[node], value);
    }
    for (int64_t node = (last + leaves_) / 2; node > 0; node /= 2) {
      below_[node] = std::max(below_[node], value);
    }
  }

 private:
  void Record(int64_t node, int64_t value) {
    below_[node] = std::max(below_[node], value);
    raised_[node] = std::max(raised_[node], value);
  }

  int64_t leaves_ = 1;
  // Per node: the highest skyline in its range counting the raises recorded
  // on it and below it; the raises recorded on it (covering its whole range).
  std::vector<int64_t> below_;
  std::vector<int64_t> raised_;
};

}  // namespace

std::optional<SkylinePlacement> PlaceBlocksOnSkyline(const HeapPackingProblem& problem,
                                                     absl::Span<const int32_t> priority,
                                                     int64_t max_steps) {
  HMO_CHECK_EQ(priority.size(), problem.blocks.size()) << "priority must order every block";
  // Placement depends only on which blocks conflict, so compressed time
  // gives the same answer on a shorter skyline.
  const HeapPackingProblem compressed = CompressHeapPackingTime(problem);
  int64_t steps = 1;
  for (const HeapPackingBlock& block : compressed.blocks) {
    for (const HeapTimeInterval& lifetime : block.lifetimes) {
      steps = std::max(steps, lifetime.end + 1);
    }
  }
  Skyline skyline(steps);
  const auto min_offset = [&](const HeapPackingBlock& block) {
    int64_t floor = 0;
    for (const HeapTimeInterval& lifetime : block.lifetimes) {
      floor = std::max(floor, skyline.Max(lifetime.start, lifetime.end));
    }
    return AlignHeapOffsetUp(floor, problem.alignment);
  };

  // (min offset when queued, rank, block); the smallest comes first.
  using Entry = std::tuple<int64_t, int32_t, int32_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
  for (size_t rank = 0; rank < priority.size(); ++rank) {
    const int32_t b = priority[rank];
    if (compressed.blocks[b].size > 0) queue.push({0, static_cast<int32_t>(rank), b});
  }
  SkylinePlacement result;
  result.offsets.assign(problem.blocks.size(), 0);
  while (!queue.empty()) {
    if (max_steps > 0 && result.steps >= max_steps) return std::nullopt;
    ++result.steps;
    const auto [queued, rank, b] = queue.top();
    queue.pop();
    const HeapPackingBlock& block = compressed.blocks[b];
    // The skyline only rises, so a queued min offset is a lower bound: when
    // it is still exact, no other block can go lower.
    const int64_t offset = min_offset(block);
    if (offset > queued) {
      queue.push({offset, rank, b});
      continue;
    }
    result.offsets[b] = offset;
    result.height = std::max(result.height, offset + block.size);
    for (const HeapTimeInterval& lifetime : block.lifetimes) {
      skyline.Raise(lifetime.start, lifetime.end, offset + block.size);
    }
  }
  return result;
}

}  // namespace hmo
