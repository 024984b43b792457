#include "hmo/rewrites/flatten_call_graph.h"

#include <memory>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_schedule.h"

namespace hmo {
namespace {

bool RunsCalleesAsControlFlow(const HloInstruction& instruction) {
  switch (instruction.opcode()) {
    case HloOpcode::kCall:
    case HloOpcode::kWhile:
    case HloOpcode::kConditional:
      return true;
    default:
      return false;
  }
}

// A copy of `original` added to `module`: the same instructions (renamed
// where the module needs it), the same callees, the same sequence.
absl::StatusOr<HloComputation*> CloneComputation(HloModule& module,
                                                 const HloComputation& original) {
  auto clone = std::make_unique<HloComputation>(module.GetUniqueName(original.name()));
  clone->set_execution_thread(original.execution_thread());
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> mapped;
  absl::flat_hash_map<const HloInstruction*, std::unique_ptr<HloInstruction>> copies;
  for (HloInstruction* instruction : original.MakeInstructionPostOrder()) {
    std::vector<HloInstruction*> operands;
    operands.reserve(instruction->operand_count());
    for (HloInstruction* operand : instruction->operands()) operands.push_back(mapped.at(operand));
    std::unique_ptr<HloInstruction> copy =
        instruction->CloneWithNewOperands(instruction->shape(), operands);
    mapped[instruction] = copy.get();
    copies[instruction] = std::move(copy);
  }
  // Stored order, as HloModule::Clone keeps it.
  for (const HloInstruction* instruction : original.instructions()) {
    auto it = copies.find(instruction);
    if (it != copies.end()) clone->AddInstruction(std::move(it->second));
  }
  for (const HloInstruction* instruction : original.instructions()) {
    for (const HloInstruction* successor : instruction->control_successors()) {
      HMO_RETURN_IF_ERROR(mapped.at(instruction)->AddControlDependencyTo(mapped.at(successor)));
    }
  }
  clone->set_root_instruction(mapped.at(original.root_instruction()));
  HloComputation* added = module.AddEmbeddedComputation(std::move(clone));
  if (module.has_schedule() && module.schedule().is_computation_scheduled(&original)) {
    std::vector<HloInstruction*> sequence;
    for (HloInstruction* instruction : module.schedule().sequence(&original).instructions()) {
      sequence.push_back(mapped.at(instruction));
    }
    module.schedule().set_sequence(added, sequence);
  }
  return added;
}

}  // namespace

absl::StatusOr<bool> FlattenCallGraph(HloModule& module) {
  if (!module.has_entry_computation()) return false;
  bool changed = false;
  absl::flat_hash_set<const HloComputation*> claimed = {module.entry_computation()};
  std::vector<HloComputation*> worklist = {module.entry_computation()};
  while (!worklist.empty()) {
    HloComputation* computation = worklist.back();
    worklist.pop_back();
    for (HloInstruction* instruction : computation->instructions()) {
      if (!RunsCalleesAsControlFlow(*instruction)) continue;
      std::vector<HloComputation*> callees = instruction->called_computations();
      bool cloned = false;
      for (HloComputation*& callee : callees) {
        if (!claimed.insert(callee).second) {
          HMO_ASSIGN_OR_RETURN(callee, CloneComputation(module, *callee));
          claimed.insert(callee);
          cloned = true;
        }
        worklist.push_back(callee);
      }
      if (cloned) {
        instruction->set_called_computations(std::move(callees));
        changed = true;
      }
    }
  }
  return changed;
}

}  // namespace hmo
