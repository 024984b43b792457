#include "hmo/rewrites/call_inlining.h"

#include <memory>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_schedule.h"

namespace hmo {
namespace {

bool Inlinable(const HloInstruction& call) {
  if (call.opcode() != HloOpcode::kCall || call.called_computations().size() != 1 ||
      !call.control_predecessors().empty() || !call.control_successors().empty() ||
      !call.frontend_attributes().empty() || !call.backend_config_text().empty()) {
    return false;
  }
  const HloComputation& callee = *call.called_computations().front();
  return call.operand_count() == callee.num_parameters();
}

// Each get-tuple-element of `tuple` (the inlined callee's root) replaced by
// the element itself, as XLA's simplifier does: the call's result read
// through a tuple hides from copy insertion which loop-state leaves a body
// reads (an element that is loop state would seem to flow on through an
// alias), and the tuple goes when nothing else uses it.
absl::Status ForwardTupleElements(HloComputation& caller, HloInstruction* tuple) {
  if (tuple->opcode() != HloOpcode::kTuple) return absl::OkStatus();
  const std::vector<HloInstruction*> users = tuple->users();
  for (HloInstruction* user : users) {
    if (user->opcode() != HloOpcode::kGetTupleElement || !user->control_predecessors().empty() ||
        !user->control_successors().empty() || user == caller.root_instruction()) {
      continue;
    }
    HloInstruction* element = tuple->mutable_operand(user->tuple_index());
    if (!(element->shape() == user->shape())) continue;
    HMO_RETURN_IF_ERROR(user->ReplaceAllUsesWith(element));
    HMO_RETURN_IF_ERROR(caller.RemoveInstruction(user));
  }
  // Only the tuple goes: its elements stay (a pending call among them must
  // stay in place).
  if (tuple->IsDead() && tuple != caller.root_instruction() &&
      tuple->control_predecessors().empty() && tuple->control_successors().empty()) {
    HMO_RETURN_IF_ERROR(caller.RemoveInstruction(tuple));
  }
  return absl::OkStatus();
}

// Replaces `call` by the instructions of its callee; returns the calls among
// them (to inline in turn).
absl::StatusOr<std::vector<HloInstruction*>> InlineCall(HloModule& module, HloInstruction* call) {
  HloComputation* caller = call->parent();
  const HloComputation* callee = call->called_computations().front();
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> mapped;
  // A boundary where the layouts differ becomes a layout-changing copy (the
  // copy control_flow_layouts.h would put at the call).
  std::vector<HloInstruction*> boundary_copies;
  for (int64_t i = 0; i < callee->num_parameters(); ++i) {
    const HloInstruction* parameter = callee->parameter_instruction(i);
    HloInstruction* operand = call->mutable_operand(i);
    if (!(operand->shape() == parameter->shape())) {
      operand = caller->AddInstruction(HloInstruction::CreateCopy(parameter->shape(), operand));
      boundary_copies.push_back(operand);
    }
    mapped[parameter] = operand;
  }
  std::vector<HloInstruction*> nested_calls;
  for (HloInstruction* instruction : callee->MakeInstructionPostOrder()) {
    if (instruction->opcode() == HloOpcode::kParameter) continue;
    std::vector<HloInstruction*> operands;
    operands.reserve(instruction->operand_count());
    for (HloInstruction* operand : instruction->operands()) operands.push_back(mapped.at(operand));
    HloInstruction* clone =
        caller->AddInstruction(instruction->CloneWithNewOperands(instruction->shape(), operands));
    mapped[instruction] = clone;
    if (Inlinable(*clone)) nested_calls.push_back(clone);
  }
  for (const HloInstruction* instruction : callee->instructions()) {
    for (const HloInstruction* successor : instruction->control_successors()) {
      HMO_RETURN_IF_ERROR(mapped.at(instruction)->AddControlDependencyTo(mapped.at(successor)));
    }
  }
  HloInstruction* result = mapped.at(callee->root_instruction());
  if (!(result->shape() == call->shape())) {
    result = caller->AddInstruction(HloInstruction::CreateCopy(call->shape(), result));
  }
  if (module.has_schedule() && module.schedule().is_computation_scheduled(caller)) {
    // The callee's order where the call was (post order when it has none),
    // between the boundary copies.
    std::vector<HloInstruction*> inlined = boundary_copies;
    const bool scheduled = module.schedule().is_computation_scheduled(callee);
    for (HloInstruction* instruction : scheduled ? module.schedule().sequence(callee).instructions()
                                                 : callee->MakeInstructionPostOrder()) {
      if (instruction->opcode() != HloOpcode::kParameter) inlined.push_back(mapped.at(instruction));
    }
    if (result != mapped.at(callee->root_instruction())) inlined.push_back(result);
    std::vector<HloInstruction*> sequence;
    for (HloInstruction* instruction : module.schedule().sequence(caller).instructions()) {
      if (instruction == call) {
        sequence.insert(sequence.end(), inlined.begin(), inlined.end());
      } else {
        sequence.push_back(instruction);
      }
    }
    module.schedule().set_sequence(caller, sequence);
  }
  // Only the call goes: operands the callee ignored stay (a pending call
  // among them must stay in place).
  HMO_RETURN_IF_ERROR(call->ReplaceAllUsesWith(result));
  HMO_RETURN_IF_ERROR(caller->RemoveInstruction(call));
  HMO_RETURN_IF_ERROR(ForwardTupleElements(*caller, result));
  return nested_calls;
}

}  // namespace

absl::StatusOr<bool> InlineCalls(HloModule& module) {
  std::vector<HloInstruction*> calls;
  for (HloComputation* computation : module.MakeNonfusionComputations()) {
    for (HloInstruction* instruction : computation->instructions()) {
      if (Inlinable(*instruction)) calls.push_back(instruction);
    }
  }
  if (calls.empty()) return false;
  // A call nested in an inlined callee is inlined in turn (a module's call
  // graph is acyclic, so this ends).
  while (!calls.empty()) {
    HloInstruction* call = calls.back();
    calls.pop_back();
    HMO_ASSIGN_OR_RETURN(std::vector<HloInstruction*> nested, InlineCall(module, call));
    calls.insert(calls.end(), nested.begin(), nested.end());
  }
  module.RemoveUnusedComputations();
  if (module.has_schedule()) HMO_RETURN_IF_ERROR(module.schedule().Update());
  return true;
}

}  // namespace hmo
