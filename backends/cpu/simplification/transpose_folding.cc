#include "cpu/simplification/transpose_folding.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "hmo/base/status_macros.h"
#include "hmo/codegen/gemm_plan.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/hlo_schedule.h"

namespace hmo::cpu {
namespace {

// The dimensions of a rank-`rank` dot operand that are neither contracting
// nor batch, in increasing order.
std::vector<int64_t> FreeDimensions(int64_t rank, const std::vector<int64_t>& contracting,
                                    const std::vector<int64_t>& batch) {
  std::vector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(contracting.begin(), contracting.end(), d) == contracting.end() &&
        std::find(batch.begin(), batch.end(), d) == batch.end()) {
      free.push_back(d);
    }
  }
  return free;
}

// Operand `i` of `dot` if it is a transpose that can be folded: its
// permutation keeps the operand's free dimensions in increasing order.
bool CanFold(const HloInstruction& dot, int64_t i) {
  const HloInstruction* transpose = dot.operand(i);
  if (transpose->opcode() != HloOpcode::kTranspose || !transpose->shape().IsArray() ||
      !transpose->control_predecessors().empty() || !transpose->control_successors().empty()) {
    return false;
  }
  const DotDimensionNumbers& numbers = dot.dot_dimension_numbers();
  const std::vector<int64_t>& contracting =
      i == 0 ? numbers.lhs_contracting_dimensions : numbers.rhs_contracting_dimensions;
  const std::vector<int64_t>& batch =
      i == 0 ? numbers.lhs_batch_dimensions : numbers.rhs_batch_dimensions;
  const std::vector<int64_t>& permutation = transpose->dimensions();
  const int64_t rank = static_cast<int64_t>(permutation.size());
  if (rank != transpose->shape().rank()) return false;
  const std::vector<int64_t> free = FreeDimensions(rank, contracting, batch);
  for (size_t k = 1; k < free.size(); ++k) {
    if (permutation[free[k - 1]] > permutation[free[k]]) return false;
  }
  return true;
}

void Renumber(std::vector<int64_t>& dimensions, const std::vector<int64_t>& permutation) {
  for (int64_t& d : dimensions) d = permutation[d];
}

}  // namespace

absl::StatusOr<bool> TransposeFolding::Run(HloModule& module, PassContext& /*context*/) {
  bool changed = false;
  for (HloComputation* computation : module.MakeNonfusionComputations()) {
    // Collect first: folding may remove transposes.
    std::vector<HloInstruction*> dots;
    for (HloInstruction* instruction : computation->instructions()) {
      if (instruction->opcode() == HloOpcode::kDot && instruction->operand_count() == 2) {
        dots.push_back(instruction);
      }
    }
    for (HloInstruction* dot : dots) {
      std::vector<HloInstruction*> operands = {dot->mutable_operand(0), dot->mutable_operand(1)};
      DotDimensionNumbers numbers = dot->dot_dimension_numbers();
      std::vector<HloInstruction*> folded;
      for (int64_t i = 0; i < 2; ++i) {
        if (!CanFold(*dot, i)) continue;
        const std::vector<int64_t>& permutation = operands[i]->dimensions();
        Renumber(i == 0 ? numbers.lhs_contracting_dimensions : numbers.rhs_contracting_dimensions,
                 permutation);
        Renumber(i == 0 ? numbers.lhs_batch_dimensions : numbers.rhs_batch_dimensions, permutation);
        folded.push_back(operands[i]);
        operands[i] = operands[i]->mutable_operand(0);
      }
      if (folded.empty()) continue;
      std::unique_ptr<HloInstruction> replacement =
          dot->CloneWithNewOperands(dot->shape(), operands);
      replacement->set_dot_dimension_numbers(std::move(numbers));
      // A dot the runtime GEMM computes stays one: the transposed copy costs
      // one pass over the operand, loops instead of the GEMM far more.
      if (codegen::GemmPlanFor(*dot).has_value() &&
          !codegen::GemmPlanFor(*replacement).has_value()) {
        continue;
      }
      replacement->SetAndSanitizeName("");  // takes the dot's name
      HMO_ASSIGN_OR_RETURN(HloInstruction * added, computation->ReplaceWithNewInstructionInPlace(
                                                       dot, std::move(replacement)));
      const bool scheduled =
          module.has_schedule() && module.schedule().is_computation_scheduled(computation);
      if (scheduled)
        module.schedule().GetOrCreateSequence(computation).replace_instruction(dot, added);
      changed = true;
      for (HloInstruction* transpose : folded) {
        if (transpose->user_count() != 0 || transpose == computation->root_instruction() ||
            std::find(operands.begin(), operands.end(), transpose) != operands.end()) {
          continue;
        }
        HMO_RETURN_IF_ERROR(module.RemoveDeadInstruction(transpose));
      }
    }
  }
  return changed;
}

}  // namespace hmo::cpu
