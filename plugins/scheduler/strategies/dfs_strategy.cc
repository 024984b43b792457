// XLA's DFS memory scheduler (core/dfs_scheduler.h) as a strategy plugin.
// Registered through the C strategy ABI (scheduler_strategy_abi.h) like any
// user strategy, from a C++ plugin (fingerprinted, core/strategy_abi_adapter.h).
// It declares no options, so the host refuses any forwarded to it.

#include "core/dfs_scheduler.h"
#include "core/strategy_abi_adapter.h"

namespace {

absl::StatusOr<std::vector<int>> Schedule(
    const hmo::scheduler::SchedulingGraph& graph,
    const hmo::scheduler::StrategyRequestOptions& /*options*/) {
  return hmo::scheduler::DfsSchedule(graph);
}

}  // namespace

HMO_DEFINE_STRATEGY_PLUGIN("dfs-strategy", "dfs",
                           "XLA's DFS scheduler: operands by extra users, subtree bytes, name",
                           &Schedule, ::hmo::scheduler::NoStrategyOptions)
