// XLA's list scheduler (core/list_scheduler.h) as a strategy plugin.
// Registered through the C strategy ABI (scheduler_strategy_abi.h) like any
// user strategy, from a C++ plugin (fingerprinted, core/strategy_abi_adapter.h).
// It declares no options, so the host refuses any forwarded to it.

#include "core/list_scheduler.h"
#include "core/strategy_abi_adapter.h"

namespace {

absl::StatusOr<std::vector<int>> Schedule(
    const hmo::scheduler::SchedulingGraph& graph,
    const hmo::scheduler::StrategyRequestOptions& /*options*/) {
  return hmo::scheduler::ListSchedule(graph);
}

}  // namespace

HMO_DEFINE_STRATEGY_PLUGIN("list-strategy", "list",
                           "XLA's list scheduler: greedy by bytes freed minus bytes "
                           "defined, then users",
                           &Schedule, ::hmo::scheduler::NoStrategyOptions)
