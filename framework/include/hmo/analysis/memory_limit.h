#ifndef HMO_ANALYSIS_MEMORY_LIMIT_H_
#define HMO_ANALYSIS_MEMORY_LIMIT_H_

// Whether a module fits a device memory limit, on the figure `hmo stats`
// reports for the device: arguments + non-aliased outputs + the temp arena
// that buffer assignment lays out (XLA's memory_analysis(); host S(5) bytes
// do not count). When it does not, says where the floor is: the moment the
// temp values live together are largest, and every device value live then,
// with why this module cannot lose it as it stands.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hmo/analysis/compiled_memory_stats.h"
#include "hmo/analysis/memory_report.h"
#include "hmo/analysis/target_memory_model.h"
#include "hmo/ir/hlo_module.h"

namespace hmo {

// One device value live at the peak.
struct PeakValue {
  std::string instruction;
  std::string index;  // "{}" / "{1}"
  std::string shape;
  int64_t size = 0;
  // The kind of the value's allocation (never kThreadLocal: such values are
  // not device memory at the peak).
  AllocationKind kind = AllocationKind::kTemp;
  // Why the value occupies device memory at the peak, for the user.
  std::string reason;
  // Where the user's program made it ("file:line (function)",
  // hmo/ir/instruction_source.h); empty when the metadata names no source.
  std::string source;
};

struct MemoryLimitCheck {
  int64_t limit = 0;
  // argument + output - alias + temp on the device; with a target, the
  // device arenas its executable allocates (target.arena_device_bytes).
  int64_t device_bytes = 0;
  // The figures of the module as written.
  CompiledMemoryStats stats;
  // Set by CheckTargetMemoryLimit (name not empty): what the target's
  // executable adds.
  MemoryReportTarget target;
  bool measured_for_target() const { return !target.name.empty(); }
  // The schedule time at which the temp values live together are largest,
  // and their bytes (a lower bound of the temp arena, whatever the packing).
  int64_t peak_time = 0;
  int64_t peak_temp_bytes = 0;
  // How many schedule times reach peak_temp_bytes (a pass lowering the peak
  // makes progress when it removes one of several equal peaks).
  int64_t peak_moments = 0;
  // Device values live at peak_time, largest first: arguments and outputs
  // (live for the whole run) and the temps live then.
  std::vector<PeakValue> live_at_peak;

  bool fits() const { return device_bytes <= limit; }
  // "device 1.2 GiB > limit 1 GiB" and, when it does not fit, the peak and
  // at most `max_values` of its values (the rest counted).
  std::string Describe(size_t max_values = 20) const;
};

// Assigns buffers as `options` say (the same figures as BuildMemoryReport)
// and compares the device bytes with `limit` (>= 0). Errors: those of the
// buffer assignment.
absl::StatusOr<MemoryLimitCheck> CheckMemoryLimit(const HloModule& module, int64_t limit,
                                                  const MemoryReportOptions& options = {});

// The check on `model`'s figure, the one every memory measure of a target
// uses: the peak and the values live at it as CheckMemoryLimit(module, limit,
// model.assignment) finds them on the module as written, and device_bytes
// the device arenas PlanTargetMemory lays out for the executable. Errors:
// those of the preparation and the buffer assignment.
absl::StatusOr<MemoryLimitCheck> CheckTargetMemoryLimit(const HloModule& module, int64_t limit,
                                                        const TargetMemoryModel& model);

// The check on `report`, an assignment of `module` (or of a clone with the
// same names): the report's figures against `limit`, the peak of its
// temporaries and the device values live then.
MemoryLimitCheck CheckMemoryReport(const HloModule& module, const MemoryReport& report,
                                   int64_t limit);

// The bytes of `values` by the source line that made them, largest first
// (ties in source order): what the limit error and `hmo stats` print.
std::vector<SourceBytes> BytesBySource(const std::vector<PeakValue>& values);

// OkStatus when `check` fits; else ResourceExhausted with check.Describe().
absl::Status MemoryLimitStatus(const MemoryLimitCheck& check);

}  // namespace hmo

#endif  // HMO_ANALYSIS_MEMORY_LIMIT_H_
