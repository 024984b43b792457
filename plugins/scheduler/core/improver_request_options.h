#ifndef HMO_PLUGINS_SCHEDULER_CORE_IMPROVER_REQUEST_OPTIONS_H_
#define HMO_PLUGINS_SCHEDULER_CORE_IMPROVER_REQUEST_OPTIONS_H_

// The request options that tune ScheduleImprover, and the search both
// strategies built on it (local-search, exact) run.

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "core/memory_model.h"
#include "core/schedule_improver.h"
#include "core/strategy_abi_adapter.h"

namespace hmo::scheduler {

// `options` after the declarations of move-radius, max-move-distance, window,
// window-states and max-evaluations (integers; defaults from ImproverOptions),
// for the table of a strategy built on ScheduleImprover.
std::vector<StrategyIntOption> WithImproverOptions(std::vector<StrategyIntOption> options);

// Reads the options WithImproverOptions declares.
absl::StatusOr<ImproverOptions> ReadImproverOptions(const StrategyRequestOptions& options);

// ImprovedSchedule of `model` under `improver`, then, with `exact_states`,
// SolveExact from that order within that many states. Reports to
// `progress`, when the host listens, the improver's evaluations and then the
// exact search's states as one count against the sum of both budgets, with
// the lowest peak so far ("local search, best peak N B", "exact search, best
// peak N B").
std::vector<int> ImproveThenSolveExact(const MemoryModel& model, ImproverOptions improver,
                                       std::optional<int64_t> exact_states,
                                       const StrategyProgress& progress);

}  // namespace hmo::scheduler

#endif  // HMO_PLUGINS_SCHEDULER_CORE_IMPROVER_REQUEST_OPTIONS_H_
