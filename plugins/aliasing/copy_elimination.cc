#include "copy_elimination.h"

#include <memory>
#include <optional>
#include <vector>

#include "hmo/analysis/hlo_alias_analysis.h"
#include "hmo/analysis/hlo_buffer.h"
#include "hmo/analysis/hlo_value.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_module.h"
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

bool IsRemovable(const HloModule& module, const HloAliasAnalysis& analysis,
                 const HloInstruction* copy) {
  if (copy->opcode() != HloOpcode::kCopy || copy->parent()->IsFusionComputation()) return false;
  if (!copy->control_predecessors().empty() || !copy->control_successors().empty()) return false;
  const HloInstruction* source = copy->operand(0);
  if (!SameArrayLayout(copy->shape(), source->shape())) return false;
  const HloBuffer* source_buffer = UniqueBuffer(analysis, source);
  const HloBuffer* copy_buffer = UniqueBuffer(analysis, copy);
  if (source_buffer == nullptr || copy_buffer == nullptr) return false;
  if (source_buffer == copy_buffer) {
    return CopiesAliasedParameterOntoItself(module, *copy_buffer, copy);
  }
  return CanShareReadOnly(module, analysis, *source_buffer, *copy_buffer);
}

// Finds one removable copy, or null.
HloInstruction* FindRemovableCopy(const HloModule& module, const HloAliasAnalysis& analysis) {
  for (HloComputation* computation : module.MakeNonfusionComputations()) {
    for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
      if (IsRemovable(module, analysis, instruction)) return instruction;
    }
  }
  return nullptr;
}

}  // namespace

absl::StatusOr<bool> CopyElimination::Run(HloModule& module, PassContext& /*context*/) {
  int64_t removed = 0;
  int64_t removed_bytes = 0;
  std::optional<absl::StatusOr<ModuleMemoryStats>> before;
  while (true) {
    HMO_ASSIGN_OR_RETURN(std::unique_ptr<HloAliasAnalysis> analysis,
                         HloAliasAnalysis::Run(&module));
    HloInstruction* copy = FindRemovableCopy(module, *analysis);
    if (copy == nullptr) break;
    if (!before.has_value()) before = ComputeModuleMemoryStats(module);
    spdlog::debug("copy-elimination: removing {}", copy->ToString());
    removed_bytes += ShapeUtil::ByteSizeOf(copy->shape());
    HloComputation* computation = copy->parent();
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
