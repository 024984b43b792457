#ifndef HMO_ANALYSIS_SKYLINE_PLACEMENT_H_
#define HMO_ANALYSIS_SKYLINE_PLACEMENT_H_

// PlaceBlocksOnSkyline: one dive of the tight packer's canonical search
// (tight_packing_branch_and_bound.h) without backtracking, at the scale of
// real instances.
//
// The placement grows a skyline: per time step, the end of the block last
// placed over it. The next block is always the unplaced one whose lowest
// offset above the skyline (its "min offset": the highest skyline value over
// its lifetimes, aligned up) is smallest, ties broken by a priority order; it
// goes exactly there. So blocks are placed bottom up, filling the lowest
// valley first, and no gap is ever left below a placed block that a later
// block could use in the same time steps: unlike a greedy pass in a fixed
// order, a block that fits a valley left between taller neighbours is the
// one placed next.
//
// Why it matters: on pangu_2.6B (MiniMalloc's real-world set) this dive in
// size order is 0.76% over the most bytes live at once, where best fit in any
// fixed order stays above 2.5%.
//
// Cost: a lazy priority queue keyed by the min offsets (they only rise), so a
// block is re-queued each time the skyline under it rose since it was last
// looked at; each look is a range-maximum query over compressed time. The
// number of looks ("steps") is bounded by the caller.

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/types/span.h"
#include "hmo/analysis/heap_packing_problem.h"

namespace hmo {

// About how many looks cost as much as one best-fit placement (measured on
// the real-world packing instances): callers size their step limits with it.
inline constexpr int64_t kSkylineStepsPerPlacement = 32;

struct SkylinePlacement {
  std::vector<int64_t> offsets;  // one per block (size-0 blocks at 0)
  int64_t height = 0;
  int64_t steps = 0;  // blocks looked at (placements plus re-queues)
};

// Places every block of `problem` as described above. `priority` is a
// permutation of the block indices: earlier wins ties between equal min
// offsets. Returns nullopt when more than `max_steps` looks would be needed
// (max_steps <= 0: no limit). Deterministic.
std::optional<SkylinePlacement> PlaceBlocksOnSkyline(const HeapPackingProblem& problem,
                                                     absl::Span<const int32_t> priority,
                                                     int64_t max_steps);

}  // namespace hmo

#endif  // HMO_ANALYSIS_SKYLINE_PLACEMENT_H_
