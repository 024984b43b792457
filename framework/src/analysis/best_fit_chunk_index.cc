#include "hmo/analysis/best_fit_chunk_index.h"

#include <algorithm>
#include <cassert>

namespace hmo {

BestFitChunkIndex::BestFitChunkIndex(std::vector<int64_t> points) : points_(std::move(points)) {
  std::sort(points_.begin(), points_.end());
  points_.erase(std::unique(points_.begin(), points_.end()), points_.end());
  size_ = 1;
  while (size_ < static_cast<int32_t>(points_.size())) size_ *= 2;
  covering_.resize(2 * static_cast<size_t>(size_));
  starting_.resize(2 * static_cast<size_t>(size_));
  touched_.assign(2 * static_cast<size_t>(size_), 0);
}

void BestFitChunkIndex::Insert(RangeSet& set, ByteRange range) {
  // First range that ends at or after range.first (touching ranges merge).
  auto first = std::lower_bound(set.begin(), set.end(), range.first,
                                [](const ByteRange& r, int64_t value) { return r.second < value; });
  auto last = first;
  while (last != set.end() && last->first <= range.second) {
    range.first = std::min(range.first, last->first);
    range.second = std::max(range.second, last->second);
    ++last;
  }
  if (first == last) {
    set.insert(first, range);
  } else {
    *first = range;
    set.erase(first + 1, last);
  }
}

int32_t BestFitChunkIndex::PointIndex(int64_t time) const {
  const auto it = std::lower_bound(points_.begin(), points_.end(), time);
  assert(it != points_.end() && *it == time);
  return static_cast<int32_t>(it - points_.begin());
}

void BestFitChunkIndex::Touch(int32_t node) {
  if (!touched_[node]) {
    touched_[node] = 1;
    touched_nodes_.push_back(node);
  }
}

void BestFitChunkIndex::Add(int64_t start, int64_t end, const HeapChunk& chunk) {
  const int32_t first = PointIndex(start);
  const int32_t last = PointIndex(end);
  const ByteRange range{chunk.offset, chunk.chunk_end()};
  // The canonical nodes of the points [first, last] (bottom-up, no recursion).
  for (int32_t lo = first + size_, hi = last + 1 + size_; lo < hi; lo /= 2, hi /= 2) {
    if (lo & 1) {
      Touch(lo);
      Insert(covering_[lo++], range);
    }
    if (hi & 1) {
      Touch(--hi);
      Insert(covering_[hi], range);
    }
  }
  // Every node on the path from the start point's leaf to the root.
  for (int32_t node = first + size_; node >= 1; node /= 2) {
    Touch(node);
    Insert(starting_[node], range);
  }
}

template <typename Visit>
void BestFitChunkIndex::VisitOccupied(int64_t start, int64_t end, Visit visit) const {
  // First point >= start and last point <= end.
  const int32_t first = static_cast<int32_t>(
      std::lower_bound(points_.begin(), points_.end(), start) - points_.begin());
  const int32_t last = static_cast<int32_t>(
      std::upper_bound(points_.begin(), points_.end(), end) - points_.begin()) - 1;
  if (first > last) return;
  // Chunks live at `first`: the nodes on its leaf's path.
  for (int32_t node = first + size_; node >= 1; node /= 2) {
    if (!covering_[node].empty()) visit(covering_[node]);
  }
  // Chunks starting in (first, last]: the canonical nodes of that range.
  for (int32_t lo = first + 1 + size_, hi = last + 1 + size_; lo < hi; lo /= 2, hi /= 2) {
    if (lo & 1) {
      if (!starting_[lo].empty()) visit(starting_[lo]);
      ++lo;
    }
    if (hi & 1) {
      --hi;
      if (!starting_[hi].empty()) visit(starting_[hi]);
    }
  }
}

void BestFitChunkIndex::AppendOccupied(int64_t start, int64_t end,
                                       std::vector<ByteRange>& out) const {
  VisitOccupied(start, end,
                [&out](const RangeSet& set) { out.insert(out.end(), set.begin(), set.end()); });
}

void BestFitChunkIndex::AppendOccupiedLists(int64_t start, int64_t end,
                                            std::vector<absl::Span<const ByteRange>>& out) const {
  VisitOccupied(start, end, [&out](const RangeSet& set) { out.emplace_back(set); });
}

void BestFitChunkIndex::Clear() {
  for (int32_t node : touched_nodes_) {
    covering_[node].clear();
    starting_[node].clear();
    touched_[node] = 0;
  }
  touched_nodes_.clear();
}

}  // namespace hmo
