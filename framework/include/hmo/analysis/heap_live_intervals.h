#ifndef HMO_ANALYSIS_HEAP_LIVE_INTERVALS_H_
#define HMO_ANALYSIS_HEAP_LIVE_INTERVALS_H_

// HeapLiveIntervals: turns a heap event stream into live intervals the way
// XLA's GlobalDecreasingSizeBestFitHeap records it.
//
// Time is an event counter: every Alloc, ShareWith and Free of a non-empty
// buffer takes the next time step, so intervals are [alloc step, free step],
// both inclusive, and two buffers overlap exactly when one is allocated
// before the other is freed. A buffer of size 0 takes no time step and is
// placed at chunk (0, 0). ShareWith(b, s) records b as a colocation of s:
// b's interval does not need its own allocation, it takes the offset of the
// group of s (the "transitive colocations": the buffers that shared with s,
// those that shared with them, and so on).
//
// Misuse (an Alloc of a known buffer, a Free of an unknown one or with a
// different size, a double Free, a ShareWith with an unknown buffer) is kept
// as the first error and reported by status().

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "hmo/analysis/best_fit_placer.h"

namespace hmo {

template <typename BufferType>
class HeapLiveIntervals {
 public:
  struct Interval {
    BufferType buffer;
    int64_t size = 0;
    int64_t start = -1;
    int64_t end = -1;  // -1 until freed
    // Indices of the intervals that called ShareWith with this buffer.
    std::vector<int32_t> colocations;
    // False for a buffer that shares another's offset.
    bool need_allocation = true;
  };

  void Alloc(const BufferType& buffer, int64_t size) {
    if (size == 0) {
      AddZeroSize(buffer);
      return;
    }
    AddInterval(buffer, size, /*need_allocation=*/true);
  }

  void ShareWith(const BufferType& buffer, const BufferType& share_with, int64_t size) {
    if (size == 0) {
      AddZeroSize(buffer);
      return;
    }
    auto it = index_.find(share_with);
    if (it == index_.end()) {
      Fail(absl::FailedPreconditionError(
          absl::StrCat("ShareWith: buffer #", intervals_.size(),
                       " shares with a buffer that was never allocated")));
      return;
    }
    const int32_t target = it->second;
    if (AddInterval(buffer, size, /*need_allocation=*/false)) {
      intervals_[target].colocations.push_back(static_cast<int32_t>(intervals_.size() - 1));
    }
  }

  void Free(const BufferType& buffer, int64_t size) {
    if (size == 0) return;
    auto it = index_.find(buffer);
    if (it == index_.end()) {
      Fail(absl::FailedPreconditionError("Free of a buffer that was never allocated"));
      return;
    }
    Interval& interval = intervals_[it->second];
    if (interval.size != size) {
      Fail(absl::InvalidArgumentError(absl::StrCat("Free with size ", size, " of interval #",
                                                   it->second, " allocated with size ",
                                                   interval.size)));
      return;
    }
    if (interval.end != -1) {
      Fail(absl::FailedPreconditionError(
          absl::StrCat("Double Free of interval #", it->second)));
      return;
    }
    interval.end = current_time_++;
  }

  // Gives every buffer that was never freed an end time, in allocation order,
  // as if it were freed after the last event. (XLA leaves such intervals
  // ending at -1, which overlap nothing; treating them as live to the end is
  // the safe reading.)
  void CloseOpenIntervals() {
    for (Interval& interval : intervals_) {
      if (interval.end == -1) interval.end = current_time_++;
    }
  }

  // Indices of every interval transitively colocated with `index` (excluding
  // `index`), in discovery order (depth-first over `colocations`).
  std::vector<int32_t> TransitiveColocations(int32_t index) const {
    std::vector<int32_t> result;
    std::vector<int32_t> worklist = {index};
    while (!worklist.empty()) {
      const int32_t item = worklist.back();
      worklist.pop_back();
      for (int32_t colocated : intervals_[item].colocations) {
        // Colocation lists form a forest (each buffer shares at most once), so
        // no buffer is reached twice.
        result.push_back(colocated);
        worklist.push_back(colocated);
      }
    }
    return result;
  }

  // The largest size over `index` and its transitive colocations.
  int64_t GroupSize(int32_t index) const {
    int64_t size = intervals_[index].size;
    for (int32_t colocated : TransitiveColocations(index)) {
      size = std::max(size, intervals_[colocated].size);
    }
    return size;
  }

  // The lifetimes of `index` followed by those of its transitive colocations.
  std::vector<HeapTimeInterval> GroupLifetimes(int32_t index) const {
    std::vector<HeapTimeInterval> lifetimes = {
        {intervals_[index].start, intervals_[index].end}};
    for (int32_t colocated : TransitiveColocations(index)) {
      lifetimes.push_back({intervals_[colocated].start, intervals_[colocated].end});
    }
    return lifetimes;
  }

  const std::vector<Interval>& intervals() const { return intervals_; }
  std::vector<Interval>& mutable_intervals() { return intervals_; }
  const std::vector<BufferType>& zero_size_buffers() const { return zero_size_buffers_; }
  // The interval index of `buffer`, or -1 (also for size-0 buffers).
  int32_t IndexOf(const BufferType& buffer) const {
    auto it = index_.find(buffer);
    return it == index_.end() ? -1 : it->second;
  }
  int64_t current_time() const { return current_time_; }
  const absl::Status& status() const { return status_; }

 private:
  void Fail(absl::Status status) {
    if (status_.ok()) status_ = std::move(status);
  }

  void AddZeroSize(const BufferType& buffer) {
    if (index_.contains(buffer)) {
      Fail(absl::FailedPreconditionError("Alloc of a buffer that is already allocated"));
      return;
    }
    zero_size_buffers_.push_back(buffer);
  }

  bool AddInterval(const BufferType& buffer, int64_t size, bool need_allocation) {
    if (size < 0) {
      Fail(absl::InvalidArgumentError(absl::StrCat("Negative buffer size ", size)));
      return false;
    }
    const auto [it, inserted] = index_.emplace(buffer, static_cast<int32_t>(intervals_.size()));
    if (!inserted) {
      Fail(absl::FailedPreconditionError(
          absl::StrCat("Alloc of interval #", it->second, " which is already allocated")));
      return false;
    }
    Interval interval{buffer, size, current_time_++, -1, {}, need_allocation};
    intervals_.push_back(std::move(interval));
    return true;
  }

  std::vector<Interval> intervals_;
  absl::flat_hash_map<BufferType, int32_t> index_;
  std::vector<BufferType> zero_size_buffers_;
  int64_t current_time_ = 0;
  absl::Status status_;
};

}  // namespace hmo

#endif  // HMO_ANALYSIS_HEAP_LIVE_INTERVALS_H_
