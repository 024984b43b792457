#include "hmo/builtin_passes/memory_report_pass.h"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "hmo/analysis/target_memory_model.h"
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
  struct Summary {
    int64_t device_bytes = 0;  // the target's device arenas
    int64_t host_bytes = 0;    // S(5): the module's host figure
  };
  std::map<std::string, Summary> by_label;
};

// `names` as the names of an optional value, after `none`'s name for none.
template <typename E>
std::vector<std::pair<std::string, std::optional<E>>> WithNone(
    std::string none, const std::vector<std::pair<std::string, E>>& names) {
  std::vector<std::pair<std::string, std::optional<E>>> out = {{std::move(none), std::nullopt}};
  for (const auto& [name, value] : names) out.push_back({name, value});
  return out;
}

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
          .Enum("format", &Options::format, std::optional<MemoryReportFormat>(),
                WithNone("summary", MemoryReportFormatNames()),
                "summary: a line of device and host bytes; table, json or html: the full report")
          .Option("output", &Options::output, "",
                  "summary: also append to this file; table/json/html: file to write "
                  "({module} = module name), empty or '-' = stderr")
          .Option("pointer-size", &Options::pointer_size, 0,
                  "bytes per tuple element pointer (0: the pipeline target's)")
          .Option("alignment", &Options::alignment, 0,
                  "alignment of buffer offsets (0: the pipeline target's)")
          .Enum("heap", &Options::heap, std::optional<TempHeapAlgorithm>(),
                WithNone("target", TempHeapAlgorithmNames()),
                "temp packing: the pipeline target's, xla, search or best");
  return binding;
}

absl::StatusOr<std::unique_ptr<MemoryReportPass>> MemoryReportPass::Create(
    const PassOptions& pass_options) {
  HMO_ASSIGN_OR_RETURN(const Options options, Binding().Read(pass_options));
  std::unique_ptr<MemoryReportPass> pass(new MemoryReportPass());
  pass->label_ = options.label;
  pass->baseline_ = options.baseline;
  pass->output_ = options.output;
  pass->format_ = options.format;
  pass->heap_ = options.heap;
  pass->pointer_size_ = options.pointer_size;
  pass->alignment_ = options.alignment;
  if (options.pointer_size < 0 || options.alignment < 0) {
    return absl::InvalidArgumentError("memory-report: pointer-size and alignment must be >= 0");
  }
  return pass;
}

TargetMemoryModel MemoryReportPass::Model(const PassContext& context) const {
  TargetMemoryModel model = context.target_memory_model();
  if (pointer_size_ > 0) model.assignment.pointer_size = pointer_size_;
  if (alignment_ > 0) model.assignment.alignment = alignment_;
  if (heap_.has_value()) model.assignment.heap_algorithm = *heap_;
  return model;
}

absl::StatusOr<bool> MemoryReportPass::Run(HloModule& module, PassContext& context) {
  HMO_RETURN_IF_ERROR(format_.has_value() ? RunFullReport(module, context)
                                          : RunSummary(module, context));
  return false;
}

absl::Status MemoryReportPass::RunSummary(HloModule& module, PassContext& context) {
  const TargetMemoryModel model = Model(context);
  HMO_ASSIGN_OR_RETURN(const MemoryReport report, BuildTargetMemoryReport(module, model));
  const CompiledMemoryStats& s = report.stats;
  const MemoryReportTarget& target = report.target;
  const ReportSummaries::Summary summary{target.arena_device_bytes, s.HostPeakEstimateBytes()};
  // The device figure is the target's, as the limit check and the
  // executable count it; the four figures are the module's as written.
  std::string text = absl::StrFormat(
      "memory-report [%s] %s (%s)\n  device %d B on %s (argument %d, output %d, alias %d, temp "
      "%d; %+d B the executable adds)\n%s  host %d B (argument %d, output %d, alias %d, temp %d)\n",
      label_, module.name(), module.has_schedule() ? "scheduled" : "unscheduled: post order",
      summary.device_bytes, target.name, s.argument_size_in_bytes, s.output_size_in_bytes,
      s.alias_size_in_bytes, s.temp_size_in_bytes, target.added_bytes(),
      target.plan_error.empty() ? "" : absl::StrCat("  (", target.ToString(), ")\n"),
      summary.host_bytes, s.host_argument_size_in_bytes, s.host_output_size_in_bytes,
      s.host_alias_size_in_bytes, s.host_temp_size_in_bytes);
  if (!baseline_.empty()) {
    const ReportSummaries& summaries = context.run_state().GetOrCreate<ReportSummaries>();
    auto found = summaries.by_label.find(baseline_);
    if (found == summaries.by_label.end()) {
      return absl::FailedPreconditionError(
          absl::StrFormat("memory-report: no earlier report labelled '%s' for module %s", baseline_,
                          module.name()));
    }
    const ReportSummaries::Summary& before = found->second;
    absl::StrAppendFormat(&text, "  vs [%s]: device %s, host %s\n", baseline_,
                          Delta(before.device_bytes, summary.device_bytes),
                          Delta(before.host_bytes, summary.host_bytes));
  }
  if (!label_.empty())
    context.run_state().GetOrCreate<ReportSummaries>().by_label[label_] = summary;
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

absl::Status MemoryReportPass::RunFullReport(const HloModule& module, const PassContext& context) {
  HMO_ASSIGN_OR_RETURN(MemoryReport report, BuildTargetMemoryReport(module, Model(context)));
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
