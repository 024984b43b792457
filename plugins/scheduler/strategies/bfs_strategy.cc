// XLA's BFS scheduler (core/bfs_scheduler.h) as a strategy plugin.
// A C-tier plugin (scheduler_strategy_abi.h), loaded like any user strategy.
// It takes no options.

#include "core/bfs_scheduler.h"
#include "core/strategy_abi_adapter.h"

namespace {

absl::StatusOr<std::vector<int>> Schedule(const hmo::scheduler::SchedulingGraph& graph,
                                          const hmo::scheduler::StrategyRequestOptions& options) {
  if (absl::Status status = options.CheckKnown({}); !status.ok()) return status;
  return hmo::scheduler::BfsSchedule(graph);
}

}  // namespace

HMO_DEFINE_STRATEGY_PLUGIN("bfs-strategy", "bfs",
                           "XLA's BFS scheduler: Kahn order with a FIFO (for concurrency, "
                           "not memory)",
                           &Schedule)
