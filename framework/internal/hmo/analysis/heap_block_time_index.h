#ifndef HMO_ANALYSIS_HEAP_BLOCK_TIME_INDEX_H_
#define HMO_ANALYSIS_HEAP_BLOCK_TIME_INDEX_H_

// HeapBlockTimeIndex: which blocks of a HeapPackingProblem are live during a
// time window, for the local searches that move blocks (peak repair, the
// packing improver). Lifetimes never change, so the index is built once: a
// segment tree over the lifetimes' start and end points where a block sits
// in the O(log P) nodes its lifetime covers (the nodes on the path to a
// point hold the blocks live there), plus the lifetimes sorted by start (the
// blocks starting inside a window). Size-0 blocks are left out.

#include <cstdint>
#include <utility>
#include <vector>

#include "hmo/analysis/heap_packing_problem.h"

namespace hmo {

class HeapBlockTimeIndex {
 public:
  explicit HeapBlockTimeIndex(const HeapPackingProblem& problem);

  // Appends the blocks with a lifetime sharing a time step with [start, end]
  // (inclusive). A block appears once per such lifetime, so blocks with
  // several lifetimes may repeat.
  void Append(int64_t start, int64_t end, std::vector<int32_t>& out) const;

  // The lifetimes' start and end points, sorted and unique.
  const std::vector<int64_t>& points() const { return points_; }

 private:
  int32_t Index(int64_t time) const;  // the first point >= time

  std::vector<int64_t> points_;
  int32_t size_ = 1;  // leaves (a power of two)
  std::vector<std::vector<int32_t>> covering_;
  std::vector<std::pair<int32_t, int32_t>> by_start_;  // (start point, block)
};

}  // namespace hmo

#endif  // HMO_ANALYSIS_HEAP_BLOCK_TIME_INDEX_H_
