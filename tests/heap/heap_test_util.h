#ifndef HMO_TESTS_HEAP_HEAP_TEST_UTIL_H_
#define HMO_TESTS_HEAP_HEAP_TEST_UTIL_H_

// Helpers shared by the heap tests: an event script that records the events
// it sends so every result can be checked by ValidateHeapSimulatorResult.

#include <cstdint>
#include <random>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "hmo/analysis/heap_algorithm.h"
#include "hmo/analysis/heap_event_log.h"
#include "hmo/analysis/heap_packing_csv.h"
#include "hmo/analysis/heap_result_validator.h"

namespace hmo::testing {

// Buffers are plain ints (ordered by value, as XLA orders HloValues by id).
using Buffer = int;
using Result = HeapSimulatorResult<Buffer>;

// Records Alloc / Free / ShareWith calls and replays them into algorithms.
class EventScript {
 public:
  EventScript& Alloc(Buffer buffer, int64_t size) {
    log_.Alloc(buffer, size);
    return *this;
  }
  EventScript& Free(Buffer buffer, int64_t size) {
    log_.Free(buffer, size);
    return *this;
  }
  EventScript& ShareWith(Buffer buffer, Buffer share_with, int64_t size) {
    log_.ShareWith(buffer, share_with, size);
    return *this;
  }
  const HeapEventLog<Buffer>& log() const { return log_; }

 private:
  HeapEventLog<Buffer> log_;
};

// Replays `events` into `algorithm`, finishes it, and checks the result with
// ValidateHeapSimulatorResult (skipped for results without heaps, such as
// NoFragmentationStatsHeap's).
inline Result RunValid(HeapAlgorithm<Buffer>& algorithm, const HeapEventLog<Buffer>& events,
                       int64_t alignment = 1) {
  events.Replay(algorithm);
  absl::StatusOr<Result> result = algorithm.Finish();
  EXPECT_TRUE(result.ok()) << result.status();
  if (!result.ok()) return {};
  if (!result->heap_results.empty()) {
    const absl::Status valid = ValidateHeapSimulatorResult(events, *result, alignment);
    EXPECT_TRUE(valid.ok()) << valid;
  }
  return *result;
}

// The chunk of `buffer` in heap `heap`.
inline HeapChunk ChunkOf(const Result& result, Buffer buffer, size_t heap = 0) {
  return result.heap_results.at(heap).chunk_map.at(buffer);
}

// A random packing instance as heap events: `count` buffers with lifetimes
// inside [0, horizon) and sizes in [1, max_size]; int32 buffer keys.
inline HeapEventLog<int32_t> RandomCsvEvents(std::mt19937_64& rng, int count, int64_t horizon,
                                             int64_t max_size) {
  std::uniform_int_distribution<int64_t> time(0, horizon - 1);
  std::uniform_int_distribution<int64_t> size(1, max_size);
  std::vector<HeapCsvBuffer> buffers;
  for (int i = 0; i < count; ++i) {
    int64_t a = time(rng), b = time(rng);
    if (a > b) std::swap(a, b);
    buffers.push_back({"b", a, b + 1, size(rng)});
  }
  return HeapEventsFromCsvBuffers(buffers);
}

}  // namespace hmo::testing

#endif  // HMO_TESTS_HEAP_HEAP_TEST_UTIL_H_
