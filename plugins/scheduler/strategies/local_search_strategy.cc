// The "local-search" scheduler strategy plugin: XLA's list, DFS and
// post-order orders and the subtree-peak order, each improved by moves and
// exactly re-ordered windows around the peak (core/schedule_improver.h), the
// best kept; computations of at most `exact-instructions` instructions are
// then solved exactly within `exact-states` (core/exact_scheduler.h).
// Registered through the C strategy ABI (scheduler_strategy_abi.h) like any
// user strategy, from a C++ plugin (fingerprinted, core/strategy_abi_adapter.h).

#include "core/exact_scheduler.h"
#include "core/improver_request_options.h"
#include "core/memory_model.h"
#include "core/schedule_improver.h"
#include "core/strategy_abi_adapter.h"

namespace hmo::scheduler {
namespace {

absl::StatusOr<std::vector<int>> Schedule(const SchedulingGraph& graph,
                                          const StrategyRequestOptions& options) {
  absl::StatusOr<ImproverOptions> improver_options = ReadImproverOptions(options);
  if (!improver_options.ok()) return improver_options.status();
  absl::StatusOr<int64_t> exact_instructions = options.GetInt("exact-instructions");
  if (!exact_instructions.ok()) return exact_instructions.status();
  absl::StatusOr<int64_t> exact_states = options.GetInt("exact-states");
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

const StrategyOptionTable& Options() {
  static const auto* table = new StrategyOptionTable(WithImproverOptions({
      {"exact-instructions", 48,
       "computations of at most this many instructions are then solved exactly"},
      {"exact-states", 50'000, "states the exact search explores"},
  }));
  return *table;
}

}  // namespace
}  // namespace hmo::scheduler

HMO_DEFINE_STRATEGY_PLUGIN("local-search-strategy", "local-search",
                           "list/dfs/post-order/subtree-peak orders improved by moves and exact "
                           "windows at the peak; small computations solved exactly",
                           &hmo::scheduler::Schedule, hmo::scheduler::Options)
