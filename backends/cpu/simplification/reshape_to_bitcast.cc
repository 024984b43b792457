#include "cpu/simplification/reshape_to_bitcast.h"

#include <memory>
#include <vector>

#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/hlo_schedule.h"
#include "hmo/ir/layout.h"
#include "hmo/ir/shape.h"

namespace hmo::cpu {
namespace {

// A static array laid out row-major with nothing but the dimension order in
// its layout.
bool IsPlainRowMajor(const Shape& shape) {
  if (!shape.IsArray() || !shape.has_layout() || !shape.is_static()) return false;
  const Layout& layout = shape.layout();
  if (!layout.tiles().empty() || layout.element_size_in_bits() != 0 ||
      layout.has_physical_shape() || layout.dynamic_shape_metadata_prefix_bytes() != 0) {
    return false;
  }
  const int64_t rank = shape.rank();
  if (layout.minor_to_major_size() != rank) return false;
  for (int64_t i = 0; i < rank; ++i) {
    if (layout.minor_to_major(static_cast<int>(i)) != rank - 1 - i) return false;
  }
  return true;
}

// A computation only `call`s run: its root's buffer is the call's result,
// which alias analysis follows through a bitcast.
bool IsCalledOnlyByCalls(const HloComputation& computation) {
  const std::vector<HloInstruction*>& callers = computation.caller_instructions();
  if (callers.empty()) return false;
  for (const HloInstruction* caller : callers) {
    if (caller->opcode() != HloOpcode::kCall) return false;
  }
  return true;
}

}  // namespace

bool IsBitcastReshape(const HloInstruction& reshape) {
  if (reshape.opcode() != HloOpcode::kReshape || reshape.operand_count() != 1) return false;
  const Shape& from = reshape.operand(0)->shape();
  const Shape& to = reshape.shape();
  return IsPlainRowMajor(from) && IsPlainRowMajor(to) && from.element_type() == to.element_type() &&
         from.layout().memory_space() == to.layout().memory_space() &&
         from.layout().tail_padding_alignment_in_elements() ==
             to.layout().tail_padding_alignment_in_elements();
}

absl::StatusOr<bool> ReshapeToBitcast::Run(HloModule& module, PassContext& /*context*/) {
  bool changed = false;
  for (HloComputation* computation : module.MakeNonfusionComputations()) {
    std::vector<HloInstruction*> reshapes;
    for (HloInstruction* instruction : computation->instructions()) {
      if (IsBitcastReshape(*instruction) &&
          (instruction != computation->root_instruction() || IsCalledOnlyByCalls(*computation)) &&
          instruction->control_predecessors().empty() &&
          instruction->control_successors().empty()) {
        reshapes.push_back(instruction);
      }
    }
    const bool scheduled =
        module.has_schedule() && module.schedule().is_computation_scheduled(computation);
    for (HloInstruction* reshape : reshapes) {
      std::unique_ptr<HloInstruction> bitcast = HloInstruction::Create(
          HloOpcode::kBitcast, reshape->shape(), {reshape->mutable_operand(0)});
      bitcast->CopyAttributesFrom(*reshape);  // metadata, frontend attributes
      bitcast->SetAndSanitizeName("");        // takes the reshape's name
      HMO_ASSIGN_OR_RETURN(HloInstruction * added, computation->ReplaceWithNewInstructionInPlace(
                                                       reshape, std::move(bitcast)));
      if (scheduled) {
        module.schedule().GetOrCreateSequence(computation).replace_instruction(reshape, added);
      }
      changed = true;
    }
  }
  return changed;
}

}  // namespace hmo::cpu
