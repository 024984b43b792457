#ifndef HMO_PLUGINS_SCHEDULER_CORE_SCHEDULING_GRAPH_H_
#define HMO_PLUGINS_SCHEDULER_CORE_SCHEDULING_GRAPH_H_

// One computation as the scheduler strategies work on it: the C scheduling
// view (hmo/plugin/scheduler_strategy_abi.h) copied into index vectors, with
// its HloValue table.
//
// The view is only valid during one strategy call and its pointer-and-count
// fields are awkward to walk; every strategy converts it once with
// SchedulingGraph::FromView and then reads plain vectors. A view from an ABI
// 1.0 host has no value table; FromView then derives one (one value per
// instruction, of `bytes_defined`, used by the instruction's users), which is
// what the per-instruction fields of ABI 1.0 describe.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hmo/plugin/scheduler_strategy_abi.h"

namespace hmo::scheduler {

// Marks "no instruction" (a value defined outside the computation).
inline constexpr int kNoInstruction = -1;

struct SchedulingValue {
  int64_t size = 0;
  // The defining instruction, or kNoInstruction when the value comes from
  // outside the computation (through a parameter of a called computation).
  int defining_instruction = kNoInstruction;
  // In the flattened value set of the root.
  bool live_out = false;
  // Defined (here or outside) by a parameter or a constant.
  bool defined_by_parameter_or_constant = false;
  // A parameter's value freed after its last use (a donated entry parameter)
  // rather than kept for the whole program.
  bool freed_after_last_use = false;
  // In an allocation of its own, outside the temporary arena the host
  // minimises (HMO_VALUE_OUTSIDE_TEMP_ARENA): its bytes are paid whatever the
  // order.
  bool outside_temp_arena = false;
};

struct SchedulingInstruction {
  std::string name;
  std::string opcode;
  // Data operands in operand order; an operand used twice appears twice.
  std::vector<int> operands;
  // The same without repeats, in first-occurrence order.
  std::vector<int> unique_operands;
  // Distinct data users, in the IR's users() order.
  std::vector<int> users;
  std::vector<int> control_predecessors;
  std::vector<int> control_successors;
  // Values (indices into SchedulingGraph::values()) defined and read.
  std::vector<int> defined_values;
  std::vector<int> used_values;
  // Operands whose buffer the output may occupy (in-place reuse).
  std::vector<int> may_share_operands;
  // Bytes the computations it calls need during its step (an estimate).
  int64_t transient_bytes = 0;
  bool effective_scalar = false;
  // An infeed / outfeed with a non-empty config (see the ABI flag).
  bool has_feed_config = false;

  // A parameter or a constant: XLA's list scheduler ignores their memory.
  bool IsParameterOrConstant() const { return opcode == "parameter" || opcode == "constant"; }
};

class SchedulingGraph {
 public:
  SchedulingGraph() = default;

  // Copies `view`. Returns InvalidArgument for ids out of range, an id that
  // does not match its index, or operand / user / control lists that do not
  // mirror each other.
  static absl::StatusOr<SchedulingGraph> FromView(const HmoSchedulingView& view);

  // Builds a graph directly (tests, benchmarks). Fills unique_operands, users
  // and control_successors from operands and control_predecessors (users in
  // instruction order), then validates like FromView. `instructions` must
  // have operands, control_predecessors and the value fields set.
  static absl::StatusOr<SchedulingGraph> Create(std::vector<SchedulingInstruction> instructions,
                                                std::vector<SchedulingValue> values, int root);

  int instruction_count() const { return static_cast<int>(instructions_.size()); }
  int value_count() const { return static_cast<int>(values_.size()); }
  const SchedulingInstruction& instruction(int i) const { return instructions_[i]; }
  const std::vector<SchedulingInstruction>& instructions() const { return instructions_; }
  const SchedulingValue& value(int v) const { return values_[v]; }
  const std::vector<SchedulingValue>& values() const { return values_; }
  int root() const { return root_; }

  // For each value, the instructions whose used_values contain it, in
  // instruction order.
  const std::vector<int>& value_users(int v) const { return value_users_[v]; }

  // Returns whether `order` is a permutation of the instructions in which
  // every instruction follows its operands and control predecessors; the
  // error names the first offending instruction.
  absl::Status ValidateOrder(const std::vector<int>& order) const;

 private:
  absl::Status Finish();

  std::vector<SchedulingInstruction> instructions_;
  std::vector<SchedulingValue> values_;
  std::vector<std::vector<int>> value_users_;
  int root_ = 0;
};

}  // namespace hmo::scheduler

#endif  // HMO_PLUGINS_SCHEDULER_CORE_SCHEDULING_GRAPH_H_
