#ifndef HMO_STRATEGY_HOST_SCHEDULING_VIEW_H_
#define HMO_STRATEGY_HOST_SCHEDULING_VIEW_H_

// Builds the read-only C view of one computation that scheduler strategies
// receive (HmoSchedulingView in scheduler_strategy_abi.h), and maps the ids in
// a strategy's answer back to instructions.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "hmo/plugin/scheduler_strategy_abi.h"
#include "hmo/strategy_host/scheduling_view_values.h"

namespace hmo {

class HloComputation;
class HloInstruction;

// Returns whether `instruction`'s output may occupy the buffer of its operand
// number `operand_index`. The dataflow analysis provides the real answer; the
// view asks about each operand index in order, skipping an operand that an
// earlier index of the same instruction already named.
using MayShareOperandBufferFn =
    std::function<bool(const HloInstruction& instruction, int64_t operand_index)>;

// Owns the view's arrays and strings; the HmoSchedulingView it exposes is
// valid while this object lives and the computation is not changed.
class SchedulingView {
 public:
  SchedulingView(const SchedulingView&) = delete;
  SchedulingView& operator=(const SchedulingView&) = delete;

  // The C view to hand to a strategy.
  const HmoSchedulingView& view() const { return view_; }
  // The instruction with id `id` (< size()).
  HloInstruction* instruction(HmoInstructionId id) const { return instructions_[id]; }
  // The id of `instruction`, or nullopt when it is not in the computation.
  std::optional<HmoInstructionId> IdOf(const HloInstruction* instruction) const;
  size_t size() const { return instructions_.size(); }
  // Sets instruction `id`'s transient_bytes (ABI 1.1): what the computations
  // it calls need during its step, as the caller of BuildSchedulingView
  // estimates it (e.g. from those computations' own schedules).
  void SetTransientBytes(HmoInstructionId id, uint64_t bytes) {
    storage_[id].c.transient_bytes = bytes;
  }

 private:
  friend absl::StatusOr<std::unique_ptr<SchedulingView>> BuildSchedulingView(
      const HloComputation&, const MayShareOperandBufferFn&, const SchedulingValueSource*);
  SchedulingView() = default;

  std::vector<HloInstruction*> instructions_;
  absl::flat_hash_map<const HloInstruction*, HmoInstructionId> ids_;
  // Per instruction: its C struct, its names, and its id arrays.
  struct Storage {
    HmoSchedulingInstruction c = {};
    std::string name;
    std::string opcode;
    std::vector<HmoInstructionId> operands, users, control_predecessors, control_successors,
        may_share;
  };
  std::vector<Storage> storage_;
  std::vector<const HmoSchedulingInstruction*> pointers_;
  std::string computation_name_;
  std::string module_name_;
  HmoSchedulingView view_ = {};
  // The ABI 1.1 value table, when a value source was given.
  std::unique_ptr<SchedulingViewValues> values_;
};

// Builds the view of `computation`:
//  - ids follow the computation's instruction order (text order for a parsed
//    module), 0 .. n-1;
//  - operands in operand order, distinct users, control predecessors and
//    successors, by id; in an entry computation the control edges include
//    the orders donation imposes (hmo/ir/donation_orderings.h), and the
//    build fails (FailedPrecondition, naming the aliases) when those orders
//    form a cycle;
//  - bytes_defined is ShapeUtil::ByteSizeOf(instruction shape);
//  - is_live_out marks the root and, when the root is a tuple, the
//    instructions it forwards (through nested root tuples);
//  - may_share_operand_ids lists each distinct operand for which `may_share`
//    returns true; with no `may_share` it is empty for every instruction
//    ("no sharing known", always safe). The dataflow analysis passes its own
//    function here to fill it;
//  - flags (ABI 1.1) always; the value table (ABI 1.1,
//    scheduling_view_values.h) when `values` is given, else empty.
absl::StatusOr<std::unique_ptr<SchedulingView>> BuildSchedulingView(
    const HloComputation& computation, const MayShareOperandBufferFn& may_share = nullptr,
    const SchedulingValueSource* values = nullptr);

}  // namespace hmo

#endif  // HMO_STRATEGY_HOST_SCHEDULING_VIEW_H_
