#include "pass/memory_scheduler.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include "core/module_views.h"
#include "fmt/format.h"
#include "hmo/analysis/buffer_assignment.h"
#include "hmo/analysis/compiled_memory_stats.h"
#include "hmo/analysis/heap_simulator.h"
#include "hmo/analysis/hlo_alias_analysis.h"
#include "hmo/analysis/target_memory_model.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/pass/pass_context.h"
#include "hmo/pass/spelling_suggestion.h"
#include "hmo/plugin/plugin_registries.h"
#include "hmo/strategy_host/scheduler_strategy_adapter.h"
#include "hmo/strategy_host/scheduling_view.h"
#include "spdlog/spdlog.h"

namespace hmo {

namespace {

using Objective = SchedulingObjective;

// Option objective's names: the binding reads them, the report prints them.
std::vector<std::pair<std::string, Objective>> ObjectiveNames() {
  return {{"device-bytes", Objective::kDeviceBytes},
          {"module-bytes", Objective::kModuleBytes},
          {"heap-peak", Objective::kHeapPeak}};
}

std::string ObjectiveName(Objective objective) {
  for (const auto& [name, value] : ObjectiveNames()) {
    if (value == objective) return name;
  }
  return "unknown";
}

}  // namespace

std::string MemorySchedulerMetrics::ToString() const {
  std::string out;
  for (const Candidate& c : candidates) {
    if (c.valid_schedule) {
      if (objective != SchedulingObjective::kHeapPeak && c.device_bytes < 0) {
        out += fmt::format("{}: {} bytes, device not assigned: peak above the best device bytes by more "
                           "than the slack ({:.3f} s)\n",
                           c.strategy, c.peak_memory, c.seconds);
      } else if (c.device_bytes >= 0) {
        out += fmt::format("{}: {} bytes, device {} B ({:.3f} s, measuring {:.3f} s)\n", c.strategy,
                           c.peak_memory, c.device_bytes, c.seconds, c.measure_seconds);
      } else {
        out += fmt::format("{}: {} bytes ({:.3f} s)\n", c.strategy, c.peak_memory, c.seconds);
      }
    } else {
      out += fmt::format("{}: failed: {}\n", c.strategy, c.error);
    }
  }
  // What the built-in searches minimise is not what the pass compares them
  // on; say so instead of calling their result optimal.
  for (const Candidate& c : candidates) {
    if (c.strategy == "local-search" || c.strategy == "exact") {
      out += fmt::format(
          "note: local-search and exact minimise the live-byte model ({}), not {}; exact's optimum "
          "is the model's, on computations of at most its max-instructions\n",
          objective != SchedulingObjective::kHeapPeak
              ? "the temp arena's bytes live at once, a lower bound of its "
                "packed size"
              : "each computation's live bytes",
          objective != SchedulingObjective::kHeapPeak ? "device bytes"
                                                      : "the module-scoped heap peak");
      break;
    }
  }
  if (selected >= 0)
    out += fmt::format("selected: {} (by {})\n", candidates[selected].strategy,
                       ObjectiveName(objective));
  return out;
}

const PassOptionBinding<MemorySchedulerPass::Options>& MemorySchedulerPass::Binding() {
  static const PassOptionBinding<Options> binding =
      PassOptionBinding<Options>()
          .Option("strategy", &Options::strategy, "default",
                  "scheduler strategy for every computation, or 'default': the candidate "
                  "best on 'objective'")
          .Option("candidates", &Options::candidates,
                  {"list", "dfs", "post-order", "local-search", "exact"},
                  "strategies 'default' tries, in tie-break order ([list, dfs, post-order] "
                  "is XLA's default scheduler)")
          .Option("strategy-options", &Options::strategy_options, {},
                  "options forwarded to strategies, each 'strategy.key=value'")
          .Enum("objective", &Options::objective, Objective::kDeviceBytes, ObjectiveNames(),
                "what 'default' compares: 'device-bytes' (the device arenas the pipeline "
                "target's executable allocates under each candidate, its preparation included), "
                "'module-bytes' (argument + output - alias + temp of the module's own buffer "
                "assignment under the target's options: what XLA would allocate) or 'heap-peak' "
                "(the heap-simulated module peak, cheaper)")
          .Option("device-bytes-slack", &Options::device_bytes_slack, 0.5,
                  "device-bytes: candidates are assigned in increasing heap peak, and one whose "
                  "peak is above the best device bytes so far by more than this fraction is not "
                  "assigned (it cannot plausibly win; an assignment costs far more than the peak)")
          .Option("alignment", &Options::alignment, 0,
                  "offset alignment of the buffer assignment behind 'device-bytes' (0: the "
                  "pipeline target's, whose heap, preparation and arena layout it also "
                  "measures; 64 and XLA's heap without a target)")
          .Option("pointer-size", &Options::pointer_size, 8,
                  "bytes of a tuple element pointer in buffer sizes")
          .Enum("memory-spaces", &Options::memory_spaces, CountedMemory::kDevice,
                {{"device", CountedMemory::kDevice}, {"all", CountedMemory::kAll}},
                "whose bytes the peak counts: 'device' (every memory space but host memory S(5), "
                "so offloaded values free device memory) or 'all'");
  return binding;
}

absl::StatusOr<std::unique_ptr<MemorySchedulerPass>> MemorySchedulerPass::Create(
    const PassOptions& pass_options) {
  HMO_ASSIGN_OR_RETURN(const Options options, Binding().Read(pass_options));
  std::unique_ptr<MemorySchedulerPass> pass(new MemorySchedulerPass());
  pass->options_ = options;
  if (!(options.device_bytes_slack >= 0)) {
    return absl::InvalidArgumentError("option 'device-bytes-slack' must be >= 0");
  }
  if (options.alignment < 0) return absl::InvalidArgumentError("option 'alignment' must be >= 0");
  if (options.pointer_size <= 0) {
    return absl::InvalidArgumentError("option 'pointer-size' must be positive");
  }
  if (options.strategy == "default" && options.candidates.empty()) {
    return absl::InvalidArgumentError("option 'candidates' is empty");
  }
  for (const std::string& entry : options.strategy_options) {
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

namespace {

// Whether two schedules of one module order every computation the same way.
bool SameSchedule(const HloSchedule& a, const HloSchedule& b) {
  if (a.num_sequences() != b.num_sequences()) return false;
  for (const auto& [id, sequence] : a.sequences()) {
    auto it = b.sequences().find(id);
    if (it == b.sequences().end() || it->second.instructions() != sequence.instructions()) {
      return false;
    }
  }
  return true;
}

}  // namespace

absl::StatusOr<int64_t> MemorySchedulerPass::DeviceBytes(HloModule& module,
                                                         const HloSchedule& schedule,
                                                         const TargetMemoryModel& model) const {
  if (model.prepare) {
    // The target's executable under this order: the module with it, as the
    // backend prepares and plans it (the pipeline's limit check counts the
    // same arenas). The order the module came with is put back.
    std::optional<HloSchedule> arrived;
    if (module.has_schedule()) arrived = module.schedule();
    HMO_RETURN_IF_ERROR(module.set_schedule(schedule));
    absl::StatusOr<TargetMemoryPlan> plan = PlanTargetMemory(module, model);
    if (arrived.has_value()) {
      HMO_RETURN_IF_ERROR(module.set_schedule(*std::move(arrived)));
    } else {
      module.clear_schedule();
    }
    if (plan.ok()) {
      return plan->arenas.device_bytes() + (counts_host_memory() ? plan->arenas.host_bytes() : 0);
    }
    // A module the target cannot plan (memory spaces it lacks) is ranked on
    // its own buffer assignment.
    spdlog::debug("memory-scheduler: target {} cannot plan module '{}': {}", model.target,
                  module.name(), std::string(plan.status().message()));
  }
  HMO_ASSIGN_OR_RETURN(std::unique_ptr<BufferAssignment> assignment,
                       AssignBuffersAsReported(module, schedule, model.assignment));
  HMO_ASSIGN_OR_RETURN(CompiledMemoryStats stats, ComputeCompiledMemoryStats(*assignment));
  const int64_t device = stats.PeakEstimateBytes() - stats.generated_code_size_in_bytes;
  if (!counts_host_memory()) return device;
  return device + stats.HostPeakEstimateBytes() - stats.host_generated_code_size_in_bytes;
}

absl::Status MemorySchedulerPass::CheckStrategyOptions(
    const SchedulerStrategyRegistry& strategies) const {
  std::vector<std::string> named;
  for (const ForwardedOption& option : strategy_options_) {
    if (std::find(named.begin(), named.end(), option.strategy) == named.end()) {
      named.push_back(option.strategy);
    }
  }
  for (const std::string& name : named) {
    const RegisteredSchedulerStrategy* strategy = strategies.Find(name);
    if (strategy == nullptr) {
      return absl::InvalidArgumentError(
          fmt::format("strategy-options names strategy '{}', which no plugin registered{}", name,
                      DidYouMean(name, strategies.Names())));
    }
    absl::Status checked = ResolveStrategyOptions(*strategy, OptionsFor(name)).status();
    if (!checked.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("strategy-options: {}", std::string(checked.message())));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> MemorySchedulerPass::Run(HloModule& module, PassContext& context) {
  HMO_ASSIGN_OR_RETURN(const HloAliasAnalysis* alias_analysis,
                       context.analyses().Get<HloAliasAnalysis>());
  // Host-memory (S(5)) values cost no device memory unless told otherwise.
  const BufferSizeFunction size_fn = counts_host_memory()
                                         ? ByteSizeOfValue(options_.pointer_size)
                                         : DeviceByteSizeOfValue(options_.pointer_size);
  const bool by_device_bytes =
      options_.objective != Objective::kHeapPeak && options_.strategy == "default";
  scheduler::SchedulingInputs inputs = scheduler::MakeSchedulingInputs(*alias_analysis, size_fn);
  // Device bytes are argument + output - alias + temp; only the temp arena
  // depends on the order, so strategies that count live bytes are told which
  // values live outside it.
  inputs.values.mark_outside_temp_arena = by_device_bytes;
  const SchedulerStrategyRegistry& strategies = context.registries().strategies;
  HMO_RETURN_IF_ERROR(CheckStrategyOptions(strategies));

  metrics_ = MemorySchedulerMetrics();
  // The device bytes as the pipeline's target measures them; without a
  // target, XLA's heap at 64-byte alignment (cheap enough to run per
  // candidate).
  TargetMemoryModel measure = context.target_memory_model();
  if (measure.target.empty()) {
    measure.assignment = MemoryReportOptions();
    measure.assignment.heap_algorithm = TempHeapAlgorithm::kXla;
    measure.assignment.alignment = 64;
  }
  if (options_.alignment > 0) measure.assignment.alignment = options_.alignment;
  measure.assignment.pointer_size = options_.pointer_size;
  // module-bytes: the module as written under the target's assignment, as
  // the target's own compiler (XLA) would allocate it, without the backend's
  // preparation.
  if (options_.objective == Objective::kModuleBytes) measure.prepare = nullptr;
  // Where the long searches report to a person watching (none when nobody
  // does): the strategies' (exact, local-search) and, while a candidate is
  // measured, the tight packer's.
  ProgressSink* const progress = context.progress();
  measure.assignment.tight_packing.progress = progress;
  metrics_.objective = by_device_bytes ? options_.objective : Objective::kHeapPeak;
  std::vector<std::string> names = options_.strategy == "default"
                                       ? options_.candidates
                                       : std::vector<std::string>{options_.strategy};
  for (const std::string& name : names) {
    // An unknown name is a pipeline error, not a failed candidate.
    if (strategies.Find(name) == nullptr) {
      return ScheduleModuleWithStrategy(module, strategies, name, {}).status();
    }
  }
  // One view per computation, shared by every candidate (strategies only
  // read it).
  HMO_ASSIGN_OR_RETURN(const std::vector<scheduler::ComputationView> views,
                       scheduler::BuildModuleViews(module, inputs));
  // The order the module arrived with competes too (last: it wins only
  // when strictly better).
  constexpr std::string_view kInputCandidate = "input";
  bool arrived_scheduled = options_.strategy == "default" && module.has_schedule();
  for (const auto& [computation, view] : views) {
    arrived_scheduled = arrived_scheduled && module.schedule().is_computation_scheduled(computation);
  }
  if (arrived_scheduled) names.emplace_back(kInputCandidate);
  // Phase 1: every candidate's schedule and heap-simulated peak (cheap).
  std::vector<HloSchedule> schedules;
  std::vector<int> same_as;  // an earlier candidate with the same schedule, or -1
  for (const std::string& name : names) {
    MemorySchedulerMetrics::Candidate candidate;
    candidate.strategy = name;
    const auto start = std::chrono::steady_clock::now();
    HloSchedule schedule(&module);
    absl::Status status;
    for (const auto& [computation, view] : views) {
      if (arrived_scheduled && name == kInputCandidate) {
        schedule.set_sequence(computation, module.schedule().sequence(computation));
        continue;
      }
      absl::StatusOr<std::vector<HloInstruction*>> sequence = ScheduleViewWithStrategy(
          *strategies.Find(name), *view, *computation, OptionsFor(name), progress);
      if (!sequence.ok()) {
        status = sequence.status();
        break;
      }
      schedule.set_sequence(computation, *sequence);
    }
    const auto measure_start = std::chrono::steady_clock::now();
    int same = -1;
    if (status.ok()) {
      // Candidates often agree (e.g. ours on computations they cannot
      // improve); a schedule already measured is not measured again.
      for (size_t i = 0; i < schedules.size() && same < 0; ++i) {
        if (metrics_.candidates[i].valid_schedule && SameSchedule(schedules[i], schedule)) {
          same = static_cast<int>(i);
        }
      }
      if (same >= 0) {
        candidate.peak_memory = metrics_.candidates[same].peak_memory;
      } else {
        HMO_ASSIGN_OR_RETURN(candidate.peak_memory, HeapSimulator::MinimumMemoryForModule(
                                                        schedule, *alias_analysis, size_fn));
      }
      candidate.valid_schedule = true;
    } else if (options_.strategy != "default") {
      return status;
    } else {
      candidate.error = std::string(status.message());
      spdlog::warn("memory-scheduler: module '{}': {}", module.name(), candidate.error);
    }
    const auto end = std::chrono::steady_clock::now();
    candidate.seconds = std::chrono::duration<double>(end - start).count();
    candidate.measure_seconds = std::chrono::duration<double>(end - measure_start).count();
    metrics_.candidates.push_back(candidate);
    schedules.push_back(std::move(schedule));
    same_as.push_back(same);
  }
  // Phase 2, for device-bytes: buffer assignment of the candidates in
  // increasing heap peak, skipping one whose peak is so far above the best
  // device bytes found that it cannot plausibly win (device-bytes-slack).
  // The order that arrived is always measured: a pass before this one (fit)
  // may have measured it as fitting a limit, and only a candidate measured
  // better may replace it, so scheduling again never adds device bytes.
  std::vector<int> by_peak;
  for (int i = 0; i < static_cast<int>(metrics_.candidates.size()); ++i) {
    if (metrics_.candidates[i].valid_schedule) by_peak.push_back(i);
  }
  std::stable_sort(by_peak.begin(), by_peak.end(), [&](int a, int b) {
    return metrics_.candidates[a].peak_memory < metrics_.candidates[b].peak_memory;
  });
  auto objective = [&](const MemorySchedulerMetrics::Candidate& c) {
    return by_device_bytes ? c.device_bytes : c.peak_memory;
  };
  int64_t best_device_bytes = -1;
  for (int i : by_peak) {
    MemorySchedulerMetrics::Candidate& candidate = metrics_.candidates[i];
    if (by_device_bytes) {
      const auto measure_start = std::chrono::steady_clock::now();
      if (same_as[i] >= 0 && (metrics_.candidates[same_as[i]].device_bytes >= 0 ||
                              candidate.strategy != kInputCandidate)) {
        candidate.device_bytes = metrics_.candidates[same_as[i]].device_bytes;
      } else if (best_device_bytes >= 0 && candidate.strategy != kInputCandidate &&
                 static_cast<double>(candidate.peak_memory) >
                     static_cast<double>(best_device_bytes) * (1.0 + options_.device_bytes_slack)) {
        candidate.device_bytes = -1;  // not assigned
      } else {
        HMO_ASSIGN_OR_RETURN(candidate.device_bytes, DeviceBytes(module, schedules[i], measure));
      }
      const double measured =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - measure_start).count();
      candidate.seconds += measured;
      candidate.measure_seconds += measured;
      if (candidate.device_bytes < 0) continue;
      if (best_device_bytes < 0 || candidate.device_bytes < best_device_bytes) {
        best_device_bytes = candidate.device_bytes;
      }
    }
    // Lowest objective; the earlier candidate on a tie.
    if (metrics_.selected < 0 || objective(candidate) < objective(metrics_.candidates[metrics_.selected]) ||
        (objective(candidate) == objective(metrics_.candidates[metrics_.selected]) &&
         i < metrics_.selected)) {
      metrics_.selected = i;
    }
  }
  if (metrics_.selected < 0) {
    return absl::InternalError(fmt::format(
        "memory-scheduler: every candidate failed on module '{}':\n{}", module.name(),
        metrics_.ToString()));
  }
  // On a tie the order the module came with stays: choosing it again
  // changes nothing, so a fixed-point group around the scheduler converges.
  if (module.has_schedule()) {
    for (int i : by_peak) {
      const MemorySchedulerMetrics::Candidate& candidate = metrics_.candidates[i];
      if ((!by_device_bytes || candidate.device_bytes >= 0) &&
          objective(candidate) == objective(metrics_.candidates[metrics_.selected]) &&
          SameSchedule(module.schedule(), schedules[i])) {
        metrics_.selected = i;
        break;
      }
    }
  }
  const bool changed =
      !module.has_schedule() || !SameSchedule(module.schedule(), schedules[metrics_.selected]);
  HMO_RETURN_IF_ERROR(module.set_schedule(std::move(schedules[metrics_.selected])));
  spdlog::info("memory-scheduler: module '{}':\n{}", module.name(), metrics_.ToString());
  context.Report(metrics_.ToString());
  // Ordering instructions changes no value, buffer or alias.
  context.PreserveAnalysis<HloAliasAnalysis>();
  return changed;
}

}  // namespace hmo
