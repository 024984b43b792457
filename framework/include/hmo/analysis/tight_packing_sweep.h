#ifndef HMO_ANALYSIS_TIGHT_PACKING_SWEEP_H_
#define HMO_ANALYSIS_TIGHT_PACKING_SWEEP_H_

// TightPackingSweep: the time structure of a HeapPackingProblem that the tight
// packer's search works on.
//
// Time is cut into sections: runs of time steps in which the set of live
// blocks does not change, keeping only those that end where a lifetime ends
// (the others are subsets of their successor). Each block covers some sections (several runs
// when its lifetimes have gaps); two blocks conflict exactly when they share
// a section. `cuts[k]` counts the blocks whose span (first to last section)
// crosses the boundary between sections k and k+1: where it is 0, the blocks
// on either side are independent.

#include <cstdint>
#include <vector>

#include "hmo/analysis/heap_packing_problem.h"

namespace hmo {

struct TightPackingSweep {
  struct SectionRange {
    int32_t begin = 0;  // first section
    int32_t end = 0;    // one past the last section
  };

  // Per block (problem order); blocks of size 0 cover no section.
  std::vector<std::vector<SectionRange>> block_sections;
  std::vector<std::vector<int32_t>> conflicts;  // sorted, without the block itself
  // Per section: the blocks live in it.
  std::vector<std::vector<int32_t>> section_blocks;
  // Per boundary k (between sections k and k+1): blocks spanning it.
  std::vector<int32_t> cuts;
  int64_t conflict_pairs = 0;
  // Sum over blocks of the sections covered by their conflicting blocks: the
  // work (and undo records) of placing every block once.
  int64_t dive_work = 0;

  int32_t num_sections() const { return static_cast<int32_t>(section_blocks.size()); }
  int32_t span_begin(int32_t block) const { return block_sections[block].front().begin; }
  int32_t span_end(int32_t block) const { return block_sections[block].back().end; }
};

// Builds the sweep. When the blocks have more than `max_conflict_pairs`
// conflicting pairs, stops early and returns false (the exact search is then
// too large to attempt).
bool BuildTightPackingSweep(const HeapPackingProblem& problem, int64_t max_conflict_pairs,
                            TightPackingSweep& sweep);

}  // namespace hmo

#endif  // HMO_ANALYSIS_TIGHT_PACKING_SWEEP_H_
