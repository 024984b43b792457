// The "local-search" scheduler strategy plugin: XLA's list, DFS and
// post-order orders and the subtree-peak order, each improved by moves and
// exactly re-ordered windows around the peak (core/schedule_improver.h), the
// best kept; computations of at most `exact-instructions` instructions are
// then solved exactly within `exact-states` (core/exact_scheduler.h).
// A C-tier plugin (scheduler_strategy_abi.h), loaded like any user strategy.

#include "core/exact_scheduler.h"
#include "core/improver_request_options.h"
#include "core/memory_model.h"
#include "core/schedule_improver.h"
#include "core/strategy_abi_adapter.h"

namespace hmo::scheduler {
namespace {

absl::StatusOr<std::vector<int>> Schedule(const SchedulingGraph& graph,
                                          const StrategyRequestOptions& options) {
  if (absl::Status status =
          options.CheckKnown({"move-radius", "max-move-distance", "window", "window-states",
                              "max-evaluations", "exact-instructions", "exact-states"});
      !status.ok()) {
    return status;
  }
  absl::StatusOr<ImproverOptions> improver_options = ReadImproverOptions(options);
  if (!improver_options.ok()) return improver_options.status();
  absl::StatusOr<int64_t> exact_instructions = options.GetInt("exact-instructions", 48);
  if (!exact_instructions.ok()) return exact_instructions.status();
  absl::StatusOr<int64_t> exact_states = options.GetInt("exact-states", 50'000);
  if (!exact_states.ok()) return exact_states.status();
  MemoryModel model(graph);
  // Progress, when the host listens: the local search's evaluations, then
  // (small computations) the exact search's states, with the best peak so
  // far.
  const bool exact = graph.instruction_count() <= *exact_instructions;
  return ImproveThenSolveExact(model, *improver_options,
                               exact ? std::optional<int64_t>(*exact_states) : std::nullopt,
                               options.progress());
}

}  // namespace
}  // namespace hmo::scheduler

HMO_DEFINE_STRATEGY_PLUGIN("local-search-strategy", "local-search",
                           "list/dfs/post-order/subtree-peak orders improved by moves and exact "
                           "windows at the peak; small computations solved exactly",
                           &hmo::scheduler::Schedule)
