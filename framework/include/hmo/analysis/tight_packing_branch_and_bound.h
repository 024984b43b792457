#ifndef HMO_ANALYSIS_TIGHT_PACKING_BRANCH_AND_BOUND_H_
#define HMO_ANALYSIS_TIGHT_PACKING_BRANCH_AND_BOUND_H_

// TightPackingBranchAndBound: an exact decision procedure for a
// HeapPackingProblem in the style of MiniMalloc (Moffitt, ASPLOS 2023): is
// there a placement whose height is at most `capacity`?
//
// It only enumerates canonical placements: blocks are placed one at a time,
// each at its lowest feasible offset given the blocks placed before it (its
// "min offset": the aligned end of the highest conflicting block placed so
// far), in non-decreasing offset order, with blocks placed at the same offset
// taken in preorder rank. Every placement can be turned into a canonical one
// of no greater height, so the search is complete. It prunes with
//  * dominance: a block whose min offset is at or above the lowest possible
//    end of any unplaced block would leave a gap that block could fill, so it
//    is not tried;
//  * section inference: in every time section, the unplaced blocks must stack
//    above the section's floor (the highest end placed there, and the lowest
//    min offset of the unplaced blocks there) within the capacity;
//  * hatless pruning: a block with no unplaced conflicting block keeps its
//    min offset forever, so once it has been tried (and failed) at a node,
//    every later candidate there (higher offset or rank) would strand it;
// and decomposes dynamically: once no unplaced block spans a section
// boundary, the two sides are solved independently.
//
// The search is deterministic; a node limit and an optional deadline bound it.

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "hmo/analysis/heap_packing_problem.h"
#include "hmo/analysis/tight_packing_sweep.h"

namespace hmo {

// The static preorder that breaks ties between blocks at the same offset:
// blocks sorted by up to three keys, each descending (start ascending), then
// by index. It is recomputed whenever a partition is formed, since "total"
// changes as blocks are placed. MiniMalloc's defaults are WAT, TAW and TWA.
//
// W and A measure lifetimes in the caller's time (the `lifespans` given to
// TightPackingBranchAndBound), as MiniMalloc does: on its benchmarks an
// order by sections covered instead needs orders of magnitude more nodes.
struct TightPackingPreorder {
  enum class Key : uint8_t {
    kNone,
    kWidth,     // W: lifespan length
    kArea,      // A: size x lifespan length
    kTotal,     // T: most unplaced bytes in one of the block's sections
    kSize,      // Z
    kStart,     // S: earliest start first
    kEnd,       // E: latest end first
    kSections,  // C: sections spanned
    kSectionArea,  // R: size x sections spanned
  };
  std::array<Key, 3> keys = {Key::kWidth, Key::kArea, Key::kTotal};

  // Parses letters of W, A, T, Z, S, E, C, R (e.g. "TWA"); others are ignored.
  static TightPackingPreorder FromLetters(std::string_view letters);
};

// The preorders the solver runs round robin: MiniMalloc's WAT, TAW and TWA,
// then the same with lifespans measured in sections (CRT, TRC, TCR), then
// SZT, EZT and ZAT. The last six do not depend on how the caller's clock
// ticks: on MiniMalloc's instances in heap-event order (TightPackingHeap) the
// first three often fail where they decide them in the instances' own time.
std::vector<TightPackingPreorder> TightPackingDefaultPreorders();

enum class TightPackingOutcome {
  kFound,       // a placement within the capacity was found
  kInfeasible,  // proven: no placement fits the capacity
  kAborted,     // the node limit or the deadline ran out first
};

// Per block, first start to last end in `problem`'s own time: what the W and
// A preorder keys measure (MiniMalloc measures them in the instance's time).
std::vector<int64_t> TightPackingLifespans(const HeapPackingProblem& problem);

class TightPackingBranchAndBound {
 public:
  using Clock = std::chrono::steady_clock;

  // `problem` and `sweep` must outlive the search. `lifespans[b]` is the
  // length of block b's lifespan (first start to last end) in the time that
  // the W and A keys should measure, typically the time of the problem before
  // CompressHeapPackingTime; empty means the lifetimes of `problem`.
  TightPackingBranchAndBound(const HeapPackingProblem& problem, const TightPackingSweep& sweep,
                             std::vector<int64_t> lifespans = {});

  // Searches for a placement of height <= `capacity`, branching among equal
  // offsets in `preorder`, using at most `node_limit` nodes. On kFound,
  // `offsets` holds the placement.
  TightPackingOutcome Decide(int64_t capacity, TightPackingPreorder preorder, int64_t node_limit,
                             std::optional<Clock::time_point> deadline,
                             std::vector<int64_t>& offsets);

  // Nodes expanded by the last Decide.
  int64_t nodes() const { return nodes_; }

  // Called during Decide every kProgressNodes nodes with the nodes expanded
  // so far by that Decide, for a progress report; empty: not called.
  static constexpr int64_t kProgressNodes = 1024;
  void set_progress(std::function<void(int64_t nodes)> progress) {
    progress_ = std::move(progress);
  }

 private:
  struct Partition {
    std::vector<int32_t> blocks;
    int32_t section_begin = 0;
    int32_t section_end = 0;
  };
  struct Candidate {
    int64_t offset;
    int32_t rank;
    int32_t block;
  };
  // The sections of the partition that would overflow at `offset` unless the
  // block placed there covers them: max(offset, floor) + total > capacity.
  void FindOverflowingSections(const Partition& partition, int64_t offset);

  TightPackingOutcome Search(const Partition& partition, int64_t last_offset, int32_t last_rank);
  TightPackingOutcome Decompose(const Partition& partition, int32_t block, int64_t offset);
  TightPackingOutcome SolvePartition(const Partition& partition);
  // Ranks the blocks of `partition` by the preorder (rank_).
  void RankPartition(const Partition& partition);
  // Places `block` at `offset`: raises the min offsets of its unplaced
  // neighbours and the floors of the sections involved (all undoable with
  // Undo). Returns false when a section overflows the capacity; the sections
  // QuickCheck accepted are not rechecked.
  bool Place(int32_t block, int64_t offset);
  void Undo(int32_t block, size_t offset_trail_size, size_t floor_trail_size,
            size_t section_min_trail_size);
  // Whether every section of the partition still fits the capacity right
  // after placing `block` at `offset`, before the min offsets of its
  // neighbours rise (Place checks the sections those raise), given
  // FindOverflowingSections(offset).
  bool QuickCheck(int32_t block, int64_t offset) const;
  int64_t Floor(int32_t section) const;
  // The unplaced blocks of every section, kept in front of its slice of
  // live_blocks_ so that Place scans only those.
  void InitLiveBlocks();
  // Where live_pos_ holds `block`'s position in `section` (which it covers).
  int32_t LivePosIndex(int32_t block, int32_t section) const;
  int64_t AlignUp(int64_t value) const { return AlignHeapOffsetUp(value, problem_.alignment); }

  const HeapPackingProblem& problem_;
  const TightPackingSweep& sweep_;

  int64_t capacity_ = 0;
  TightPackingPreorder preorder_;
  std::vector<int32_t> rank_;   // per block, within its current partition
  std::vector<int64_t> width_;  // per block: lifespan length (W)
  std::vector<int64_t> sections_spanned_;  // per block (C)
  std::vector<int32_t> unplaced_conflicts_;  // per block
  int64_t node_limit_ = 0;
  std::optional<Clock::time_point> deadline_;
  int64_t nodes_ = 0;
  std::function<void(int64_t nodes)> progress_;

  std::vector<int64_t> offset_;      // -1 while unplaced
  std::vector<int64_t> min_offset_;
  std::vector<int64_t> floor_;       // per section: highest end placed there
  std::vector<int64_t> section_min_; // per section: lowest unplaced min offset
  std::vector<int32_t> section_min_count_;  // per section: unplaced blocks at it
  std::vector<int64_t> total_;       // per section: bytes of unplaced blocks
  std::vector<int32_t> cuts_;        // per section boundary: unplaced spanning blocks
  std::vector<std::pair<int32_t, int64_t>> offset_trail_;  // (block, old min offset)
  std::vector<std::pair<int32_t, int64_t>> floor_trail_;   // (section, old floor)
  struct SectionMinChange {
    int64_t min;
    int32_t section;
    int32_t count;
  };
  std::vector<SectionMinChange> section_min_trail_;
  std::vector<int32_t> live_blocks_;     // per section slice: unplaced blocks first
  std::vector<int32_t> live_begin_;      // per section: its slice
  std::vector<int32_t> live_count_;      // per section: unplaced blocks
  std::vector<int32_t> live_pos_;        // per (block, covered section): position
  std::vector<int32_t> live_pos_begin_;  // per block: its entries in live_pos_
  std::vector<int32_t> affected_stamp_;                    // per section
  int32_t stamp_ = 0;
  std::vector<int32_t> affected_;
  std::vector<int32_t> overflowing_;
  std::vector<int64_t> solution_;
};

}  // namespace hmo

#endif  // HMO_ANALYSIS_TIGHT_PACKING_BRANCH_AND_BOUND_H_
