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
#include <string>
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

// One integer option of a strategy of this folder, declared once: the host
// checks and lists it (HmoSchedulerStrategy.options), and GetInt falls back
// to its default.
struct StrategyIntOption {
  std::string key;
  int64_t default_value = 0;
  std::string help;
};

// A strategy's option declarations, in the C ABI's form (HmoPassOptionDecl)
// with the storage they point into. Built once, kept for the life of the
// plugin (it is the strategy's strategy_data).
class StrategyOptionTable {
 public:
  explicit StrategyOptionTable(std::vector<StrategyIntOption> options);
  StrategyOptionTable(const StrategyOptionTable&) = delete;
  StrategyOptionTable& operator=(const StrategyOptionTable&) = delete;

  // Never NULL, even when empty: a strategy with an empty table declares
  // that it takes no options (NULL would declare nothing).
  const HmoPassOptionDecl* const* declarations() const;
  size_t size() const { return options_.size(); }
  // The declared default of `key`, or nullopt when `key` is not declared.
  std::optional<int64_t> Default(std::string_view key) const;

 private:
  std::vector<StrategyIntOption> options_;
  std::vector<std::string> default_texts_;
  std::vector<HmoPassOptionDecl> declarations_;
  std::vector<const HmoPassOptionDecl*> pointers_;
};

// The table of a strategy that takes no options.
const StrategyOptionTable& NoStrategyOptions();

// The options of one request, read-only, and where its progress goes.
class StrategyRequestOptions {
 public:
  StrategyRequestOptions(const HmoScheduleRequest& request, const StrategyOptionTable& table)
      : request_(request), table_(table) {}

  // Where the strategy reports the progress of a long search.
  StrategyProgress progress() const { return StrategyProgress(request_); }

  // Returns InvalidArgument naming the first option of the request that the
  // table does not declare (the host checks this too; a direct caller may
  // not have).
  absl::Status CheckDeclared() const;
  // Returns the value of `key`, or nullopt.
  std::optional<std::string_view> Find(std::string_view key) const;
  // Returns the integer value of `key`, its declared default when the
  // request lacks it, or InvalidArgument when it is not an integer (Internal
  // for a key the table does not declare: a programming error).
  absl::StatusOr<int64_t> GetInt(std::string_view key) const;

 private:
  const HmoScheduleRequest& request_;
  const StrategyOptionTable& table_;
};

// A strategy's C++ body: an order of `graph`'s instructions.
using ScheduleFunction = absl::StatusOr<std::vector<int>> (*)(const SchedulingGraph& graph,
                                                            const StrategyRequestOptions& options);

// The HmoScheduleFn of `Fn`: builds the graph from the request's view, runs
// `Fn`, writes the order; errors (and exceptions) become a status code and
// message, never an exception across the boundary. `strategy_data` is the
// strategy's StrategyOptionTable.
template <ScheduleFunction Fn>
HmoStatusCode ScheduleThroughAbi(const void* strategy_data, HmoScheduleRequest* request) noexcept {
  return CallReturningAbiStatus(
      [&]() -> absl::Status {
        const StrategyRequestOptions options(
            *request, *static_cast<const StrategyOptionTable*>(strategy_data));
        if (absl::Status declared = options.CheckDeclared(); !declared.ok()) return declared;
        absl::StatusOr<SchedulingGraph> graph = SchedulingGraph::FromView(*request->view);
        if (!graph.ok()) return graph.status();
        absl::StatusOr<std::vector<int>> order = Fn(*graph, options);
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

// Registers one strategy through `registrar`, declaring the options of
// `options` (which becomes its strategy_data).
HmoStatusCode RegisterStrategy(HmoStrategyRegistrar* registrar, const char* name,
                               const char* description, HmoScheduleFn schedule,
                               const StrategyOptionTable& options, char* message,
                               size_t message_capacity);

}  // namespace hmo::scheduler

// Defines the entry point of a plugin that registers one strategy, named
// `strategy_name`, whose body is `schedule_fn` (a ScheduleFunction) and whose
// options are those of `options_fn()` (a const StrategyOptionTable&).
#define HMO_DEFINE_STRATEGY_PLUGIN(plugin_name, strategy_name, description, schedule_fn,          \
                                   options_fn)                                                    \
  namespace {                                                                                     \
  HmoStatusCode RegisterStrategies(HmoStrategyRegistrar* registrar, char* message,                \
                                   size_t capacity) {                                             \
    return ::hmo::scheduler::RegisterStrategy(registrar, strategy_name, description,              \
                                              &::hmo::scheduler::ScheduleThroughAbi<schedule_fn>, \
                                              options_fn(), message, capacity);                   \
  }                                                                                               \
  }                                                                                               \
  HMO_PLUGIN_EXPORT const HmoPluginInfo* hmoGetPluginInfo(void) {                                 \
    static const HmoPluginInfo info =                                                             \
        ::hmo::scheduler::StrategyPluginInfo(plugin_name, "0.1.0", &RegisterStrategies);          \
    return &info;                                                                                 \
  }

#endif  // HMO_PLUGINS_SCHEDULER_CORE_STRATEGY_ABI_ADAPTER_H_
