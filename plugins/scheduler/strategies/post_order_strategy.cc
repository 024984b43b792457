// XLA's post-order scheduler (core/post_order_scheduler.h) as a strategy plugin.
// A C-tier plugin (scheduler_strategy_abi.h), loaded like any user strategy.
// It takes no options.

#include "core/post_order_scheduler.h"
#include "core/strategy_abi_adapter.h"

namespace {

absl::StatusOr<std::vector<int>> Schedule(const hmo::scheduler::SchedulingGraph& graph,
                                          const hmo::scheduler::StrategyRequestOptions& options) {
  if (absl::Status status = options.CheckKnown({}); !status.ok()) return status;
  return hmo::scheduler::PostOrderSchedule(graph);
}

}  // namespace

HMO_DEFINE_STRATEGY_PLUGIN("post-order-strategy", "post-order",
                           "XLA's post-order scheduler: the computation's instruction post order",
                           &Schedule)
