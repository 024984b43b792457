#include "hmo/analysis/skyline_placement.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <tuple>

#include "analysis_check.h"
#include "hmo/analysis/heap_chunk.h"

namespace hmo {
namespace {

// Per time step, the skyline height: range maximum queries and range
// assignments (a placed block's end replaces the skyline under it, which is
// never higher), each O(log steps).
class Skyline {
 public:
  explicit Skyline(int64_t steps) : size_(1) {
    while (size_ < steps) size_ *= 2;
    max_.assign(2 * static_cast<size_t>(size_), 0);
    pending_.assign(2 * static_cast<size_t>(size_), kNone);
  }

  // Highest skyline over the inclusive steps [first, last].
  int64_t Max(int64_t first, int64_t last) { return Max(1, 0, size_ - 1, first, last); }
  // Sets the skyline over [first, last] to `value`.
  void Assign(int64_t first, int64_t last, int64_t value) {
    Assign(1, 0, size_ - 1, first, last, value);
  }

 private:
  static constexpr int64_t kNone = -1;

  void PushDown(size_t node) {
    if (pending_[node] == kNone) return;
    for (size_t child : {2 * node, 2 * node + 1}) max_[child] = pending_[child] = pending_[node];
    pending_[node] = kNone;
  }
  int64_t Max(size_t node, int64_t lo, int64_t hi, int64_t first, int64_t last) {
    if (last < lo || hi < first) return 0;
    if (first <= lo && hi <= last) return max_[node];
    PushDown(node);
    const int64_t mid = lo + (hi - lo) / 2;
    return std::max(Max(2 * node, lo, mid, first, last),
                    Max(2 * node + 1, mid + 1, hi, first, last));
  }
  void Assign(size_t node, int64_t lo, int64_t hi, int64_t first, int64_t last, int64_t value) {
    if (last < lo || hi < first) return;
    if (first <= lo && hi <= last) {
      max_[node] = pending_[node] = value;
      return;
    }
    PushDown(node);
    const int64_t mid = lo + (hi - lo) / 2;
    Assign(2 * node, lo, mid, first, last, value);
    Assign(2 * node + 1, mid + 1, hi, first, last, value);
    max_[node] = std::max(max_[2 * node], max_[2 * node + 1]);
  }

  int64_t size_;
  std::vector<int64_t> max_;
  std::vector<int64_t> pending_;  // an assignment not yet pushed to the children
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
    for (const HeapTimeInterval& lifetime : block.lifetimes)
      steps = std::max(steps, lifetime.end + 1);
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
      skyline.Assign(lifetime.start, lifetime.end, offset + block.size);
    }
  }
  return result;
}

}  // namespace hmo
