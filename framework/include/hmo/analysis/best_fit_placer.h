#ifndef HMO_ANALYSIS_BEST_FIT_PLACER_H_
#define HMO_ANALYSIS_BEST_FIT_PLACER_H_

// BestFitPlacer: the placement step of XLA's GlobalDecreasingSizeBestFitHeap,
// independent of the buffer type. It keeps the chunks placed so far in a
// BestFitChunkIndex and, for a new buffer (or group of colocated buffers
// that must share one offset), finds the free gap XLA would pick:
//
//  1. Collect the bytes of every placed chunk that overlaps in time (inclusive
//     ends) any of the group's lifetimes.
//  2. Merge them by offset, coalescing overlapping ones (XLA keeps touching
//     chunks apart, which picks the same gaps: the result depends only on the
//     union of the used bytes). Walking up from offset 0, each gap
//     [free_start, next_used_offset) is a candidate only if it is at least
//     `size` bytes (the size of the buffer being placed, not of the group);
//     after each used run, free_start moves to the run's end aligned up. The
//     last gap is [free_start, +inf).
//  3. A preferred offset (>= 0 and aligned) wins when some gap contains
//     [preferred, preferred + group_size).
//  4. Otherwise, over the gaps in ascending offset whose aligned start still
//     leaves room for group_size before the gap end: kLowestOffset takes the
//     first; kBestFit takes the gap with the strictly smallest (end - start),
//     so the lowest offset wins ties.

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "hmo/analysis/best_fit_chunk_index.h"
#include "hmo/analysis/heap_chunk.h"

namespace hmo {

// How a free gap is chosen among those that fit.
enum class ChunkPlacement {
  kBestFit,      // the smallest fitting gap, lowest offset on ties
  kLowestOffset  // the fitting gap with the lowest offset
};

// A live range in event-counter time, both ends inclusive.
struct HeapTimeInterval {
  int64_t start = 0;
  int64_t end = 0;
};

class BestFitPlacer {
 public:
  // `alignment` must be positive; it need not be a power of two.
  // `time_points` must contain the start and end of every lifetime that will
  // be committed (e.g. all lifetimes of the problem); queries may use any
  // times.
  BestFitPlacer(int64_t alignment, ChunkPlacement placement, std::vector<int64_t> time_points)
      : alignment_(alignment), placement_(placement), index_(std::move(time_points)) {}

  // The offset XLA's FindChunkCandidate returns for a buffer of `size` bytes
  // that, with its colocations, occupies `group_size` bytes during every
  // interval of `lifetimes` (the buffer's own first). `preferred_offset` < 0
  // means none. `size` > 0 gives exactly XLA's answer; the heaps never ask
  // for size 0 (such buffers get chunk (0, 0)), for which chunks that touch
  // may count as one run.
  int64_t FindOffset(absl::Span<const HeapTimeInterval> lifetimes, int64_t size,
                     int64_t group_size, int64_t preferred_offset = -1) const;

  // Records that the group occupies `chunk` during every interval of
  // `lifetimes`.
  void Commit(absl::Span<const HeapTimeInterval> lifetimes, const HeapChunk& chunk);

  // `value` rounded up to the alignment.
  int64_t AlignUp(int64_t value) const {
    return alignment_ == 1 ? value : AlignHeapOffsetUp(value, alignment_);
  }

  int64_t alignment() const { return alignment_; }
  ChunkPlacement placement() const { return placement_; }
  // Forgets every placed chunk.
  void Clear() { index_.Clear(); }

 private:
  // The free gaps (start, end) for a buffer of `size` bytes, ascending.
  void MakeFreeGaps(absl::Span<const HeapTimeInterval> lifetimes, int64_t size) const;
  // Leaves in lists_ at most two sorted lists whose union is the bytes used
  // during `lifetimes`: the index's lists are already sorted, so they are
  // merged pairwise (bottom-up, coalescing overlaps at every level, into
  // used_ranges_) instead of sorted from scratch; the last merge is left to
  // the walk in MakeFreeGaps.
  void CollectUsedRanges(absl::Span<const HeapTimeInterval> lifetimes) const;

  int64_t alignment_;
  ChunkPlacement placement_;
  BestFitChunkIndex index_;
  mutable std::vector<absl::Span<const BestFitChunkIndex::ByteRange>> lists_;
  mutable std::vector<BestFitChunkIndex::ByteRange> used_ranges_;
  mutable std::vector<BestFitChunkIndex::ByteRange> merge_scratch_;
  mutable std::vector<size_t> run_bounds_;
  mutable std::vector<size_t> run_bounds_scratch_;
  mutable std::vector<std::pair<int64_t, int64_t>> free_gaps_;
};

}  // namespace hmo

#endif  // HMO_ANALYSIS_BEST_FIT_PLACER_H_
