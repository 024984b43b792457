#include "hmo/rewrites/in_place_operand_copies.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "hmo/analysis/hlo_dataflow_analysis.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/instruction_reachability.h"
#include "hmo/ir/hlo_schedule.h"

namespace hmo {
namespace {

// Whether a value in `values` is memory the module may not write.
bool HoldsReadOnlyValue(const HloModule& module, const std::vector<const HloValue*>& values) {
  for (const HloValue* value : values) {
    const HloInstruction* definition = value->defining_instruction();
    if (definition->opcode() == HloOpcode::kConstant) return true;
    if (definition->opcode() == HloOpcode::kParameter &&
        definition->parent() == module.entry_computation()) {
      bool donated = false;
      module.input_output_alias_config().ForEachAlias(
          [&](const ShapeIndex&, const HloInputOutputAliasConfig::Alias& alias) {
            donated |= alias.parameter_number == definition->parameter_number() &&
                       alias.parameter_index == value->defining_index();
          });
      if (!donated) return true;
    }
  }
  return false;
}

}  // namespace

absl::StatusOr<bool> CopyInPlaceOperandsThatMustSurvive(HloModule& module) {
  HMO_ASSIGN_OR_RETURN(std::unique_ptr<HloDataflowAnalysis> dataflow,
                       HloDataflowAnalysis::Run(module));
  bool changed = false;
  for (HloComputation* computation : module.MakeNonfusionComputations()) {
    const bool scheduled =
        module.has_schedule() && module.schedule().is_computation_scheduled(computation);
    absl::flat_hash_map<const HloInstruction*, int64_t> position;
    if (scheduled) {
      const auto& sequence = module.schedule().sequence(computation).instructions();
      for (int64_t i = 0; i < static_cast<int64_t>(sequence.size()); ++i) position[sequence[i]] = i;
    }
    const std::vector<HloInstruction*> instructions(computation->instructions().begin(),
                                                    computation->instructions().end());
    for (HloInstruction* update : instructions) {
      for (const auto& [input, output_index] :
           HloDataflowAnalysis::GetInPlaceInputOutputPairs(update)) {
        if (!input.operand_index.empty()) continue;
        HloInstruction* operand = update->mutable_operand(input.operand_number);
        if (!operand->shape().IsArray()) continue;
        bool copy = HoldsReadOnlyValue(module, dataflow->GetValueSet(operand, {}).values());
        for (HloInstruction* reader : operand->users()) {
          if (copy) break;
          if (reader == update) continue;
          if (scheduled) {
            copy = position.contains(reader) && position.contains(update) &&
                   position.at(reader) > position.at(update);
          } else if (DependsOn(*reader, *update)) {
            copy = true;
          } else {
            HMO_RETURN_IF_ERROR(reader->AddControlDependencyTo(update));
            changed = true;
          }
        }
        if (!copy) continue;
        HloInstruction* copied =
            computation->AddInstruction(HloInstruction::CreateCopy(operand->shape(), operand));
        HMO_RETURN_IF_ERROR(update->ReplaceOperandWith(input.operand_number, copied));
        if (scheduled) {
          std::vector<HloInstruction*> sequence =
              module.schedule().sequence(computation).instructions();
          sequence.insert(std::find(sequence.begin(), sequence.end(), update), copied);
          module.schedule().set_sequence(computation, sequence);
          position.clear();
          for (int64_t i = 0; i < static_cast<int64_t>(sequence.size()); ++i)
            position[sequence[i]] = i;
        }
        changed = true;
      }
    }
  }
  return changed;
}

}  // namespace hmo
