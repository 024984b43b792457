#ifndef HMO_PLUGINS_SCHEDULER_CORE_EXACT_SCHEDULER_H_
#define HMO_PLUGINS_SCHEDULER_CORE_EXACT_SCHEDULER_H_

// An exact minimum-peak order for small scheduling problems: depth-first
// branch-and-bound over the sets of already scheduled instructions, with
// memoisation and a state budget.
//
// The bytes live at a step depend only on which instructions ran before it
// (the set S) and which one runs now (x):
//   cost(S, x) = base + live(S) + defined(x) - reuse(S, x)
// where live(S) counts the values defined in S (or before the problem) that
// some instruction outside S still reads or that stay live after the problem,
// and reuse is the buffer x takes over when it is the last reader of its
// may-share operand. The peak of an order is the largest cost along it. So
// the search runs over sets, not orders: a set reached again with a prefix
// peak no lower than before is pruned. Two more rules keep it small:
// - a ready instruction whose step costs no more than the prefix peak and
//   that frees at least what it keeps is scheduled at once, without
//   branching (moving such an instruction earlier never raises any later
//   step, an exchange argument);
// - a branch whose prefix peak reaches the best complete order is cut.
//
// The problem is stated in its own terms so that the same solver serves a
// whole computation (ExactScheduleComputation) and a window of an order that
// ScheduleImprover re-optimizes.

#include <cstdint>
#include <vector>

#include "core/memory_model.h"
#include "core/search_progress.h"

namespace hmo::scheduler {

struct ExactProblem {
  // The most instructions a problem may have (the search keys sets as
  // fixed-size bitsets).
  static constexpr int kMaxInstructions = 256;

  struct Value {
    int64_t size = 0;
    // The defining instruction (an index into `predecessors`), or -1 for a
    // value live when the problem starts.
    int defining_instruction = -1;
    // The instructions of the problem that read it.
    std::vector<int> users;
    // Stays live after the problem's last step (live-out, or read later).
    bool escapes = false;
  };

  // For each instruction, the instructions of the problem that must run
  // before it (operands and control predecessors).
  std::vector<std::vector<int>> predecessors;
  std::vector<Value> values;
  // For each instruction, the values (problem value ids) whose buffer its
  // output may take over when it is that value's last reader, in the order
  // they are tried, with the bytes saved.
  std::vector<std::vector<ShareCandidate>> share_candidates;
  // For each instruction, bytes it needs during its step only (the
  // computations it calls); may be empty (all zero).
  std::vector<int64_t> transient;
  // Bytes live at every step whatever the order.
  int64_t base = 0;

  int instruction_count() const { return static_cast<int>(predecessors.size()); }

  // Returns the peak of `order` (a valid order of the problem's
  // instructions) under the cost above.
  int64_t Peak(const std::vector<int>& order) const;
};

struct ExactOptions {
  // Search states (distinct scheduled sets expanded) before giving up.
  int64_t max_states = 1'000'000;
  // Only orders whose peak is strictly below this are looked for; the
  // initial order's peak when larger. INT64_MAX: no extra bound.
  int64_t peak_bound = INT64_MAX;
  // Told every kSearchProgressEvery states: states expanded of max_states
  // and the best peak so far (the initial order's, or peak_bound when lower,
  // until a better order is found).
  SearchProgress progress;
};

struct ExactResult {
  // The best order found (the initial order when nothing better was found).
  std::vector<int> order;
  int64_t peak = 0;
  // The search finished: no order of the problem has a lower peak (below
  // `peak_bound`, when the bound was the limiting one).
  bool optimal = false;
  int64_t states = 0;
};

// Searches `problem` for a lower-peak order than `initial` (a valid order).
// Precondition: problem.instruction_count() <= ExactProblem::kMaxInstructions.
ExactResult SolveExact(const ExactProblem& problem, const std::vector<int>& initial,
                       const ExactOptions& options = {});

// States a whole computation as an ExactProblem under `model` (instruction i
// is problem instruction i). Precondition: at most kMaxInstructions.
ExactProblem MakeComputationProblem(const MemoryModel& model);

}  // namespace hmo::scheduler

#endif  // HMO_PLUGINS_SCHEDULER_CORE_EXACT_SCHEDULER_H_
