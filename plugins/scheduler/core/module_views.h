#ifndef HMO_PLUGINS_SCHEDULER_CORE_MODULE_VIEWS_H_
#define HMO_PLUGINS_SCHEDULER_CORE_MODULE_VIEWS_H_

// What scheduling views of a module are built from: the value table and the
// buffer-reuse predicate, both read off the module's alias analysis (whose
// dataflow, in SSA form, is what XLA's schedulers use).

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "core/scheduling_graph.h"
#include "hmo/analysis/heap_simulator.h"
#include "hmo/analysis/hlo_alias_analysis.h"
#include "hmo/strategy_host/scheduling_view.h"
#include "hmo/strategy_host/scheduling_view_values.h"

namespace hmo::scheduler {

struct SchedulingInputs {
  SchedulingValueSource values;
  MayShareOperandBufferFn may_share;
};

// Values sized with `size_fn` (default: ShapeUtil::ByteSizeOf(shape, 8)); an
// instruction may take over operand i's buffer when the heap simulator could
// let it: both are arrays, the operand defines its own value, both values
// are alone in their HloBuffer, and CanShareOperandBufferWithUser agrees.
// `alias_analysis` must outlive the result.
SchedulingInputs MakeSchedulingInputs(const HloAliasAnalysis& alias_analysis,
                                      BufferSizeFunction size_fn = ByteSizeOfValue());

struct ComputationView {
  const HloComputation* computation = nullptr;
  std::unique_ptr<SchedulingView> view;
};

// The views of every non-fusion computation of `module`, callees first, each
// while / call / conditional carrying as transient bytes the estimated peak,
// beyond their parameters, of the computations it calls (the lowest
// MemoryModel peak of XLA's list, DFS and post-order orders and the
// subtree-peak order of each; nested calls included). The views serve every
// strategy of one pass run. Fails as BuildSchedulingView does.
absl::StatusOr<std::vector<ComputationView>> BuildModuleViews(const HloModule& module,
                                                              const SchedulingInputs& inputs);

// The SchedulingGraph of `computation`, through the same view a strategy
// plugin receives.
absl::StatusOr<SchedulingGraph> GraphOfComputation(const HloComputation& computation,
                                                   const SchedulingInputs& inputs);

}  // namespace hmo::scheduler

#endif  // HMO_PLUGINS_SCHEDULER_CORE_MODULE_VIEWS_H_
