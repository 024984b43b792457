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
#include "hmo/ir/hlo_module.h"

namespace hmo {

// One device value live at the peak.
struct PeakValue {
  std::string instruction;
  std::string index;  // "{}" / "{1}"
  std::string shape;
  int64_t size = 0;
  // "parameter", "output", "constant" or "temp" (the allocation's kind).
  std::string kind;
  // Why the value occupies device memory at the peak, for the user.
  std::string reason;
};

struct MemoryLimitCheck {
  int64_t limit = 0;
  // argument + output - alias + temp on the device.
  int64_t device_bytes = 0;
  CompiledMemoryStats stats;
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

// OkStatus when `check` fits; else ResourceExhausted with check.Describe().
absl::Status MemoryLimitStatus(const MemoryLimitCheck& check);

}  // namespace hmo

#endif  // HMO_ANALYSIS_MEMORY_LIMIT_H_
