#include "hmo/execution/module_execution.h"

#include <chrono>

#include "fmt/format.h"
#include "hmo/eval/hlo_evaluator.h"
#include "hmo/execution/peak_memory.h"

namespace hmo {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

absl::Status WithContext(const absl::Status& status, std::string_view what) {
  return absl::Status(status.code(), fmt::format("{}: {}", what, std::string(status.message())));
}

}  // namespace

absl::Status ExecuteModule(const Backend& backend, const HloModule& module,
                           const ModuleExecutionOptions& options, ModuleExecutionReport* report) {
  *report = ModuleExecutionReport{};
  absl::StatusOr<std::vector<Literal>> arguments =
      MakeModuleArguments(module, options.input_files, options.seed);
  if (!arguments.ok()) return arguments.status();

  const Clock::time_point compile_start = Clock::now();
  absl::StatusOr<std::unique_ptr<Executable>> executable = backend.Compile(module, options.compile);
  report->compile_seconds = SecondsSince(compile_start);
  if (!executable.ok()) {
    return WithContext(executable.status(), fmt::format("backend {}: compile", backend.name()));
  }
  report->compiled = true;
  report->stats = (*executable)->stats();

  ExecutionProfile profile;
  PeakResidentSetMeter meter;
  meter.Start();
  const Clock::time_point run_start = Clock::now();
  absl::StatusOr<Literal> result = (*executable)->Execute(*arguments, &profile);
  const double run_wall_seconds = SecondsSince(run_start);
  const int64_t measured_growth = meter.Stop();
  if (!result.ok()) {
    return WithContext(result.status(), fmt::format("backend {}: execute", backend.name()));
  }
  report->executed = true;
  report->run_seconds = profile.run_seconds > 0 ? profile.run_seconds : run_wall_seconds;
  // Ours covers the whole Execute call; the backend's is the fallback.
  report->peak_rss_growth_bytes =
      measured_growth >= 0 ? measured_growth : profile.peak_rss_growth_bytes;
  report->device_peak_bytes = profile.device_peak_bytes;
  report->timeline = std::move(profile.timeline);
  report->result = *std::move(result);

  if (!options.results_dir.empty()) {
    absl::StatusOr<std::vector<std::filesystem::path>> written =
        WriteResultFiles(options.results_dir, report->result);
    if (!written.ok()) return written.status();
    report->result_files = *std::move(written);
  }

  if (options.reference == nullptr) return absl::OkStatus();
  HloEvaluator evaluator;
  absl::StatusOr<Literal> expected = evaluator.Evaluate(*options.reference, *arguments);
  if (!expected.ok()) return WithContext(expected.status(), "reference evaluation");
  report->comparison.emplace();
  absl::Status compared =
      CompareLiterals(*expected, report->result, options.comparison, &*report->comparison);
  if (!compared.ok()) {
    return WithContext(compared, "result differs from the reference evaluator's");
  }
  return absl::OkStatus();
}

}  // namespace hmo
