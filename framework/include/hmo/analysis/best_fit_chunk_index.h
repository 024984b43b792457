#ifndef HMO_ANALYSIS_BEST_FIT_CHUNK_INDEX_H_
#define HMO_ANALYSIS_BEST_FIT_CHUNK_INDEX_H_

// BestFitChunkIndex: the bytes occupied by the chunks placed so far, indexed
// by the chunks' (inclusive) time intervals, answering "which bytes are used
// at some time step of [start, end]" for best-fit placement.
//
// Best fit only needs the union of the byte ranges of the chunks that
// overlap the queried window, not the chunks themselves; in a packed heap
// that union is a handful of ranges even when thousands of chunks overlap.
// Two segment trees over the time points keep merged byte-range unions:
//  * `covering`: a chunk is added to the O(log P) nodes whose point ranges
//    its interval covers; the nodes on the path to point p hold exactly the
//    chunks live at p;
//  * `starting`: a chunk is added to every node on the path to its start
//    point; a node holds the chunks starting in its point range.
// A window [s, e] is the chunks live at s plus those starting in (s, e]: the
// path of s in `covering` and the O(log P) canonical nodes of (s, e] in
// `starting`. Adding a chunk and querying are O(log P) node visits, each
// touching a few merged ranges.
//
// The time points are fixed at construction: every interval added must start
// and end at one of them; queries may use any times.

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "hmo/analysis/heap_chunk.h"

namespace hmo {

class BestFitChunkIndex {
 public:
  // A byte range [first, second).
  using ByteRange = std::pair<int64_t, int64_t>;

  // `points` need not be sorted or unique.
  explicit BestFitChunkIndex(std::vector<int64_t> points);

  // Adds `chunk` (size > 0) live during [start, end]; both must be
  // construction points.
  void Add(int64_t start, int64_t end, const HeapChunk& chunk);

  // Appends byte ranges whose union is exactly the bytes of the chunks that
  // share a time step with [start, end]. The ranges are unsorted and may
  // overlap.
  void AppendOccupied(int64_t start, int64_t end, std::vector<ByteRange>& out) const;

  // The same bytes as AppendOccupied, as views of the index's own lists: each
  // appended list is sorted by offset, its ranges disjoint and not touching;
  // lists may overlap one another. Empty lists are skipped. The views stay
  // valid until the next Add or Clear.
  void AppendOccupiedLists(int64_t start, int64_t end,
                           std::vector<absl::Span<const ByteRange>>& out) const;

  // Removes every chunk; keeps the points.
  void Clear();

 private:
  // Sorted, disjoint, non-touching byte ranges.
  using RangeSet = std::vector<ByteRange>;
  static void Insert(RangeSet& set, ByteRange range);

  int32_t PointIndex(int64_t time) const;  // the exact point
  // Calls visit(set) for the path of the first point >= start in
  // `covering` and the canonical `starting` nodes of the later points <= end.
  template <typename Visit>
  void VisitOccupied(int64_t start, int64_t end, Visit visit) const;
  void Touch(int32_t node);

  std::vector<int64_t> points_;
  int32_t size_ = 0;  // leaves (a power of two)
  std::vector<RangeSet> covering_;
  std::vector<RangeSet> starting_;
  std::vector<char> touched_;
  std::vector<int32_t> touched_nodes_;
};

}  // namespace hmo

#endif  // HMO_ANALYSIS_BEST_FIT_CHUNK_INDEX_H_
