#ifndef HMO_ANALYSIS_HEAP_RESULT_VALIDATOR_H_
#define HMO_ANALYSIS_HEAP_RESULT_VALIDATOR_H_

// ValidateHeapSimulatorResult: checks that a heap algorithm's placement is
// usable for the event stream it was given:
//  * every buffer (size 0 included) has a chunk in exactly one heap, and no
//    heap maps a buffer that was never allocated;
//  * a chunk is at least as large as its buffer, at a non-negative offset that
//    is a multiple of `alignment` (size-0 buffers are exempt);
//  * a buffer that shared another's offset (ShareWith) has the same chunk, in
//    the same heap, as the buffer it shared with;
//  * within a heap, no two buffers of different share groups are live at the
//    same time step (HeapLiveIntervals' event-counter time) in overlapping
//    bytes;
//  * each heap's heap_size is its largest chunk end and the result's heap_size
//    is their sum.
// Returns the first violation as an Internal error.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "hmo/analysis/heap_event_log.h"
#include "hmo/analysis/heap_live_intervals.h"
#include "hmo/analysis/heap_packing_problem.h"
#include "hmo/analysis/heap_result.h"
#include "hmo/base/status_macros.h"

namespace hmo {

template <typename BufferType>
absl::Status ValidateHeapSimulatorResult(const HeapEventLog<BufferType>& events,
                                         const HeapSimulatorResult<BufferType>& result,
                                         int64_t alignment = 1) {
  // Rebuild the intervals with a recorder that sees the same events.
  struct Recorder : HeapAlgorithm<BufferType> {
    HeapLiveIntervals<BufferType> intervals;
    void Alloc(const BufferType& b, int64_t size) override { intervals.Alloc(b, size); }
    void Free(const BufferType& b, int64_t size) override { intervals.Free(b, size); }
    void ShareWith(const BufferType& b, const BufferType& s, int64_t size) override {
      intervals.ShareWith(b, s, size);
    }
    absl::StatusOr<HeapSimulatorResult<BufferType>> Finish() override {
      return HeapSimulatorResult<BufferType>{};
    }
  } recorder;
  events.Replay(recorder);
  HMO_RETURN_IF_ERROR(recorder.intervals.status());
  recorder.intervals.CloseOpenIntervals();
  const auto& intervals = recorder.intervals.intervals();

  // buffer -> (heap, chunk)
  struct Placement {
    size_t heap;
    HeapChunk chunk;
  };
  absl::flat_hash_map<BufferType, Placement> placement;
  int64_t heap_size_sum = 0;
  for (size_t h = 0; h < result.heap_results.size(); ++h) {
    const HeapResult<BufferType>& heap = result.heap_results[h];
    int64_t max_end = 0;
    for (const auto& [buffer, chunk] : heap.chunk_map) {
      if (!placement.emplace(buffer, Placement{h, chunk}).second) {
        return absl::InternalError(absl::StrCat("A buffer has chunks in two heaps (heap ", h, ")"));
      }
      max_end = std::max(max_end, chunk.chunk_end());
    }
    if (heap.heap_size != max_end) {
      return absl::InternalError(absl::StrCat("Heap ", h, " reports heap_size ", heap.heap_size,
                                              " but its largest chunk end is ", max_end));
    }
    heap_size_sum += heap.heap_size;
  }
  if (result.heap_size != heap_size_sum) {
    return absl::InternalError(absl::StrCat("heap_size ", result.heap_size,
                                            " is not the sum of the heaps' sizes ",
                                            heap_size_sum));
  }
  const size_t known = intervals.size() + recorder.intervals.zero_size_buffers().size();
  if (placement.size() != known) {
    return absl::InternalError(absl::StrCat(placement.size(), " buffers have chunks but ", known,
                                            " were allocated"));
  }
  for (const BufferType& buffer : recorder.intervals.zero_size_buffers()) {
    if (!placement.contains(buffer)) {
      return absl::InternalError("A size-0 buffer has no chunk");
    }
  }
  // Share groups: the root of every interval.
  std::vector<int32_t> parent(intervals.size(), -1);
  for (int32_t i = 0; i < static_cast<int32_t>(intervals.size()); ++i) {
    for (int32_t c : intervals[i].colocations) parent[c] = i;
  }
  std::vector<std::vector<PlacedLifetime>> placed_per_heap(result.heap_results.size());
  for (int32_t i = 0; i < static_cast<int32_t>(intervals.size()); ++i) {
    auto it = placement.find(intervals[i].buffer);
    if (it == placement.end()) {
      return absl::InternalError(absl::StrCat("Interval #", i, " has no chunk"));
    }
    const Placement& p = it->second;
    if (p.chunk.size < intervals[i].size || p.chunk.offset < 0 ||
        p.chunk.offset % alignment != 0) {
      return absl::InternalError(absl::StrCat("Interval #", i, " of size ", intervals[i].size,
                                              " has chunk ", p.chunk.ToString(),
                                              " (alignment ", alignment, ")"));
    }
    int32_t root = i;
    while (parent[root] >= 0) root = parent[root];
    if (root != i) {
      const Placement& root_placement = placement.at(intervals[root].buffer);
      if (root_placement.heap != p.heap || !(root_placement.chunk == p.chunk)) {
        return absl::InternalError(absl::StrCat("Interval #", i, " shares with #", root,
                                                " but has chunk ", p.chunk.ToString(), " vs ",
                                                root_placement.chunk.ToString()));
      }
    }
    placed_per_heap[p.heap].push_back(PlacedLifetime{intervals[i].start, intervals[i].end,
                                                     p.chunk.offset, p.chunk.size, root});
  }
  for (std::vector<PlacedLifetime>& placed : placed_per_heap) {
    HMO_RETURN_IF_ERROR(CheckNoOverlapInTimeAndSpace(std::move(placed)));
  }
  return absl::OkStatus();
}

}  // namespace hmo

#endif  // HMO_ANALYSIS_HEAP_RESULT_VALIDATOR_H_
