// The "local-search" scheduler strategy plugin: the best of XLA's list, DFS
// and post-order orders (by the live-byte model), then improved by moves and
// exactly re-ordered windows around the peak (core/schedule_improver.h).
// A C-tier plugin (scheduler_strategy_abi.h), loaded like any user strategy.

#include "core/improver_request_options.h"
#include "core/memory_model.h"
#include "core/schedule_improver.h"
#include "core/strategy_abi_adapter.h"

namespace hmo::scheduler {
namespace {

absl::StatusOr<std::vector<int>> Schedule(const SchedulingGraph& graph,
                                          const StrategyRequestOptions& options) {
  if (absl::Status status = options.CheckKnown({"move-radius", "max-move-distance", "window",
                                                "window-states", "max-evaluations"});
      !status.ok()) {
    return status;
  }
  absl::StatusOr<ImproverOptions> improver_options = ReadImproverOptions(options);
  if (!improver_options.ok()) return improver_options.status();
  MemoryModel model(graph);
  return ImprovedSchedule(model, *improver_options);
}

HmoStatusCode Register(HmoStrategyRegistrar* registrar, char* message, size_t capacity) {
  return RegisterStrategy(registrar, "local-search",
                          "best of list/dfs/post-order, then moves and exact windows at the "
                          "peak (never worse by the live-byte model)",
                          &ScheduleThroughAbi<&Schedule>, message, capacity);
}

}  // namespace
}  // namespace hmo::scheduler

HMO_PLUGIN_EXPORT const HmoPluginInfo* hmoGetPluginInfo(void) {
  static const HmoPluginInfo info = hmo::scheduler::StrategyPluginInfo(
      "hmo-local-search-strategy", "0.1.0", &hmo::scheduler::Register);
  return &info;
}
