#include "compiler/gpu_module_preparation.h"

#include <utility>

#include "hmo/analysis/heap_simulator.h"
#include "hmo/base/status_macros.h"
#include "hmo/transforms/execution_preparation.h"

namespace hmo::gpu {

absl::StatusOr<PreparedGpuModule> PrepareGpuModule(const HloModule& module) {
  PreparedGpuModule prepared;
  HMO_ASSIGN_OR_RETURN(prepared.module, CloneForExecution(module));
  HloModule& clone = *prepared.module;

  BufferAssigner::Options options;
  options.allocate_buffers_for_constants = true;
  HMO_ASSIGN_OR_RETURN(prepared.assignment,
                       BufferAssigner::Run(&clone, clone.schedule(), ByteSizeOfValue(/*pointer_size=*/8),
                                           [](int64_t) { return kGpuBufferAlignment; }, options));
  return prepared;
}

}  // namespace hmo::gpu
