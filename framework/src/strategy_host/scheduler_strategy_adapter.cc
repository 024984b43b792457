#include "hmo/strategy_host/scheduler_strategy_adapter.h"

#include <array>
#include <cstdint>
#include <limits>
#include <string>

#include "fmt/format.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/pass/spelling_suggestion.h"
#include "hmo/plugin/abi_status.h"

namespace hmo {
namespace {

// Checks that the first `length` ids of `order` (which has room for one id
// per instruction) are a valid schedule of `view`; returns what is wrong.
absl::Status CheckOrder(const SchedulingView& view, const std::vector<HmoInstructionId>& order,
                        size_t length) {
  const size_t count = view.size();
  if (length != count) {
    return absl::InvalidArgumentError(
        fmt::format("it returned {} instruction ids for {} instructions", length, count));
  }
  std::vector<int64_t> position(count, -1);
  for (size_t i = 0; i < order.size(); ++i) {
    const HmoInstructionId id = order[i];
    if (id >= count) {
      return absl::InvalidArgumentError(
          fmt::format("position {} holds id {}, out of range (the computation has {} instructions)",
                      i, id, count));
    }
    if (position[id] >= 0) {
      return absl::InvalidArgumentError(
          fmt::format("instruction '{}' (id {}) appears twice, at positions {} and {}",
                      view.instruction(id)->name(), id, position[id], i));
    }
    position[id] = static_cast<int64_t>(i);
  }
  for (const HmoInstructionId id : order) {
    const HmoSchedulingInstruction& instruction = *view.view().instructions[id];
    auto check_before = [&](const HmoInstructionId* ids, size_t n,
                            std::string_view relation) -> absl::Status {
      for (size_t k = 0; k < n; ++k) {
        if (position[ids[k]] > position[id]) {
          return absl::InvalidArgumentError(
              fmt::format("instruction '{}' (position {}) comes before its {} '{}' (position {})",
                          instruction.name, position[id], relation,
                          view.instruction(ids[k])->name(), position[ids[k]]));
        }
      }
      return absl::OkStatus();
    };
    HMO_RETURN_IF_ERROR(
        check_before(instruction.operand_ids, instruction.operand_count, "operand"));
    HMO_RETURN_IF_ERROR(check_before(instruction.control_predecessor_ids,
                                     instruction.control_predecessor_count, "control predecessor"));
  }
  return absl::OkStatus();
}

// Hands a strategy's progress reports (ABI 1.2) to a ProgressSink.
struct ProgressRelay {
  ProgressSink* sink;
  std::string task;
  bool reported = false;
};

int64_t ClampToInt64(uint64_t value) {
  return value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
             ? std::numeric_limits<int64_t>::max()
             : static_cast<int64_t>(value);
}

// The request's report_progress: called by the plugin, so nothing may
// escape it.
void RelayProgress(void* data, uint64_t done, uint64_t total, const char* detail) noexcept {
  try {
    auto* relay = static_cast<ProgressRelay*>(data);
    relay->reported = true;
    relay->sink->Update(relay->task, ClampToInt64(done), ClampToInt64(total),
                        detail != nullptr ? std::string_view(detail) : std::string_view());
  } catch (...) {
    // What a watcher sees is not worth failing the strategy over.
  }
}

}  // namespace

absl::StatusOr<std::vector<HloInstruction*>> ScheduleComputationWithStrategy(
    const RegisteredSchedulerStrategy& strategy, const HloComputation& computation,
    const StrategyOptions& options, const MayShareOperandBufferFn& may_share,
    const SchedulingValueSource* values, ProgressSink* progress) {
  HMO_ASSIGN_OR_RETURN(std::unique_ptr<SchedulingView> view,
                       BuildSchedulingView(computation, may_share, values));
  return ScheduleViewWithStrategy(strategy, *view, computation, options, progress);
}

absl::StatusOr<StrategyOptions> ResolveStrategyOptions(const RegisteredSchedulerStrategy& strategy,
                                                       const StrategyOptions& options) {
  const std::optional<PassOptionSchema>& schema = strategy.registration.options;
  if (!schema.has_value()) return options;
  std::vector<PassOptionAssignment> assignments;
  for (const auto& [key, value] : options) assignments.push_back({key, value});
  absl::StatusOr<PassOptions> typed = schema->Bind(assignments);
  if (!typed.ok()) {
    return absl::InvalidArgumentError(fmt::format("scheduler strategy '{}' (plugin '{}'): {}",
                                                  strategy.registration.name, strategy.plugin,
                                                  std::string(typed.status().message())));
  }
  StrategyOptions resolved;
  for (const auto& [key, value] : typed->values()) {
    resolved.push_back({key, FormatPassOptionValue(value)});
  }
  return resolved;
}

absl::StatusOr<std::vector<HloInstruction*>> ScheduleViewWithStrategy(
    const RegisteredSchedulerStrategy& strategy, const SchedulingView& view_ref,
    const HloComputation& computation, const StrategyOptions& options, ProgressSink* progress) {
  const std::string who = fmt::format("scheduler strategy '{}' (plugin '{}')",
                                      strategy.registration.name, strategy.plugin);
  const SchedulingView* view = &view_ref;

  HMO_ASSIGN_OR_RETURN(const StrategyOptions resolved, ResolveStrategyOptions(strategy, options));
  std::vector<HmoStrategyOption> c_options;
  for (const auto& [key, value] : resolved) c_options.push_back({key.c_str(), value.c_str()});
  std::vector<HmoInstructionId> order(view->size(), 0);
  std::array<char, HMO_MESSAGE_CAPACITY> message{};
  HmoScheduleRequest request = {};
  request.struct_size = sizeof(HmoScheduleRequest);
  request.view = &view->view();
  request.options = c_options.data();
  request.option_count = c_options.size();
  request.order = order.data();
  request.order_length = 0;
  request.message = message.data();
  request.message_capacity = message.size();
  ProgressRelay relay{
      progress, fmt::format("{} scheduling {}", strategy.registration.name, computation.name())};
  if (progress != nullptr) {
    request.report_progress = &RelayProgress;
    request.progress_data = &relay;
  }

  const HmoSchedulerStrategy& c_strategy = strategy.registration.strategy;
  const HmoStatusCode code = c_strategy.schedule(c_strategy.strategy_data, &request);
  if (relay.reported) progress->Done();
  absl::Status status = StatusFromAbi(code, AbiMessage(message.data(), message.size()));
  if (!status.ok()) {
    return absl::Status(status.code(),
                        fmt::format("{} failed on computation '{}': {}", who, computation.name(),
                                    std::string(status.message())));
  }
  absl::Status valid = CheckOrder(*view, order, request.order_length);
  if (!valid.ok()) {
    return absl::InternalError(fmt::format("{} returned an invalid order for computation '{}': {}",
                                           who, computation.name(), std::string(valid.message())));
  }
  std::vector<HloInstruction*> sequence;
  sequence.reserve(order.size());
  for (const HmoInstructionId id : order) sequence.push_back(view->instruction(id));
  return sequence;
}

absl::StatusOr<HloSchedule> ScheduleModuleWithStrategy(const HloModule& module,
                                                       const SchedulerStrategyRegistry& strategies,
                                                       std::string_view strategy_name,
                                                       const StrategyOptions& options,
                                                       const MayShareOperandBufferFn& may_share,
                                                       const SchedulingValueSource* values,
                                                       ProgressSink* progress) {
  const RegisteredSchedulerStrategy* strategy = strategies.Find(strategy_name);
  if (strategy == nullptr) {
    const std::vector<std::string> names = strategies.Names();
    return absl::NotFoundError(fmt::format(
        "unknown scheduler strategy '{}'{}; registered: {}", strategy_name,
        DidYouMean(strategy_name, names),
        names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "))));
  }
  HloSchedule schedule(&module);
  for (const HloComputation* computation : module.MakeNonfusionComputations()) {
    HMO_ASSIGN_OR_RETURN(std::vector<HloInstruction*> sequence,
                         ScheduleComputationWithStrategy(*strategy, *computation, options,
                                                         may_share, values, progress));
    schedule.set_sequence(computation, sequence);
  }
  return schedule;
}

}  // namespace hmo
