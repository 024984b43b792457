#ifndef HMO_ANALYSIS_TIGHT_PACKING_HEAP_H_
#define HMO_ANALYSIS_TIGHT_PACKING_HEAP_H_

// TightPackingHeap: a heap algorithm that packs closer to the lower bound
// (the most bytes live at once) than XLA's best fit, and never worse.
//
// It records the events like GlobalDecreasingSizeBestFitHeap (so colocations
// from ShareWith share one offset with the group's largest size), runs XLA's
// kSpatial best fit on them, and hands that placement to SolveTightPacking
// (greedy orders, MiniMalloc-style exact search on small instances,
// squeaky-wheel repair). The solver's placement is returned only when it is
// strictly lower; otherwise the best-fit result is returned unchanged.
// Results are deterministic for given options unless a time limit is set.

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "hmo/analysis/best_fit_heap.h"
#include "hmo/analysis/heap_algorithm.h"
#include "hmo/analysis/heap_event_log.h"
#include "hmo/analysis/heap_live_intervals.h"
#include "hmo/analysis/heap_packing_problem.h"
#include "hmo/analysis/tight_packing_solver.h"
#include "hmo/base/status_macros.h"

namespace hmo {

template <typename BufferType>
class TightPackingHeap : public HeapAlgorithm<BufferType> {
 public:
  using Result = typename HeapAlgorithm<BufferType>::Result;

  // `alignment` must be positive. `buffer_order` breaks ties in the best-fit
  // baseline (see BufferOrder).
  explicit TightPackingHeap(int64_t alignment, TightPackingOptions options = {},
                            BufferOrder<BufferType> buffer_order = DefaultBufferOrder<BufferType>())
      : alignment_(alignment), options_(options), buffer_order_(std::move(buffer_order)) {}

  void Alloc(const BufferType& buffer, int64_t size) override {
    log_.Alloc(buffer, size);
    intervals_.Alloc(buffer, size);
  }
  void ShareWith(const BufferType& buffer, const BufferType& share_with,
                 int64_t size) override {
    log_.ShareWith(buffer, share_with, size);
    intervals_.ShareWith(buffer, share_with, size);
  }
  void Free(const BufferType& buffer, int64_t size) override {
    log_.Free(buffer, size);
    intervals_.Free(buffer, size);
  }

  absl::StatusOr<Result> Finish() override {
    GlobalDecreasingSizeBestFitHeap<BufferType> best_fit(
        alignment_, PackingStrategy::kSpatial, nullptr, ChunkPlacement::kBestFit, buffer_order_);
    log_.Replay(best_fit);
    HMO_ASSIGN_OR_RETURN(Result baseline, best_fit.Finish());
    intervals_.CloseOpenIntervals();

    // One block per share group, rooted at the interval that needed an
    // allocation.
    const auto& recorded = intervals_.intervals();
    HeapPackingProblem problem;
    problem.alignment = alignment_;
    std::vector<int32_t> roots;
    std::vector<int64_t> initial;
    const HeapResult<BufferType>& heap = baseline.heap_results.front();
    for (int32_t i = 0; i < static_cast<int32_t>(recorded.size()); ++i) {
      if (!recorded[i].need_allocation) continue;
      roots.push_back(i);
      problem.blocks.push_back({intervals_.GroupSize(i), intervals_.GroupLifetimes(i)});
      initial.push_back(heap.chunk_map.at(recorded[i].buffer).offset);
    }
    const std::vector<int64_t> offsets =
        SolveTightPacking(problem, std::move(initial), options_, &report_);
    if (report_.height >= baseline.heap_size) {
      report_.method = "best-fit";
      return baseline;
    }
    HeapResult<BufferType> packed;
    for (const BufferType& buffer : intervals_.zero_size_buffers()) {
      packed.chunk_map.emplace(buffer, HeapChunk::FromOffsetSize(0, 0));
    }
    for (size_t b = 0; b < roots.size(); ++b) {
      const HeapChunk chunk = HeapChunk::FromOffsetSize(offsets[b], problem.blocks[b].size);
      packed.chunk_map.emplace(recorded[roots[b]].buffer, chunk);
      for (int32_t c : intervals_.TransitiveColocations(roots[b])) {
        packed.chunk_map.emplace(recorded[c].buffer, chunk);
      }
      packed.heap_size = packed.UpdatedHeapSize(chunk);
    }
    Result result;
    result.heap_size = packed.heap_size;
    result.heap_results.push_back(std::move(packed));
    return result;
  }

  // What the last Finish did: bounds, heights, search effort, and which step
  // ("best-fit" when the baseline was kept) produced the answer.
  const TightPackingReport& report() const { return report_; }

 private:
  int64_t alignment_;
  TightPackingOptions options_;
  BufferOrder<BufferType> buffer_order_;
  HeapEventLog<BufferType> log_;
  HeapLiveIntervals<BufferType> intervals_;
  TightPackingReport report_;
};

}  // namespace hmo

#endif  // HMO_ANALYSIS_TIGHT_PACKING_HEAP_H_
