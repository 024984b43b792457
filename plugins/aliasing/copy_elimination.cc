#include "copy_elimination.h"

#include <memory>
#include <optional>
#include <queue>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

#include "hmo/analysis/hlo_alias_analysis.h"
#include "hmo/analysis/hlo_buffer.h"
#include "hmo/analysis/hlo_value.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/hlo_schedule.h"
#include "hmo/ir/instruction_reachability.h"
#include "hmo/analysis/module_memory_stats.h"
#include "spdlog/spdlog.h"

namespace hmo {
namespace {

// Same array, same bytes in the same place: dimensions, element type and
// layout (missing layouts count as the default one) all equal.
bool SameArrayLayout(const Shape& a, const Shape& b) {
  return a.IsArray() && b.IsArray() && ShapeUtil::EqualIgnoringLayout(a, b) &&
         ShapeUtil::LayoutOrDefault(a) == ShapeUtil::LayoutOrDefault(b);
}

// The single buffer at (instruction, {}), or null when there are several.
const HloBuffer* UniqueBuffer(const HloAliasAnalysis& analysis, const HloInstruction* instruction) {
  std::vector<const HloBuffer*> buffers = analysis.ComputeBuffersAt(instruction, {});
  return buffers.size() == 1 ? buffers.front() : nullptr;
}

bool IsEntryParameter(const HloModule& module, const HloInstruction* instruction) {
  return instruction->opcode() == HloOpcode::kParameter &&
         instruction->parent() == module.entry_computation();
}

// Case A of the header: two single-value buffers, no writers.
bool CanShareReadOnly(const HloModule& module, const HloAliasAnalysis& analysis,
                      const HloBuffer& source, const HloBuffer& copy) {
  if (source.values().size() != 1 || copy.values().size() != 1) return false;
  if (!analysis.BufferLivesOut(copy)) return true;
  const HloInstruction* definer = source.values().front()->defining_instruction();
  if (IsEntryParameter(module, definer) || definer->opcode() == HloOpcode::kConstant) return false;
  return !analysis.BufferLivesOut(source);
}

// Case B of the header: the copy only moves an aliased parameter onto the
// output that already lives in the parameter's buffer.
bool CopiesAliasedParameterOntoItself(const HloModule& module, const HloBuffer& buffer,
                                      const HloInstruction* copy) {
  if (buffer.values().size() != 2) return false;
  const HloValue* parameter_value = nullptr;
  const HloValue* copy_value = nullptr;
  for (const HloValue* value : buffer.values()) {
    if (value->defining_instruction() == copy && value->defining_index().empty()) {
      copy_value = value;
    } else if (IsEntryParameter(module, value->defining_instruction())) {
      parameter_value = value;
    }
  }
  if (parameter_value == nullptr || copy_value == nullptr) return false;
  const HloInstruction* root = module.entry_computation()->root_instruction();
  bool feeds_output = false;
  for (const HloPosition& position : copy_value->positions()) {
    if (position.instruction == copy) continue;
    if (position.instruction != root) return false;  // the copy reaches something else
    std::optional<HloInputOutputAliasConfig::Alias> alias =
        module.input_output_alias_config().GetAliasedParameter(position.index);
    if (!alias.has_value() ||
        alias->parameter_number != parameter_value->defining_instruction()->parameter_number() ||
        alias->parameter_index != parameter_value->defining_index()) {
      return false;
    }
    feeds_output = true;
  }
  if (copy == root) {
    std::optional<HloInputOutputAliasConfig::Alias> alias =
        module.input_output_alias_config().GetAliasedParameter({});
    feeds_output = alias.has_value() &&
                   alias->parameter_number ==
                       parameter_value->defining_instruction()->parameter_number() &&
                   alias->parameter_index == parameter_value->defining_index();
  }
  if (!feeds_output) return false;
  // Other readers of the copy would be real uses, not the output.
  for (const HloUse& use : copy_value->GetUses()) {
    if (use.instruction != root) return false;
  }
  return true;
}

// Whether every value of `buffer` is an array defined at the top level of an
// instruction of `computation` that is neither a parameter nor a constant
// (memory the computation may overwrite, and no loop, call or tuple merges
// it with values of another computation).
bool HoldsOnlyLocalWritableArrays(const HloBuffer& buffer, const HloComputation* computation) {
  for (const HloValue* value : buffer.values()) {
    const HloInstruction* definition = value->defining_instruction();
    if (definition->parent() != computation || !value->IsTopLevel() || !value->IsArray())
      return false;
    if (definition->opcode() == HloOpcode::kParameter ||
        definition->opcode() == HloOpcode::kConstant) {
      return false;
    }
    for (const HloPosition& position : value->positions()) {
      if (position.instruction != definition) return false;  // a tuple, a loop or a call holds it
    }
  }
  return true;
}

// What removing a copy takes: the control edges that order readers first.
struct Removal {
  HloInstruction* copy = nullptr;
  HloInstruction* update = nullptr;  // case C only
  std::vector<HloInstruction*> readers_first;
};

// Case C of the header: the removal with the readers that must run before
// the copy's in-place updater once the copy is gone (its source's and its
// own other readers), or nullopt when the copy must stay.
std::optional<Removal> OrderReadersBeforeUpdate(const HloAliasAnalysis& analysis,
                                                const HloBuffer& source_buffer,
                                                const HloBuffer& copy_buffer,
                                                HloInstruction* copy) {
  const HloComputation* computation = copy->parent();
  HloInstruction* source = copy->mutable_operand(0);
  if (analysis.BufferLivesOut(source_buffer)) return std::nullopt;
  if (!HoldsOnlyLocalWritableArrays(source_buffer, computation)) return std::nullopt;
  if (!HoldsOnlyLocalWritableArrays(copy_buffer, computation)) return std::nullopt;
  // The source is the last value of its buffer: nothing updates it in place
  // (its earlier values are the ones it was computed over).
  for (const HloValue* value : source_buffer.values()) {
    const HloInstruction* definition = value->defining_instruction();
    if (definition != source && DependsOn(*definition, *source)) return std::nullopt;
  }
  // The copy is the first value of its buffer, and exactly one of its users
  // (the updater) writes it in place.
  HloInstruction* update = nullptr;
  for (const HloValue* value : copy_buffer.values()) {
    HloInstruction* definition = value->defining_instruction();
    if (definition == copy) continue;
    if (!DependsOn(*definition, *copy)) return std::nullopt;
    if (definition->IsUserOf(copy)) {
      if (update != nullptr && update != definition) return std::nullopt;
      update = definition;
    }
  }
  if (update == nullptr || update->IsUserOf(source)) return std::nullopt;
  std::vector<HloInstruction*> readers;
  for (HloInstruction* instruction : {source, copy}) {
    for (HloInstruction* reader : instruction->users()) {
      if (reader == copy || reader == update) continue;
      if (DependsOn(*reader, *update)) return std::nullopt;  // it reads after the update
      readers.push_back(reader);
    }
  }
  return Removal{copy, update, std::move(readers)};
}

std::optional<Removal> RemovalOf(const HloModule& module, const HloAliasAnalysis& analysis,
                                 HloInstruction* copy, bool order_readers_first) {
  if (copy->opcode() != HloOpcode::kCopy || copy->parent()->IsFusionComputation())
    return std::nullopt;
  if (!copy->control_predecessors().empty() || !copy->control_successors().empty())
    return std::nullopt;
  const HloInstruction* source = copy->operand(0);
  if (!SameArrayLayout(copy->shape(), source->shape())) return std::nullopt;
  const HloBuffer* source_buffer = UniqueBuffer(analysis, source);
  const HloBuffer* copy_buffer = UniqueBuffer(analysis, copy);
  if (source_buffer == nullptr || copy_buffer == nullptr) return std::nullopt;
  if (source_buffer == copy_buffer) {
    if (!CopiesAliasedParameterOntoItself(module, *copy_buffer, copy)) return std::nullopt;
    return Removal{copy, nullptr, {}};
  }
  if (CanShareReadOnly(module, analysis, *source_buffer, *copy_buffer))
    return Removal{copy, nullptr, {}};
  if (!order_readers_first) return std::nullopt;
  return OrderReadersBeforeUpdate(analysis, *source_buffer, *copy_buffer, copy);
}

// Finds one removable copy.
std::optional<Removal> FindRemovableCopy(const HloModule& module, const HloAliasAnalysis& analysis,
                                         bool order_readers_first) {
  for (HloComputation* computation : module.MakeNonfusionComputations()) {
    for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
      if (std::optional<Removal> removal =
              RemovalOf(module, analysis, instruction, order_readers_first)) {
        return removal;
      }
    }
  }
  return std::nullopt;
}

// The computation's sequence with the fewest moves that respects operands
// and control edges: a topological order that always takes the ready
// instruction that came first before. New control edges can leave the old
// sequence out of order; the memory scheduler reorders for bytes afterwards.
void RestoreSequenceOrder(HloSchedule& schedule, const HloComputation* computation) {
  if (!schedule.is_computation_scheduled(computation)) return;
  const std::vector<HloInstruction*>& old_sequence = schedule.sequence(computation).instructions();
  absl::flat_hash_map<const HloInstruction*, int64_t> position;
  for (int64_t i = 0; i < static_cast<int64_t>(old_sequence.size()); ++i)
    position[old_sequence[i]] = i;
  absl::flat_hash_map<const HloInstruction*, int64_t> waiting;
  using Entry = std::pair<int64_t, HloInstruction*>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> ready;
  for (HloInstruction* instruction : old_sequence) {
    absl::flat_hash_set<const HloInstruction*> predecessors(instruction->operands().begin(),
                                                            instruction->operands().end());
    predecessors.insert(instruction->control_predecessors().begin(),
                        instruction->control_predecessors().end());
    waiting[instruction] = static_cast<int64_t>(predecessors.size());
    if (predecessors.empty()) ready.push({position[instruction], instruction});
  }
  std::vector<HloInstruction*> sequence;
  while (!ready.empty()) {
    HloInstruction* instruction = ready.top().second;
    ready.pop();
    sequence.push_back(instruction);
    absl::flat_hash_set<HloInstruction*> successors(instruction->users().begin(),
                                                    instruction->users().end());
    successors.insert(instruction->control_successors().begin(),
                      instruction->control_successors().end());
    for (HloInstruction* successor : successors) {
      auto it = waiting.find(successor);
      if (it != waiting.end() && --it->second == 0) ready.push({position[successor], successor});
    }
  }
  schedule.set_sequence(computation, sequence);
}

}  // namespace

absl::StatusOr<bool> CopyElimination::Run(HloModule& module, PassContext& /*context*/) {
  int64_t removed = 0;
  int64_t removed_bytes = 0;
  std::optional<absl::StatusOr<ModuleMemoryStats>> before;
  while (true) {
    HMO_ASSIGN_OR_RETURN(std::unique_ptr<HloAliasAnalysis> analysis,
                         HloAliasAnalysis::Run(&module));
    std::optional<Removal> removal =
        FindRemovableCopy(module, *analysis, options_.order_readers_first);
    if (!removal.has_value()) break;
    HloInstruction* copy = removal->copy;
    if (!before.has_value()) before = ComputeModuleMemoryStats(module);
    spdlog::debug("copy-elimination: removing {}", copy->ToString());
    removed_bytes += ShapeUtil::ByteSizeOf(copy->shape());
    HloComputation* computation = copy->parent();
    for (HloInstruction* reader : removal->readers_first) {
      HMO_RETURN_IF_ERROR(reader->AddControlDependencyTo(removal->update));
    }
    if (!removal->readers_first.empty() && module.has_schedule()) {
      RestoreSequenceOrder(module.schedule(), computation);
    }
    HMO_RETURN_IF_ERROR(copy->ReplaceAllUsesWith(copy->mutable_operand(0)));
    HMO_RETURN_IF_ERROR(computation->RemoveInstruction(copy));
    ++removed;
  }
  if (removed == 0) return false;
  if (module.has_schedule()) HMO_RETURN_IF_ERROR(module.schedule().Update());
  spdlog::info("copy-elimination: removed {} cop{} ({} bytes of copy results) from {}", removed,
               removed == 1 ? "y" : "ies", removed_bytes, module.name());
  // What the removal saved, as the memory statistics see it.
  absl::StatusOr<ModuleMemoryStats> after = ComputeModuleMemoryStats(module);
  if (before->ok() && after.ok()) {
    spdlog::info("copy-elimination: {} -> {}; saved {} B device, {} B host",
                 (*before)->DeviceString(), after->DeviceString(),
                 (*before)->device_bytes() - after->device_bytes(),
                 (*before)->host_bytes() - after->host_bytes());
  } else {
    spdlog::warn("copy-elimination: no memory statistics: {}",
                 before->ok() ? after.status().ToString() : before->status().ToString());
  }
  return true;
}

}  // namespace hmo
