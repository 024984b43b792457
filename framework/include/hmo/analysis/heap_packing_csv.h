#ifndef HMO_ANALYSIS_HEAP_PACKING_CSV_H_
#define HMO_ANALYSIS_HEAP_PACKING_CSV_H_

// The buffer-packing CSV format of MiniMalloc's and idealloc's benchmarks:
//
//   id,lower,upper,size
//   b1,0,3,4
//
// one buffer per line, live during the half-open time range [lower, upper),
// `size` bytes. Columns are found by their header names; others are ignored.
// Also turns such a list into heap events, the input of a heap algorithm.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hmo/analysis/heap_event_log.h"

namespace hmo {

struct HeapCsvBuffer {
  std::string id;
  int64_t lower = 0;  // first time step
  int64_t upper = 0;  // one past the last time step (> lower)
  int64_t size = 0;
};

// Parses the CSV text; errors name the line ("file:line: error").
absl::StatusOr<std::vector<HeapCsvBuffer>> ParseHeapCsv(std::string_view text,
                                                        std::string_view file_name = "<csv>");
absl::StatusOr<std::vector<HeapCsvBuffer>> ReadHeapCsvFile(const std::string& path);

// Heap events for `buffers`, keyed by their index: time steps in ascending
// order, and at each step first the Frees of the buffers whose range ends
// there, then the Allocs of those starting there (each by index), so buffers
// whose ranges only touch never overlap.
HeapEventLog<int32_t> HeapEventsFromCsvBuffers(const std::vector<HeapCsvBuffer>& buffers);

}  // namespace hmo

#endif  // HMO_ANALYSIS_HEAP_PACKING_CSV_H_
