#include "hmo/analysis/hlo_dataflow_analysis.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <tuple>

#include "absl/container/flat_hash_set.h"
#include "analysis_check.h"
#include "absl/strings/str_cat.h"
#include "hlo_phi_graph.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"

namespace hmo {
namespace {

// XLA's CalculatePostOrderSchedule: an ordinal per instruction, visiting the
// entry in post order and recursing into call / async-start / conditional
// callees and while condition, then body, before the calling instruction.
// Instructions reached twice keep their first ordinal (the counter still
// advances). Instructions not reached (fusion bodies, reduce computations,
// dead computations) have no ordinal and are treated as 0 by the worklist.
int64_t CalculatePostOrderScheduleHelper(const HloComputation* computation, int64_t ordinal,
                                         absl::flat_hash_map<const HloInstruction*, int64_t>* map) {
  for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
    const HloOpcode opcode = instruction->opcode();
    if (opcode == HloOpcode::kCall || opcode == HloOpcode::kAsyncStart ||
        opcode == HloOpcode::kConditional) {
      for (const HloComputation* callee : instruction->called_computations()) {
        ordinal = CalculatePostOrderScheduleHelper(callee, ordinal, map);
      }
    }
    if (opcode == HloOpcode::kWhile) {
      ordinal = CalculatePostOrderScheduleHelper(instruction->while_condition(), ordinal, map);
      ordinal = CalculatePostOrderScheduleHelper(instruction->while_body(), ordinal, map);
    }
    map->insert({instruction, ordinal++});
  }
  return ordinal;
}

ShapeIndex Prepend(int64_t first, const ShapeIndex& rest) {
  ShapeIndex index{first};
  index.insert(index.end(), rest.begin(), rest.end());
  return index;
}

}  // namespace

HloDataflowAnalysis::HloDataflowAnalysis(const HloModule& module, Options options)
    : module_(module),
      options_(options),
      call_graph_(CallGraph::Build(&module)),
      phi_graph_(std::make_unique<PhiGraph>()) {}

HloDataflowAnalysis::~HloDataflowAnalysis() = default;

bool HloDataflowAnalysis::AreTransitiveUsesElementwiseOrTuple(const HloInstruction* inst) {
  absl::flat_hash_set<const HloInstruction*> visited;
  std::vector<const HloInstruction*> stack{inst};
  while (!stack.empty()) {
    const HloInstruction* current = stack.back();
    stack.pop_back();
    visited.insert(current);
    for (const HloInstruction* user : current->users()) {
      for (int64_t use_index : user->OperandIndices(current)) {
        if (!user->IsElementwiseOnOperand(use_index) && user->opcode() != HloOpcode::kTuple) {
          return false;
        }
      }
      if (!visited.contains(user)) stack.push_back(user);
    }
  }
  return true;
}

bool HloDataflowAnalysis::ValueIsDefinedAt(const HloInstruction* instruction,
                                           const ShapeIndex& index) const {
  const HloValueSet& value_set = GetValueSet(instruction, index);
  if (value_set.values().size() != 1) return false;
  return value_set.GetUniqueValue().defining_instruction() == instruction;
}

const HloValue& HloDataflowAnalysis::GetValueDefinedAt(const HloInstruction* instruction,
                                                       const ShapeIndex& index) const {
  HMO_CHECK(ValueIsDefinedAt(instruction, index))
      << instruction->name() << " defines no value at " << ShapeIndexToString(index);
  return GetUniqueValueAt(instruction, index);
}

HloValue* HloDataflowAnalysis::NewHloValue(HloInstruction* instruction, const ShapeIndex& index,
                                           bool is_phi) {
  const HloValue::Id id = static_cast<HloValue::Id>(values_.size());
  values_.push_back(std::make_unique<HloValue>(id, instruction, index, is_phi));
  return values_.back().get();
}

void HloDataflowAnalysis::MarkValueForDeletion(HloValue::Id id) {
  value_ids_to_delete_.push_back(id);
}

void HloDataflowAnalysis::DeleteMarkedValues() {
  if (value_ids_to_delete_.empty()) return;
  // XLA only DCHECKs that a deleted value is no longer referenced; keeping a
  // still-referenced value is the safe reading of that invariant.
  absl::flat_hash_set<const HloValue*> referenced;
  for (const auto& [instruction, set] : value_sets_) {
    for (const auto& [index, value_set] : *set) {
      for (const HloValue* value : value_set.values()) referenced.insert(value);
    }
  }
  for (HloValue::Id id : value_ids_to_delete_) {
    if (values_[id] != nullptr && !referenced.contains(values_[id].get())) values_[id].reset();
  }
  value_ids_to_delete_.clear();
}

const HloValue& HloDataflowAnalysis::GetValue(HloValue::Id id) const {
  HMO_CHECK(id >= 0 && id < static_cast<HloValue::Id>(values_.size()) && values_[id] != nullptr)
      << "Value not found: " << id;
  return *values_[id];
}

const InstructionValueSet& HloDataflowAnalysis::GetInstructionValueSet(
    const HloInstruction* instruction) const {
  auto it = value_sets_.find(instruction);
  HMO_CHECK(it != value_sets_.end()) << "Instruction " << instruction->name() << " not found.";
  return *it->second;
}

InstructionValueSet& HloDataflowAnalysis::GetMutableInstructionValueSet(
    const HloInstruction* instruction) {
  auto it = value_sets_.find(instruction);
  HMO_CHECK(it != value_sets_.end()) << "Instruction " << instruction->name() << " not found.";
  return *it->second;
}

const HloValueSet& HloDataflowAnalysis::GetValueSet(const HloInstruction* instruction,
                                                    const ShapeIndex& index) const {
  return GetInstructionValueSet(instruction).element(index);
}

HloValueSet& HloDataflowAnalysis::GetMutableValueSet(const HloInstruction* instruction,
                                                     const ShapeIndex& index) {
  return *GetMutableInstructionValueSet(instruction).mutable_element(index);
}

HloValueSet HloDataflowAnalysis::GetFlattenedValueSet(const HloInstruction* instruction) const {
  HloValueSet result;
  std::vector<const HloValueSet*> all;
  for (const auto& [index, set] : GetInstructionValueSet(instruction)) all.push_back(&set);
  result.AssignUnionOf(all);
  return result;
}

std::vector<std::pair<HloOperandIndex, ShapeIndex>>
HloDataflowAnalysis::GetInPlaceInputOutputPairs(const HloInstruction* instruction) {
  return DefaultAliasInfo().GetInPlaceInputOutputPairs(instruction);
}

// ------------------------------------------------------------------- Phi

bool HloDataflowAnalysis::Phi(HloInstruction* instruction,
                              absl::Span<const InstructionValueSet* const> inputs) {
  HMO_CHECK(options_.ssa_form);
  bool changed = false;
  for (auto& [index, value_set] : GetMutableInstructionValueSet(instruction)) {
    // A position holding a phi never holds anything else.
    HMO_CHECK_LE(value_set.values().size(), 1u);
    const HloValue* current_value = value_set.values().size() == 1 ? value_set.values()[0] : nullptr;

    // Duplicates are kept on purpose: XLA counts them, so phi(v, v) is created
    // (and later optimized away), consuming an id.
    std::vector<HloValue::Id> input_value_ids;
    for (const InstructionValueSet* input : inputs) {
      for (const HloValue* value : input->element(index).values()) {
        input_value_ids.push_back(value->id());
      }
    }
    const bool current_value_defined_here = current_value != nullptr &&
                                            current_value->defining_instruction() == instruction &&
                                            current_value->defining_index() == index;
    if (input_value_ids.empty()) {
      // Value sets only grow during propagation.
      HMO_CHECK(value_set.values().empty());
    } else if (input_value_ids.size() == 1) {
      const HloValue& new_value = GetValue(input_value_ids[0]);
      if (current_value == nullptr) {
        value_set.Clear();
        value_set.AddValue(&new_value);
        changed = true;
      } else if (current_value != &new_value) {
        if (current_value_defined_here) MarkValueForDeletion(current_value->id());
        value_set.Clear();
        value_set.AddValue(&new_value);
        changed = true;
      }
    } else {
      const bool phi_defined_here = current_value_defined_here && current_value->is_phi();
      std::vector<const HloValue*> phi_inputs;
      phi_inputs.reserve(input_value_ids.size());
      if (current_value == nullptr || !phi_defined_here) {
        HloValue* phi = NewHloValue(instruction, index, /*is_phi=*/true);
        for (HloValue::Id id : input_value_ids) phi_inputs.push_back(&GetValue(id));
        value_set.Clear();
        value_set.AddValue(phi);
        phi_graph_->RegisterPhi(*phi, phi_inputs);
        changed = true;
      } else {
        for (HloValue::Id id : input_value_ids) phi_inputs.push_back(&GetValue(id));
        if (!phi_graph_->InputsEqualTo(*current_value, phi_inputs)) {
          phi_graph_->RegisterPhi(*current_value, phi_inputs);
          changed = true;
        }
      }
    }
  }
  return changed;
}

// ------------------------------------------------------- transfer functions

bool HloDataflowAnalysis::UpdateWholeOperandValueSet(HloInstruction* instruction) {
  // bitcast (when it does not define a value) and add-dependency carry their
  // operand 0's values unchanged.
  if (instruction->opcode() == HloOpcode::kBitcast && options_.bitcast_defines_value) return false;
  const InstructionValueSet& operand_set = GetInstructionValueSet(instruction->operand(0));
  InstructionValueSet& set = GetMutableInstructionValueSet(instruction);
  if (operand_set == set) return false;
  set.CopySetsFrom(operand_set);
  return true;
}

bool HloDataflowAnalysis::UpdateSendValueSet(HloInstruction* send) {
  bool changed = false;
  for (const auto& [operand_index, operand_set] : GetInstructionValueSet(send->operand(0))) {
    HloValueSet& set = GetMutableValueSet(send, Prepend(0, operand_index));
    if (set != operand_set) {
      set = operand_set;
      changed = true;
    }
  }
  return changed;
}

bool HloDataflowAnalysis::UpdateAsyncStartValueSet(HloInstruction* async_start) {
  bool changed = false;
  // Operands go to {0, i, ...}.
  for (int64_t i = 0; i < async_start->operand_count(); ++i) {
    const HloInstruction* operand = async_start->operand(i);
    ShapeUtil::ForEachSubshape(operand->shape(), [&](const Shape& subshape, const ShapeIndex& index) {
      if (!subshape.IsArray()) return;
      ShapeIndex output_index{0, i};
      output_index.insert(output_index.end(), index.begin(), index.end());
      const HloValueSet& operand_set = GetValueSet(operand, index);
      HloValueSet& set = GetMutableValueSet(async_start, output_index);
      if (set != operand_set) {
        set = operand_set;
        changed = true;
      }
    });
  }
  // The wrapped computation's root goes to {1, ...}.
  HloComputation* wrapped = async_start->async_wrapped_computation();
  if (wrapped == nullptr) return changed;
  HloInstruction* root = wrapped->root_instruction();
  ShapeUtil::ForEachSubshape(root->shape(), [&](const Shape& subshape, const ShapeIndex& index) {
    if (!subshape.IsArray()) return;
    const HloValueSet& root_set = GetValueSet(root, index);
    HloValueSet& set = GetMutableValueSet(async_start, Prepend(1, index));
    if (set != root_set) {
      set = root_set;
      changed = true;
    }
  });
  return changed;
}

bool HloDataflowAnalysis::UpdateAsyncUpdateValueSet(HloInstruction* async_update) {
  bool changed = false;
  HloComputation* wrapped = async_update->async_wrapped_computation();
  HloInstruction* root = wrapped != nullptr ? wrapped->root_instruction() : nullptr;
  ShapeUtil::ForEachSubshape(
      async_update->operand(0)->shape(), [&](const Shape& subshape, const ShapeIndex& index) {
        if (!subshape.IsArray()) return;
        const HloValueSet& operand_set = GetValueSet(async_update->operand(0), index);
        HloValueSet& set = GetMutableValueSet(async_update, index);
        if (!index.empty() && index[0] == 1 && root != nullptr) {
          // Outputs: union with the wrapped computation's root.
          ShapeIndex root_index(index.begin() + 1, index.end());
          changed |= set.AssignUnionOf({&operand_set, &GetValueSet(root, root_index)});
        } else if (set != operand_set) {
          set = operand_set;
          changed = true;
        }
      });
  return changed;
}

bool HloDataflowAnalysis::UpdateAsyncDoneValueSet(HloInstruction* async_done) {
  bool changed = false;
  HloComputation* wrapped = async_done->async_wrapped_computation();
  HloInstruction* root = wrapped != nullptr ? wrapped->root_instruction() : nullptr;
  // The operand's outputs ({1, ...}), united with the wrapped root, become the
  // result.
  ShapeUtil::ForEachSubshape(
      async_done->operand(0)->shape(), [&](const Shape& subshape, const ShapeIndex& index) {
        if (!subshape.IsArray() || index.empty() || index.front() != 1) return;
        const HloValueSet& operand_set = GetValueSet(async_done->operand(0), index);
        ShapeIndex output_index(index.begin() + 1, index.end());
        HloValueSet& set = GetMutableValueSet(async_done, output_index);
        if (root != nullptr) {
          changed |= set.AssignUnionOf({&operand_set, &GetValueSet(root, output_index)});
        } else if (set != operand_set) {
          set = operand_set;
          changed = true;
        }
      });
  return changed;
}

bool HloDataflowAnalysis::UpdateCopyStartValueSet(HloInstruction* copy_start) {
  const HloValueSet& operand_set = GetValueSet(copy_start->operand(0));
  HloValueSet& set = GetMutableValueSet(copy_start, {1});
  if (set == operand_set) return false;
  set = operand_set;
  return true;
}

bool HloDataflowAnalysis::UpdateCopyDoneValueSet(HloInstruction* copy_done) {
  const HloValueSet& operand_set = GetValueSet(copy_done->operand(0), {0});
  HloValueSet& set = GetMutableValueSet(copy_done);
  if (set == operand_set) return false;
  set = operand_set;
  return true;
}

bool HloDataflowAnalysis::UpdateRecvDoneValueSet(HloInstruction* recv_done) {
  bool changed = false;
  for (auto& [index, set] : GetMutableInstructionValueSet(recv_done)) {
    if (index.empty() || index[0] != 0) continue;
    const HloValueSet& operand_set = GetValueSet(recv_done->operand(0), index);
    if (set != operand_set) {
      set = operand_set;
      changed = true;
    }
  }
  return changed;
}

bool HloDataflowAnalysis::UpdateCallValueSet(HloInstruction* call) {
  InstructionValueSet& set = GetMutableInstructionValueSet(call);
  const InstructionValueSet& root_set =
      GetInstructionValueSet(call->to_apply()->root_instruction());
  if (set == root_set) return false;
  set.CopySetsFrom(root_set);
  return true;
}

bool HloDataflowAnalysis::UpdateConditionalValueSet(HloInstruction* conditional) {
  std::vector<const InstructionValueSet*> inputs;
  for (int64_t j = 0; j < conditional->branch_count(); ++j) {
    inputs.push_back(&GetInstructionValueSet(conditional->branch_computation(j)->root_instruction()));
  }
  if (options_.ssa_form) return Phi(conditional, inputs);
  return GetMutableInstructionValueSet(conditional).AssignUnionOf(inputs);
}

bool HloDataflowAnalysis::UpdateCopyValueSet(HloInstruction* copy) {
  bool changed = false;
  for (auto& [index, set] : GetMutableInstructionValueSet(copy)) {
    if (index.empty()) continue;  // copy defines its top level
    const HloValueSet& operand_set = GetValueSet(copy->operand(0), index);
    if (set != operand_set) {
      set = operand_set;
      changed = true;
    }
  }
  return changed;
}

bool HloDataflowAnalysis::UpdateForwardingValueSet(HloInstruction* instruction) {
  // domain and opt-barrier forward every index of their operand, the top
  // level included.
  bool changed = false;
  for (auto& [index, set] : GetMutableInstructionValueSet(instruction)) {
    const HloValueSet& operand_set = GetValueSet(instruction->operand(0), index);
    if (set != operand_set) {
      set = operand_set;
      changed = true;
    }
  }
  return changed;
}

bool HloDataflowAnalysis::UpdateGetTupleElementValueSet(HloInstruction* gte) {
  bool changed = false;
  for (auto& [index, set] : GetMutableInstructionValueSet(gte)) {
    const HloValueSet& operand_set = GetValueSet(gte->operand(0), Prepend(gte->tuple_index(), index));
    if (set != operand_set) {
      set = operand_set;
      changed = true;
    }
  }
  return changed;
}

bool HloDataflowAnalysis::UpdateParameterValueSet(HloInstruction* parameter) {
  const CallGraphNode& node = call_graph_->GetNode(parameter->parent());
  // Parameters of embedded computations and of uncalled computations define
  // their own values.
  if (node.context() == CallContext::kEmbedded || node.caller_callsites().empty()) return false;

  std::vector<const InstructionValueSet*> inputs;
  bool need_phi = false;
  for (const CallSite& callsite : node.caller_callsites()) {
    HloInstruction* caller = callsite.instruction();
    switch (caller->opcode()) {
      case HloOpcode::kCall:
      case HloOpcode::kAsyncStart:
        inputs.push_back(&GetInstructionValueSet(caller->operand(parameter->parameter_number())));
        break;
      case HloOpcode::kWhile:
        // The init value and the back edge both reach body and condition
        // parameters; the body root is skipped when it is this parameter.
        inputs.push_back(&GetInstructionValueSet(caller->operand(0)));
        if (parameter != caller->while_body()->root_instruction()) {
          inputs.push_back(&GetInstructionValueSet(caller->while_body()->root_instruction()));
        }
        need_phi = true;
        break;
      case HloOpcode::kConditional:
        // Branch j receives operand j + 1.
        for (int64_t j = 0; j < caller->branch_count(); ++j) {
          if (parameter->parent() == caller->branch_computation(j)) {
            inputs.push_back(&GetInstructionValueSet(caller->operand(j + 1)));
            break;
          }
        }
        need_phi = true;
        break;
      case HloOpcode::kAsyncUpdate:
      case HloOpcode::kAsyncDone:
        return GetMutableInstructionValueSet(parameter).AssignUnionOf(
            GetInstructionValueSet(caller->operand(0)), {0, parameter->parameter_number()});
      default:
        break;
    }
  }
  if (inputs.empty()) return false;
  if (options_.ssa_form && need_phi) return Phi(parameter, inputs);
  return GetMutableInstructionValueSet(parameter).AssignUnionOf(inputs);
}

bool HloDataflowAnalysis::UpdateTupleValueSet(HloInstruction* tuple) {
  bool changed = false;
  for (int64_t i = 0; i < tuple->operand_count(); ++i) {
    for (const auto& [operand_index, operand_set] : GetInstructionValueSet(tuple->operand(i))) {
      HloValueSet& set = GetMutableValueSet(tuple, Prepend(i, operand_index));
      if (set != operand_set) {
        set = operand_set;
        changed = true;
      }
    }
  }
  return changed;
}

bool HloDataflowAnalysis::UpdateWhileValueSet(HloInstruction* xla_while) {
  const InstructionValueSet* const inputs[] = {
      &GetInstructionValueSet(xla_while->while_body()->root_instruction()),
      &GetInstructionValueSet(xla_while->operand(0))};
  if (options_.ssa_form) return Phi(xla_while, inputs);
  return GetMutableInstructionValueSet(xla_while).AssignUnionOf(inputs);
}

bool HloDataflowAnalysis::UpdateAllGatherStartValueSet(HloInstruction* start) {
  bool changed = false;
  for (int64_t i = 0; i < start->operand_count(); ++i) {
    const HloValueSet& operand_set = GetValueSet(start->operand(i));
    ShapeIndex output_index{0};
    if (start->operand_count() > 1) output_index.push_back(i);
    HloValueSet& set = GetMutableValueSet(start, output_index);
    if (set != operand_set) {
      set = operand_set;
      changed = true;
    }
  }
  return changed;
}

bool HloDataflowAnalysis::UpdateAllGatherDoneValueSet(HloInstruction* done) {
  bool changed = false;
  for (auto& [output_index, set] : GetMutableInstructionValueSet(done)) {
    if (!ShapeUtil::GetSubshape(done->shape(), output_index).IsArray()) continue;
    const HloValueSet& operand_set = GetValueSet(done->operand(0), Prepend(1, output_index));
    if (set != operand_set) {
      set = operand_set;
      changed = true;
    }
  }
  return changed;
}

bool HloDataflowAnalysis::UpdateAllReduceDoneValueSet(HloInstruction* done) {
  bool changed = false;
  for (auto& [output_index, set] : GetMutableInstructionValueSet(done)) {
    const HloValueSet& operand_set = GetValueSet(done->operand(0), output_index);
    if (set != operand_set) {
      set = operand_set;
      changed = true;
    }
  }
  return changed;
}

bool HloDataflowAnalysis::UpdateCollectivePermuteStartValueSet(HloInstruction* start) {
  bool changed = false;
  auto forward = [&](const HloInstruction* operand, const ShapeIndex& operand_index,
                     const ShapeIndex& output_index) {
    const HloValueSet& operand_set = GetValueSet(operand, operand_index);
    HloValueSet& set = GetMutableValueSet(start, output_index);
    if (set != operand_set) {
      set = operand_set;
      changed = true;
    }
  };
  const bool in_place = start->operand_count() == 4;
  if (!in_place && start->operand_count() > 1) {
    for (int64_t i = 0; i < start->operand_count(); ++i) forward(start->operand(i), {}, {0, i});
  } else if (start->operand(0)->shape().IsTuple()) {
    for (int64_t i = 0; i < start->operand(0)->shape().tuple_shapes_size(); ++i) {
      forward(start->operand(0), {i}, {0, i});
    }
  } else {
    forward(start->operand(0), {}, {0});
  }
  return changed;
}

bool HloDataflowAnalysis::UpdateCollectivePermuteDoneValueSet(HloInstruction* done) {
  bool changed = false;
  auto forward = [&](const ShapeIndex& operand_index, const ShapeIndex& output_index) {
    const HloValueSet& operand_set = GetValueSet(done->operand(0), operand_index);
    HloValueSet& set = GetMutableValueSet(done, output_index);
    if (set != operand_set) {
      set = operand_set;
      changed = true;
    }
  };
  if (done->shape().IsTuple()) {
    for (int64_t i = 0; i < done->shape().tuple_shapes_size(); ++i) forward({1, i}, {i});
  } else {
    forward({1}, {});
  }
  return changed;
}

bool HloDataflowAnalysis::UpdateInstructionValueSet(HloInstruction* instruction) {
  switch (instruction->opcode()) {
    case HloOpcode::kAddDependency:
    case HloOpcode::kBitcast:
      return UpdateWholeOperandValueSet(instruction);
    case HloOpcode::kAllGatherStart:
      return UpdateAllGatherStartValueSet(instruction);
    case HloOpcode::kAllGatherDone:
      return UpdateAllGatherDoneValueSet(instruction);
    case HloOpcode::kAsyncStart:
      return UpdateAsyncStartValueSet(instruction);
    case HloOpcode::kAsyncUpdate:
      return UpdateAsyncUpdateValueSet(instruction);
    case HloOpcode::kAsyncDone:
      return UpdateAsyncDoneValueSet(instruction);
    case HloOpcode::kDomain:
    case HloOpcode::kOptimizationBarrier:
      return UpdateForwardingValueSet(instruction);
    case HloOpcode::kCopy:
      return UpdateCopyValueSet(instruction);
    case HloOpcode::kGetTupleElement:
      return UpdateGetTupleElementValueSet(instruction);
    case HloOpcode::kTuple:
      return UpdateTupleValueSet(instruction);
    case HloOpcode::kParameter:
      return UpdateParameterValueSet(instruction);
    case HloOpcode::kCall:
      return UpdateCallValueSet(instruction);
    case HloOpcode::kWhile:
      return UpdateWhileValueSet(instruction);
    case HloOpcode::kSend:
      return UpdateSendValueSet(instruction);
    case HloOpcode::kRecvDone:
      return UpdateRecvDoneValueSet(instruction);
    case HloOpcode::kCopyStart:
      return UpdateCopyStartValueSet(instruction);
    case HloOpcode::kCopyDone:
      return UpdateCopyDoneValueSet(instruction);
    case HloOpcode::kConditional:
      return UpdateConditionalValueSet(instruction);
    case HloOpcode::kAllReduceDone:
      return UpdateAllReduceDoneValueSet(instruction);
    case HloOpcode::kCollectivePermuteStart:
      return UpdateCollectivePermuteStartValueSet(instruction);
    case HloOpcode::kCollectivePermuteDone:
      return UpdateCollectivePermuteDoneValueSet(instruction);
    default:
      return false;
  }
}

// ----------------------------------------------------------- propagation

void HloDataflowAnalysis::Propagate() {
  absl::flat_hash_map<const HloInstruction*, int64_t> priority;
  if (module_.entry_computation() != nullptr) {
    CalculatePostOrderScheduleHelper(module_.entry_computation(), 0, &priority);
  }
  // Min-heap on (post-order ordinal, unique id). XLA breaks ordinal ties by
  // pointer; ties only occur among instructions without an ordinal (inside
  // fusion and other embedded computations), where the order cannot change
  // the result or the value ids, so the unique id keeps runs reproducible.
  using Work = std::tuple<int64_t, int64_t, HloInstruction*>;
  std::priority_queue<Work, std::vector<Work>, std::greater<Work>> worklist;
  absl::flat_hash_set<HloInstruction*> workset;
  auto add_to_worklist = [&](HloInstruction* instruction) {
    if (workset.insert(instruction).second) {
      auto it = priority.find(instruction);
      worklist.emplace(it == priority.end() ? 0 : it->second, instruction->unique_id(), instruction);
    }
  };
  for (HloComputation* computation : ComputationPostOrderLikeXla(module_)) {
    for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
      add_to_worklist(instruction);
    }
  }

  while (!worklist.empty()) {
    HloInstruction* instruction = std::get<2>(worklist.top());
    worklist.pop();
    workset.erase(instruction);
    if (!UpdateInstructionValueSet(instruction)) continue;

    for (HloInstruction* user : instruction->users()) {
      add_to_worklist(user);
      // Parameters of computations the user calls sequentially receive the
      // changed value.
      if (user->opcode() == HloOpcode::kConditional) {
        for (int64_t j = 0; j < user->branch_count(); ++j) {
          if (user->operand(j + 1) == instruction) {
            add_to_worklist(user->branch_computation(j)->parameter_instruction(0));
          }
        }
      } else if (user->opcode() == HloOpcode::kAsyncUpdate ||
                 user->opcode() == HloOpcode::kAsyncDone) {
        HloComputation* wrapped = user->async_wrapped_computation();
        if (wrapped != nullptr) {
          for (HloInstruction* parameter : wrapped->parameter_instructions()) {
            add_to_worklist(parameter);
          }
        }
      } else {
        for (HloComputation* callee : user->called_computations()) {
          if (call_graph_->GetNode(callee).context() != CallContext::kControlFlow) continue;
          for (int64_t operand_number : user->OperandIndices(instruction)) {
            if (operand_number < callee->num_parameters()) {
              add_to_worklist(callee->parameter_instruction(operand_number));
            }
          }
        }
      }
    }

    // A changed root flows out to its callers and across while back edges.
    if (instruction == instruction->parent()->root_instruction()) {
      const CallGraphNode& node = call_graph_->GetNode(instruction->parent());
      for (const CallSite& callsite : node.caller_callsites()) {
        HloInstruction* caller = callsite.instruction();
        if (caller->opcode() == HloOpcode::kWhile) {
          add_to_worklist(caller);
          add_to_worklist(caller->while_body()->parameter_instruction(0));
          add_to_worklist(caller->while_condition()->parameter_instruction(0));
        } else if (node.context() == CallContext::kControlFlow ||
                   caller->opcode() == HloOpcode::kConditional) {
          add_to_worklist(caller);
        }
      }
    }
  }
}

// --------------------------------------------------------- initialization

absl::Status HloDataflowAnalysis::InitializeInstructionValueSets() {
  for (HloComputation* computation : ComputationPostOrderLikeXla(module_)) {
    const CallGraphNode& node = call_graph_->GetNode(computation);
    for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
      auto [it, inserted] =
          value_sets_.emplace(instruction, std::make_unique<InstructionValueSet>(&instruction->shape()));
      InstructionValueSet& set = *it->second;
      auto define_value_at = [&](const ShapeIndex& index) {
        HloValue* value = NewHloValue(instruction, index, /*is_phi=*/false);
        set.mutable_element(index)->AddValue(value);
      };
      auto define_all_values = [&](const std::function<bool(const ShapeIndex&)>& should_define) {
        for (auto& [index, value_set] : set) {
          if (should_define(index)) value_set.AddValue(NewHloValue(instruction, index, false));
        }
      };
      auto all = [](const ShapeIndex&) { return true; };
      auto is_tuple_at = [&](const ShapeIndex& index) {
        return ShapeUtil::GetSubshape(instruction->shape(), index).IsTuple();
      };

      switch (instruction->opcode()) {
        case HloOpcode::kBitcast:
          if (options_.bitcast_defines_value) define_all_values(all);
          break;
        case HloOpcode::kAddDependency:
        case HloOpcode::kWhile:
        case HloOpcode::kCall:
        case HloOpcode::kConditional:
        case HloOpcode::kGetTupleElement:
        case HloOpcode::kDomain:
        case HloOpcode::kOptimizationBarrier:
          // Values flow in from operands or callees.
          break;
        case HloOpcode::kParameter:
          if (node.context() == CallContext::kBoth) {
            return absl::UnimplementedError(absl::StrCat(
                "Computation ", computation->name(),
                " is called in both a parallel (eg, kMap) and sequential (eg, kCall) context"));
          }
          if (node.caller_callsites().empty() || node.context() == CallContext::kEmbedded) {
            define_all_values(all);
          }
          break;
        case HloOpcode::kCopy:
        case HloOpcode::kTuple:
          define_value_at({});
          break;
        case HloOpcode::kAsyncStart:
          // Tuple tables and contexts; without a wrapped computation the
          // outputs ({1, ...}) are defined here too.
          define_all_values([&](const ShapeIndex& index) {
            return is_tuple_at(index) ||
                   (instruction->async_wrapped_computation() == nullptr && index.front() == 1) ||
                   index.front() > 1;
          });
          break;
        case HloOpcode::kAsyncUpdate:
        case HloOpcode::kAsyncDone:
          define_all_values(is_tuple_at);
          break;
        case HloOpcode::kCopyStart:
          define_value_at({});
          define_value_at({0});
          define_value_at({2});
          break;
        case HloOpcode::kCopyDone:
          break;
        case HloOpcode::kAllGatherStart:
          define_all_values(
              [&](const ShapeIndex& index) { return is_tuple_at(index) || index.front() == 1; });
          break;
        case HloOpcode::kAllGatherDone:
          if (instruction->shape().IsTuple()) define_value_at({});
          break;
        case HloOpcode::kAllReduceDone:
          break;
        case HloOpcode::kCollectivePermuteStart:
          define_value_at({});
          define_value_at({1});
          for (int64_t i = 2; i < instruction->shape().tuple_shapes_size(); ++i) define_value_at({i});
          if (instruction->operand_count() == 4) {
            if (instruction->operand(1)->shape().IsTuple()) {
              for (int64_t i = 0; i < instruction->operand(1)->shape().tuple_shapes_size(); ++i) {
                define_value_at({1, i});
              }
            }
          } else if (instruction->operand_count() > 1) {
            for (int64_t i = 0; i < instruction->operand_count(); ++i) define_value_at({1, i});
          }
          break;
        case HloOpcode::kCollectivePermuteDone:
          if (instruction->shape().IsTuple()) define_value_at({});
          break;
        case HloOpcode::kRecvDone:
          define_value_at({});
          define_value_at({1});
          break;
        case HloOpcode::kSend:
          define_value_at({});
          define_value_at({1});
          define_value_at({2});
          break;
        default:
          define_all_values(all);
          break;
      }
    }
  }
  return absl::OkStatus();
}

void HloDataflowAnalysis::OptimizePhiValues() {
  if (!options_.ssa_form) return;
  phi_graph_->Optimize();
  for (HloComputation* computation : module_.computations()) {
    for (HloInstruction* instruction : computation->instructions()) {
      for (auto& [index, value_set] : GetMutableInstructionValueSet(instruction)) {
        if (value_set.values().size() != 1 || !value_set.values()[0]->is_phi()) continue;
        const HloValue::Id phi_id = value_set.values()[0]->id();
        const HloValue::Id new_id = phi_graph_->FindOptimizedValue(phi_id);
        if (new_id != phi_id) {
          value_set.Clear();
          value_set.AddValue(&GetValue(new_id));
          MarkValueForDeletion(phi_id);
        }
      }
    }
  }
}

absl::StatusOr<std::unique_ptr<HloDataflowAnalysis>> HloDataflowAnalysis::Run(
    const HloModule& module, Options options) {
  if (!module.has_entry_computation()) {
    return absl::InvalidArgumentError("HloDataflowAnalysis: the module has no entry computation");
  }
  std::unique_ptr<HloDataflowAnalysis> analysis(new HloDataflowAnalysis(module, options));
  HMO_RETURN_IF_ERROR(analysis->InitializeInstructionValueSets());
  analysis->Propagate();
  analysis->OptimizePhiValues();
  analysis->DeleteMarkedValues();

  // Non-defining positions, in module order. As in XLA a value is not
  // recorded again at other indices of its own defining instruction.
  std::vector<std::vector<HloPosition>> positions(analysis->values_.size());
  for (HloComputation* computation : module.computations()) {
    for (HloInstruction* instruction : computation->instructions()) {
      for (const auto& [index, value_set] : analysis->GetInstructionValueSet(instruction)) {
        for (const HloValue* value : value_set.values()) {
          if (value->defining_instruction() != instruction) {
            positions[value->id()].push_back(HloPosition{instruction, index});
          }
        }
      }
    }
  }
  for (auto& value : analysis->values_) {
    if (value == nullptr) continue;
    value->SetPositions(positions[value->id()]);
    analysis->values_vector_.push_back(value.get());
  }
  return analysis;
}

std::string HloDataflowAnalysis::ToString() const {
  std::string out = absl::StrCat("HloDataflowAnalysis, module ", module_.name(), "\n");
  absl::StrAppend(&out, "  Instruction value sets:\n");
  for (const HloComputation* computation : module_.computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      absl::StrAppend(&out, "    ", instruction->name(), ":\n");
      for (const auto& [index, value_set] : GetInstructionValueSet(instruction)) {
        absl::StrAppend(&out, "      ", ShapeIndexToString(index), ":");
        for (const HloValue* value : value_set.values()) {
          absl::StrAppend(&out, " ", value->ToShortString(),
                          ValueIsDefinedAt(instruction, index) ? " (def)" : "");
        }
        absl::StrAppend(&out, "\n");
      }
    }
  }
  absl::StrAppend(&out, "  HloValues:\n");
  for (const HloValue* value : values_vector_) absl::StrAppend(&out, value->ToString(4));
  return out;
}

}  // namespace hmo
