#ifndef HMO_ANALYSIS_HEAP_RESULT_H_
#define HMO_ANALYSIS_HEAP_RESULT_H_

// What a heap algorithm returns: for each heap, the chunk of every buffer and
// the heap's size; overall, the summed size and the fragmentation. Mirrors
// XLA's HeapSimulator::HeapResult / HeapSimulator::Result.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "hmo/analysis/heap_chunk.h"

namespace hmo {

// One heap: buffer -> chunk, and the heap's size (the largest chunk end).
template <typename BufferType>
struct HeapResult {
  absl::flat_hash_map<BufferType, HeapChunk> chunk_map;
  int64_t heap_size = 0;

  // The heap size once `chunk` is added.
  int64_t UpdatedHeapSize(const HeapChunk& chunk) const {
    return std::max(heap_size, chunk.chunk_end());
  }
};

// All heaps of one simulation. `heap_size` is the sum of the heaps' sizes;
// `fragmentation_size` is `heap_size` minus the peak of live bytes (filled by
// the heap simulator driver, 0 when an algorithm is run on its own).
template <typename BufferType>
struct HeapSimulatorResult {
  std::vector<HeapResult<BufferType>> heap_results;
  int64_t heap_size = 0;
  int64_t fragmentation_size = 0;
};

}  // namespace hmo

#endif  // HMO_ANALYSIS_HEAP_RESULT_H_
