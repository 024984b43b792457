#include "hmo/rewrites/aliased_output_copies.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "hmo/analysis/hlo_dataflow_analysis.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_schedule.h"

namespace hmo {
namespace {

// For every computation the entry reaches, the entry instruction through
// which it runs (the latest one when several reach it).
absl::flat_hash_map<const HloComputation*, const HloInstruction*> EntryAncestors(
    const HloComputation& entry,
    const absl::flat_hash_map<const HloInstruction*, int64_t>& position) {
  absl::flat_hash_map<const HloComputation*, const HloInstruction*> ancestor;
  for (const HloInstruction* instruction : entry.instructions()) {
    std::vector<const HloComputation*> stack(instruction->called_computations().begin(),
                                             instruction->called_computations().end());
    while (!stack.empty()) {
      const HloComputation* computation = stack.back();
      stack.pop_back();
      auto [it, inserted] = ancestor.emplace(computation, instruction);
      if (!inserted) {
        if (position.at(it->second) >= position.at(instruction)) continue;
        it->second = instruction;
      }
      for (const HloInstruction* nested : computation->instructions()) {
        stack.insert(stack.end(), nested->called_computations().begin(),
                     nested->called_computations().end());
      }
    }
  }
  return ancestor;
}

}  // namespace

absl::StatusOr<bool> CopyAliasedOutputsWrittenTooEarly(HloModule& module) {
  HloComputation* entry = module.entry_computation();
  if (entry == nullptr || !module.has_schedule() ||
      !module.schedule().is_computation_scheduled(entry)) {
    return false;
  }
  const HloInputOutputAliasConfig& aliases = module.input_output_alias_config();
  HloInstruction* root = entry->root_instruction();
  std::vector<int64_t> to_copy;  // root leaves: -1 for an array root, else the tuple element
  {
    HMO_ASSIGN_OR_RETURN(std::unique_ptr<HloDataflowAnalysis> dataflow,
                         HloDataflowAnalysis::Run(module));
    const std::vector<HloInstruction*>& sequence = module.schedule().sequence(entry).instructions();
    absl::flat_hash_map<const HloInstruction*, int64_t> position;
    for (int64_t i = 0; i < static_cast<int64_t>(sequence.size()); ++i) position[sequence[i]] = i;
    const auto ancestors = EntryAncestors(*entry, position);
    auto entry_level = [&](const HloInstruction* instruction) -> const HloInstruction* {
      while (instruction != nullptr && instruction->parent() != entry) {
        auto it = ancestors.find(instruction->parent());
        instruction = it == ancestors.end() ? nullptr : it->second;
      }
      return instruction;
    };
    auto consider = [&](const ShapeIndex& output_index, int64_t leaf) {
      const std::optional<HloInputOutputAliasConfig::Alias> alias =
          aliases.GetAliasedParameter(output_index);
      if (!alias || alias->parameter_number >= entry->num_parameters()) return;
      const HloInstruction* parameter = entry->parameter_instruction(alias->parameter_number);
      if (!dataflow->ValueIsDefinedAt(parameter, alias->parameter_index)) return;
      const HloValue& donated = dataflow->GetValueDefinedAt(parameter, alias->parameter_index);
      const HloValueSet& outputs = dataflow->GetValueSet(root, output_index);
      if (outputs.values().size() != 1) return;
      const HloValue& output = *outputs.values()[0];
      if (&output == &donated) return;  // passed through
      const HloInstruction* writer = entry_level(output.defining_instruction());
      if (writer == nullptr || !position.contains(writer)) return;
      const int64_t written = position.at(writer);
      for (const HloUse& use : donated.GetUses()) {
        const HloInstruction* reader = entry_level(use.instruction);
        if (reader == nullptr || reader == root || !position.contains(reader)) continue;
        const int64_t read = position.at(reader);
        if (read < written) continue;
        if (read == written) {
          // The writer reads the parameter itself: fine when it updates it
          // in place, or when it is control flow carrying it.
          if (writer->opcode() == HloOpcode::kWhile ||
              writer->opcode() == HloOpcode::kConditional || writer->opcode() == HloOpcode::kCall ||
              writer != output.defining_instruction() ||
              dataflow->CanShareOperandBufferWithUser(
                  use.instruction->mutable_operand(use.operand_number), use.operand_index,
                  use.instruction, output.defining_index())) {
            continue;
          }
        }
        to_copy.push_back(leaf);
        return;
      }
    };
    if (root->shape().IsArray()) {
      consider({}, -1);
    } else if (root->opcode() == HloOpcode::kTuple) {
      for (int64_t i = 0; i < root->operand_count(); ++i) {
        if (root->operand(i)->shape().IsArray()) consider({i}, i);
      }
    }
  }
  if (to_copy.empty()) return false;
  std::vector<HloInstruction*> sequence = module.schedule().sequence(entry).instructions();
  auto root_at = std::find(sequence.begin(), sequence.end(), root);
  std::vector<HloInstruction*> copies;
  for (int64_t leaf : to_copy) {
    HloInstruction* value = leaf < 0 ? root : root->mutable_operand(leaf);
    HloInstruction* copy = entry->AddInstruction(HloInstruction::CreateCopy(value->shape(), value));
    copies.push_back(copy);
    if (leaf >= 0) HMO_RETURN_IF_ERROR(root->ReplaceOperandWith(leaf, copy));
  }
  if (to_copy.size() == 1 && to_copy[0] < 0) {
    // The root itself is the output: the copy becomes the root, last.
    entry->set_root_instruction(copies[0]);
    sequence.push_back(copies[0]);
  } else {
    sequence.insert(root_at, copies.begin(), copies.end());
  }
  module.schedule().set_sequence(entry, sequence);
  return true;
}

}  // namespace hmo
