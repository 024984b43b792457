#include "memory_report.h"

#include <cstdint>
#include <fstream>
#include <map>
#include <mutex>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_module.h"
#include "module_memory_stats.h"
#include "spdlog/spdlog.h"

namespace hmo {
namespace {

// Reports of the modules being run, by module and label, so that a later
// report can compare with an earlier one. Pipelines may run modules in
// parallel, hence the lock.
class ReportStore {
 public:
  static ReportStore& Get() {
    static ReportStore* store = new ReportStore();
    return *store;
  }
  void Put(const HloModule& module, const std::string& label, const ModuleMemoryStats& stats) {
    std::lock_guard<std::mutex> lock(mutex_);
    reports_[Key(module)][label] = stats;
  }
  bool Find(const HloModule& module, const std::string& label, ModuleMemoryStats* stats) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto module_it = reports_.find(Key(module));
    if (module_it == reports_.end()) return false;
    auto it = module_it->second.find(label);
    if (it == module_it->second.end()) return false;
    *stats = it->second;
    return true;
  }

 private:
  using ModuleKey = std::pair<const HloModule*, int64_t>;
  static ModuleKey Key(const HloModule& module) { return {&module, module.unique_id()}; }

  std::mutex mutex_;
  std::map<ModuleKey, std::map<std::string, ModuleMemoryStats>> reports_;
};

std::string Delta(int64_t before, int64_t after) {
  return absl::StrFormat("%d -> %d B (%+d)", before, after, after - before);
}

}  // namespace

PassOptionSchema MemoryReport::OptionSchema() {
  return PassOptionSchema()
      .String("label", "", "Name of this report, for a later baseline")
      .String("baseline", "", "Label of an earlier report of the same run to compare with")
      .String("output", "", "Also append the report to this file")
      .Int("pointer-size", 8, "Bytes of a tuple element pointer")
      .Int("alignment", 1, "Alignment of temp allocations in bytes");
}

MemoryReport::MemoryReport(const PassOptions& options)
    : label_(options.GetString("label")),
      baseline_(options.GetString("baseline")),
      output_(options.GetString("output")),
      pointer_size_(options.GetInt("pointer-size")),
      alignment_(options.GetInt("alignment")) {}

absl::StatusOr<bool> MemoryReport::Run(HloModule& module, PassContext& context) {
  HMO_ASSIGN_OR_RETURN(ModuleMemoryStats stats,
                       ComputeModuleMemoryStats(module, pointer_size_, alignment_));
  std::string text = absl::StrFormat(
      "memory-report [%s] %s (%s)\n  %s\n  %s\n", label_, module.name(),
      stats.scheduled ? "scheduled" : "unscheduled: post order", stats.DeviceString(),
      stats.HostString());
  if (!baseline_.empty()) {
    ModuleMemoryStats before;
    if (!ReportStore::Get().Find(module, baseline_, &before)) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "memory-report: no earlier report labelled '%s' for module %s", baseline_,
          module.name()));
    }
    absl::StrAppendFormat(&text, "  vs [%s]: device %s, host %s\n", baseline_,
                          Delta(before.device_bytes(), stats.device_bytes()),
                          Delta(before.host_bytes(), stats.host_bytes()));
  }
  if (!label_.empty()) ReportStore::Get().Put(module, label_, stats);
  spdlog::info("{}", text.substr(0, text.size() - 1));
  if (!output_.empty()) {
    std::ofstream out(output_, std::ios::app);
    out << text;
    if (!out.good()) {
      return absl::UnavailableError(
          absl::StrFormat("memory-report: cannot append to %s", output_));
    }
  }
  return false;
}

}  // namespace hmo
