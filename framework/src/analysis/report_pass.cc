#include "hmo/analysis/report_pass.h"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "hmo/analysis/module_memory_stats.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/pass/pass_context.h"
#include "hmo/transforms/copy_insertion.h"
#include "spdlog/spdlog.h"

namespace hmo {
namespace {

// Summaries of the modules being run, by module and label, so that a later
// report can compare with an earlier one. Pipelines may run modules in
// parallel, hence the lock.
class SummaryStore {
 public:
  static SummaryStore& Get() {
    static SummaryStore* store = new SummaryStore();
    return *store;
  }
  void Put(const HloModule& module, const std::string& label, const ModuleMemoryStats& stats) {
    std::lock_guard<std::mutex> lock(mutex_);
    summaries_[Key(module)][label] = stats;
  }
  bool Find(const HloModule& module, const std::string& label, ModuleMemoryStats* stats) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto module_it = summaries_.find(Key(module));
    if (module_it == summaries_.end()) return false;
    auto it = module_it->second.find(label);
    if (it == module_it->second.end()) return false;
    *stats = it->second;
    return true;
  }

 private:
  using ModuleKey = std::pair<const HloModule*, int64_t>;
  static ModuleKey Key(const HloModule& module) { return {&module, module.unique_id()}; }

  std::mutex mutex_;
  std::map<ModuleKey, std::map<std::string, ModuleMemoryStats>> summaries_;
};

std::string Delta(int64_t before, int64_t after) {
  return absl::StrFormat("%d -> %d B (%+d)", before, after, after - before);
}

}  // namespace

PassOptionSchema MemoryReportPass::OptionSchema() {
  return PassOptionSchema()
      .String("label", "", "name of this report, for a later baseline")
      .String("baseline", "", "label of an earlier report of the same run to compare with")
      .String("format", "summary", "summary, table, json or html")
      .String("output", "",
              "summary: also append to this file; table/json/html: file to write "
              "({module} = module name), empty or '-' = stderr")
      .Int("pointer-size", 8, "bytes per tuple element pointer")
      .Int("alignment", 1, "alignment of buffer offsets")
      .String("heap", "best", "full report's temp packing: xla, search or best");
}

absl::StatusOr<std::unique_ptr<MemoryReportPass>> MemoryReportPass::Create(
    const PassOptions& options) {
  std::unique_ptr<MemoryReportPass> pass(new MemoryReportPass());
  pass->label_ = options.GetString("label");
  pass->baseline_ = options.GetString("baseline");
  pass->output_ = options.GetString("output");
  const std::string format = options.GetString("format");
  if (format != "summary") {
    HMO_ASSIGN_OR_RETURN(pass->format_, ParseMemoryReportFormat(format));
  }
  HMO_ASSIGN_OR_RETURN(pass->options_.heap_algorithm,
                       ParseTempHeapAlgorithm(options.GetString("heap")));
  pass->options_.pointer_size = options.GetInt("pointer-size");
  pass->options_.alignment = options.GetInt("alignment");
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
    ModuleMemoryStats before;
    if (!SummaryStore::Get().Find(module, baseline_, &before)) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "memory-report: no earlier report labelled '%s' for module %s", baseline_,
          module.name()));
    }
    absl::StrAppendFormat(&text, "  vs [%s]: device %s, host %s\n", baseline_,
                          Delta(before.device_bytes(), stats.device_bytes()),
                          Delta(before.host_bytes(), stats.host_bytes()));
  }
  if (!label_.empty()) SummaryStore::Get().Put(module, label_, stats);
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

absl::Status RegisterFrameworkAnalysisPasses(PassRegistry& registry) {
  HMO_RETURN_IF_ERROR(registry.Register(MakePassRegistration<MemoryReportPass>(), "hmo"));
  return registry.Register(MakePassRegistration<CopyInsertion>(), "hmo");
}

}  // namespace hmo
