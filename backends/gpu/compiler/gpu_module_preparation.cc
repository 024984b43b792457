#include "gpu/compiler/gpu_module_preparation.h"

#include <utility>

#include "hmo/analysis/buffer_plan_checker.h"
#include "hmo/base/status_macros.h"
#include "hmo/codegen/emitted_memory_model.h"

namespace hmo::gpu {

TargetMemoryModel GpuMemoryModel(std::string target) {
  TargetMemoryModel model = codegen::EmittedMemoryModel(std::move(target), kGpuBufferAlignment,
                                                        codegen::EmittedFusions::kLoop);
  // Constants are uploaded into the device arena once; thread-local values
  // get their slices there too.
  model.arenas_hold_constants = true;
  model.arenas_hold_thread_locals = true;
  return model;
}

absl::StatusOr<PreparedGpuModule> PrepareGpuModule(const HloModule& module) {
  HMO_ASSIGN_OR_RETURN(PreparedGpuModule prepared, PlanTargetMemory(module, GpuMemoryModel("gpu")));
  HMO_RETURN_IF_ERROR(CheckBufferPlan(*prepared.assignment));
  return prepared;
}

}  // namespace hmo::gpu
