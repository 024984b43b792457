#ifndef HMO_STRATEGY_HOST_SCHEDULER_STRATEGY_ADAPTER_H_
#define HMO_STRATEGY_HOST_SCHEDULER_STRATEGY_ADAPTER_H_

// Runs a registered scheduler strategy (a C-ABI function, from a plugin or
// the framework) on computations, and checks what it returns. Passes that
// schedule (e.g. the memory scheduler) call these instead of the C ABI.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "hmo/base/progress_sink.h"
#include "hmo/ir/hlo_schedule.h"
#include "hmo/plugin/scheduler_strategy_registry.h"
#include "hmo/strategy_host/scheduling_view.h"

namespace hmo {

class HloComputation;
class HloInstruction;
class HloModule;

// Options handed to a strategy, as key/value text, in order.
using StrategyOptions = std::vector<std::pair<std::string, std::string>>;

// The options `strategy` is called with when a pipeline forwards `options`:
// for a strategy that declares its options (ABI 1.3), every declared option
// in declaration order, typed and checked (a value given as text, the default
// otherwise, written back as text); for one that declares none, `options` as
// they are. Returns InvalidArgument naming the strategy for a key it does not
// declare, a value of the wrong type or not among an enum's values.
absl::StatusOr<StrategyOptions> ResolveStrategyOptions(const RegisteredSchedulerStrategy& strategy,
                                                       const StrategyOptions& options);

// Asks `strategy` for an order of `computation`'s instructions and checks it:
// every instruction exactly once, each after its operands and control
// predecessors. Errors name the strategy, its plugin and the computation:
// the strategy's own failure (its code and message), or what is wrong with
// the order (its length, an id out of range, an id given twice, the first
// instruction placed before an operand or control predecessor), or the
// options (ResolveStrategyOptions).
//
// With `progress`, what the strategy reports of its search (the request's
// report_progress, ABI 1.2) goes there, as task "<strategy> scheduling
// <computation>"; when it reported anything, the task ends (Done) once the
// strategy returns. Without, the request's report_progress is NULL.
absl::StatusOr<std::vector<HloInstruction*>> ScheduleComputationWithStrategy(
    const RegisteredSchedulerStrategy& strategy, const HloComputation& computation,
    const StrategyOptions& options, const MayShareOperandBufferFn& may_share = nullptr,
    const SchedulingValueSource* values = nullptr, ProgressSink* progress = nullptr);

// The same on a view built beforehand (BuildSchedulingView of
// `computation`), so that several strategies can share one view: a strategy
// only reads it.
absl::StatusOr<std::vector<HloInstruction*>> ScheduleViewWithStrategy(
    const RegisteredSchedulerStrategy& strategy, const SchedulingView& view,
    const HloComputation& computation, const StrategyOptions& options,
    ProgressSink* progress = nullptr);

// Schedules every non-fusion computation of `module` with the strategy named
// `strategy_name`, returning the schedule (not yet set on the module). Views
// carry a value table when `values` is given (see BuildSchedulingView).
// Returns NotFound, with "did you mean" and the registered names, for an
// unknown strategy, or the first computation's error. `progress` as for
// ScheduleComputationWithStrategy.
absl::StatusOr<HloSchedule> ScheduleModuleWithStrategy(
    const HloModule& module, const SchedulerStrategyRegistry& strategies,
    std::string_view strategy_name, const StrategyOptions& options,
    const MayShareOperandBufferFn& may_share = nullptr,
    const SchedulingValueSource* values = nullptr, ProgressSink* progress = nullptr);

}  // namespace hmo

#endif  // HMO_STRATEGY_HOST_SCHEDULER_STRATEGY_ADAPTER_H_
