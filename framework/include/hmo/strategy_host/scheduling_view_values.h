#ifndef HMO_STRATEGY_HOST_SCHEDULING_VIEW_VALUES_H_
#define HMO_STRATEGY_HOST_SCHEDULING_VIEW_VALUES_H_

// The value table of a scheduling view: the ABI 1.1 fields of HmoSchedulingView
// (value_*) and HmoSchedulingInstruction (defined_value_ids, used_value_ids,
// flags) in scheduler_strategy_abi.h. XLA's schedulers count HloValues, not
// instructions: a get-tuple-element reads every value of its tuple operand, a
// tuple or bitcast defines no buffer of its own, and what an instruction
// defines is the sum of the values it defines. This table carries exactly what
// they need, from the dataflow analysis.

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/types/span.h"
#include "hmo/plugin/scheduler_strategy_abi.h"

namespace hmo {

class HloAliasAnalysis;
class HloComputation;
class HloDataflowAnalysis;
class HloInstruction;
class HloValue;

// Returns the HMO_INSTRUCTION_* bits of `instruction` (no analysis needed).
uint32_t SchedulingInstructionFlags(const HloInstruction& instruction);

class SchedulingViewValues {
 public:
  // Bytes of a value's buffer (e.g. ShapeUtil::ByteSizeOf of its shape).
  using SizeFunction = std::function<int64_t(const HloValue&)>;

  // Computes the table of `computation`, whose view numbers its instructions
  // as `instructions` does (id = index), from `dataflow` (XLA's schedulers use
  // the alias analysis's, in SSA form). Values are numbered in the order the
  // instructions first mention them: their definitions, then what they read;
  // the root's values are live out.
  // With `alias_analysis`, a donated entry parameter is marked
  // HMO_VALUE_FREED_AFTER_LAST_USE only when its buffer holds just it and the
  // output it is donated to (a buffer that other values, e.g. a loop's
  // carried state, keep occupied in between stays occupied throughout).
  // With `mark_outside_temp_arena` (needs `alias_analysis`), the values of an
  // entry computation whose HloBuffer holds an entry parameter or an entry
  // output are marked HMO_VALUE_OUTSIDE_TEMP_ARENA.
  static std::unique_ptr<SchedulingViewValues> Build(
      const HloComputation& computation, absl::Span<HloInstruction* const> instructions,
      const HloDataflowAnalysis& dataflow, const SizeFunction& size_fn,
      const HloAliasAnalysis* alias_analysis = nullptr, bool mark_outside_temp_arena = false);

  // Points the value fields of `view` and of `instructions[id]` (the view's
  // C structs, in id order) into this table, which must outlive them.
  void Attach(HmoSchedulingView& view,
              absl::Span<HmoSchedulingInstruction* const> instructions) const;

  size_t value_count() const { return sizes_.size(); }

 private:
  SchedulingViewValues() = default;

  std::vector<uint64_t> sizes_;
  std::vector<HmoInstructionId> defining_;
  std::vector<uint32_t> flags_;
  std::vector<std::vector<HmoValueId>> defined_;
  std::vector<std::vector<HmoValueId>> used_;
};

// What BuildSchedulingView needs to fill a view's value table.
struct SchedulingValueSource {
  // The analysis the values come from; must outlive the view.
  const HloDataflowAnalysis* dataflow = nullptr;
  // Optional; refines which donated parameters are freed after their last
  // use (see SchedulingViewValues::Build). Must outlive the view.
  const HloAliasAnalysis* alias_analysis = nullptr;
  // Null: ShapeUtil::ByteSizeOf of the value's shape with 8-byte pointers.
  SchedulingViewValues::SizeFunction size_fn;
  // Mark values outside the temporary arena (HMO_VALUE_OUTSIDE_TEMP_ARENA);
  // needs `alias_analysis`.
  bool mark_outside_temp_arena = false;
};

}  // namespace hmo

#endif  // HMO_STRATEGY_HOST_SCHEDULING_VIEW_VALUES_H_
