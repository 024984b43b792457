#include "compiler/gpu_module_preparation.h"

#include <utility>

#include "hmo/analysis/heap_simulator.h"
#include "hmo/base/status_macros.h"
#include "hmo/transforms/copy_insertion.h"

namespace hmo::gpu {

absl::StatusOr<PreparedGpuModule> PrepareGpuModule(const HloModule& module) {
  if (!module.has_entry_computation()) {
    return absl::InvalidArgumentError("module '" + module.name() + "' has no entry computation");
  }
  PreparedGpuModule prepared;
  prepared.module = module.Clone();
  HloModule& clone = *prepared.module;
  HMO_RETURN_IF_ERROR(CopyInsertion::AddCopies(clone).status());
  HloSchedule schedule(&clone);
  for (HloComputation* computation : clone.MakeNonfusionComputations()) {
    if (clone.has_schedule() && clone.schedule().is_computation_scheduled(computation)) {
      schedule.set_sequence(computation, clone.schedule().sequence(computation));
    } else {
      schedule.set_sequence(computation, computation->MakeInstructionPostOrder());
    }
  }
  HMO_RETURN_IF_ERROR(clone.set_schedule(std::move(schedule)));

  BufferAssigner::Options options;
  options.allocate_buffers_for_constants = true;
  HMO_ASSIGN_OR_RETURN(prepared.assignment,
                       BufferAssigner::Run(&clone, clone.schedule(), ByteSizeOfValue(/*pointer_size=*/8),
                                           [](int64_t) { return kGpuBufferAlignment; }, options));
  return prepared;
}

}  // namespace hmo::gpu
