#ifndef HMO_ANALYSIS_PACKING_IMPROVER_H_
#define HMO_ANALYSIS_PACKING_IMPROVER_H_

// ImprovePacking: an anytime, budgeted improver of a valid placement of a
// HeapPackingProblem (typically XLA's best fit). The result is valid and
// never higher than the placement it starts from; that placement is kept
// when nothing lower is found.
//
// On real instances best fit's excess over the lower bound has one shape:
// long-lived small blocks are placed last, above the skyline of everything
// placed before them, and the holes that forces into the stack at the peak
// time set the height; or large blocks placed early leave valleys between
// them that no block placed later in a fixed order fills. Three phases
// attack it:
//
//  1. Greedy orders close to the size order that place long-lived blocks
//     earlier (size classes, size x lifetime^alpha, long-lived first; see
//     tight_packing_greedy.h), each a full best-fit or lowest-offset pass,
//     and the skyline dive in size order (skyline_placement.h: lowest valley
//     first; abandoned past 4 passes' work), most promising first, while a
//     full pass fits in `greedy_share` of the budget. The lowest placement
//     wins.
//  2. Random orders of the same family (descending log size + alpha x log
//     lifetime + noise, alpha and the noise's deviation drawn per pass),
//     placed as the best pass so far placed its blocks (best fit or the
//     skyline, where the order only breaks ties), until `random_share` of the
//     budget is spent (all of it when a phase-3 move would cost more than a
//     quarter of phase 3's share, as on large instances).
//  3. Iterated ruin and recreate at the peak: pick a block that reaches the
//     height, the time of most live bytes in its lifetime, and lift out the
//     blocks live then (all, or the upper part of that stack), place them
//     again one at a time (one of a few orders, best fit or lowest offset)
//     around the blocks that stay, and keep the move when the height does not
//     grow and the lifted blocks end no higher in total (so equal-height
//     moves compact the peak); otherwise undo it. No recursion.
//
// Work is counted in placements: a greedy pass costs one per block, a
// skyline pass one per 32 blocks looked at (see skyline_placement.h), an ILS
// placement one plus one per 64 conflicting blocks it looks at (about the
// same time per unit). Phase 3 is cheap only on small instances; on large
// ones the greedy passes do the work. The work
// budget decides the result (deterministic for a given input, options and
// seed); the time limit is only a safety cap, and a run it stops may depend
// on machine speed. It is checked before each greedy pass (none starts when
// the last one, plus a quarter, would not fit) and every 16 placements of a
// move (which is then undone).

#include <cstdint>
#include <string>
#include <vector>

#include "hmo/analysis/heap_packing_problem.h"

namespace hmo {

struct PackingImproverOptions {
  // Work units (see above); <= 0 means DefaultPackingImproverWork(blocks).
  int64_t work_budget = 0;
  // Wall-clock cap in seconds; <= 0 means DefaultPackingImproverSeconds.
  double time_limit_seconds = 0;
  // The parts of the budget the fixed orders (phase 1) and the fixed plus
  // random orders (phases 1 and 2) may use; the rest goes to phase 3.
  double greedy_share = 0.45;
  double random_share = 0.85;
  uint64_t seed = 0x5EED;
};

// 20,000 + 6 work units per block: about six greedy passes' worth.
int64_t DefaultPackingImproverWork(int64_t blocks);
// 100 microseconds per block, between 0.5 s and 5 s.
double DefaultPackingImproverSeconds(int64_t blocks);

struct PackingImproverReport {
  int64_t lower_bound = 0;
  int64_t initial_height = 0;
  int64_t height = 0;
  int64_t work = 0;  // work units spent
  int64_t greedy_passes = 0;
  int64_t moves = 0;           // ruin-and-recreate moves tried
  int64_t accepted_moves = 0;  // kept (height not higher, peak no higher)
  bool stopped_by_time = false;
  // What produced the result: "initial", an order's name (skyline passes
  // start with "skyline-"), "random-size-length", "random-size-length-skyline"
  // or "ils".
  std::string method;
};

// Improves `offsets` (a valid placement of `problem`, one offset per block)
// in place.
PackingImproverReport ImprovePacking(const HeapPackingProblem& problem,
                                     std::vector<int64_t>& offsets,
                                     const PackingImproverOptions& options = {});

}  // namespace hmo

#endif  // HMO_ANALYSIS_PACKING_IMPROVER_H_
