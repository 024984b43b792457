#include "hmo/transforms/execution_preparation.h"

#include <utility>

#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_schedule.h"
#include "hmo/transforms/copy_insertion.h"

namespace hmo {

absl::StatusOr<std::unique_ptr<HloModule>> CloneForExecution(const HloModule& module) {
  if (!module.has_entry_computation()) {
    return absl::InvalidArgumentError("module '" + module.name() + "' has no entry computation");
  }
  std::unique_ptr<HloModule> clone = module.Clone();
  HMO_RETURN_IF_ERROR(CopyInsertion::AddCopies(*clone).status());
  HloSchedule schedule(clone.get());
  for (HloComputation* computation : clone->MakeNonfusionComputations()) {
    if (clone->has_schedule() && clone->schedule().is_computation_scheduled(computation)) {
      schedule.set_sequence(computation, clone->schedule().sequence(computation));
    } else {
      schedule.set_sequence(computation, computation->MakeInstructionPostOrder());
    }
  }
  HMO_RETURN_IF_ERROR(clone->set_schedule(std::move(schedule)));
  return clone;
}

}  // namespace hmo
