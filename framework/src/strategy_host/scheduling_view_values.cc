#include "hmo/strategy_host/scheduling_view_values.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "hmo/analysis/hlo_alias_analysis.h"
#include "hmo/analysis/hlo_dataflow_analysis.h"
#include "hmo/analysis/hlo_value.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_input_output_alias_config.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/hlo_opcode.h"
#include "hmo/ir/shape.h"

namespace hmo {
namespace {

// Whether a verbatim string attribute such as infeed_config="..." holds text.
bool HasNonEmptyStringAttribute(const HloInstruction& instruction, std::string_view name) {
  std::optional<std::string_view> text = instruction.GetRawAttribute(name);
  return text.has_value() && !text->empty() && *text != "\"\"";
}

}  // namespace

uint32_t SchedulingInstructionFlags(const HloInstruction& instruction) {
  uint32_t flags = 0;
  if (ShapeUtil::IsEffectiveScalar(instruction.shape())) flags |= HMO_INSTRUCTION_EFFECTIVE_SCALAR;
  if ((instruction.opcode() == HloOpcode::kInfeed &&
       HasNonEmptyStringAttribute(instruction, "infeed_config")) ||
      (instruction.opcode() == HloOpcode::kOutfeed &&
       HasNonEmptyStringAttribute(instruction, "outfeed_config"))) {
    flags |= HMO_INSTRUCTION_HAS_FEED_CONFIG;
  }
  return flags;
}

std::unique_ptr<SchedulingViewValues> SchedulingViewValues::Build(
    const HloComputation& computation, absl::Span<HloInstruction* const> instructions,
    const HloDataflowAnalysis& dataflow, const SizeFunction& size_fn,
    const HloAliasAnalysis* alias_analysis, bool mark_outside_temp_arena) {
  std::unique_ptr<SchedulingViewValues> table(new SchedulingViewValues());
  absl::flat_hash_map<const HloInstruction*, HmoInstructionId> ids;
  for (size_t id = 0; id < instructions.size(); ++id) {
    ids.emplace(instructions[id], static_cast<HmoInstructionId>(id));
  }
  const SizeFunction byte_size = size_fn ? size_fn : [](const HloValue& value) {
    return ShapeUtil::ByteSizeOf(value.shape());
  };
  // Donated entry parameters, looked up once per value below.
  absl::flat_hash_set<std::pair<int64_t, ShapeIndex>> donated;
  if (const HloModule* module = computation.parent();
      module != nullptr && module->entry_computation() == &computation) {
    module->input_output_alias_config().ForEachAlias(
        [&](const ShapeIndex&, const HloInputOutputAliasConfig::Alias& alias) {
          donated.insert({alias.parameter_number, alias.parameter_index});
        });
  }
  // Buffers that buffer assignment gives allocations of their own: those
  // holding an entry parameter's value or an entry output's.
  absl::flat_hash_set<int64_t> outside_arena_buffers;
  const bool is_entry =
      computation.parent() != nullptr && computation.parent()->entry_computation() == &computation;
  if (mark_outside_temp_arena && alias_analysis != nullptr && is_entry) {
    for (const HloInstruction* instruction : computation.instructions()) {
      if (instruction->opcode() != HloOpcode::kParameter) continue;
      for (const auto& [index, set] : dataflow.GetInstructionValueSet(instruction)) {
        for (const HloValue* value : set.values()) {
          outside_arena_buffers.insert(alias_analysis->GetBufferContainingValue(*value).id());
        }
      }
    }
    if (const HloInstruction* root = computation.root_instruction(); root != nullptr) {
      const HloValueSet outputs = dataflow.GetFlattenedValueSet(root);
      for (const HloValue* value : outputs.values()) {
        outside_arena_buffers.insert(alias_analysis->GetBufferContainingValue(*value).id());
      }
    }
  }
  absl::flat_hash_map<const HloValue*, HmoValueId> value_ids;
  auto id_of = [&](const HloValue* value) -> HmoValueId {
    auto [it, inserted] =
        value_ids.try_emplace(value, static_cast<HmoValueId>(table->sizes_.size()));
    if (inserted) {
      table->sizes_.push_back(static_cast<uint64_t>(byte_size(*value)));
      auto def = ids.find(value->defining_instruction());
      table->defining_.push_back(def == ids.end() ? HMO_NO_INSTRUCTION : def->second);
      const HloInstruction* definer = value->defining_instruction();
      const HloOpcode opcode = definer->opcode();
      uint32_t flags = opcode == HloOpcode::kParameter || opcode == HloOpcode::kConstant
                           ? HMO_VALUE_DEFINED_BY_PARAMETER_OR_CONSTANT
                           : 0u;
      // Donated entry parameters die at their last use (HloLiveRange).
      if (opcode == HloOpcode::kParameter && definer->parent() == &computation &&
          donated.contains({definer->parameter_number(), value->defining_index()}) &&
          (alias_analysis == nullptr ||
           alias_analysis->GetBufferContainingValue(*value).values().size() <= 2)) {
        flags |= HMO_VALUE_FREED_AFTER_LAST_USE;
      }
      if (!outside_arena_buffers.empty() &&
          outside_arena_buffers.contains(alias_analysis->GetBufferContainingValue(*value).id())) {
        flags |= HMO_VALUE_OUTSIDE_TEMP_ARENA;
      }
      table->flags_.push_back(flags);
    }
    return it->second;
  };
  table->defined_.resize(instructions.size());
  table->used_.resize(instructions.size());
  for (size_t id = 0; id < instructions.size(); ++id) {
    const HloInstruction* instruction = instructions[id];
    for (const auto& [index, set] : dataflow.GetInstructionValueSet(instruction)) {
      if (dataflow.ValueIsDefinedAt(instruction, index)) {
        table->defined_[id].push_back(id_of(&dataflow.GetValueDefinedAt(instruction, index)));
      }
    }
  }
  // Flattened value sets, as ids, once per operand instruction.
  absl::flat_hash_map<const HloInstruction*, std::vector<HmoValueId>> flattened;
  auto flattened_ids = [&](const HloInstruction* instruction) -> const std::vector<HmoValueId>& {
    auto it = flattened.find(instruction);
    if (it != flattened.end()) return it->second;
    std::vector<HmoValueId> out;
    const HloValueSet set = dataflow.GetFlattenedValueSet(instruction);
    for (const HloValue* value : set.values()) out.push_back(id_of(value));
    return flattened.emplace(instruction, std::move(out)).first->second;
  };
  for (size_t id = 0; id < instructions.size(); ++id) {
    std::vector<HmoValueId>& used = table->used_[id];
    for (const HloInstruction* operand : instructions[id]->unique_operands()) {
      const std::vector<HmoValueId>& values = flattened_ids(operand);
      used.insert(used.end(), values.begin(), values.end());
    }
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
  }
  if (const HloInstruction* root = computation.root_instruction(); root != nullptr) {
    const HloValueSet set = dataflow.GetFlattenedValueSet(root);
    for (const HloValue* value : set.values()) table->flags_[id_of(value)] |= HMO_VALUE_LIVE_OUT;
  }
  return table;
}

void SchedulingViewValues::Attach(HmoSchedulingView& view,
                                  absl::Span<HmoSchedulingInstruction* const> instructions) const {
  view.value_count = sizes_.size();
  view.value_sizes = sizes_.data();
  view.value_defining_instruction_ids = defining_.data();
  view.value_flags = flags_.data();
  for (size_t id = 0; id < instructions.size() && id < defined_.size(); ++id) {
    HmoSchedulingInstruction& c = *instructions[id];
    c.defined_value_ids = defined_[id].data();
    c.defined_value_count = defined_[id].size();
    c.used_value_ids = used_[id].data();
    c.used_value_count = used_[id].size();
  }
}

}  // namespace hmo
