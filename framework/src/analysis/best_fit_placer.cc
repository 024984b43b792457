#include "hmo/analysis/best_fit_placer.h"

#include <algorithm>

namespace hmo {

namespace {

using ByteRange = BestFitChunkIndex::ByteRange;

// Appends the union of the sorted, disjoint lists a and b, coalescing only
// overlapping ranges (as the sort-and-sweep this replaces did: touching ranges
// stay apart, which matters for a size-0 query).
void UnionInto(const ByteRange* a, const ByteRange* a_end, const ByteRange* b,
               const ByteRange* b_end, std::vector<ByteRange>& out) {
  const size_t first_out = out.size();
  auto push = [&out, first_out](const ByteRange& range) {
    if (out.size() > first_out && range.first < out.back().second) {
      out.back().second = std::max(out.back().second, range.second);
    } else {
      out.push_back(range);
    }
  };
  while (a != a_end && b != b_end) push(a->first <= b->first ? *a++ : *b++);
  while (a != a_end) push(*a++);
  while (b != b_end) push(*b++);
}

}  // namespace

void BestFitPlacer::CollectUsedRanges(absl::Span<const HeapTimeInterval> lifetimes) const {
  lists_.clear();
  for (const HeapTimeInterval& lifetime : lifetimes) {
    index_.AppendOccupiedLists(lifetime.start, lifetime.end, lists_);
  }
  if (lists_.size() <= 2) return;  // walked as they are
  used_ranges_.clear();
  run_bounds_.assign(1, 0);
  // The first level merges straight from the index's lists.
  for (size_t l = 0; l < lists_.size(); l += 2) {
    const absl::Span<const ByteRange> a = lists_[l];
    if (l + 1 < lists_.size()) {
      const absl::Span<const ByteRange> b = lists_[l + 1];
      UnionInto(a.data(), a.data() + a.size(), b.data(), b.data() + b.size(), used_ranges_);
    } else {
      used_ranges_.insert(used_ranges_.end(), a.begin(), a.end());
    }
    run_bounds_.push_back(used_ranges_.size());
  }
  // Bottom-up: merge runs 2i and 2i + 1 until two are left (MakeFreeGaps
  // merges those two as it walks them).
  while (run_bounds_.size() > 3) {
    merge_scratch_.clear();
    run_bounds_scratch_.assign(1, 0);
    const size_t runs = run_bounds_.size() - 1;
    for (size_t r = 0; r < runs; r += 2) {
      const ByteRange* a = used_ranges_.data() + run_bounds_[r];
      const ByteRange* a_end = used_ranges_.data() + run_bounds_[r + 1];
      if (r + 1 < runs) {
        UnionInto(a, a_end, a_end, used_ranges_.data() + run_bounds_[r + 2], merge_scratch_);
      } else {
        merge_scratch_.insert(merge_scratch_.end(), a, a_end);
      }
      run_bounds_scratch_.push_back(merge_scratch_.size());
    }
    used_ranges_.swap(merge_scratch_);
    run_bounds_.swap(run_bounds_scratch_);
  }
  lists_.assign(2, {});
  for (size_t r = 0; r + 1 < run_bounds_.size(); ++r) {
    lists_[r] = absl::Span<const ByteRange>(used_ranges_.data() + run_bounds_[r],
                                            run_bounds_[r + 1] - run_bounds_[r]);
  }
}

void BestFitPlacer::MakeFreeGaps(absl::Span<const HeapTimeInterval> lifetimes,
                                 int64_t size) const {
  CollectUsedRanges(lifetimes);
  // At most two sorted lists are left; walk their merge in offset order. The
  // walk needs no coalescing: a range overlapping an earlier one starts below
  // free_start, so it opens no gap and only moves free_start up, exactly as
  // the coalesced run would.
  free_gaps_.clear();
  int64_t free_start = 0;
  const auto visit = [&](const ByteRange& range) {
    if (range.first - free_start >= size) free_gaps_.emplace_back(free_start, range.first);
    free_start = std::max(free_start, AlignUp(range.second));
  };
  const absl::Span<const ByteRange> none;
  const absl::Span<const ByteRange> first = lists_.empty() ? none : lists_[0];
  const absl::Span<const ByteRange> second = lists_.size() < 2 ? none : lists_[1];
  const ByteRange *a = first.data(), *a_end = a + first.size();
  const ByteRange *b = second.data(), *b_end = b + second.size();
  while (a != a_end && b != b_end) visit(a->first <= b->first ? *a++ : *b++);
  for (; a != a_end; ++a) visit(*a);
  for (; b != b_end; ++b) visit(*b);
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
