#include "hmo/codegen/fusion/expanded_fusion_regrouping.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/codegen/fusion/loop_fuser.h"

namespace hmo::codegen {

absl::StatusOr<int64_t> RegroupExpandedInstructions(HloModule& module,
                                                    const std::vector<HloInstruction*>& expanded,
                                                    EmittedFusions fusions_emitted) {
  if (expanded.empty()) return 0;
  const absl::flat_hash_set<const HloInstruction*> from_expansion(expanded.begin(), expanded.end());
  absl::flat_hash_set<const HloComputation*> computations;
  for (const HloInstruction* instruction : expanded) computations.insert(instruction->parent());
  const bool reductions = fusions_emitted != EmittedFusions::kLoop;
  const bool outputs = fusions_emitted == EmittedFusions::kLoopReductionAndOutput;
  LoopFuser fuser(
      module, reductions ? ReductionHosts::kAnySize : ReductionHosts::kNone,
      [&](const HloInstruction& producer) { return from_expansion.contains(&producer); });
  int64_t fusions = 0;
  for (HloComputation* computation : module.MakeNonfusionComputations()) {
    if (!computations.contains(computation)) continue;
    // Consumers before their producers, as cpu-fusion visits them.
    std::vector<HloInstruction*> post_order = computation->MakeInstructionPostOrder();
    std::vector<HloInstruction*> consumers;
    for (auto it = post_order.rbegin(); it != post_order.rend(); ++it) {
      if (from_expansion.contains(*it)) consumers.push_back(*it);
    }
    for (HloInstruction* consumer : consumers) {
      // A producer fused into its last user was removed from the computation.
      if (consumer->parent() != computation) continue;
      HMO_ASSIGN_OR_RETURN(bool fused, fuser.FuseIntoConsumer(consumer));
      if (fused) ++fusions;
    }
    // Then each expanded dot or convolution into its epilogue.
    if (!outputs) continue;
    for (HloInstruction* consumer : computation->MakeInstructionPostOrder()) {
      if (consumer->parent() != computation) continue;
      HMO_ASSIGN_OR_RETURN(bool fused, fuser.FuseProductIntoEpilogue(consumer));
      if (fused) ++fusions;
    }
  }
  return fusions;
}

}  // namespace hmo::codegen
