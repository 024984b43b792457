#ifndef HMO_ANALYSIS_BEST_FIT_CHUNK_INDEX_H_
#define HMO_ANALYSIS_BEST_FIT_CHUNK_INDEX_H_

// BestFitChunkIndex: the chunks placed so far, indexed by their (inclusive)
// time intervals, for the window queries of best-fit placement. Unlike
// BufferIntervalTree (a pointer-linked treap that supports removal), it keeps
// chunks in flat arrays: a segment tree over the time points, whose nodes hold
// the chunks covering them, answers "which chunks are live at time s" and a
// per-point list answers "which chunks start in (s, e]". A query costs
// O(log P + k) plus a bitset scan of the window, with sequential memory
// access, which matters when thousands of chunks overlap each query.
//
// The time points are fixed at construction: every interval added must start
// and end at one of them; queries may use any times.

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "hmo/analysis/heap_chunk.h"

namespace hmo {

class BestFitChunkIndex {
 public:
  // `points` need not be sorted or unique.
  explicit BestFitChunkIndex(std::vector<int64_t> points);

  // Adds `chunk` live during [start, end]; both must be construction points.
  void Add(int64_t start, int64_t end, const HeapChunk& chunk);

  // Appends to `out` every chunk whose interval shares a time step with
  // [start, end] (each once, in no particular order).
  void AppendOverlapping(int64_t start, int64_t end, std::vector<HeapChunk>& out) const;

  // Removes every chunk; keeps the points.
  void Clear();

 private:
  int32_t PointIndex(int64_t time) const;  // exact point
  void AddToTree(int32_t node, int32_t node_begin, int32_t node_end, int32_t begin, int32_t end,
                 const HeapChunk& chunk);

  std::vector<int64_t> points_;
  int32_t size_ = 0;  // leaves of the segment tree (a power of two)
  std::vector<std::vector<HeapChunk>> covering_;     // per tree node
  std::vector<std::vector<HeapChunk>> starting_at_;  // per point
  std::vector<uint64_t> has_start_;                  // bitset over points
  std::vector<int32_t> used_nodes_;                  // nodes/points to clear
  std::vector<int32_t> used_points_;
};

}  // namespace hmo

#endif  // HMO_ANALYSIS_BEST_FIT_CHUNK_INDEX_H_
