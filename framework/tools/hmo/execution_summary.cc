#include "execution_summary.h"

#include <vector>

#include "fmt/format.h"
#include "hmo/execution/module_execution.h"
#include "hmo/execution/random_literals.h"
#include "hmo/text/hlo_parser.h"
#include "result_summary.h"
#include "stream_timeline.h"
#include "atomic_file.h"
#include "hmo/ir/layout.h"

namespace hmo::cli {
namespace {

std::string DescribeReport(const Backend& backend, const ModuleExecutionReport& report) {
  std::string text;
  if (!report.compiled) return text;
  const ExecutableStats& stats = report.stats;
  text += fmt::format(
      "  execute: backend {}, compile {:.3f} s, {} kernel{}, code {} B, rodata {} B, rwdata {} B\n",
      backend.name(), report.compile_seconds, stats.kernel_count,
      stats.kernel_count == 1 ? "" : "s", stats.code_bytes, stats.rodata_bytes, stats.rwdata_bytes);
  std::vector<std::string> arenas;
  for (const auto& [space, bytes] : stats.arena_bytes) {
    arenas.push_back(fmt::format("space {} {} B", space, bytes));
  }
  text += fmt::format("  planned arenas: {}\n", arenas.empty()
                                                    ? std::string("none")
                                                    : fmt::format("{}", fmt::join(arenas, ", ")));
  if (!report.executed) return text;
  if (report.warm_runs > 0) {
    text += fmt::format("  runs: cold {:.6f} s, warm median {:.6f} s over {} run{}\n",
                        report.run_seconds, report.warm_median_seconds, report.warm_runs,
                        report.warm_runs == 1 ? "" : "s");
  }
  text += fmt::format("  run: {:.6f} s, peak RSS growth {}\n", report.run_seconds,
                      report.peak_rss_growth_bytes >= 0
                          ? fmt::format("{} B", report.peak_rss_growth_bytes)
                          : std::string("unknown"));
  if (report.device_peak_bytes >= 0) {
    int64_t planned_device = 0;
    for (const auto& [space, bytes] : stats.arena_bytes) {
      if (space != Layout::kHostMemorySpace) planned_device += bytes;
    }
    text += fmt::format("  device memory: {} B measured, {} B planned (arenas outside S({}))\n",
                        report.device_peak_bytes, planned_device, Layout::kHostMemorySpace);
  }
  text += DescribeTimeline(report.timeline);
  if (report.replica_results.empty()) {
    text += DescribeResultLeaves(report.result, "  ");
  } else {
    for (size_t r = 0; r < report.replica_results.size(); ++r) {
      text += fmt::format("  device {}:\n", r);
      text += DescribeResultLeaves(report.replica_results[r], "    ");
    }
  }
  if (!report.result_files.empty()) {
    std::vector<std::string> names;
    for (const std::filesystem::path& path : report.result_files) names.push_back(path.string());
    text += fmt::format("  results: {}\n", fmt::join(names, ", "));
  }
  return text;
}

}  // namespace

ExecutionSummary ExecuteAndSummarize(const ExecuteSettings& settings, const HloModule& module,
                                     const std::filesystem::path& input,
                                     const std::filesystem::path& results_dir) {
  ExecutionSummary execution;
  ModuleExecutionOptions options;
  options.compile = settings.compile;
  options.input_files = settings.input_files;
  options.seed = settings.seed;
  options.results_dir = results_dir;
  options.comparison = settings.comparison;
  options.repeat = settings.repeat;
  options.max_loop_trips = settings.max_loop_trips;
  options.memory_limit = settings.memory_limit;
  options.pipeline_target = settings.pipeline_target;
  std::unique_ptr<HloModule> reference;
  if (settings.check) {
    // The reference is the module as written, not as the pipeline left it.
    absl::StatusOr<std::unique_ptr<HloModule>> parsed = ParseHloModuleFile(input.string());
    if (!parsed.ok()) {
      execution.status = parsed.status();
      return execution;
    }
    reference = *std::move(parsed);
    FillElidedConstants(*reference, settings.seed);
    options.reference = reference.get();
  }
  ModuleExecutionReport report;
  const absl::Status status = hmo::ExecuteModule(*settings.backend, module, options, &report);
  execution.summary = DescribeReport(*settings.backend, report);
  // Like the results, the timeline is written only for a run that passed.
  if (status.ok() && !results_dir.empty() && !report.timeline.empty()) {
    // Beside the result files; the summary names it.
    const std::filesystem::path trace = results_dir / "timeline.json";
    const absl::Status written = WriteFileAtomically(trace, TimelineTraceJson(report.timeline));
    if (!written.ok()) {
      execution.status = written;
      return execution;
    }
    execution.summary += fmt::format("  timeline: {}\n", trace.string());
  }
  if (report.comparison.has_value()) {
    if (status.ok()) {
      execution.summary +=
          fmt::format("  check: ok ({} output{}, max abs diff {:g})\n", report.comparison->outputs,
                      report.comparison->outputs == 1 ? "" : "s", report.comparison->max_abs_diff);
    } else {
      execution.summary += fmt::format(
          "  check: FAILED ({} output{}, max abs diff {:g})\n", report.comparison->outputs,
          report.comparison->outputs == 1 ? "" : "s", report.comparison->max_abs_diff);
    }
  }
  if (!status.ok()) {
    execution.status = absl::Status(
        status.code(), fmt::format("{}: {}", input.string(), std::string(status.message())));
  }
  return execution;
}

}  // namespace hmo::cli
