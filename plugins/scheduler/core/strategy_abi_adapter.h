#ifndef HMO_PLUGINS_SCHEDULER_CORE_STRATEGY_ABI_ADAPTER_H_
#define HMO_PLUGINS_SCHEDULER_CORE_STRATEGY_ABI_ADAPTER_H_

// What every strategy plugin of this folder shares: turning a C++ scheduling
// function into the C ABI's HmoScheduleFn, and its plugin's entry-point data.
//
// Each strategy is its own shared object registered through the C strategy
// ABI (scheduler_strategy_abi.h), as a user's strategy plugin is. Unlike a
// C-only plugin, it is C++ and links the framework (hmo_scheduler_core, Abseil,
// the ABI status helpers), so it carries the build fingerprint: a host built
// differently refuses it instead of calling into a mismatched framework.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/scheduling_graph.h"
#include "hmo/plugin/abi_status.h"
#include "hmo/plugin/plugin_abi.h"
#include "hmo/plugin/scheduler_strategy_abi.h"

namespace hmo::scheduler {

// Where a strategy reports the progress of its search to the host: the
// request's report_progress (ABI 1.2), read only when the request has it;
// silent when the host does not listen.
class StrategyProgress {
 public:
  explicit StrategyProgress(const HmoScheduleRequest& request) : request_(request) {}

  // Whether the host listens (a strategy may skip working out its detail).
  bool listening() const { return hmoWantsProgress(&request_) != 0; }
  // `done` of `total` steps (0: not known), with `detail`.
  void Report(int64_t done, int64_t total, std::string_view detail) const;

 private:
  const HmoScheduleRequest& request_;
};

// The options of one request, read-only, and where its progress goes.
class StrategyRequestOptions {
 public:
  explicit StrategyRequestOptions(const HmoScheduleRequest& request) : request_(request) {}

  // Where the strategy reports the progress of a long search.
  StrategyProgress progress() const { return StrategyProgress(request_); }

  // Returns InvalidArgument naming the first option whose key is not in
  // `known` (the strategy's option names).
  absl::Status CheckKnown(std::initializer_list<std::string_view> known) const;
  // Returns the value of `key`, or nullopt.
  std::optional<std::string_view> Find(std::string_view key) const;
  // Returns the integer value of `key`, `default_value` when absent, or
  // InvalidArgument when it is not an integer.
  absl::StatusOr<int64_t> GetInt(std::string_view key, int64_t default_value) const;

 private:
  const HmoScheduleRequest& request_;
};

// A strategy's C++ body: an order of `graph`'s instructions.
using ScheduleFunction = absl::StatusOr<std::vector<int>> (*)(const SchedulingGraph& graph,
                                                            const StrategyRequestOptions& options);

// The HmoScheduleFn of `Fn`: builds the graph from the request's view, runs
// `Fn`, writes the order; errors (and exceptions) become a status code and
// message, never an exception across the boundary.
template <ScheduleFunction Fn>
HmoStatusCode ScheduleThroughAbi(const void* /*strategy_data*/,
                                 HmoScheduleRequest* request) noexcept {
  return CallReturningAbiStatus(
      [&]() -> absl::Status {
        absl::StatusOr<SchedulingGraph> graph = SchedulingGraph::FromView(*request->view);
        if (!graph.ok()) return graph.status();
        absl::StatusOr<std::vector<int>> order = Fn(*graph, StrategyRequestOptions(*request));
        if (!order.ok()) return order.status();
        for (size_t p = 0; p < order->size(); ++p) {
          request->order[p] = static_cast<HmoInstructionId>((*order)[p]);
        }
        request->order_length = order->size();
        return absl::OkStatus();
      },
      request->message, request->message_capacity);
}

// The HmoPluginInfo of a strategy-only plugin: C++ tier (this build's
// fingerprint), registering through `register_strategies`.
HmoPluginInfo StrategyPluginInfo(const char* name, const char* version,
                                 HmoRegisterSchedulerStrategiesFn register_strategies);

// Registers one strategy through `registrar`.
HmoStatusCode RegisterStrategy(HmoStrategyRegistrar* registrar, const char* name,
                               const char* description, HmoScheduleFn schedule, char* message,
                               size_t message_capacity);

}  // namespace hmo::scheduler

// Defines the entry point of a plugin that registers one strategy, named
// `strategy_name`, whose body is `schedule_fn` (a ScheduleFunction).
#define HMO_DEFINE_STRATEGY_PLUGIN(plugin_name, strategy_name, description, schedule_fn)   \
  namespace {                                                                             \
  HmoStatusCode RegisterStrategies(HmoStrategyRegistrar* registrar, char* message,         \
                                   size_t capacity) {                                     \
    return ::hmo::scheduler::RegisterStrategy(                                            \
        registrar, strategy_name, description,                                            \
        &::hmo::scheduler::ScheduleThroughAbi<schedule_fn>, message, capacity);           \
  }                                                                                       \
  }                                                                                       \
  HMO_PLUGIN_EXPORT const HmoPluginInfo* hmoGetPluginInfo(void) {                         \
    static const HmoPluginInfo info =                                                     \
        ::hmo::scheduler::StrategyPluginInfo(plugin_name, "0.1.0", &RegisterStrategies);  \
    return &info;                                                                         \
  }

#endif  // HMO_PLUGINS_SCHEDULER_CORE_STRATEGY_ABI_ADAPTER_H_
