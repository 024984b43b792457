#ifndef HMO_ANALYSIS_TIGHT_PACKING_REPAIR_H_
#define HMO_ANALYSIS_TIGHT_PACKING_REPAIR_H_

// Peak repair for the tight packer: ruin and recreate around the blocks that
// set the height.
//
// Let H be the height and T = H - 1 the target. The blocks reaching above T
// are lifted out and placed again, largest first, in the free gaps left by
// the blocks they conflict with, each at the best-fit (or lowest) gap that
// ends at or below T. When they do not all fit, the blocks in a band below T
// that conflict with them are lifted out too (the band doubling a few times),
// and then a few shuffled orders are tried. Every success lowers the height;
// the repair stops at the lower bound, when an attempt budget runs out, or
// when no ruin succeeds. Only the peak's neighbourhood is touched, so an
// attempt costs about (blocks moved) x (blocks they conflict with), not a
// full re-placement. Deterministic for a given random generator state.

#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "hmo/analysis/heap_packing_problem.h"

namespace hmo {

struct PeakRepairResult {
  int64_t height = 0;
  int64_t attempts = 0;      // ruin-and-recreate attempts made
  int64_t improvements = 0;  // attempts that lowered the height
};

// Improves `offsets` (a valid placement of `problem`) in place; the result is
// valid and never higher. Stops below `lower_bound` + 1, after
// `max_attempts`, or at `deadline`.
PeakRepairResult RepairPeak(const HeapPackingProblem& problem, int64_t lower_bound,
                            std::vector<int64_t>& offsets, int64_t max_attempts,
                            std::mt19937_64& rng,
                            std::optional<std::chrono::steady_clock::time_point> deadline);

}  // namespace hmo

#endif  // HMO_ANALYSIS_TIGHT_PACKING_REPAIR_H_
