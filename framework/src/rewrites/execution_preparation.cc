#include "hmo/rewrites/execution_preparation.h"

#include <utility>
#include <vector>

#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_schedule.h"
#include "hmo/rewrites/aliased_output_copies.h"
#include "hmo/rewrites/call_inlining.h"
#include "hmo/rewrites/control_flow_layouts.h"
#include "hmo/rewrites/copy_insertion.h"
#include "hmo/rewrites/flatten_call_graph.h"
#include "hmo/rewrites/fusion_expansion.h"
#include "hmo/rewrites/in_place_operand_copies.h"

namespace hmo {

absl::StatusOr<std::unique_ptr<HloModule>> CloneForExecution(
    const HloModule& module, const ExecutionPreparationOptions& options) {
  if (!module.has_entry_computation()) {
    return absl::InvalidArgumentError("module '" + module.name() + "' has no entry computation");
  }
  std::unique_ptr<HloModule> clone = module.Clone();
  HMO_RETURN_IF_ERROR(InlineCalls(*clone).status());
  if (options.expand_fusion) {
    std::vector<HloInstruction*> expanded;
    HMO_RETURN_IF_ERROR(ExpandFusions(*clone, options.expand_fusion, &expanded).status());
    if (options.regroup_expanded) HMO_RETURN_IF_ERROR(options.regroup_expanded(*clone, expanded));
  }
  HMO_RETURN_IF_ERROR(FlattenCallGraph(*clone).status());
  HMO_RETURN_IF_ERROR(ConformControlFlowLayouts(*clone).status());
  HMO_RETURN_IF_ERROR(CopyInsertion::AddCopies(*clone).status());
  HMO_RETURN_IF_ERROR(CopyInPlaceOperandsThatMustSurvive(*clone).status());
  HMO_RETURN_IF_ERROR(clone->set_schedule(CompletedSchedule(*clone)));
  HMO_ASSIGN_OR_RETURN(bool copied, CopyAliasedOutputsWrittenTooEarly(*clone));
  if (copied) HMO_RETURN_IF_ERROR(clone->schedule().Verify());
  return clone;
}

}  // namespace hmo
