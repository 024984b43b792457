#ifndef HMO_ANALYSIS_BEST_FIT_CONSTRAINED_HEAP_H_
#define HMO_ANALYSIS_BEST_FIT_CONSTRAINED_HEAP_H_

// ConstrainedGlobalDecreasingSizeBestFitHeap: best-fit packing into several
// heaps, each kept under a size limit (XLA's constrained heap).
//
//   while buffers remain:
//     open a new, empty heap
//     for each remaining buffer in the strategy's sorted order:
//       find its best-fit chunk in this heap
//       place it if the chunk ends within size_limit_per_heap, or if the heap
//       is still empty (the limit is soft: a buffer larger than the limit gets
//       a heap of its own); otherwise leave it for a later heap
//
// heap_size is the sum of the heaps' sizes; there is one HeapResult per heap
// (always at least one). Intervals that share another's offset are placed
// with their group and skipped in the walk.
//
// kFastMerge replaces the interval-tree search by a sweep in start-time order
// over a FreeChunksManager ("just large enough" free range, aligned), freeing a
// range once the group that used it has ended (end <= the next start).
// kFastSplit places the first 500 colocation-free buffers (in kSpatial order)
// and every buffer with colocations by the interval-tree pass, reserves
// [0, largest end of that pass) and sweeps the rest in start-time order.

#include <cstdint>
#include <limits>
#include <list>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hmo/analysis/best_fit_heap.h"
#include "hmo/analysis/heap_free_chunks_manager.h"
#include "hmo/base/status_macros.h"

namespace hmo {

template <typename BufferType>
class ConstrainedGlobalDecreasingSizeBestFitHeap
    : public GlobalDecreasingSizeBestFitHeap<BufferType> {
  using Base = GlobalDecreasingSizeBestFitHeap<BufferType>;

 public:
  using Result = typename Base::Result;
  using BufferInterval = typename Base::BufferInterval;
  using BufferIntervalCompare = typename Base::BufferIntervalCompare;

  // The most buffers without colocations kFastSplit places by the interval
  // tree before it switches to the start-time sweep.
  static constexpr int64_t kMaxBuffersWithoutColocationsInExpensivePass = 500;

  // `size_limit_per_heap` is a soft limit on each heap's size; pass
  // std::numeric_limits<uint64_t>::max() for a single unconstrained heap.
  ConstrainedGlobalDecreasingSizeBestFitHeap(
      uint64_t size_limit_per_heap, int64_t alignment,
      PackingStrategy strategy = PackingStrategy::kSpatial,
      BufferIntervalCompare custom_compare = nullptr,
      ChunkPlacement placement = ChunkPlacement::kBestFit,
      BufferOrder<BufferType> buffer_order = DefaultBufferOrder<BufferType>())
      : Base(alignment, strategy, std::move(custom_compare), placement, std::move(buffer_order)),
        size_limit_per_heap_(size_limit_per_heap) {}

  absl::StatusOr<Result> Finish() override {
    HMO_RETURN_IF_ERROR(this->PrepareForPlacement());
    switch (this->strategy()) {
      case PackingStrategy::kFastMerge:
        return FinishFastMerge();
      case PackingStrategy::kFastSplit:
        return FinishFastSplit();
      default:
        return FinishByIntervalTree();
    }
  }

 private:
  bool FitsInCurrentHeap(const HeapChunk& chunk) const {
    return static_cast<uint64_t>(chunk.chunk_end()) <= size_limit_per_heap_ ||
           this->current_heap().heap_size == 0;
  }

  // Moves the current heap into `result` and starts a new one.
  void CloseHeap(Result& result) {
    HeapResult<BufferType> heap = this->TakeHeap();
    result.heap_size += heap.heap_size;
    result.heap_results.push_back(std::move(heap));
  }

  // Places as many of `pending` as fit into the current heap by the interval
  // tree, removing them from the list. Returns the largest chunk end placed.
  int64_t AllocateInSingleHeap(std::list<BufferInterval>& pending) {
    int64_t max_end = 0;
    for (auto it = pending.begin(); it != pending.end();) {
      const HeapChunk chunk = this->FindChunkCandidate(*it);
      if (FitsInCurrentHeap(chunk)) {
        max_end = std::max(max_end, chunk.chunk_end());
        this->CommitChunkAndInterval(*it, chunk);
        it = pending.erase(it);
      } else {
        ++it;
      }
    }
    return max_end;
  }

  // Places as many of `pending` (sorted by colocation start time) as fit into
  // the current heap by a start-time sweep over `free_chunks`.
  absl::Status AllocateSortedByTimeInSingleHeap(std::list<BufferInterval>& pending,
                                                FreeChunksManager& free_chunks) {
    // (end time, offset, end offset) of ranges to free once the sweep passes.
    std::set<std::tuple<int64_t, int64_t, int64_t>> to_free;
    for (auto it = pending.begin(); it != pending.end();) {
      const int64_t group_size = this->GroupSize(*it);
      while (!to_free.empty() && std::get<0>(*to_free.begin()) <= it->min_colocation_start_time) {
        free_chunks.Deallocate(std::get<1>(*to_free.begin()), std::get<2>(*to_free.begin()));
        to_free.erase(to_free.begin());
      }
      const std::optional<FreeChunksManager::MemoryChunk> free =
          free_chunks.FindJustLargeEnough(group_size);
      if (!free.has_value()) {
        return absl::ResourceExhaustedError("No free chunk in an unbounded heap");
      }
      const int64_t chunk_end = free->aligned_offset + group_size;
      const HeapChunk chunk = HeapChunk::FromOffsetEnd(free->aligned_offset, chunk_end);
      if (FitsInCurrentHeap(chunk)) {
        // The unaligned head of the free range is allocated too, as in XLA.
        HMO_RETURN_IF_ERROR(free_chunks.Allocate(free->offset, chunk_end));
        to_free.emplace(it->max_colocation_end_time, free->offset, chunk_end);
        this->CommitChunkOnly(*it, chunk);
        it = pending.erase(it);
      } else {
        ++it;
      }
    }
    return absl::OkStatus();
  }

  // The sorted intervals that need an allocation (size-0 buffers are already
  // mapped to (0, 0) and recorded no interval).
  std::list<BufferInterval> SortedToAllocate() const {
    std::list<BufferInterval> pending;
    for (BufferInterval& interval : this->GetSortedBufferIntervals()) {
      if (interval.need_allocation && interval.size > 0) pending.push_back(std::move(interval));
    }
    return pending;
  }

  absl::StatusOr<Result> FinishByIntervalTree() {
    std::list<BufferInterval> pending = SortedToAllocate();
    Result result;
    do {
      AllocateInSingleHeap(pending);
      CloseHeap(result);
    } while (!pending.empty());
    return result;
  }

  FreeChunksManager NewFreeChunks() const {
    const int64_t alignment = this->alignment();
    return FreeChunksManager(
        [alignment](int64_t offset) { return AlignHeapOffsetUp(offset, alignment); });
  }

  absl::StatusOr<Result> FinishFastMerge() {
    std::list<BufferInterval> pending = SortedToAllocate();
    Result result;
    do {
      FreeChunksManager free_chunks = NewFreeChunks();
      HMO_RETURN_IF_ERROR(AllocateSortedByTimeInSingleHeap(pending, free_chunks));
      CloseHeap(result);
    } while (!pending.empty());
    return result;
  }

  absl::StatusOr<Result> FinishFastSplit() {
    std::list<BufferInterval> expensive;
    std::vector<BufferInterval> fast;
    int64_t colocation_free_in_expensive = 0;
    for (BufferInterval& interval : SortedToAllocate()) {
      const bool has_colocations = this->HasColocations(interval);
      if (!has_colocations &&
          colocation_free_in_expensive >= kMaxBuffersWithoutColocationsInExpensivePass) {
        fast.push_back(std::move(interval));
      } else {
        colocation_free_in_expensive += has_colocations ? 0 : 1;
        expensive.push_back(std::move(interval));
      }
    }
    const BufferIntervalCompare by_start = this->MakeCompare(PackingStrategy::kFastMerge);
    std::sort(fast.begin(), fast.end(), by_start);
    std::list<BufferInterval> fast_pending(fast.begin(), fast.end());
    Result result;
    do {
      FreeChunksManager free_chunks = NewFreeChunks();
      const int64_t phase_one_end = AllocateInSingleHeap(expensive);
      if (phase_one_end > 0) HMO_RETURN_IF_ERROR(free_chunks.Allocate(0, phase_one_end));
      HMO_RETURN_IF_ERROR(AllocateSortedByTimeInSingleHeap(fast_pending, free_chunks));
      CloseHeap(result);
    } while (!expensive.empty() || !fast_pending.empty());
    return result;
  }

  uint64_t size_limit_per_heap_;
};

}  // namespace hmo

#endif  // HMO_ANALYSIS_BEST_FIT_CONSTRAINED_HEAP_H_
