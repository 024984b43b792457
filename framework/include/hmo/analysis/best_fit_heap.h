#ifndef HMO_ANALYSIS_BEST_FIT_HEAP_H_
#define HMO_ANALYSIS_BEST_FIT_HEAP_H_

// GlobalDecreasingSizeBestFitHeap: XLA's default heap packer, reproduced
// decision for decision.
//
// It records every buffer's live interval (HeapLiveIntervals: event-counter
// time, colocations from ShareWith), then at Finish sorts the intervals that
// need an allocation by the packing strategy's key and places them one by
// one at the free gap BestFitPlacer picks, for the buffer and all of its
// transitive colocations at once, with the largest size in the group.
//
// Sort keys (all ascending; `buffer` is the BufferOrder, XLA's HloValue id):
//   kSpatial, kFastSplit : (-size, start - end, buffer)
//   kTemporal            : (min_colocation_start - max_colocation_end, -size, buffer)
//   kFastMerge, kPhaseWindow : (min_colocation_start, -size, buffer)
//   kPhaseWindowEnd      : (max_colocation_end, -size, buffer)
//   kSpatialTemporal     : colocation_size * colocation_live_duration
//                          descending (128-bit), then buffer
//   kCustom              : the caller's BufferIntervalCompare
// where min_colocation_start / max_colocation_end span the buffer and its
// transitive colocations, colocation_size is their largest size and
// colocation_live_duration the number of time steps in the union of their
// inclusive intervals.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "hmo/analysis/best_fit_placer.h"
#include "hmo/analysis/heap_algorithm.h"
#include "hmo/analysis/heap_live_intervals.h"
#include "hmo/base/status_macros.h"

namespace hmo {

// The order in which GlobalDecreasingSizeBestFitHeap places buffers (XLA's
// PackingStrategy; kFastMerge and kFastSplit only change the algorithm in the
// constrained heap).
enum class PackingStrategy {
  kSpatial,
  kTemporal,
  kCustom,
  kFastMerge,
  kFastSplit,
  kPhaseWindow,
  kPhaseWindowEnd,
  kSpatialTemporal,
};

template <typename BufferType>
class GlobalDecreasingSizeBestFitHeap : public HeapAlgorithm<BufferType> {
 public:
  using Result = typename HeapAlgorithm<BufferType>::Result;

  // One buffer's interval plus the colocation facts the sort keys use.
  struct BufferInterval {
    BufferType buffer;
    int64_t size = 0;
    int64_t start = -1;
    int64_t end = -1;  // inclusive
    bool need_allocation = true;
    // Index of this interval in recorded order (see live_intervals()).
    int32_t index = -1;
    int64_t min_colocation_start_time = -1;
    int64_t max_colocation_end_time = -1;
    int64_t colocation_size = 0;           // kSpatialTemporal only
    int64_t colocation_live_duration = 0;  // kSpatialTemporal only
  };
  using BufferIntervalCompare = std::function<bool(const BufferInterval&, const BufferInterval&)>;

  // `alignment` must be positive (any value, not only powers of two).
  // `custom_compare` is required for kCustom and must be null otherwise.
  // `buffer_order` breaks ties between buffers (see BufferOrder).
  explicit GlobalDecreasingSizeBestFitHeap(
      int64_t alignment, PackingStrategy strategy = PackingStrategy::kSpatial,
      BufferIntervalCompare custom_compare = nullptr,
      ChunkPlacement placement = ChunkPlacement::kBestFit,
      BufferOrder<BufferType> buffer_order = DefaultBufferOrder<BufferType>())
      : alignment_(alignment > 0 ? alignment : 1),
        placement_(placement),
        strategy_(strategy),
        buffer_order_(std::move(buffer_order)) {
    if (alignment <= 0) {
      config_status_ = absl::InvalidArgumentError(
          absl::StrCat("Alignment (", alignment, ") must be positive."));
    }
    if ((strategy == PackingStrategy::kCustom) != (custom_compare != nullptr)) {
      config_status_ = absl::InvalidArgumentError(
          "A custom buffer interval compare is required for kCustom and only for it");
    }
    compare_ = strategy == PackingStrategy::kCustom ? std::move(custom_compare)
                                                    : MakeCompare(strategy);
  }

  void Alloc(const BufferType& buffer, int64_t size) override {
    intervals_.Alloc(buffer, size);
  }
  void ShareWith(const BufferType& buffer, const BufferType& share_with,
                 int64_t size) override {
    intervals_.ShareWith(buffer, share_with, size);
  }
  void Free(const BufferType& buffer, int64_t size) override { intervals_.Free(buffer, size); }

  // Places every interval that needs an allocation in sorted order; returns
  // one HeapResult.
  absl::StatusOr<Result> Finish() override {
    HMO_RETURN_IF_ERROR(PrepareForPlacement());
    for (const BufferInterval& interval : GetSortedBufferIntervals()) {
      if (!interval.need_allocation) continue;
      CommitChunkAndInterval(interval, FindChunkCandidate(interval));
    }
    Result result;
    result.heap_size = result_.heap_size;
    result.heap_results.push_back(std::move(result_));
    result_ = {};
    return result;
  }

  // --- Building blocks, public for subclasses and tests. ---

  // Checks the configuration and the event stream, closes intervals never
  // freed, maps the size-0 buffers to chunk (0, 0) and sets up placement.
  // Finish calls it; FindChunkCandidate and the Commit methods need it.
  absl::Status PrepareForPlacement() {
    HMO_RETURN_IF_ERROR(config_status_);
    HMO_RETURN_IF_ERROR(intervals_.status());
    intervals_.CloseOpenIntervals();
    std::vector<int64_t> time_points;
    for (const auto& interval : intervals_.intervals()) {
      time_points.push_back(interval.start);
      time_points.push_back(interval.end);
    }
    placer_.emplace(alignment_, placement_, std::move(time_points));
    for (const BufferType& buffer : intervals_.zero_size_buffers()) {
      result_.chunk_map.emplace(buffer, HeapChunk::FromOffsetSize(0, 0));
    }
    return absl::OkStatus();
  }

  // Every recorded interval (also those sharing an offset), with the
  // colocation facts filled in, sorted by the strategy's key.
  std::vector<BufferInterval> GetSortedBufferIntervals() const {
    const auto& recorded = intervals_.intervals();
    std::vector<BufferInterval> sorted;
    sorted.reserve(recorded.size());
    const bool by_area = strategy_ == PackingStrategy::kSpatialTemporal;
    std::vector<std::pair<int64_t, int64_t>> lives;
    for (int32_t i = 0; i < static_cast<int32_t>(recorded.size()); ++i) {
      const auto& r = recorded[i];
      BufferInterval interval{r.buffer, r.size, r.start, r.end, r.need_allocation, i,
                              r.start,  r.end,  r.size,  0};
      lives.assign(1, {r.start, r.end});
      for (int32_t c : intervals_.TransitiveColocations(i)) {
        const auto& colocated = recorded[c];
        interval.min_colocation_start_time =
            std::min(interval.min_colocation_start_time, colocated.start);
        interval.max_colocation_end_time =
            std::max(interval.max_colocation_end_time, colocated.end);
        interval.colocation_size = std::max(interval.colocation_size, colocated.size);
        lives.emplace_back(colocated.start, colocated.end);
      }
      if (by_area) {
        // Time steps in the union of the inclusive intervals.
        std::sort(lives.begin(), lives.end());
        int64_t covered_until = -1;
        for (const auto& [start, end] : lives) {
          interval.colocation_live_duration +=
              std::max<int64_t>(0, end - std::max(start - 1, covered_until));
          covered_until = std::max(covered_until, end);
        }
      }
      sorted.push_back(std::move(interval));
    }
    std::sort(sorted.begin(), sorted.end(), compare_);
    return sorted;
  }

  // The chunk XLA's FindChunkCandidate returns for `interval` (its own size at
  // the chosen offset). `preferred_offset` < 0 means none.
  HeapChunk FindChunkCandidate(const BufferInterval& interval,
                               int64_t preferred_offset = -1) const {
    const std::vector<HeapTimeInterval> lifetimes = intervals_.GroupLifetimes(interval.index);
    const int64_t offset = placer_->FindOffset(lifetimes, interval.size,
                                              intervals_.GroupSize(interval.index),
                                              preferred_offset);
    return HeapChunk::FromOffsetSize(offset, interval.size);
  }

  // Assigns the group's chunk (chunk.offset, largest size in the group) to
  // the buffer and its transitive colocations and grows the heap size, without
  // recording the chunk for later placement queries.
  void CommitChunkOnly(const BufferInterval& interval, const HeapChunk& chunk) {
    const HeapChunk group_chunk =
        HeapChunk::FromOffsetSize(chunk.offset, intervals_.GroupSize(interval.index));
    result_.heap_size = result_.UpdatedHeapSize(group_chunk);
    const auto& recorded = intervals_.intervals();
    for (int32_t c : intervals_.TransitiveColocations(interval.index)) {
      result_.chunk_map.emplace(recorded[c].buffer, group_chunk);
    }
    result_.chunk_map.emplace(interval.buffer, group_chunk);
  }

  // CommitChunkOnly, and records the group's chunk over every lifetime of the
  // group so later placements avoid it.
  void CommitChunkAndInterval(const BufferInterval& interval, const HeapChunk& chunk) {
    CommitChunkOnly(interval, chunk);
    const HeapChunk group_chunk =
        HeapChunk::FromOffsetSize(chunk.offset, intervals_.GroupSize(interval.index));
    placer_->Commit(intervals_.GroupLifetimes(interval.index), group_chunk);
  }

  const HeapLiveIntervals<BufferType>& live_intervals() const { return intervals_; }
  const HeapResult<BufferType>& current_heap() const { return result_; }
  int64_t alignment() const { return alignment_; }
  PackingStrategy strategy() const { return strategy_; }

 protected:
  // Starts a new, empty heap: no chunks, no placed intervals.
  void ResetHeap() {
    result_ = {};
    if (placer_.has_value()) placer_->Clear();
  }
  HeapResult<BufferType> TakeHeap() {
    HeapResult<BufferType> heap = std::move(result_);
    ResetHeap();
    return heap;
  }
  int64_t GroupSize(const BufferInterval& interval) const {
    return intervals_.GroupSize(interval.index);
  }
  bool HasColocations(const BufferInterval& interval) const {
    return !intervals_.intervals()[interval.index].colocations.empty();
  }

  // The key order of `strategy` (never kCustom).
  BufferIntervalCompare MakeCompare(PackingStrategy strategy) const {
    const BufferOrder<BufferType>& order = buffer_order_;
    // Compares (a_key, b_key) lexicographically, then the buffers.
    auto by = [order](auto key) {
      return [order, key](const BufferInterval& a, const BufferInterval& b) {
        const auto ka = key(a);
        const auto kb = key(b);
        if (ka != kb) return ka < kb;
        return order(a.buffer, b.buffer);
      };
    };
    switch (strategy) {
      case PackingStrategy::kTemporal:
        return by([](const BufferInterval& x) {
          return std::make_pair(x.min_colocation_start_time - x.max_colocation_end_time, -x.size);
        });
      case PackingStrategy::kFastMerge:
      case PackingStrategy::kPhaseWindow:
        return by([](const BufferInterval& x) {
          return std::make_pair(x.min_colocation_start_time, -x.size);
        });
      case PackingStrategy::kPhaseWindowEnd:
        return by([](const BufferInterval& x) {
          return std::make_pair(x.max_colocation_end_time, -x.size);
        });
      case PackingStrategy::kSpatialTemporal:
        return [order](const BufferInterval& a, const BufferInterval& b) {
          const unsigned __int128 area_a = static_cast<unsigned __int128>(a.colocation_size) *
                                           static_cast<uint64_t>(a.colocation_live_duration);
          const unsigned __int128 area_b = static_cast<unsigned __int128>(b.colocation_size) *
                                           static_cast<uint64_t>(b.colocation_live_duration);
          if (area_a != area_b) return area_a > area_b;
          return order(a.buffer, b.buffer);
        };
      case PackingStrategy::kSpatial:
      case PackingStrategy::kFastSplit:
      case PackingStrategy::kCustom:
      default:
        return by([](const BufferInterval& x) { return std::make_pair(-x.size, x.start - x.end); });
    }
  }

  HeapLiveIntervals<BufferType> intervals_;
  HeapResult<BufferType> result_;
  int64_t alignment_;
  ChunkPlacement placement_;
  std::optional<BestFitPlacer> placer_;  // set by PrepareForPlacement
  PackingStrategy strategy_;
  BufferOrder<BufferType> buffer_order_;
  BufferIntervalCompare compare_;
  absl::Status config_status_;
};

}  // namespace hmo

#endif  // HMO_ANALYSIS_BEST_FIT_HEAP_H_
