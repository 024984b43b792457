#include "hmo/execution/module_execution.h"

#include <algorithm>
#include <chrono>

#include "fmt/format.h"
#include "hmo/eval/hlo_evaluator.h"
#include "hmo/execution/peak_memory.h"
#include "hmo/ir/hlo_computation.h"

namespace hmo {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

absl::Status WithContext(const absl::Status& status, std::string_view what) {
  return absl::Status(status.code(), fmt::format("{}: {}", what, std::string(status.message())));
}

// Execution (the backends and the reference evaluator) runs static shapes:
// a bounded dimension (f32[<=8]) or an unknown one (f32[?]) is refused by
// name rather than run as its bound.
absl::Status CheckStaticShapes(const HloModule& module) {
  for (const HloComputation* computation : module.computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      if (!instruction->shape().is_static()) {
        return absl::UnimplementedError(fmt::format(
            "instruction {} in computation {} has the dynamic shape {}: execution runs static "
            "shapes only",
            instruction->name(), computation->name(), instruction->shape().ToString()));
      }
    }
  }
  return absl::OkStatus();
}

// The time of one run of every device: the longest device's own run (the
// module's code, without the argument copies and result reads, as a caller
// of XLA times a step on resident buffers). Devices wait for each other at
// their collectives, so the longest covers the others. The wall time of the
// whole call where a device did not measure its run.
double RunSeconds(const std::vector<ExecutionProfile>& profiles, double wall_seconds) {
  double longest = 0;
  for (const ExecutionProfile& profile : profiles) {
    if (profile.run_seconds <= 0) return wall_seconds;
    longest = std::max(longest, profile.run_seconds);
  }
  return profiles.empty() ? wall_seconds : longest;
}

}  // namespace

int64_t ExecutionDeviceCount(const HloModule& module, int64_t num_replicas) {
  return num_replicas * std::max<int64_t>(1, module.num_partitions());
}

absl::StatusOr<std::vector<Literal>> ReadDeviceArguments(const HloModule& module,
                                                         const std::filesystem::path& directory,
                                                         int64_t device) {
  const std::filesystem::path device_directory = directory / fmt::format("device{}", device);
  std::error_code error;
  if (!std::filesystem::is_directory(device_directory, error)) {
    return absl::NotFoundError(
        fmt::format("{}: no directory of device {}'s inputs (expected {}/input_<i>.npy)",
                    directory.string(), device, device_directory.string()));
  }
  std::vector<std::string> files;
  for (int64_t i = 0; i < module.entry_computation()->num_parameters(); ++i) {
    files.push_back((device_directory / fmt::format("input_{}.npy", i)).string());
  }
  return MakeModuleArguments(module, files, 0);
}

absl::Status ExecuteModule(const Backend& backend, const HloModule& module,
                           const ModuleExecutionOptions& options, ModuleExecutionReport* report) {
  *report = ModuleExecutionReport{};
  if (absl::Status status = CheckStaticShapes(module); !status.ok()) return status;
  if (options.compile.num_replicas < 1)
    return absl::InvalidArgumentError("the number of replicas must be at least 1");
  // Devices: every replica of every partition.
  const int64_t replicas = ExecutionDeviceCount(module, options.compile.num_replicas);
  std::error_code error;
  const bool per_device_inputs = replicas > 1 && options.input_files.size() == 1 &&
                                 std::filesystem::is_directory(options.input_files.front(), error);
  if (replicas > 1 && !options.input_files.empty() && !per_device_inputs) {
    return absl::InvalidArgumentError(
        fmt::format("the module runs on {} devices ({} replicas x {} partitions): give their "
                    "inputs as one directory "
                    "holding device<d>/input_<i>.npy, or none (device d: arguments of seed + d)",
                    replicas, options.compile.num_replicas, module.num_partitions()));
  }
  std::vector<std::vector<Literal>> arguments;
  for (int64_t r = 0; r < replicas; ++r) {
    absl::StatusOr<std::vector<Literal>> replica_arguments =
        per_device_inputs ? ReadDeviceArguments(module, options.input_files.front(), r)
                          : MakeModuleArguments(module, options.input_files,
                                                options.seed + static_cast<uint64_t>(r));
    if (!replica_arguments.ok()) return replica_arguments.status();
    arguments.push_back(*std::move(replica_arguments));
  }

  const Clock::time_point compile_start = Clock::now();
  absl::StatusOr<std::unique_ptr<Executable>> executable = backend.Compile(module, options.compile);
  report->compile_seconds = SecondsSince(compile_start);
  if (!executable.ok()) {
    return WithContext(executable.status(), fmt::format("backend {}: compile", backend.name()));
  }
  report->compiled = true;
  report->stats = (*executable)->stats();
  (*executable)->set_max_loop_trips(options.max_loop_trips);
  if (options.memory_limit.has_value()) {
    // What runs must fit the limit the pipeline fitted, whatever target it
    // measured for: the executable's own device arenas decide.
    const int64_t device = report->stats.DeviceArenaBytes();
    if (device > *options.memory_limit) {
      return absl::ResourceExhaustedError(fmt::format(
          "backend {}: the executable's device arenas take {} B, {} B over the memory limit of "
          "{} B (the pipeline measured for target '{}')",
          backend.name(), device, device - *options.memory_limit, *options.memory_limit,
          options.pipeline_target.empty() ? std::string("none") : options.pipeline_target));
    }
  }

  std::vector<ExecutionProfile> profiles(1);
  PeakResidentSetMeter meter;
  meter.Start();
  // One run of every device: the executable's Execute for one, its
  // ExecuteReplicated (all devices at once) for several.
  const auto run_all_devices =
      [&](std::vector<ExecutionProfile>* run_profiles) -> absl::StatusOr<std::vector<Literal>> {
    if (replicas > 1) return (*executable)->ExecuteReplicated(arguments, run_profiles);
    absl::StatusOr<Literal> result = (*executable)->Execute(arguments[0], &run_profiles->front());
    if (!result.ok()) return result.status();
    std::vector<Literal> one;
    one.push_back(*std::move(result));
    return one;
  };
  const Clock::time_point run_start = Clock::now();
  absl::StatusOr<std::vector<Literal>> results = run_all_devices(&profiles);
  const double run_wall_seconds = SecondsSince(run_start);
  const int64_t measured_growth = meter.Stop();
  if (!results.ok()) {
    return WithContext(results.status(), fmt::format("backend {}: execute", backend.name()));
  }
  if (static_cast<int64_t>(results->size()) != replicas || profiles.empty()) {
    return absl::InternalError(fmt::format("backend {}: {} results for {} replicas", backend.name(),
                                           results->size(), replicas));
  }
  const ExecutionProfile& profile = profiles.front();
  report->executed = true;
  report->run_seconds = RunSeconds(profiles, run_wall_seconds);
  // Ours covers the whole Execute call; the backend's is the fallback.
  report->peak_rss_growth_bytes =
      measured_growth >= 0 ? measured_growth : profile.peak_rss_growth_bytes;
  report->device_peak_bytes = profile.device_peak_bytes;
  report->timeline = profile.timeline;
  report->result = results->front();
  if (replicas > 1) report->replica_results = *std::move(results);
  if (options.repeat > 1) {
    std::vector<double> warm;
    for (int64_t k = 1; k < options.repeat; ++k) {
      std::vector<ExecutionProfile> again(1);
      const Clock::time_point start = Clock::now();
      absl::StatusOr<std::vector<Literal>> again_results = run_all_devices(&again);
      const double wall = SecondsSince(start);
      if (!again_results.ok()) {
        return WithContext(again_results.status(),
                           fmt::format("backend {}: execute", backend.name()));
      }
      // The same arguments give the same bits: a warm run that differs read
      // something an earlier run left behind.
      const bool same = replicas == 1 ? again_results->front() == report->result
                                      : *again_results == report->replica_results;
      if (!same) {
        return absl::InternalError(fmt::format(
            "backend {}: warm run {} of {} computed another result than the first run on the same "
            "arguments",
            backend.name(), k, options.repeat - 1));
      }
      warm.push_back(RunSeconds(again, wall));
    }
    std::sort(warm.begin(), warm.end());
    const size_t n = warm.size();
    report->warm_median_seconds = n % 2 == 1 ? warm[n / 2] : (warm[n / 2 - 1] + warm[n / 2]) / 2;
    report->warm_runs = static_cast<int64_t>(n);
  }

  // Results are written only for a run that passed its check (or had none):
  // a results directory never holds values the check refused.
  const auto write_results = [&]() -> absl::Status {
    if (options.results_dir.empty()) return absl::OkStatus();
    for (int64_t r = 0; r < replicas; ++r) {
      const std::filesystem::path directory =
          replicas == 1 ? options.results_dir : options.results_dir / fmt::format("device{}", r);
      absl::StatusOr<std::vector<std::filesystem::path>> written =
          WriteResultFiles(directory, replicas == 1 ? report->result : report->replica_results[r]);
      if (!written.ok()) return written.status();
      report->result_files.insert(report->result_files.end(), written->begin(), written->end());
    }
    return absl::OkStatus();
  };

  if (options.reference == nullptr) return write_results();
  HloEvaluator evaluator(HloEvaluator::Options{.max_loop_iterations = options.max_loop_trips});
  std::vector<Literal> expected;
  if (replicas == 1) {
    absl::StatusOr<Literal> one = evaluator.Evaluate(*options.reference, arguments[0]);
    if (!one.ok()) return WithContext(one.status(), "reference evaluation");
    expected.push_back(*std::move(one));
  } else {
    absl::StatusOr<std::vector<Literal>> all = evaluator.EvaluateReplicated(*options.reference, arguments);
    if (!all.ok()) return WithContext(all.status(), "reference evaluation");
    expected = *std::move(all);
  }
  report->comparison.emplace();
  for (int64_t r = 0; r < replicas; ++r) {
    LiteralComparisonSummary summary;
    const Literal& actual = replicas == 1 ? report->result : report->replica_results[r];
    absl::Status compared = CompareLiterals(expected[r], actual, options.comparison, &summary);
    report->comparison->outputs += summary.outputs;
    report->comparison->elements += summary.elements;
    report->comparison->max_abs_diff = std::max(report->comparison->max_abs_diff, summary.max_abs_diff);
    if (!compared.ok()) {
      return WithContext(
          compared, replicas == 1 ? std::string("result differs from the reference evaluator's")
                                  : fmt::format("device {}: result differs from the reference "
                                                "evaluator's",
                                                r));
    }
  }
  return write_results();
}

}  // namespace hmo
