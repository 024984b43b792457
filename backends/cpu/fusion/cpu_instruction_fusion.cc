#include "cpu_instruction_fusion.h"

#include <vector>

#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/codegen/fusion/loop_fuser.h"

namespace hmo::cpu {
namespace {

// Computations whose instructions run as ordinary program steps: the entry
// and bodies of control flow. Scalar computations applied by reduce, sort,
// map, scatter, ... are not (their emitters call them as functions).
bool IsControlFlowComputation(const HloComputation& computation) {
  if (computation.IsEntryComputation()) return true;
  const std::vector<HloInstruction*>& callers = computation.caller_instructions();
  if (callers.empty()) return false;
  for (const HloInstruction* caller : callers) {
    switch (caller->opcode()) {
      case HloOpcode::kWhile:
      case HloOpcode::kConditional:
      case HloOpcode::kCall:
        break;
      default:
        return false;
    }
  }
  return true;
}

}  // namespace

absl::StatusOr<bool> CpuInstructionFusion::Run(HloModule& module, PassContext& /*context*/) {
  codegen::LoopFuser fuser(module, codegen::ReductionHosts::kBelowPartSize);
  bool changed = false;
  for (HloComputation* computation : module.MakeNonfusionComputations()) {
    if (!IsControlFlowComputation(*computation)) continue;
    std::vector<HloInstruction*> post_order = computation->MakeInstructionPostOrder();
    for (auto it = post_order.rbegin(); it != post_order.rend(); ++it) {
      HloInstruction* consumer = *it;
      // Producers fused into their last user are removed from the computation.
      if (consumer->parent() != computation) continue;
      HMO_ASSIGN_OR_RETURN(bool fused, fuser.FuseIntoConsumer(consumer));
      changed |= fused;
    }
    // Then the dots and convolutions into their epilogues (the loop fusions
    // just made).
    for (HloInstruction* consumer : computation->MakeInstructionPostOrder()) {
      if (consumer->parent() != computation) continue;
      HMO_ASSIGN_OR_RETURN(bool fused, fuser.FuseProductIntoEpilogue(consumer));
      changed |= fused;
    }
    // Then reductions of a shared input into multi-output reduction fusions.
    HMO_ASSIGN_OR_RETURN(int64_t siblings, fuser.FuseSiblingReductions(computation));
    changed |= siblings > 0;
  }
  return changed;
}

}  // namespace hmo::cpu
