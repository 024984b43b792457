// XLA's BFS scheduler (core/bfs_scheduler.h) as a strategy plugin.
// Registered through the C strategy ABI (scheduler_strategy_abi.h) like any
// user strategy, from a C++ plugin (fingerprinted, core/strategy_abi_adapter.h).
// It declares no options, so the host refuses any forwarded to it.

#include "core/bfs_scheduler.h"
#include "core/strategy_abi_adapter.h"

namespace {

absl::StatusOr<std::vector<int>> Schedule(
    const hmo::scheduler::SchedulingGraph& graph,
    const hmo::scheduler::StrategyRequestOptions& /*options*/) {
  return hmo::scheduler::BfsSchedule(graph);
}

}  // namespace

HMO_DEFINE_STRATEGY_PLUGIN("bfs-strategy", "bfs",
                           "XLA's BFS scheduler: Kahn order with a FIFO (for concurrency, "
                           "not memory)",
                           &Schedule, ::hmo::scheduler::NoStrategyOptions)
