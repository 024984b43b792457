#include "hmo/analysis/heap_block_time_index.h"

#include <algorithm>
#include <limits>

namespace hmo {

HeapBlockTimeIndex::HeapBlockTimeIndex(const HeapPackingProblem& problem) {
  for (const HeapPackingBlock& block : problem.blocks) {
    for (const HeapTimeInterval& lifetime : block.lifetimes) {
      points_.push_back(lifetime.start);
      points_.push_back(lifetime.end);
    }
  }
  std::sort(points_.begin(), points_.end());
  points_.erase(std::unique(points_.begin(), points_.end()), points_.end());
  while (size_ < static_cast<int32_t>(points_.size())) size_ *= 2;
  covering_.resize(2 * static_cast<size_t>(size_));
  for (int32_t b = 0; b < static_cast<int32_t>(problem.blocks.size()); ++b) {
    if (problem.blocks[b].size == 0) continue;
    for (const HeapTimeInterval& lifetime : problem.blocks[b].lifetimes) {
      const int32_t first = Index(lifetime.start);
      const int32_t last = Index(lifetime.end);
      // The canonical nodes of the points [first, last], bottom-up.
      for (int32_t lo = first + size_, hi = last + 1 + size_; lo < hi; lo /= 2, hi /= 2) {
        if (lo & 1) covering_[lo++].push_back(b);
        if (hi & 1) covering_[--hi].push_back(b);
      }
      by_start_.emplace_back(first, b);
    }
  }
  std::sort(by_start_.begin(), by_start_.end());
}

int32_t HeapBlockTimeIndex::Index(int64_t time) const {
  return static_cast<int32_t>(std::lower_bound(points_.begin(), points_.end(), time) -
                              points_.begin());
}

void HeapBlockTimeIndex::Append(int64_t start, int64_t end, std::vector<int32_t>& out) const {
  const int32_t first = Index(start);
  const int32_t last = static_cast<int32_t>(
      std::upper_bound(points_.begin(), points_.end(), end) - points_.begin()) - 1;
  if (first > last) return;
  // Blocks live at point `first`: every node on its leaf's path.
  for (int32_t node = first + size_; node >= 1; node /= 2) {
    out.insert(out.end(), covering_[node].begin(), covering_[node].end());
  }
  // Blocks starting at a later point of the window.
  auto it = std::lower_bound(by_start_.begin(), by_start_.end(),
                             std::make_pair(first + 1, std::numeric_limits<int32_t>::min()));
  for (; it != by_start_.end() && it->first <= last; ++it) out.push_back(it->second);
}

}  // namespace hmo
