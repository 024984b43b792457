#include "hmo/analysis/hlo_alias_analysis.h"

#include <algorithm>
#include <utility>

#include "analysis_check.h"
#include "absl/strings/str_cat.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"

namespace hmo {
namespace {

using FlatValueSet = absl::flat_hash_set<const HloValue*>;

void AddAll(const HloValueSet& set, FlatValueSet& out) {
  for (const HloValue* value : set.values()) out.insert(value);
}

// An entry result value shares the buffer of the parameter it is aliased to.
void ComputeInputOutputAliasedValues(const HloValue& value, const HloDataflowAnalysis& dataflow,
                                     FlatValueSet& aliased) {
  const HloModule& module = dataflow.module();
  const HloComputation* entry = module.entry_computation();
  const HloInputOutputAliasConfig& config = module.input_output_alias_config();
  for (const HloPosition& position : value.positions()) {
    if (position.instruction != entry->root_instruction()) continue;
    std::optional<HloInputOutputAliasConfig::Alias> alias =
        config.GetAliasedParameter(position.index);
    if (!alias.has_value() || alias->parameter_number >= entry->num_parameters()) continue;
    AddAll(dataflow.GetValueSet(entry->parameter_instruction(alias->parameter_number),
                                alias->parameter_index),
           aliased);
  }
}

// While init, body/condition parameters, body root and while result share.
void ComputeWhileAliasedValues(const HloValue& value, const HloDataflowAnalysis& dataflow,
                               FlatValueSet& aliased) {
  for (const HloUse& use : value.GetUses()) {
    if (use.instruction->opcode() == HloOpcode::kWhile) {
      AddAll(dataflow.GetValueSet(use.instruction, use.operand_index), aliased);
    }
  }
  if (value.defining_instruction()->opcode() == HloOpcode::kParameter) {
    const CallGraphNode& node = dataflow.call_graph().GetNode(value.defining_instruction()->parent());
    for (const CallSite& callsite : node.caller_callsites()) {
      if (callsite.instruction()->opcode() == HloOpcode::kWhile) {
        AddAll(dataflow.GetValueSet(callsite.instruction(), value.defining_index()), aliased);
      }
    }
  }
  for (const HloPosition& position : value.positions()) {
    if (!position.instruction->IsRoot()) continue;
    const HloComputation* computation = position.instruction->parent();
    const CallGraphNode& node = dataflow.call_graph().GetNode(computation);
    for (const CallSite& callsite : node.caller_callsites()) {
      if (callsite.instruction()->opcode() == HloOpcode::kWhile &&
          callsite.instruction()->while_body() == computation) {
        AddAll(dataflow.GetValueSet(callsite.instruction(), position.index), aliased);
      }
    }
  }
}

// Branch roots share with the conditional's result.
void ComputeConditionalAliasedValues(const HloValue& value, const HloDataflowAnalysis& dataflow,
                                     FlatValueSet& aliased) {
  for (const HloPosition& position : value.positions()) {
    if (!position.instruction->IsRoot()) continue;
    const CallGraphNode& node = dataflow.call_graph().GetNode(position.instruction->parent());
    for (const CallSite& callsite : node.caller_callsites()) {
      if (callsite.instruction()->opcode() == HloOpcode::kConditional) {
        AddAll(dataflow.GetValueSet(callsite.instruction(), position.index), aliased);
      }
    }
  }
}

// Both sides of an in-place pair share.
void ComputeInPlaceOperationAliasedValues(const HloValue& value,
                                          const HloDataflowAnalysis& dataflow,
                                          const AliasInfo& alias_info, FlatValueSet& aliased) {
  for (const HloPosition& position : value.positions()) {
    HloInstruction* instruction = position.instruction;
    for (const auto& [input, output_index] : alias_info.GetInPlaceInputOutputPairs(instruction)) {
      if (position.index == output_index) {
        AddAll(dataflow.GetValueSet(instruction->operand(input.operand_number), input.operand_index),
               aliased);
      }
    }
  }
  for (const HloUse& use : value.GetUses()) {
    for (const auto& [input, output_index] : alias_info.GetInPlaceInputOutputPairs(use.instruction)) {
      if (use.operand_number == input.operand_number && use.operand_index == input.operand_index) {
        AddAll(dataflow.GetValueSet(use.instruction, output_index), aliased);
      }
    }
  }
}

FlatValueSet ComputeAliasedValues(const HloValue& value, const HloDataflowAnalysis& dataflow,
                                  const AliasInfo& alias_info) {
  FlatValueSet aliased{&value};
  ComputeInputOutputAliasedValues(value, dataflow, aliased);
  ComputeWhileAliasedValues(value, dataflow, aliased);
  ComputeConditionalAliasedValues(value, dataflow, aliased);
  ComputeInPlaceOperationAliasedValues(value, dataflow, alias_info, aliased);
  return aliased;
}

// Merges the values into groups exactly as XLA's CreateBuffers does: one slot
// per value (in id order); for each value, its aliased values' slots merge
// into the largest one (ties: the slot of the lowest aliased id). Buffers are
// then numbered in slot order.
std::vector<HloBuffer> CreateBuffers(const HloDataflowAnalysis& dataflow,
                                     const AliasInfo& alias_info) {
  const std::vector<const HloValue*>& values = dataflow.values();
  std::vector<std::vector<const HloValue*>> slots(values.size());
  absl::flat_hash_map<const HloValue*, size_t> value_to_slot;
  value_to_slot.reserve(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    slots[i].push_back(values[i]);
    value_to_slot[values[i]] = i;
  }
  for (const HloValue* value : values) {
    FlatValueSet aliased = ComputeAliasedValues(*value, dataflow, alias_info);
    if (aliased.size() < 2) continue;
    // Deterministic order of the candidates (the choice below does not depend
    // on it, but the merge loop reads better this way).
    std::vector<const HloValue*> ordered(aliased.begin(), aliased.end());
    std::sort(ordered.begin(), ordered.end(), HloValueIdLessThan);
    size_t union_slot = value_to_slot.at(ordered[0]);
    std::pair<size_t, int64_t> best_key{slots[union_slot].size(), -ordered[0]->id()};
    for (const HloValue* candidate : ordered) {
      const size_t slot = value_to_slot.at(candidate);
      const std::pair<size_t, int64_t> key{slots[slot].size(), -candidate->id()};
      if (key > best_key) {
        best_key = key;
        union_slot = slot;
      }
    }
    for (const HloValue* candidate : ordered) {
      const size_t slot = value_to_slot.at(candidate);
      if (slot == union_slot || slots[slot].empty()) continue;
      for (const HloValue* moved : slots[slot]) {
        slots[union_slot].push_back(moved);
        value_to_slot[moved] = union_slot;
      }
      slots[slot].clear();
    }
  }
  std::vector<HloBuffer> buffers;
  for (auto& slot : slots) {
    if (slot.empty()) continue;
    std::sort(slot.begin(), slot.end(), HloValueIdLessThan);
    buffers.emplace_back(static_cast<HloBuffer::Id>(buffers.size()), std::move(slot));
  }
  return buffers;
}

}  // namespace

absl::StatusOr<std::unique_ptr<HloAliasAnalysis>> HloAliasAnalysis::Run(
    const HloModule* module, const AliasInfo* alias_info) {
  if (alias_info == nullptr) alias_info = &DefaultAliasInfo();
  std::unique_ptr<HloAliasAnalysis> analysis(new HloAliasAnalysis(module));
  HloDataflowAnalysis::Options options;
  options.ssa_form = true;
  options.bitcast_defines_value = false;
  HMO_ASSIGN_OR_RETURN(analysis->dataflow_analysis_, HloDataflowAnalysis::Run(*module, options));
  analysis->buffers_ = CreateBuffers(*analysis->dataflow_analysis_, *alias_info);
  for (const HloBuffer& buffer : analysis->buffers_) {
    for (const HloValue* value : buffer.values()) analysis->value_to_buffer_[value] = &buffer;
  }
  const HloInstruction* root = module->entry_computation()->root_instruction();
  ShapeUtil::ForEachSubshape(root->shape(), [&](const Shape&, const ShapeIndex& index) {
    for (const HloBuffer* buffer : analysis->ComputeBuffersAt(root, index)) {
      analysis->live_out_buffers_.insert(buffer);
    }
  });
  return analysis;
}

absl::StatusOr<std::unique_ptr<HloAliasAnalysis>> HloAliasAnalysis::Compute(
    const HloModule& module, AnalysisManager& /*analyses*/) {
  return Run(&module);
}

const HloBuffer& HloAliasAnalysis::GetBufferContainingValue(const HloValue& value) const {
  auto it = value_to_buffer_.find(&value);
  HMO_CHECK(it != value_to_buffer_.end()) << "no buffer for " << value.ToShortString();
  return *it->second;
}

std::vector<const HloBuffer*> HloAliasAnalysis::ComputeBuffersAt(const HloInstruction* instruction,
                                                                 const ShapeIndex& index) const {
  std::vector<const HloBuffer*> buffers;
  for (const HloValue* value : dataflow_analysis_->GetValueSet(instruction, index).values()) {
    buffers.push_back(&GetBufferContainingValue(*value));
  }
  std::sort(buffers.begin(), buffers.end(), HloBufferIdLessThan);
  buffers.erase(std::unique(buffers.begin(), buffers.end()), buffers.end());
  return buffers;
}

const HloBuffer& HloAliasAnalysis::GetUniqueBufferAt(const HloInstruction* instruction,
                                                     const ShapeIndex& index) const {
  std::vector<const HloBuffer*> buffers = ComputeBuffersAt(instruction, index);
  HMO_CHECK_EQ(buffers.size(), 1u) << instruction->name() << " " << ShapeIndexToString(index);
  return *buffers[0];
}

std::string HloAliasAnalysis::ToString() const {
  std::string out = absl::StrCat("HloAliasAnalysis, module ", module_->name(), "\n  Buffers:\n");
  for (const HloBuffer& buffer : buffers_) {
    absl::StrAppend(&out, "    ", buffer.ToString(), "\n      positions:\n");
    for (const HloPosition& position : buffer.ComputePositions()) {
      absl::StrAppend(&out, "        ", position.ToString(), "\n");
    }
  }
  return out;
}

}  // namespace hmo
