#ifndef HMO_ANALYSIS_HEAP_ALGORITHM_WITH_FALLBACK_H_
#define HMO_ANALYSIS_HEAP_ALGORITHM_WITH_FALLBACK_H_

// HeapAlgorithmWithFallback: runs a primary heap algorithm and, when it fails
// with RESOURCE_EXHAUSTED or its heap exceeds a memory limit, replays the
// recorded events into a fallback built on demand and returns that result.

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hmo/analysis/heap_algorithm.h"
#include "hmo/analysis/heap_event_log.h"

namespace hmo {

template <typename BufferType>
class HeapAlgorithmWithFallback : public HeapAlgorithm<BufferType> {
 public:
  using Result = typename HeapAlgorithm<BufferType>::Result;
  using Factory = std::function<std::unique_ptr<HeapAlgorithm<BufferType>>()>;

  // `memory_limit` <= 0 means no limit (only RESOURCE_EXHAUSTED falls back).
  HeapAlgorithmWithFallback(std::unique_ptr<HeapAlgorithm<BufferType>> primary,
                            Factory fallback_factory, int64_t memory_limit)
      : primary_(std::move(primary)),
        fallback_factory_(std::move(fallback_factory)),
        memory_limit_(memory_limit) {}

  void Alloc(const BufferType& buffer, int64_t size) override {
    primary_->Alloc(buffer, size);
    log_.Alloc(buffer, size);
  }
  void ShareWith(const BufferType& buffer, const BufferType& share_with, int64_t size) override {
    primary_->ShareWith(buffer, share_with, size);
    log_.ShareWith(buffer, share_with, size);
  }
  void Free(const BufferType& buffer, int64_t size) override {
    primary_->Free(buffer, size);
    log_.Free(buffer, size);
  }

  // The primary's result, unless it is RESOURCE_EXHAUSTED or over the limit;
  // then the fallback's result (or error). Other primary errors are returned.
  absl::StatusOr<Result> Finish() override {
    absl::StatusOr<Result> primary_result = primary_->Finish();
    const bool exhausted = absl::IsResourceExhausted(primary_result.status());
    const bool over_limit =
        primary_result.ok() && memory_limit_ > 0 && primary_result->heap_size > memory_limit_;
    if (!exhausted && !over_limit) return primary_result;
    used_fallback_ = true;
    std::unique_ptr<HeapAlgorithm<BufferType>> fallback = fallback_factory_();
    log_.Replay(*fallback);
    return fallback->Finish();
  }

  // Whether Finish returned the fallback's answer.
  bool used_fallback() const { return used_fallback_; }

 private:
  std::unique_ptr<HeapAlgorithm<BufferType>> primary_;
  Factory fallback_factory_;
  int64_t memory_limit_;
  HeapEventLog<BufferType> log_;
  bool used_fallback_ = false;
};

}  // namespace hmo

#endif  // HMO_ANALYSIS_HEAP_ALGORITHM_WITH_FALLBACK_H_
