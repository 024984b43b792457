// The "dfs" scheduler strategy plugin: XLA's DFS memory scheduler (operands by extra users, subtree bytes, name)
// A C-tier plugin (scheduler_strategy_abi.h), loaded like any user strategy.

#include "core/strategy_abi_adapter.h"
#include "core/dfs_scheduler.h"

namespace hmo::scheduler {
namespace {

absl::StatusOr<std::vector<int>> Schedule(const SchedulingGraph& graph,
                                          const StrategyRequestOptions& options) {
  if (absl::Status status = options.CheckKnown({}); !status.ok()) return status;
  return DfsSchedule(graph);
}

HmoStatusCode Register(HmoStrategyRegistrar* registrar, char* message, size_t capacity) {
  return RegisterStrategy(registrar, "dfs", "XLA's DFS memory scheduler (operands by extra users, subtree bytes, name)", &ScheduleThroughAbi<&Schedule>, message,
                          capacity);
}

}  // namespace
}  // namespace hmo::scheduler

HMO_PLUGIN_EXPORT const HmoPluginInfo* hmoGetPluginInfo(void) {
  static const HmoPluginInfo info =
      hmo::scheduler::StrategyPluginInfo("hmo-dfs-strategy", "0.1.0", &hmo::scheduler::Register);
  return &info;
}
