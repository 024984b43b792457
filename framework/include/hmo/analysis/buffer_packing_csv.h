#ifndef HMO_ANALYSIS_BUFFER_PACKING_CSV_H_
#define HMO_ANALYSIS_BUFFER_PACKING_CSV_H_

// Packing a buffer-lifetime instance in MiniMalloc's CSV format
// (heap_packing_csv.h: one buffer per line, live in [lower, upper), `size`
// bytes) with any heap algorithm, checking the plan, and writing it back with
// an `offset` column (`hmo pack`).
//
// The instance is replayed as heap events (HeapEventsFromCsvBuffers: at each
// time the buffers ending, then those starting) into the chosen
// HeapAlgorithm; the placement is validated before it is returned.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hmo/analysis/heap_packing_csv.h"
#include "hmo/analysis/heap_packing_problem.h"

namespace hmo {

// The buffers of one instance (ParseHeapCsv / ReadHeapCsvFile).
using PackingInstance = std::vector<HeapCsvBuffer>;

// "id,lower,upper,size,offset" and one line per buffer with its offset.
std::string WriteMiniMallocCsv(const PackingInstance& instance, absl::Span<const int64_t> offsets);

// The instance as a HeapPackingProblem (lifetimes [lower, upper - 1]).
HeapPackingProblem ToHeapPackingProblem(const PackingInstance& instance, int64_t alignment = 1);

// The largest total size of buffers live at one time.
int64_t PackingLowerBound(const PackingInstance& instance);

// OK when every offset is >= 0, aligned, and no two buffers live at the same
// time overlap in bytes; otherwise InvalidArgument naming a conflict.
absl::Status ValidatePacking(const PackingInstance& instance, absl::Span<const int64_t> offsets,
                             int64_t alignment = 1);

// The algorithm names PackBuffers accepts, default first:
//   best-fit-improved          best-fit, then ImprovePacking (packing_improver.h)
//                              with its default budget (a work budget that
//                              grows with the buffer count; the wall-clock cap
//                              is 100 us per buffer, 0.5 s to 5 s, counted from
//                              the start, best fit included); never higher
//                              than best-fit
//   best-fit                   XLA's GlobalDecreasingSizeBestFitHeap (spatial)
//   best-fit-temporal, best-fit-spatial-temporal
//   lowest-offset, lowest-offset-temporal, lowest-offset-spatial-temporal
//   fast-merge, fast-split     XLA's constrained sweeps (no size limit)
//   packing-search             XLA's CreateHeapWithPackingSearch (6 candidates)
//   tight                      hmo's TightPackingHeap
//   best                       the six packing-search candidates, then tight;
//                              the first strictly smallest wins (the default
//                              before best-fit-improved; much slower on large
//                              instances)
std::vector<std::string> PackingAlgorithmNames();

struct PackingResult {
  std::string algorithm;
  std::vector<int64_t> offsets;  // one per buffer
  int64_t height = 0;
  int64_t lower_bound = 0;
  double seconds = 0;  // wall time of the algorithm (events + Finish, and the improver)
  // What the improver did (best-fit-improved only), e.g. "best-fit +0.42% ->
  // size-class-4 +0.03%, 4 greedy passes, 120 moves"; empty otherwise.
  std::string detail;
};

// Packs with `algorithm` (see PackingAlgorithmNames) at `alignment` (> 0)
// and validates the plan. Errors: unknown algorithm (with the list), bad
// alignment, an algorithm failure, or a plan that does not validate.
absl::StatusOr<PackingResult> PackBuffers(const PackingInstance& instance,
                                          std::string_view algorithm, int64_t alignment = 1);

}  // namespace hmo

#endif  // HMO_ANALYSIS_BUFFER_PACKING_CSV_H_
