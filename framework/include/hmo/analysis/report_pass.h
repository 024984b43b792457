#ifndef HMO_ANALYSIS_REPORT_PASS_H_
#define HMO_ANALYSIS_REPORT_PASS_H_

// report: a pass that writes the module's memory report (memory_report.h) and
// changes nothing. It lets a pipeline show memory before and after passes:
//
//   passes: [report{output=before.json, format=json}, host-offloader, report]
//
// Options:
//   format        table | json | html (default table)
//   output        file to write; empty or "-" = stderr. "{module}" in the
//                 path is replaced by the module name, so one pipeline run
//                 over several modules writes one file each.
//   pointer-size  bytes per tuple element pointer (default 8)
//   alignment     buffer offset alignment (default 1)
//   heap          xla | search | best: how temp buffers are packed
//                 (default best)
//
// The framework registers it (RegisterFrameworkAnalysisPasses) under the
// plugin name "hmo".

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hmo/analysis/memory_report.h"
#include "hmo/pass/hlo_pass.h"
#include "hmo/pass/pass_option_schema.h"
#include "hmo/pass/pass_options.h"
#include "hmo/pass/pass_registry.h"

namespace hmo {

class ReportPass : public HloPass {
 public:
  static constexpr std::string_view kName = "report";
  static constexpr std::string_view kDescription =
      "Write the module's memory statistics (table, JSON or HTML timeline); changes nothing";
  static PassOptionSchema OptionSchema();
  // Errors: an unknown format or heap algorithm, a non-positive pointer size
  // or alignment.
  static absl::StatusOr<std::unique_ptr<ReportPass>> Create(const PassOptions& options);

  std::string_view name() const override { return kName; }
  // Always returns false. Errors: the analyses fail or the file cannot be
  // written.
  absl::StatusOr<bool> Run(HloModule& module, PassContext& context) override;

 private:
  ReportPass(MemoryReportFormat format, std::string output, MemoryReportOptions options)
      : format_(format), output_(std::move(output)), options_(options) {}

  MemoryReportFormat format_;
  std::string output_;
  MemoryReportOptions options_;
};

// Registers the passes the framework itself provides ("report",
// "copy-insertion") under the
// plugin name "hmo". Call once per registry before loading plugins.
absl::Status RegisterFrameworkAnalysisPasses(PassRegistry& registry);

}  // namespace hmo

#endif  // HMO_ANALYSIS_REPORT_PASS_H_
