// The "exact" scheduler strategy plugin: a minimum-peak order (by the
// live-byte model) for computations of at most `max-instructions`
// instructions, found by branch-and-bound over scheduled sets
// (core/exact_scheduler.h) from the local-search order; larger computations,
// and searches that exhaust `max-states`, keep the best order found.
// A C-tier plugin (scheduler_strategy_abi.h), loaded like any user strategy.

#include "core/exact_scheduler.h"
#include "core/improver_request_options.h"
#include "core/memory_model.h"
#include "core/schedule_improver.h"
#include "core/strategy_abi_adapter.h"

namespace hmo::scheduler {
namespace {

absl::StatusOr<std::vector<int>> Schedule(const SchedulingGraph& graph,
                                          const StrategyRequestOptions& options) {
  if (absl::Status status = options.CheckKnown({"max-instructions", "max-states", "move-radius",
                                                "max-move-distance", "window", "window-states",
                                                "max-evaluations"});
      !status.ok()) {
    return status;
  }
  absl::StatusOr<ImproverOptions> improver_options = ReadImproverOptions(options);
  if (!improver_options.ok()) return improver_options.status();
  absl::StatusOr<int64_t> max_instructions = options.GetInt("max-instructions", 128);
  if (!max_instructions.ok()) return max_instructions.status();
  absl::StatusOr<int64_t> max_states = options.GetInt("max-states", 500'000);
  if (!max_states.ok()) return max_states.status();
  MemoryModel model(graph);
  std::vector<int> order = ImprovedSchedule(model, *improver_options);
  if (graph.instruction_count() > std::min<int64_t>(*max_instructions,
                                                    ExactProblem::kMaxInstructions)) {
    return order;
  }
  ExactOptions exact;
  exact.max_states = *max_states;
  return SolveExact(MakeComputationProblem(model), order, exact).order;
}

HmoStatusCode Register(HmoStrategyRegistrar* registrar, char* message, size_t capacity) {
  return RegisterStrategy(registrar, "exact",
                          "minimum-peak order by branch-and-bound for small computations "
                          "(local-search for the others)",
                          &ScheduleThroughAbi<&Schedule>, message, capacity);
}

}  // namespace
}  // namespace hmo::scheduler

HMO_PLUGIN_EXPORT const HmoPluginInfo* hmoGetPluginInfo(void) {
  static const HmoPluginInfo info = hmo::scheduler::StrategyPluginInfo(
      "hmo-exact-strategy", "0.1.0", &hmo::scheduler::Register);
  return &info;
}
