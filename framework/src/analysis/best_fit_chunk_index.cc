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

void BestFitChunkIndex::AddCovering(int32_t node, int32_t node_begin, int32_t node_end,
                                    int32_t begin, int32_t end, ByteRange range) {
  // Point ranges are half-open: [node_begin, node_end), [begin, end).
  if (end <= node_begin || node_end <= begin) return;
  if (begin <= node_begin && node_end <= end) {
    Touch(node);
    Insert(covering_[node], range);
    return;
  }
  const int32_t middle = (node_begin + node_end) / 2;
  AddCovering(2 * node, node_begin, middle, begin, end, range);
  AddCovering(2 * node + 1, middle, node_end, begin, end, range);
}

void BestFitChunkIndex::Add(int64_t start, int64_t end, const HeapChunk& chunk) {
  const int32_t first = PointIndex(start);
  const int32_t last = PointIndex(end);
  const ByteRange range{chunk.offset, chunk.chunk_end()};
  AddCovering(1, 0, size_, first, last + 1, range);
  // Every node on the path to the start point.
  int32_t node = 1, node_begin = 0, node_end = size_;
  while (true) {
    Touch(node);
    Insert(starting_[node], range);
    if (node_end - node_begin == 1) break;
    const int32_t middle = (node_begin + node_end) / 2;
    if (first < middle) {
      node = 2 * node;
      node_end = middle;
    } else {
      node = 2 * node + 1;
      node_begin = middle;
    }
  }
}

void BestFitChunkIndex::CollectStarting(int32_t node, int32_t node_begin, int32_t node_end,
                                        int32_t begin, int32_t end,
                                        std::vector<ByteRange>& out) const {
  if (end <= node_begin || node_end <= begin || starting_[node].empty()) return;
  if (begin <= node_begin && node_end <= end) {
    out.insert(out.end(), starting_[node].begin(), starting_[node].end());
    return;
  }
  const int32_t middle = (node_begin + node_end) / 2;
  CollectStarting(2 * node, node_begin, middle, begin, end, out);
  CollectStarting(2 * node + 1, middle, node_end, begin, end, out);
}

void BestFitChunkIndex::AppendOccupied(int64_t start, int64_t end,
                                       std::vector<ByteRange>& out) const {
  // First point >= start and last point <= end.
  const int32_t first = static_cast<int32_t>(
      std::lower_bound(points_.begin(), points_.end(), start) - points_.begin());
  const int32_t last = static_cast<int32_t>(
      std::upper_bound(points_.begin(), points_.end(), end) - points_.begin()) - 1;
  if (first > last) return;
  // Chunks live at `first`.
  int32_t node = 1, node_begin = 0, node_end = size_;
  while (true) {
    out.insert(out.end(), covering_[node].begin(), covering_[node].end());
    if (node_end - node_begin == 1) break;
    const int32_t middle = (node_begin + node_end) / 2;
    if (first < middle) {
      node = 2 * node;
      node_end = middle;
    } else {
      node = 2 * node + 1;
      node_begin = middle;
    }
  }
  // Chunks starting in (first, last].
  if (first < last) CollectStarting(1, 0, size_, first + 1, last + 1, out);
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
