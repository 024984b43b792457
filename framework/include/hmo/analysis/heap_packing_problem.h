#ifndef HMO_ANALYSIS_HEAP_PACKING_PROBLEM_H_
#define HMO_ANALYSIS_HEAP_PACKING_PROBLEM_H_

// HeapPackingProblem: offline dynamic storage allocation, independent of any
// buffer type. Each block needs `size` bytes at one offset during every one
// of its lifetimes (a buffer with its colocations is one block whose
// lifetimes may have gaps). Two blocks conflict when a lifetime of one shares
// a time step with a lifetime of the other; conflicting blocks need disjoint
// byte ranges. The height of a placement is the largest block end.
//
// Also: the lower bound on any height (the most bytes live at one time) and a
// checker that a placement is valid.

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "hmo/analysis/best_fit_placer.h"

namespace hmo {

struct HeapPackingBlock {
  int64_t size = 0;
  // Inclusive time intervals; at least one. They may overlap or be unsorted.
  std::vector<HeapTimeInterval> lifetimes;
};

struct HeapPackingProblem {
  std::vector<HeapPackingBlock> blocks;
  // Every offset must be a multiple of this (> 0).
  int64_t alignment = 1;
};

// The most bytes live at one time step (a block counts once per time step,
// however many of its lifetimes cover it). No valid placement is lower.
int64_t HeapPackingLowerBound(const HeapPackingProblem& problem);

// The same problem on the fewest time steps that keep every conflict: a new
// step begins only where a lifetime starts after another one ended. Two
// blocks conflict in the result exactly when they conflict in `problem`.
HeapPackingProblem CompressHeapPackingTime(const HeapPackingProblem& problem);

// max(offset + size) over blocks with a non-zero size; 0 when there are none.
int64_t HeapPackingHeight(const HeapPackingProblem& problem, absl::Span<const int64_t> offsets);

// One placed lifetime, for CheckNoOverlapInTimeAndSpace: `group` identifies
// the block; lifetimes of the same group may share bytes.
struct PlacedLifetime {
  int64_t start = 0;
  int64_t end = 0;  // inclusive
  int64_t offset = 0;
  int64_t size = 0;
  int64_t group = 0;
};

// OK when no two lifetimes of different groups share both a time step and a
// byte; otherwise an Internal error naming the first such pair found.
// Lifetimes of one group must have the same offset and size. O(n log n) for a
// valid input.
absl::Status CheckNoOverlapInTimeAndSpace(std::vector<PlacedLifetime> lifetimes);

// OK when `offsets` places every block (one offset each, non-negative,
// aligned) without two conflicting blocks sharing a byte.
absl::Status ValidateHeapPacking(const HeapPackingProblem& problem,
                                 absl::Span<const int64_t> offsets);

}  // namespace hmo

#endif  // HMO_ANALYSIS_HEAP_PACKING_PROBLEM_H_
