#ifndef HMO_ANALYSIS_BUFFER_PACKING_CSV_H_
#define HMO_ANALYSIS_BUFFER_PACKING_CSV_H_

// Buffer-lifetime packing instances in MiniMalloc's CSV format, and packing
// them with any heap algorithm (`hmo pack`).
//
// Format: a header naming the columns id, lower, upper, size (any order;
// an `offset` column is read when present, other columns are kept), then one
// buffer per line. A buffer is live during the half-open interval
// [lower, upper) and needs `size` bytes. A packing gives each buffer an offset
// so that buffers live at the same time have disjoint [offset, offset + size).
//
// Packing replays the instance as heap events (at each time: the buffers
// starting then, by (upper, line); then those whose last live step it is, by
// (lower, upper, line)) into the chosen HeapAlgorithm, exactly as the heap
// simulator feeds them, and checks the result before returning it.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hmo/analysis/heap_packing_problem.h"

namespace hmo {

struct PackingBuffer {
  std::string id;
  int64_t lower = 0;
  int64_t upper = 0;  // exclusive
  int64_t size = 0;
  int64_t offset = -1;  // -1 when not given
};

struct PackingInstance {
  std::vector<PackingBuffer> buffers;
  // Extra columns (name, per-buffer text), kept for output.
  std::vector<std::string> extra_columns;
  std::vector<std::vector<std::string>> extra_values;  // [buffer][column]
};

// Parses the CSV. Errors name `filename:line`: a missing column, a wrong
// number of fields, a field that is not an integer, size < 0, upper < lower.
absl::StatusOr<PackingInstance> ParseMiniMallocCsv(std::string_view text,
                                                   std::string_view filename = "<input>");
// Reads and parses a file.
absl::StatusOr<PackingInstance> ReadMiniMallocCsvFile(const std::string& path);

// The CSV with an `offset` column holding `offsets` (one per buffer).
std::string WriteMiniMallocCsv(const PackingInstance& instance, absl::Span<const int64_t> offsets);

// The instance as a HeapPackingProblem (lifetimes [lower, upper - 1]; empty
// lifetimes or size 0 become size-0 blocks that conflict with nothing).
HeapPackingProblem ToHeapPackingProblem(const PackingInstance& instance, int64_t alignment = 1);

// The largest total size of buffers live at one time.
int64_t PackingLowerBound(const PackingInstance& instance);

// OK when every offset is >= 0, aligned, and no two buffers live at the same
// time overlap in bytes; otherwise InvalidArgument naming a conflict.
absl::Status ValidatePacking(const PackingInstance& instance, absl::Span<const int64_t> offsets,
                             int64_t alignment = 1);

// The algorithm names PackBuffers accepts, default first:
//   best                       every candidate below, first strictly smallest
//   best-fit                   XLA's GlobalDecreasingSizeBestFitHeap (spatial)
//   best-fit-temporal, best-fit-spatial-temporal
//   lowest-offset, lowest-offset-temporal, lowest-offset-spatial-temporal
//   fast-merge, fast-split     XLA's constrained sweeps (no size limit)
//   packing-search             XLA's CreateHeapWithPackingSearch (6 candidates)
//   tight                      hmo's TightPackingHeap
std::vector<std::string> PackingAlgorithmNames();

struct PackingResult {
  std::string algorithm;
  std::vector<int64_t> offsets;  // one per buffer
  int64_t height = 0;
  int64_t lower_bound = 0;
  double seconds = 0;  // wall time of the algorithm (events + Finish)
};

// Packs with `algorithm` (see PackingAlgorithmNames) at `alignment` (> 0)
// and validates the plan. Errors: unknown algorithm (with the list), bad
// alignment, an algorithm failure, or a plan that does not validate.
absl::StatusOr<PackingResult> PackBuffers(const PackingInstance& instance,
                                          std::string_view algorithm, int64_t alignment = 1);

}  // namespace hmo

#endif  // HMO_ANALYSIS_BUFFER_PACKING_CSV_H_
