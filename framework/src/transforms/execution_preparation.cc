#include "hmo/transforms/execution_preparation.h"

#include <utility>

#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_schedule.h"
#include "hmo/transforms/aliased_output_copies.h"
#include "hmo/transforms/call_inlining.h"
#include "hmo/transforms/control_flow_layouts.h"
#include "hmo/transforms/copy_insertion.h"
#include "hmo/transforms/flatten_call_graph.h"
#include "hmo/transforms/fusion_expansion.h"
#include "hmo/transforms/in_place_operand_copies.h"

namespace hmo {

absl::StatusOr<std::unique_ptr<HloModule>> CloneForExecution(const HloModule& module,
                                                             const ExecutionPreparationOptions& options) {
  if (!module.has_entry_computation()) {
    return absl::InvalidArgumentError("module '" + module.name() + "' has no entry computation");
  }
  std::unique_ptr<HloModule> clone = module.Clone();
  HMO_RETURN_IF_ERROR(InlineCalls(*clone).status());
  if (options.expand_fusion) HMO_RETURN_IF_ERROR(ExpandFusions(*clone, options.expand_fusion).status());
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
