#ifndef HMO_PLUGINS_SCHEDULER_CORE_SCHEDULE_IMPROVER_H_
#define HMO_PLUGINS_SCHEDULER_CORE_SCHEDULE_IMPROVER_H_

// Local search over any valid order of one computation: lowers the peak of
// MemoryModel's live-byte profile, and never raises it.
//
// Two neighbourhoods, both aimed at the steps where the profile peaks:
// 1. Moves: one instruction to another place between its last predecessor
//    and its first successor. A move only changes the profile between the
//    old and the new place, by amounts fixed per step (the moved
//    instruction's kept outputs and inputs start or stop being live there),
//    so all places for one instruction are scored in one sweep, each in
//    O(log n) against a segment tree of the profile; nothing is re-simulated.
// 2. Windows: a run of consecutive steps around a peak is re-ordered exactly
//    (ExactScheduler's search, with the rest of the order fixed around it).
//    This handles what single moves cannot, e.g. XLA's documented list-
//    scheduler weakness, where a large-output instruction and its consumer
//    must move together.
// A change is kept when it lowers (peak, number of steps at the peak).

#include <cstdint>
#include <vector>

#include "core/memory_model.h"
#include "core/peak_tree.h"
#include "core/search_progress.h"

namespace hmo::scheduler {

struct ImproverOptions {
  // Instructions up to this many steps from a peak step are tried as moves.
  int move_radius = 48;
  // The farthest one instruction moves.
  int max_move_distance = 1024;
  // Steps re-ordered exactly at once around a peak step (0: no windows).
  int window = 20;
  // Search states per window.
  int64_t window_states = 20'000;
  // Moves scored (places tried) in all; the search stops when it is spent.
  int64_t max_evaluations = 20'000'000;
  // Told, between steps, about every kSearchProgressEvery evaluations:
  // evaluations of max_evaluations and the current peak. ImprovedSchedule
  // counts over all its starts, with the lowest peak of any.
  SearchProgress progress;
};

struct ImproverStats {
  int64_t initial_peak = 0;
  int64_t final_peak = 0;
  int64_t moves = 0;
  int64_t windows = 0;
  int64_t evaluations = 0;
};

class ScheduleImprover {
 public:
  // `order` must be a valid order of model.graph(); `model` must outlive this.
  ScheduleImprover(const MemoryModel& model, std::vector<int> order);

  // Improves the order until no move or window lowers (peak, steps at the
  // peak) or the evaluation budget is spent.
  void Improve(const ImproverOptions& options = {});

  const std::vector<int>& order() const { return order_; }
  // The current peak, baseline included, and how many steps reach it.
  PeakCount peak() const;
  // The current profile (baseline excluded), one entry per step.
  std::vector<int64_t> profile() const;
  const ImproverStats& stats() const { return stats_; }

  // The (peak, steps at peak) the order would have, baseline included, with
  // instruction `x` moved to gap `gap` (before the instruction now at step
  // `gap`; instruction_count() for the end). Precondition: the gap lies between
  // x's last predecessor and first successor and is not x's own place.
  PeakCount EvaluateMove(int x, int gap);
  // Moves `x` to `gap` (same precondition).
  void ApplyMove(int x, int gap);
  // The gaps instruction `x` may move to: [first, last].
  std::pair<int, int> MoveRange(int x) const;

 private:
  struct Use {
    int value;
    int64_t size;
    // The value's last step if x did not read it: n for a live-out value,
    // -1 for a live-in value nobody else reads.
    int end_without_x;
    bool x_is_last;
  };
  struct Correction {
    int position;
    int64_t delta;
  };
  struct Plan {
    int x = 0, position = 0, first = 0, last = 0;
    // kept: x's outputs that outlive its step; defined: its step bytes
    // (outputs and transient bytes).
    int64_t kept = 0, defined = 0;
    std::vector<Use> uses;
    // Changes of other steps' buffer reuse, by direction of the move.
    std::vector<Correction> later, earlier;
    // x's own buffer reuse: per share candidate, in order, the candidate's
    // last step without x and the bytes saved when x reads it last.
    std::vector<std::pair<int, int64_t>> own_reuse;
    // The bytes x saves at a new step placed in gap `gap`.
    int64_t ReuseAt(int gap) const {
      for (const auto& [end, bytes] : own_reuse) {
        if (end < gap) return bytes;
      }
      return 0;
    }
  };
  // Call fn(gap, (peak, count) without baseline, x's bytes at its new step)
  // for each gap from x's place outwards, up to `last_gap` / `first_gap`.
  template <typename Fn>
  void SweepLater(const Plan& plan, int last_gap, Fn&& fn);
  template <typename Fn>
  void SweepEarlier(const Plan& plan, int first_gap, Fn&& fn);

  void Rebuild();
  Plan MakePlan(int x) const;
  int64_t Gap(int gap) const;
  void Apply(const Plan& plan, int gap);
  bool TryMovesAround(int peak_position, const ImproverOptions& options);
  bool TryWindowAt(int begin, int end, const ImproverOptions& options);

  const MemoryModel& model_;
  const SchedulingGraph& graph_;
  std::vector<int> order_;
  std::vector<int> position_;
  // For each tracked value, the instruction of its last step (kLiveOut for a
  // live-out value).
  std::vector<int> last_instruction_;
  // Bytes saved at each instruction's step by buffer reuse.
  std::vector<int64_t> reuse_;
  int64_t live_out_bytes_ = 0;
  PeakTree tree_{{}};
  ImproverStats stats_;
  int64_t evaluations_ = 0;
};

// Improves each of XLA's list, DFS and post-order orders and the subtree-peak
// order with ScheduleImprover (a quarter of the budget each) and returns the
// lowest-peak result under `model`.
std::vector<int> ImprovedSchedule(const MemoryModel& model, const ImproverOptions& options = {},
                                  ImproverStats* stats = nullptr);

}  // namespace hmo::scheduler

#endif  // HMO_PLUGINS_SCHEDULER_CORE_SCHEDULE_IMPROVER_H_
