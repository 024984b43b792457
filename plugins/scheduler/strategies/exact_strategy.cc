// The "exact" scheduler strategy plugin: a minimum-peak order (by the
// live-byte model) for computations of at most `max-instructions`
// instructions, found by branch-and-bound over scheduled sets
// (core/exact_scheduler.h) from the local-search order (a search that
// exhausts `max-states` keeps the best order found). Larger computations get
// XLA's list order, which costs nothing to compute and, for a module that is
// one large computation, makes this candidate's schedule the list
// candidate's, which the memory-scheduler pass then does not measure twice.
// Registered through the C strategy ABI (scheduler_strategy_abi.h) like any
// user strategy, from a C++ plugin (fingerprinted, core/strategy_abi_adapter.h).

#include "core/exact_scheduler.h"
#include "core/improver_request_options.h"
#include "core/list_scheduler.h"
#include "core/memory_model.h"
#include "core/schedule_improver.h"
#include "core/strategy_abi_adapter.h"

namespace hmo::scheduler {
namespace {

absl::StatusOr<std::vector<int>> Schedule(const SchedulingGraph& graph,
                                          const StrategyRequestOptions& options) {
  absl::StatusOr<ImproverOptions> improver_options = ReadImproverOptions(options);
  if (!improver_options.ok()) return improver_options.status();
  absl::StatusOr<int64_t> max_instructions = options.GetInt("max-instructions");
  if (!max_instructions.ok()) return max_instructions.status();
  absl::StatusOr<int64_t> max_states = options.GetInt("max-states");
  if (!max_states.ok()) return max_states.status();
  if (graph.instruction_count() > std::min<int64_t>(*max_instructions,
                                                    ExactProblem::kMaxInstructions)) {
    return ListSchedule(graph);
  }
  MemoryModel model(graph);
  // Progress, when the host listens: the local search's evaluations, then
  // the branch and bound's states, with the best peak so far.
  return ImproveThenSolveExact(model, *improver_options, *max_states, options.progress());
}

const StrategyOptionTable& Options() {
  static const auto* table = new StrategyOptionTable(WithImproverOptions({
      {"max-instructions", 128,
       "computations of at most this many instructions are solved exactly (larger: XLA's list "
       "order)"},
      {"max-states", 200'000,
       "states the branch and bound explores before keeping the best order found"},
  }));
  return *table;
}

}  // namespace
}  // namespace hmo::scheduler

HMO_DEFINE_STRATEGY_PLUGIN("exact-strategy", "exact",
                           "minimum-peak order by branch-and-bound for small computations "
                           "(XLA's list order for the others)",
                           &hmo::scheduler::Schedule, hmo::scheduler::Options)
