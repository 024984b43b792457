#include "gpu/compiler/gpu_module_preparation.h"

#include <utility>

#include "hmo/codegen/fusion_emitter.h"
#include "hmo/analysis/buffer_plan_checker.h"
#include "hmo/analysis/heap_simulator.h"
#include "hmo/base/status_macros.h"
#include "hmo/transforms/execution_preparation.h"

namespace hmo::gpu {

absl::StatusOr<PreparedGpuModule> PrepareGpuModule(const HloModule& module) {
  PreparedGpuModule prepared;
  ExecutionPreparationOptions preparation;
  // The loop-fusion emitter is shared with the CPU backend; other fusions
  // run one kernel per fused instruction.
  preparation.expand_fusion = [](const HloInstruction& fusion) {
    return !codegen::IsLoopFusionEmittable(fusion);
  };
  HMO_ASSIGN_OR_RETURN(prepared.module, CloneForExecution(module, preparation));
  HloModule& clone = *prepared.module;

  BufferAssigner::Options options;
  options.allocate_buffers_for_constants = true;
  HMO_ASSIGN_OR_RETURN(prepared.assignment,
                       BufferAssigner::Run(&clone, clone.schedule(), ByteSizeOfValue(/*pointer_size=*/8),
                                           [](int64_t) { return kGpuBufferAlignment; }, options));
  HMO_RETURN_IF_ERROR(CheckBufferPlan(*prepared.assignment));
  return prepared;
}

}  // namespace hmo::gpu
