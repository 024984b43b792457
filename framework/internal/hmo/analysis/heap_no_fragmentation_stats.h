#ifndef HMO_ANALYSIS_HEAP_NO_FRAGMENTATION_STATS_H_
#define HMO_ANALYSIS_HEAP_NO_FRAGMENTATION_STATS_H_

// NoFragmentationStatsHeap: the peak of bytes live at once, i.e. the heap size
// a perfect packer would reach for this event stream. It assigns no chunks.

#include <algorithm>
#include <cstdint>

#include "absl/status/statusor.h"
#include "hmo/analysis/heap_algorithm.h"

namespace hmo {

template <typename BufferType>
class NoFragmentationStatsHeap : public HeapAlgorithm<BufferType> {
 public:
  using Result = typename HeapAlgorithm<BufferType>::Result;

  // Adds `size` to the live bytes and updates the peak. ShareWith is the
  // inherited default (an Alloc), as in XLA: a shared buffer counts again.
  void Alloc(const BufferType& /*buffer*/, int64_t size) override {
    current_heap_size_ += size;
    max_heap_size_ = std::max(max_heap_size_, current_heap_size_);
  }

  void Free(const BufferType& /*buffer*/, int64_t size) override { current_heap_size_ -= size; }

  // One HeapResult-free result: heap_size = the peak, no heap_results.
  absl::StatusOr<Result> Finish() override {
    Result result;
    result.heap_size = max_heap_size_;
    return result;
  }

 private:
  int64_t current_heap_size_ = 0;
  int64_t max_heap_size_ = 0;
};

}  // namespace hmo

#endif  // HMO_ANALYSIS_HEAP_NO_FRAGMENTATION_STATS_H_
