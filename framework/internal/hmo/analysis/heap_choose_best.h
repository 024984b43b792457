#ifndef HMO_ANALYSIS_HEAP_CHOOSE_BEST_H_
#define HMO_ANALYSIS_HEAP_CHOOSE_BEST_H_

// ChooseBestHeapAlgorithm runs several heap algorithms on the same events and
// keeps the smallest result; CreateHeapWithPackingSearch is XLA's six-way
// search built from it.

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hmo/analysis/best_fit_constrained_heap.h"
#include "hmo/analysis/heap_algorithm.h"
#include "hmo/base/status_macros.h"

namespace hmo {

template <typename BufferType>
class ChooseBestHeapAlgorithm : public HeapAlgorithm<BufferType> {
 public:
  using Result = typename HeapAlgorithm<BufferType>::Result;

  explicit ChooseBestHeapAlgorithm(
      std::vector<std::unique_ptr<HeapAlgorithm<BufferType>>> algorithms)
      : algorithms_(std::move(algorithms)) {}

  // Every event goes to every candidate.
  void Alloc(const BufferType& buffer, int64_t size) override {
    for (auto& algorithm : algorithms_) algorithm->Alloc(buffer, size);
  }
  void ShareWith(const BufferType& buffer, const BufferType& share_with, int64_t size) override {
    for (auto& algorithm : algorithms_) algorithm->ShareWith(buffer, share_with, size);
  }
  void Free(const BufferType& buffer, int64_t size) override {
    for (auto& algorithm : algorithms_) algorithm->Free(buffer, size);
  }

  // Finishes every candidate in order and returns the first result with the
  // strictly smallest heap_size. The first error of any candidate is
  // returned; no candidates is an InvalidArgument error.
  absl::StatusOr<Result> Finish() override {
    if (algorithms_.empty()) {
      return absl::InvalidArgumentError("ChooseBestHeapAlgorithm has no candidates");
    }
    std::optional<Result> best;
    for (size_t i = 0; i < algorithms_.size(); ++i) {
      HMO_ASSIGN_OR_RETURN(Result result, algorithms_[i]->Finish());
      if (!best.has_value() || result.heap_size < best->heap_size) {
        best = std::move(result);
        chosen_index_ = static_cast<int>(i);
      }
    }
    return std::move(*best);
  }

  // The index of the candidate Finish returned, or -1 before Finish.
  int chosen_index() const { return chosen_index_; }

 private:
  std::vector<std::unique_ptr<HeapAlgorithm<BufferType>>> algorithms_;
  int chosen_index_ = -1;
};

// XLA's packing search: six unconstrained ConstrainedGlobalDecreasingSize-
// BestFitHeaps, in this order: kBestFit x {kSpatial, kTemporal,
// kSpatialTemporal}, then kLowestOffset x the same three, the best chosen by
// ChooseBestHeapAlgorithm (so equal sizes keep the plain spatial result).
template <typename BufferType>
std::unique_ptr<HeapAlgorithm<BufferType>> CreateHeapWithPackingSearch(
    int64_t alignment, BufferOrder<BufferType> buffer_order = DefaultBufferOrder<BufferType>()) {
  std::vector<std::unique_ptr<HeapAlgorithm<BufferType>>> algorithms;
  for (ChunkPlacement placement : {ChunkPlacement::kBestFit, ChunkPlacement::kLowestOffset}) {
    for (PackingStrategy strategy : {PackingStrategy::kSpatial, PackingStrategy::kTemporal,
                                     PackingStrategy::kSpatialTemporal}) {
      algorithms.push_back(std::make_unique<ConstrainedGlobalDecreasingSizeBestFitHeap<BufferType>>(
          std::numeric_limits<uint64_t>::max(), alignment, strategy, nullptr, placement,
          buffer_order));
    }
  }
  return std::make_unique<ChooseBestHeapAlgorithm<BufferType>>(std::move(algorithms));
}

}  // namespace hmo

#endif  // HMO_ANALYSIS_HEAP_CHOOSE_BEST_H_
