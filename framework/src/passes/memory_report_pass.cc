#include "hmo/passes/memory_report_pass.h"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "hmo/analysis/module_memory_stats.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/pass/pass_context.h"
#include "spdlog/spdlog.h"

namespace hmo {
namespace {

// The summaries the reports of one pipeline run took so far, by label, so
// that a later report can compare with an earlier one. Owned by the run
// (PipelineRunState): one module, one thread, gone when the run ends.
struct ReportSummaries {
  std::map<std::string, ModuleMemoryStats> by_label;
};

std::string Delta(int64_t before, int64_t after) {
  return absl::StrFormat("%d -> %d B (%+d)", before, after, after - before);
}

}  // namespace

const PassOptionBinding<MemoryReportPass::Options>& MemoryReportPass::Binding() {
  static const PassOptionBinding<Options> binding =
      PassOptionBinding<Options>()
          .Option("label", &Options::label, "", "name of this report, for a later baseline")
          .Option("baseline", &Options::baseline, "",
                  "label of an earlier report of the same run to compare with")
          .Enum("format", &Options::format, "summary", {"summary", "table", "json", "html"},
                "summary: a line of device and host bytes; table, json or html: the full report")
          .Option("output", &Options::output, "",
                  "summary: also append to this file; table/json/html: file to write "
                  "({module} = module name), empty or '-' = stderr")
          .Option("pointer-size", &Options::pointer_size, 8, "bytes per tuple element pointer")
          .Option("alignment", &Options::alignment, 1, "alignment of buffer offsets")
          .Enum("heap", &Options::heap, "best", {"xla", "search", "best"},
                "full report's temp packing: xla, search or best");
  return binding;
}

absl::StatusOr<std::unique_ptr<MemoryReportPass>> MemoryReportPass::Create(
    const PassOptions& pass_options) {
  HMO_ASSIGN_OR_RETURN(const Options options, Binding().Read(pass_options));
  std::unique_ptr<MemoryReportPass> pass(new MemoryReportPass());
  pass->label_ = options.label;
  pass->baseline_ = options.baseline;
  pass->output_ = options.output;
  if (options.format != "summary") {
    HMO_ASSIGN_OR_RETURN(pass->format_, ParseMemoryReportFormat(options.format));
  }
  HMO_ASSIGN_OR_RETURN(pass->options_.heap_algorithm, ParseTempHeapAlgorithm(options.heap));
  pass->options_.pointer_size = options.pointer_size;
  pass->options_.alignment = options.alignment;
  if (pass->options_.pointer_size <= 0 || pass->options_.alignment <= 0) {
    return absl::InvalidArgumentError("memory-report: pointer-size and alignment must be positive");
  }
  return pass;
}

absl::StatusOr<bool> MemoryReportPass::Run(HloModule& module, PassContext& context) {
  HMO_RETURN_IF_ERROR(format_.has_value() ? RunFullReport(module) : RunSummary(module, context));
  return false;
}

absl::Status MemoryReportPass::RunSummary(HloModule& module, PassContext& context) {
  HMO_ASSIGN_OR_RETURN(ModuleMemoryStats stats,
                       ComputeModuleMemoryStats(module, options_.pointer_size, options_.alignment));
  std::string text = absl::StrFormat(
      "memory-report [%s] %s (%s)\n  %s\n  %s\n", label_, module.name(),
      stats.scheduled ? "scheduled" : "unscheduled: post order", stats.DeviceString(),
      stats.HostString());
  if (!baseline_.empty()) {
    const ReportSummaries& summaries = context.run_state().GetOrCreate<ReportSummaries>();
    auto found = summaries.by_label.find(baseline_);
    if (found == summaries.by_label.end()) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "memory-report: no earlier report labelled '%s' for module %s", baseline_,
          module.name()));
    }
    const ModuleMemoryStats& before = found->second;
    absl::StrAppendFormat(&text, "  vs [%s]: device %s, host %s\n", baseline_,
                          Delta(before.device_bytes(), stats.device_bytes()),
                          Delta(before.host_bytes(), stats.host_bytes()));
  }
  if (!label_.empty()) context.run_state().GetOrCreate<ReportSummaries>().by_label[label_] = stats;
  spdlog::info("{}", text.substr(0, text.size() - 1));
  context.Report(text);
  if (!output_.empty()) {
    std::ofstream out(output_, std::ios::app);
    out << text;
    if (!out.good()) {
      return absl::UnavailableError(absl::StrFormat("memory-report: cannot append to %s", output_));
    }
  }
  return absl::OkStatus();
}

absl::Status MemoryReportPass::RunFullReport(const HloModule& module) {
  HMO_ASSIGN_OR_RETURN(MemoryReport report, BuildMemoryReport(module, options_));
  const std::string text = FormatMemoryReport(report, *format_);
  if (output_.empty() || output_ == "-") {
    std::fwrite(text.data(), 1, text.size(), stderr);
    return absl::OkStatus();
  }
  const std::string path = absl::StrReplaceAll(output_, {{"{module}", module.name()}});
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("memory-report: cannot write ", path));
  return absl::OkStatus();
}

}  // namespace hmo
