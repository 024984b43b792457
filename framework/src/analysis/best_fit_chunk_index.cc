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
  starting_at_.resize(points_.size());
  has_start_.assign((points_.size() + 63) / 64, 0);
}

int32_t BestFitChunkIndex::PointIndex(int64_t time) const {
  const auto it = std::lower_bound(points_.begin(), points_.end(), time);
  assert(it != points_.end() && *it == time);
  return static_cast<int32_t>(it - points_.begin());
}

void BestFitChunkIndex::AddToTree(int32_t node, int32_t node_begin, int32_t node_end,
                                  int32_t begin, int32_t end, const HeapChunk& chunk) {
  // [node_begin, node_end) and [begin, end) half-open over point indices.
  if (end <= node_begin || node_end <= begin) return;
  if (begin <= node_begin && node_end <= end) {
    if (covering_[node].empty()) used_nodes_.push_back(node);
    covering_[node].push_back(chunk);
    return;
  }
  const int32_t middle = (node_begin + node_end) / 2;
  AddToTree(2 * node, node_begin, middle, begin, end, chunk);
  AddToTree(2 * node + 1, middle, node_end, begin, end, chunk);
}

void BestFitChunkIndex::Add(int64_t start, int64_t end, const HeapChunk& chunk) {
  const int32_t first = PointIndex(start);
  const int32_t last = PointIndex(end);
  AddToTree(1, 0, size_, first, last + 1, chunk);
  if (starting_at_[first].empty()) used_points_.push_back(first);
  starting_at_[first].push_back(chunk);
  has_start_[first / 64] |= uint64_t{1} << (first % 64);
}

void BestFitChunkIndex::AppendOverlapping(int64_t start, int64_t end,
                                          std::vector<HeapChunk>& out) const {
  // First point >= start and last point <= end.
  const int32_t first =
      static_cast<int32_t>(std::lower_bound(points_.begin(), points_.end(), start) -
                           points_.begin());
  const int32_t last =
      static_cast<int32_t>(std::upper_bound(points_.begin(), points_.end(), end) -
                           points_.begin()) - 1;
  if (first > last) return;
  // Chunks live at point `first`: the covering lists on the path to its leaf.
  int32_t node = 1, node_begin = 0, node_end = size_;
  while (true) {
    const auto& covering = covering_[node];
    out.insert(out.end(), covering.begin(), covering.end());
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
  for (int32_t word = (first + 1) / 64; word <= last / 64 && first + 1 <= last; ++word) {
    uint64_t bits = has_start_[word];
    if (word == (first + 1) / 64) bits &= ~uint64_t{0} << ((first + 1) % 64);
    if (word == last / 64 && last % 64 != 63) bits &= (uint64_t{1} << (last % 64 + 1)) - 1;
    while (bits != 0) {
      const int32_t point = word * 64 + __builtin_ctzll(bits);
      bits &= bits - 1;
      const auto& starting = starting_at_[point];
      out.insert(out.end(), starting.begin(), starting.end());
    }
  }
}

void BestFitChunkIndex::Clear() {
  for (int32_t node : used_nodes_) covering_[node].clear();
  for (int32_t point : used_points_) {
    starting_at_[point].clear();
    has_start_[point / 64] = 0;
  }
  used_nodes_.clear();
  used_points_.clear();
}

}  // namespace hmo
