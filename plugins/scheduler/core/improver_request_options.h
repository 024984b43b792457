#ifndef HMO_PLUGINS_SCHEDULER_CORE_IMPROVER_REQUEST_OPTIONS_H_
#define HMO_PLUGINS_SCHEDULER_CORE_IMPROVER_REQUEST_OPTIONS_H_

// The request options that tune ScheduleImprover, shared by the strategies
// built on it (local-search, exact).

#include "absl/status/statusor.h"
#include "core/schedule_improver.h"
#include "core/strategy_abi_adapter.h"

namespace hmo::scheduler {

// Reads move-radius, max-move-distance, window, window-states and
// max-evaluations (each an integer; defaults from ImproverOptions).
absl::StatusOr<ImproverOptions> ReadImproverOptions(const StrategyRequestOptions& options);

}  // namespace hmo::scheduler

#endif  // HMO_PLUGINS_SCHEDULER_CORE_IMPROVER_REQUEST_OPTIONS_H_
