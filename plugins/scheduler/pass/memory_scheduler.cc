#include "pass/memory_scheduler.h"

#include <chrono>
#include <optional>

#include "core/module_views.h"
#include "fmt/format.h"
#include "hmo/analysis/heap_simulator.h"
#include "hmo/analysis/hlo_alias_analysis.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/pass/pass_context.h"
#include "hmo/plugin/scheduler_strategy_adapter.h"
#include "spdlog/spdlog.h"

namespace hmo {

std::string MemorySchedulerMetrics::ToString() const {
  std::string out;
  for (const Candidate& c : candidates) {
    if (c.valid_schedule) {
      out += fmt::format("{}: {} bytes ({:.3f} s)\n", c.strategy, c.peak_memory, c.seconds);
    } else {
      out += fmt::format("{}: failed: {}\n", c.strategy, c.error);
    }
  }
  if (selected >= 0) out += fmt::format("selected: {}\n", candidates[selected].strategy);
  return out;
}

PassOptionSchema MemorySchedulerPass::OptionSchema() {
  PassOptionSchema schema;
  schema.String("strategy", "default",
                "scheduler strategy for every computation, or 'default': the candidate "
                "with the lowest heap-simulated module peak");
  schema.StringList("candidates", {"list", "dfs", "post-order", "local-search", "exact"},
                    "strategies 'default' tries, in tie-break order ([list, dfs, post-order] "
                    "is XLA's default scheduler)");
  schema.StringList("strategy-options", {},
                    "options forwarded to strategies, each 'strategy.key=value'");
  schema.Int("pointer-size", 8, "bytes of a tuple element pointer in buffer sizes");
  return schema;
}

absl::StatusOr<std::unique_ptr<MemorySchedulerPass>> MemorySchedulerPass::Create(
    const PassOptions& options) {
  std::unique_ptr<MemorySchedulerPass> pass(new MemorySchedulerPass());
  pass->strategy_ = options.GetString("strategy");
  pass->candidates_ = options.GetStringList("candidates");
  pass->pointer_size_ = options.GetInt("pointer-size");
  if (pass->pointer_size_ <= 0) {
    return absl::InvalidArgumentError("option 'pointer-size' must be positive");
  }
  if (pass->strategy_ == "default" && pass->candidates_.empty()) {
    return absl::InvalidArgumentError("option 'candidates' is empty");
  }
  for (const std::string& entry : options.GetStringList("strategy-options")) {
    size_t dot = entry.find('.'), equals = entry.find('=');
    if (dot == std::string::npos || equals == std::string::npos || dot == 0 || dot > equals ||
        equals == dot + 1) {
      return absl::InvalidArgumentError(fmt::format(
          "strategy-options entry '{}' is not 'strategy.key=value' (e.g. local-search.window=24)",
          entry));
    }
    pass->strategy_options_.push_back(
        {entry.substr(0, dot), entry.substr(dot + 1, equals - dot - 1), entry.substr(equals + 1)});
  }
  return pass;
}

std::vector<std::pair<std::string, std::string>> MemorySchedulerPass::OptionsFor(
    std::string_view strategy) const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const ForwardedOption& option : strategy_options_) {
    if (option.strategy == strategy) out.push_back({option.key, option.value});
  }
  return out;
}

absl::StatusOr<bool> MemorySchedulerPass::Run(HloModule& module, PassContext& context) {
  HMO_ASSIGN_OR_RETURN(const HloAliasAnalysis* alias_analysis,
                       context.analyses().Get<HloAliasAnalysis>());
  const scheduler::SchedulingInputs inputs =
      scheduler::MakeSchedulingInputs(*alias_analysis, pointer_size_);
  const BufferSizeFunction size_fn = ByteSizeOfValue(pointer_size_);
  const SchedulerStrategyRegistry& strategies = context.registries().strategies;

  metrics_ = MemorySchedulerMetrics();
  std::vector<std::string> names =
      strategy_ == "default" ? candidates_ : std::vector<std::string>{strategy_};
  std::optional<HloSchedule> best;
  for (const std::string& name : names) {
    // An unknown name is a pipeline error, not a failed candidate.
    if (strategies.Find(name) == nullptr) {
      return ScheduleModuleWithStrategy(module, strategies, name, {}).status();
    }
    MemorySchedulerMetrics::Candidate candidate;
    candidate.strategy = name;
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<HloSchedule> schedule = ScheduleModuleWithStrategy(
        module, strategies, name, OptionsFor(name), inputs.may_share, &inputs.values);
    if (schedule.ok()) {
      absl::StatusOr<int64_t> peak =
          HeapSimulator::MinimumMemoryForModule(*schedule, *alias_analysis, size_fn);
      if (!peak.ok()) return peak.status();
      candidate.peak_memory = *peak;
      candidate.valid_schedule = true;
    } else {
      candidate.error = std::string(schedule.status().message());
      spdlog::warn("memory-scheduler: module '{}': {}", module.name(), candidate.error);
    }
    candidate.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    metrics_.candidates.push_back(candidate);
    const bool better = candidate.valid_schedule &&
                        (metrics_.selected < 0 ||
                         candidate.peak_memory <
                             metrics_.candidates[metrics_.selected].peak_memory);
    if (better) {
      metrics_.selected = static_cast<int>(metrics_.candidates.size()) - 1;
      best = *std::move(schedule);
    } else if (!candidate.valid_schedule && strategy_ != "default") {
      return schedule.status();
    }
  }
  if (!best.has_value()) {
    return absl::InternalError(fmt::format(
        "memory-scheduler: every candidate failed on module '{}':\n{}", module.name(),
        metrics_.ToString()));
  }
  HMO_RETURN_IF_ERROR(module.set_schedule(*std::move(best)));
  spdlog::info("memory-scheduler: module '{}':\n{}", module.name(), metrics_.ToString());
  // Ordering instructions changes no value, buffer or alias.
  context.PreserveAnalysis<HloAliasAnalysis>();
  return true;
}

}  // namespace hmo
