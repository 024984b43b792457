#include "hmo/analysis/module_memory_stats.h"

#include <memory>

#include "absl/strings/str_format.h"
#include "hmo/analysis/buffer_assignment.h"
#include "hmo/analysis/heap_simulator.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_schedule.h"

namespace hmo {

std::string ModuleMemoryStats::DeviceString() const {
  return absl::StrFormat("device %d B (argument %d, output %d, alias %d, temp %d)", device_bytes(),
                         stats.argument_size_in_bytes, stats.output_size_in_bytes,
                         stats.alias_size_in_bytes, stats.temp_size_in_bytes);
}

absl::StatusOr<ModuleMemoryStats> ComputeModuleMemoryStats(const HloModule& module,
                                                           int64_t pointer_size,
                                                           int64_t alignment) {
  ModuleMemoryStats result;
  result.scheduled = module.has_schedule();
  HloSchedule post_order(&module);
  if (!result.scheduled) {
    for (HloComputation* computation : module.MakeNonfusionComputations()) {
      post_order.set_sequence(computation, computation->MakeInstructionPostOrder());
    }
  }
  const HloSchedule& schedule = result.scheduled ? module.schedule() : post_order;
  HMO_ASSIGN_OR_RETURN(
      std::unique_ptr<BufferAssignment> assignment,
      BufferAssigner::Run(&module, schedule, ByteSizeOfValue(pointer_size),
                          [alignment](int64_t) { return alignment; }, BufferAssigner::Options()));
  HMO_ASSIGN_OR_RETURN(result.stats, ComputeCompiledMemoryStats(*assignment));
  return result;
}

}  // namespace hmo
