// XLA's DFS memory scheduler (core/dfs_scheduler.h) as a strategy plugin.
// A C-tier plugin (scheduler_strategy_abi.h), loaded like any user strategy.
// It takes no options.

#include "core/dfs_scheduler.h"
#include "core/strategy_abi_adapter.h"

namespace {

absl::StatusOr<std::vector<int>> Schedule(const hmo::scheduler::SchedulingGraph& graph,
                                          const hmo::scheduler::StrategyRequestOptions& options) {
  if (absl::Status status = options.CheckKnown({}); !status.ok()) return status;
  return hmo::scheduler::DfsSchedule(graph);
}

}  // namespace

HMO_DEFINE_STRATEGY_PLUGIN("dfs-strategy", "dfs",
                           "XLA's DFS scheduler: operands by extra users, subtree bytes, name",
                           &Schedule)
