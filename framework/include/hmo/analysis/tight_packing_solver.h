#ifndef HMO_ANALYSIS_TIGHT_PACKING_SOLVER_H_
#define HMO_ANALYSIS_TIGHT_PACKING_SOLVER_H_

// SolveTightPacking: lowers the height of a HeapPackingProblem placement
// toward the lower bound (the most bytes live at once), never above the
// placement it starts from.
//
//  1. Greedy: best-fit and lowest-offset placement in six block orders
//     (size, area, lifetime, peak live bytes, start, end), then the skyline
//     dive in size order (skyline_placement.h).
//  2. Exact search (small instances, see the exact_max_* options): the
//     MiniMalloc-style branch and bound of TightPackingBranchAndBound on the
//     time-compressed problem, as a decision procedure: first at the lower
//     bound (half of the nodes and time), then a binary search on the height
//     between the lower bound and the best height found (1/6 of what is left
//     per step), then the rest at the lower bound again. Each decision runs
//     TightPackingDefaultPreorders round robin with doubling node limits; W
//     and A measure lifespans in the time of `problem` (before compression),
//     so callers that know the real times (a CSV's lower/upper) should use
//     them.
//  3. Peak repair (RepairPeak): ruin and recreate around the blocks that set
//     the height, while above the lower bound.
// Deterministic for given options unless a time limit is set.

#include <cstdint>
#include <string>
#include <vector>

#include "hmo/analysis/heap_packing_problem.h"
#include "hmo/analysis/tight_packing_branch_and_bound.h"
#include "hmo/base/progress_sink.h"

namespace hmo {

struct TightPackingOptions {
  // Branch-and-bound nodes for the whole solve (the deterministic budget; a
  // node costs from a few to a few hundred microseconds).
  int64_t node_budget = 250'000;
  // Wall-clock limit in seconds for the whole solve; <= 0 means none. With a
  // limit the result may depend on machine speed.
  double time_limit_seconds = 0;
  // Ruin-and-recreate attempts of the peak repair (RepairPeak).
  int64_t repair_attempts = 600;
  // Size limits for attempting the exact search: blocks, conflicting pairs,
  // and the bookkeeping of one full dive (sum over blocks of the sections of
  // their conflicting blocks), which bounds the search's memory.
  int64_t exact_max_blocks = 5000;
  int64_t exact_max_conflict_pairs = 4'000'000;
  int64_t exact_max_dive_work = 64'000'000;
  // Seed of the repair's random moves.
  uint64_t seed = 0x5EED;
  // Where the exact search reports its progress, for a person watching
  // (hmo/base/progress_sink.h): task "tight search", branch-and-bound nodes
  // explored of node_budget (every TightPackingBranchAndBound::kProgressNodes
  // nodes), and the best height so far against the lower bound (a decision:
  // the capacity). When it reported anything, the task ends (Done) as the
  // solve returns. Null: nowhere. Reporting changes nothing of the result.
  // Not owned; must outlive the solve.
  ProgressSink* progress = nullptr;
};

struct TightPackingReport {
  int64_t lower_bound = 0;
  int64_t initial_height = 0;
  int64_t height = 0;
  int64_t nodes = 0;       // branch-and-bound nodes expanded
  int64_t placements = 0;  // greedy placements run
  int64_t repair_attempts = 0;
  bool proven_optimal = false;
  std::string method;      // the step that produced the returned placement
};

// Returns a valid placement of height <= the height of `initial_offsets`
// (which must be a valid placement of `problem`). `report` may be null.
std::vector<int64_t> SolveTightPacking(const HeapPackingProblem& problem,
                                       std::vector<int64_t> initial_offsets,
                                       const TightPackingOptions& options,
                                       TightPackingReport* report);

// The decision problem: a placement of height <= `capacity`, or a proof that
// none exists.
struct TightPackingDecision {
  // kFound: `offsets` is a valid placement of height <= capacity.
  // kInfeasible: proven (the lower bound exceeds the capacity, or the
  //   complete branch and bound ran out of candidates).
  // kAborted: neither within options.node_budget / time_limit_seconds, or
  //   the instance is over the exact_max_* limits.
  TightPackingOutcome outcome = TightPackingOutcome::kAborted;
  std::vector<int64_t> offsets;
  int64_t lower_bound = 0;
  int64_t nodes = 0;
  // kFound: what found the placement ("greedy-..." or "branch-and-bound");
  // kInfeasible: what proved it ("lower-bound" or "branch-and-bound");
  // kAborted: why ("node budget", "time limit", or the size limits).
  std::string method;
};

// Tries the greedy orders, then the branch and bound at `capacity` with the
// whole node budget (repair_attempts is not used). Works in the time of
// `problem` as given: the W and A preorder keys measure its lifespans, so a
// problem in the instance's own time (ToHeapPackingProblem of a CSV) searches
// as MiniMalloc does. Deterministic for given options unless a time limit is
// set.
TightPackingDecision DecideTightPacking(const HeapPackingProblem& problem, int64_t capacity,
                                        const TightPackingOptions& options);

}  // namespace hmo

#endif  // HMO_ANALYSIS_TIGHT_PACKING_SOLVER_H_
