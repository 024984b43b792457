#ifndef HMO_ANALYSIS_MODULE_MEMORY_STATS_H_
#define HMO_ANALYSIS_MODULE_MEMORY_STATS_H_

// The memory figures of a module as XLA would report them after compiling it
// (CompiledMemoryStats over a BufferAssignment), for passes that report what
// they saved.

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "hmo/analysis/compiled_memory_stats.h"
#include "hmo/ir/hlo_module.h"

namespace hmo {

struct ModuleMemoryStats {
  CompiledMemoryStats stats;
  // False when the module had no schedule and the figures are for the
  // post-order of every non-fusion computation instead.
  bool scheduled = false;

  // argument + output - alias + temp, device side / host side (S(5)).
  int64_t device_bytes() const { return stats.PeakEstimateBytes(); }
  int64_t host_bytes() const { return stats.HostPeakEstimateBytes(); }

  // "device 4416 B (argument 64, output 64, alias 0, temp 4288)".
  std::string DeviceString() const;
};

// Assigns buffers for `module` (its schedule, or post order when it has
// none; values sized with ShapeUtil::ByteSizeOf at `pointer_size`; temp
// allocations aligned to `alignment`) and returns the statistics. Errors:
// those of the buffer assignment.
absl::StatusOr<ModuleMemoryStats> ComputeModuleMemoryStats(const HloModule& module,
                                                           int64_t pointer_size = 8,
                                                           int64_t alignment = 1);

}  // namespace hmo

#endif  // HMO_ANALYSIS_MODULE_MEMORY_STATS_H_
