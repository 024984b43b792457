// The "bfs" scheduler strategy plugin: XLA's BFS scheduler (Kahn order, FIFO; for concurrency, not memory)
// A C-tier plugin (scheduler_strategy_abi.h), loaded like any user strategy.

#include "core/strategy_abi_adapter.h"
#include "core/bfs_scheduler.h"

namespace hmo::scheduler {
namespace {

absl::StatusOr<std::vector<int>> Schedule(const SchedulingGraph& graph,
                                          const StrategyRequestOptions& options) {
  if (absl::Status status = options.CheckKnown({}); !status.ok()) return status;
  return BfsSchedule(graph);
}

HmoStatusCode Register(HmoStrategyRegistrar* registrar, char* message, size_t capacity) {
  return RegisterStrategy(registrar, "bfs", "XLA's BFS scheduler (Kahn order, FIFO; for concurrency, not memory)", &ScheduleThroughAbi<&Schedule>, message,
                          capacity);
}

}  // namespace
}  // namespace hmo::scheduler

HMO_PLUGIN_EXPORT const HmoPluginInfo* hmoGetPluginInfo(void) {
  static const HmoPluginInfo info =
      hmo::scheduler::StrategyPluginInfo("hmo-bfs-strategy", "0.1.0", &hmo::scheduler::Register);
  return &info;
}
