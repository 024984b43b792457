#ifndef HMO_PLUGINS_SCHEDULER_CORE_MEMORY_MODEL_H_
#define HMO_PLUGINS_SCHEDULER_CORE_MEMORY_MODEL_H_

// How our own strategies estimate the memory of one computation's order: the
// bytes live at each step, counted the way XLA's heap simulator counts a
// computation on its own (NoFragmentationStatsHeap, §1.6 / §2.2 of the
// reference):
//
// - A value is live from the step of its defining instruction to the step of
//   its last user, both included (the simulator allocates what a step defines
//   before it frees what the step used last); a live-out value to the end; a
//   value nobody uses only during its own step.
// - Values of parameters, and values that reach the computation from outside,
//   are live throughout: they are the same at every step and form the
//   baseline. Constants are not counted (the simulator does not allocate them).
//   A donated entry parameter (freed after its last use) is live from the
//   first step to its last reader instead: a "live-in" value. The simulator
//   also keeps it until the parameter instruction's own step, so the
//   parameter counts as one of its readers. (The simulator would cut it short
//   where the output it is donated to is written; copy insertion makes that
//   come after every read, and the model assumes it does.)
// - An instruction whose output may take over a dying operand's buffer (the
//   view's may_share_operands, e.g. an elementwise op on its last use) does not
//   add that buffer again at its own step: the first such operand, in operand
//   order, whose value dies at that step, as the simulator picks it.
//
// - A value the host marks as outside the temporary arena (an entry
//   parameter's or an entry output's buffer, HMO_VALUE_OUTSIDE_TEMP_ARENA, set
//   when the memory-scheduler minimises device bytes) is not counted at all:
//   the model's peak is then the temp arena's lower bound (its most bytes
//   live at once), which buffer assignment's packing can only exceed.
// - An instruction that calls computations (a while, call or conditional)
//   also holds, during its step, its transient bytes: the host's estimate of
//   what those computations keep live at their peak.
//
// The model ignores what it cannot see from one computation beyond that
// (buffers merged by alias analysis); the memory-scheduler pass measures the
// real module peak with the heap simulator.

#include <cstdint>
#include <vector>

#include "core/scheduling_graph.h"

namespace hmo::scheduler {

// A value whose buffer an instruction's output may take over when the
// instruction is the value's last reader, and the bytes that saves.
struct ShareCandidate {
  int value = -1;
  int64_t discount = 0;
};

class MemoryModel {
 public:
  // `graph` must outlive the model.
  explicit MemoryModel(const SchedulingGraph& graph);

  const SchedulingGraph& graph() const { return graph_; }

  // Whether value `v` takes part in the order-dependent part of the count.
  bool tracked(int v) const { return tracked_[v]; }
  // Whether tracked value `v` is live from the first step (a donated
  // parameter's) rather than from its defining instruction's step.
  bool live_in(int v) const { return live_in_[v]; }
  // Bytes live at every step whatever the order (parameters, outside values).
  int64_t baseline_bytes() const { return baseline_bytes_; }

  // Bytes of the tracked values instruction `i` defines.
  int64_t defined_bytes(int i) const { return defined_bytes_[i]; }
  // Bytes live only during i's own step: its defined bytes and its transient
  // bytes.
  int64_t step_bytes(int i) const {
    return defined_bytes_[i] + graph_.instruction(i).transient_bytes;
  }
  // The part of defined_bytes(i) that outlives i's own step (values that have
  // users or are live out).
  int64_t kept_bytes(int i) const { return kept_bytes_[i]; }
  // The values whose buffer `i`'s output may take over, in operand order: at
  // i's step the first of them that i reads last saves its discount.
  const std::vector<ShareCandidate>& share_candidates(int i) const {
    return share_candidates_[i];
  }
  // The bytes saved at i's step when `is_last(v)` tells which values i reads
  // last.
  template <typename IsLast>
  int64_t Reuse(int i, IsLast&& is_last) const {
    for (const ShareCandidate& c : share_candidates_[i]) {
      if (is_last(c.value)) return c.discount;
    }
    return 0;
  }

  // The tracked values `i` reads (its used values that are tracked, and the
  // live-in value of a donated parameter `i`).
  const std::vector<int>& tracked_uses(int i) const { return tracked_uses_[i]; }
  // The instructions that keep tracked value `v` live until their step: its
  // users, and the parameter of a live-in value.
  const std::vector<int>& readers(int v) const { return readers_[v]; }

  // Returns the bytes live at each step of `order` (a valid order of the
  // graph), baseline excluded.
  std::vector<int64_t> Profile(const std::vector<int>& order) const;
  // Returns the largest number of bytes live at any step of `order`, baseline
  // included (the baseline alone for an empty computation).
  int64_t Peak(const std::vector<int>& order) const;

 private:
  const SchedulingGraph& graph_;
  std::vector<bool> tracked_;
  std::vector<bool> live_in_;
  int64_t baseline_bytes_ = 0;
  std::vector<int64_t> defined_bytes_;
  std::vector<int64_t> kept_bytes_;
  std::vector<std::vector<ShareCandidate>> share_candidates_;
  std::vector<std::vector<int>> tracked_uses_;
  std::vector<std::vector<int>> readers_;
};

}  // namespace hmo::scheduler

#endif  // HMO_PLUGINS_SCHEDULER_CORE_MEMORY_MODEL_H_
