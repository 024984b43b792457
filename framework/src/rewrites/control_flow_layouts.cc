#include "hmo/rewrites/control_flow_layouts.h"

#include <vector>

#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_schedule.h"

namespace hmo {
namespace {

// `value` in `target`'s layouts (same shape ignoring layout): itself when
// they agree, else copies of the array leaves that differ.
HloInstruction* InLayout(HloComputation& computation, HloInstruction* value, const Shape& target) {
  if (value->shape() == target) return value;
  if (!value->shape().IsTuple()) {
    return computation.AddInstruction(HloInstruction::CreateCopy(target, value));
  }
  std::vector<HloInstruction*> elements;
  for (int64_t i = 0; i < static_cast<int64_t>(target.tuple_shapes().size()); ++i) {
    HloInstruction* element =
        computation.AddInstruction(HloInstruction::CreateGetTupleElement(value, i));
    elements.push_back(InLayout(computation, element, target.tuple_shapes(i)));
  }
  return computation.AddInstruction(HloInstruction::CreateTuple(elements));
}

absl::StatusOr<bool> ConformOperand(HloInstruction& user, int64_t operand_number,
                                    const Shape& target) {
  HloInstruction* operand = user.mutable_operand(operand_number);
  if (operand->shape() == target || !ShapeUtil::EqualIgnoringLayout(operand->shape(), target))
    return false;
  HMO_RETURN_IF_ERROR(
      user.ReplaceOperandWith(operand_number, InLayout(*user.parent(), operand, target)));
  return true;
}

absl::StatusOr<bool> ConformRoot(HloComputation& computation, const Shape& target) {
  HloInstruction* root = computation.root_instruction();
  if (root->shape() == target || !ShapeUtil::EqualIgnoringLayout(root->shape(), target))
    return false;
  computation.set_root_instruction(InLayout(computation, root, target));
  return true;
}

}  // namespace

absl::StatusOr<bool> ConformControlFlowLayouts(HloModule& module) {
  bool changed = false;
  for (HloComputation* computation : module.MakeNonfusionComputations()) {
    const std::vector<HloInstruction*> instructions(computation->instructions().begin(),
                                                    computation->instructions().end());
    for (HloInstruction* instruction : instructions) {
      switch (instruction->opcode()) {
        case HloOpcode::kCall: {
          HloComputation& callee = *instruction->to_apply();
          for (int64_t i = 0; i < instruction->operand_count() && i < callee.num_parameters();
               ++i) {
            HMO_ASSIGN_OR_RETURN(
                bool copied,
                ConformOperand(*instruction, i, callee.parameter_instruction(i)->shape()));
            changed |= copied;
          }
          HMO_ASSIGN_OR_RETURN(bool copied, ConformRoot(callee, instruction->shape()));
          changed |= copied;
          break;
        }
        case HloOpcode::kWhile: {
          HMO_ASSIGN_OR_RETURN(bool init, ConformOperand(*instruction, 0, instruction->shape()));
          HMO_ASSIGN_OR_RETURN(bool root,
                               ConformRoot(*instruction->while_body(), instruction->shape()));
          changed |= init || root;
          break;
        }
        case HloOpcode::kConditional:
          for (int64_t k = 0; k < instruction->branch_count(); ++k) {
            HloComputation& branch = *instruction->branch_computation(k);
            if (branch.num_parameters() > 0 && k + 1 < instruction->operand_count()) {
              HMO_ASSIGN_OR_RETURN(
                  bool copied,
                  ConformOperand(*instruction, k + 1, branch.parameter_instruction(0)->shape()));
              changed |= copied;
            }
            HMO_ASSIGN_OR_RETURN(bool copied, ConformRoot(branch, instruction->shape()));
            changed |= copied;
          }
          break;
        default:
          break;
      }
    }
  }
  if (changed && module.has_schedule()) HMO_RETURN_IF_ERROR(module.schedule().Update());
  return changed;
}

}  // namespace hmo
