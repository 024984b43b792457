#ifndef HMO_IR_HLO_SCHEDULE_H_
#define HMO_IR_HLO_SCHEDULE_H_

// The execution order of a scheduled module: one instruction sequence per
// non-fusion computation. A module parsed with `is_scheduled=true` gets the
// text order of each non-fusion computation as its schedule.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"

namespace hmo {

class HloComputation;
class HloInstruction;
class HloModule;

// An ordered list of instructions with their unique ids (the ids let a
// schedule detect instructions that were removed and freed).
class HloInstructionSequence {
 public:
  HloInstructionSequence() = default;
  explicit HloInstructionSequence(absl::Span<HloInstruction* const> instructions);

  void push_back(HloInstruction* instruction);
  // Removes the first occurrence (no-op if absent).
  void remove_instruction(HloInstruction* instruction);
  // Replaces the first occurrence of `old_instruction`.
  void replace_instruction(HloInstruction* old_instruction, HloInstruction* new_instruction);
  // Inserts before position `index`.
  void insert_instruction(HloInstruction* instruction, int64_t index);
  void clear();

  int64_t size() const { return static_cast<int64_t>(instructions_.size()); }
  const std::vector<HloInstruction*>& instructions() const { return instructions_; }
  const std::vector<int64_t>& ids() const { return ids_; }

 private:
  std::vector<HloInstruction*> instructions_;
  std::vector<int64_t> ids_;
};

class HloSchedule {
 public:
  explicit HloSchedule(const HloModule* module) : module_(module) {}

  const HloModule* module() const { return module_; }

  // Precondition: is_computation_scheduled(computation).
  const HloInstructionSequence& sequence(const HloComputation* computation) const;
  HloInstructionSequence& GetOrCreateSequence(const HloComputation* computation);
  void set_sequence(const HloComputation* computation,
                    absl::Span<HloInstruction* const> sequence);
  void set_sequence(const HloComputation* computation, HloInstructionSequence sequence);
  bool is_computation_scheduled(const HloComputation* computation) const;
  void remove_computation(const HloComputation* computation);
  // Sequences keyed by computation unique id.
  const std::map<int64_t, HloInstructionSequence>& sequences() const { return sequences_; }
  int64_t num_sequences() const { return static_cast<int64_t>(sequences_.size()); }

  // Brings the schedule in line with the module after a pass changed it:
  // drops sequences of computations no longer in the module and instructions
  // no longer in their computation; inserts new instructions (in post order)
  // right after their last operand / control predecessor; schedules new
  // non-fusion computations in post order.
  absl::Status Update();

  // Checks that every non-fusion computation has a sequence, that each
  // sequence holds exactly that computation's instructions once each, and
  // that every operand and control predecessor comes before its user.
  absl::Status Verify() const;

  // "schedule:\n  computation:\n    instr\n..." (debugging aid).
  std::string ToString() const;

  // Same module-relative content: the sequence of each computation holds
  // instructions with the same names in the same order.
  bool SameOrderAs(const HloSchedule& other) const;

 private:
  const HloModule* module_;
  std::map<int64_t, HloInstructionSequence> sequences_;
};

// A schedule of every non-fusion computation of `module`: the module's own
// sequence where it has one, post order (which respects operands and control
// dependencies) elsewhere. `complete`, when given, says whether the module's
// own schedule covered every computation.
HloSchedule CompletedSchedule(const HloModule& module, bool* complete = nullptr);

}  // namespace hmo

#endif  // HMO_IR_HLO_SCHEDULE_H_
