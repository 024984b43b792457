#include "hmo/rewrites/fusion_expansion.h"

#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_schedule.h"

namespace hmo {
namespace {

struct ExpandedBody {
  // The clones, in post order.
  std::vector<HloInstruction*> added;
  // What takes the fusion's place: the clone of the fused root, or the
  // operand a fused root parameter stands for.
  HloInstruction* root = nullptr;
};

ExpandedBody CloneFusedInstructions(HloInstruction& fusion) {
  HloComputation& parent = *fusion.parent();
  const HloComputation& body = *fusion.fused_instructions_computation();
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> mapped;
  ExpandedBody expanded;
  std::vector<HloInstruction*>& added = expanded.added;
  for (HloInstruction* instruction : body.MakeInstructionPostOrder()) {
    if (instruction->opcode() == HloOpcode::kParameter) {
      mapped[instruction] = fusion.mutable_operand(instruction->parameter_number());
      continue;
    }
    std::vector<HloInstruction*> operands;
    operands.reserve(instruction->operand_count());
    for (HloInstruction* operand : instruction->operands()) operands.push_back(mapped.at(operand));
    HloInstruction* clone =
        parent.AddInstruction(instruction->CloneWithNewOperands(instruction->shape(), operands));
    mapped[instruction] = clone;
    added.push_back(clone);
  }
  expanded.root = mapped.at(body.root_instruction());
  return expanded;
}

}  // namespace

absl::StatusOr<int64_t> ExpandFusions(
    HloModule& module, const std::function<bool(const HloInstruction& fusion)>& expand,
    std::vector<HloInstruction*>* added) {
  int64_t expanded = 0;
  // Every clone made; those a later round expanded again or that became
  // dead are not in the module at the end.
  absl::flat_hash_set<const HloInstruction*> cloned;
  bool changed = true;
  while (changed) {
    changed = false;
    for (HloComputation* computation : module.MakeNonfusionComputations()) {
      std::vector<HloInstruction*> fusions;
      for (HloInstruction* instruction : computation->instructions()) {
        if (instruction->opcode() == HloOpcode::kFusion && expand(*instruction))
          fusions.push_back(instruction);
      }
      for (HloInstruction* fusion : fusions) {
        const ExpandedBody body = CloneFusedInstructions(*fusion);
        cloned.insert(body.added.begin(), body.added.end());
        if (module.has_schedule() && module.schedule().is_computation_scheduled(computation)) {
          std::vector<HloInstruction*> sequence;
          for (HloInstruction* instruction :
               module.schedule().sequence(computation).instructions()) {
            if (instruction != fusion) {
              sequence.push_back(instruction);
              continue;
            }
            sequence.insert(sequence.end(), body.added.begin(), body.added.end());
          }
          module.schedule().set_sequence(computation, sequence);
        }
        HMO_RETURN_IF_ERROR(computation->ReplaceInstruction(fusion, body.root));
        ++expanded;
        changed = true;
      }
    }
  }
  if (module.has_schedule()) HMO_RETURN_IF_ERROR(module.schedule().Update());
  module.RemoveUnusedComputations();
  if (module.has_schedule()) HMO_RETURN_IF_ERROR(module.schedule().Update());
  if (added != nullptr) {
    added->clear();
    for (HloComputation* computation : module.MakeNonfusionComputations()) {
      for (HloInstruction* instruction : computation->instructions()) {
        if (cloned.contains(instruction)) added->push_back(instruction);
      }
    }
  }
  return expanded;
}

}  // namespace hmo
