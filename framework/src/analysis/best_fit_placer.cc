#include "hmo/analysis/best_fit_placer.h"

#include <algorithm>

namespace hmo {

void BestFitPlacer::MakeFreeGaps(absl::Span<const HeapTimeInterval> lifetimes,
                                 int64_t size) const {
  used_ranges_.clear();
  for (const HeapTimeInterval& lifetime : lifetimes) {
    index_.AppendOccupied(lifetime.start, lifetime.end, used_ranges_);
  }
  std::sort(used_ranges_.begin(), used_ranges_.end());
  free_gaps_.clear();
  int64_t free_start = 0;
  if (!used_ranges_.empty()) {
    int64_t run_offset = used_ranges_[0].first;
    int64_t run_end = used_ranges_[0].second;
    for (size_t i = 1; i < used_ranges_.size(); ++i) {
      const auto& [offset, end] = used_ranges_[i];
      if (offset < run_end) {
        run_end = std::max(run_end, end);
        continue;
      }
      if (run_offset - free_start >= size) free_gaps_.emplace_back(free_start, run_offset);
      free_start = std::max(free_start, AlignUp(run_end));
      run_offset = offset;
      run_end = end;
    }
    if (run_offset - free_start >= size) free_gaps_.emplace_back(free_start, run_offset);
    free_start = std::max(free_start, AlignUp(run_end));
  }
  free_gaps_.emplace_back(free_start, std::numeric_limits<int64_t>::max());
}

int64_t BestFitPlacer::FindOffset(absl::Span<const HeapTimeInterval> lifetimes, int64_t size,
                                  int64_t group_size, int64_t preferred_offset) const {
  MakeFreeGaps(lifetimes, size);
  if (preferred_offset >= 0 && preferred_offset % alignment_ == 0) {
    // The gap with the largest start <= preferred_offset.
    auto it = std::upper_bound(
        free_gaps_.begin(), free_gaps_.end(), preferred_offset,
        [](int64_t offset, const std::pair<int64_t, int64_t>& gap) { return offset < gap.first; });
    if (it != free_gaps_.begin()) {
      const auto& gap = *std::prev(it);
      if (preferred_offset < gap.second && gap.second - group_size >= preferred_offset) {
        return preferred_offset;
      }
    }
  }
  int64_t best_offset = -1;
  int64_t best_gap_size = 0;
  for (const auto& [gap_start, gap_end] : free_gaps_) {
    int64_t aligned_start = gap_start;
    if (aligned_start % alignment_ != 0) aligned_start += alignment_ - aligned_start % alignment_;
    if (gap_end - group_size < aligned_start) continue;
    if (placement_ == ChunkPlacement::kLowestOffset) return aligned_start;
    const int64_t gap_size = gap_end - gap_start;
    if (best_offset < 0 || gap_size < best_gap_size) {
      best_offset = aligned_start;
      best_gap_size = gap_size;
    }
  }
  return best_offset;
}

void BestFitPlacer::Commit(absl::Span<const HeapTimeInterval> lifetimes, const HeapChunk& chunk) {
  if (chunk.size == 0) return;
  for (const HeapTimeInterval& lifetime : lifetimes) index_.Add(lifetime.start, lifetime.end, chunk);
}

}  // namespace hmo
