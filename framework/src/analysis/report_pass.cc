#include "hmo/analysis/report_pass.h"

#include <cstdio>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/transforms/copy_insertion.h"

namespace hmo {

PassOptionSchema ReportPass::OptionSchema() {
  return PassOptionSchema()
      .String("format", "table", "table, json or html")
      .String("output", "", "file to write ({module} = module name); empty or '-' = stderr")
      .Int("pointer-size", 8, "bytes per tuple element pointer")
      .Int("alignment", 1, "alignment of buffer offsets")
      .String("heap", "best", "temp packing: xla, search or best");
}

absl::StatusOr<std::unique_ptr<ReportPass>> ReportPass::Create(const PassOptions& options) {
  HMO_ASSIGN_OR_RETURN(MemoryReportFormat format,
                       ParseMemoryReportFormat(options.GetString("format")));
  MemoryReportOptions report_options;
  HMO_ASSIGN_OR_RETURN(report_options.heap_algorithm,
                       ParseTempHeapAlgorithm(options.GetString("heap")));
  report_options.pointer_size = options.GetInt("pointer-size");
  report_options.alignment = options.GetInt("alignment");
  if (report_options.pointer_size <= 0 || report_options.alignment <= 0) {
    return absl::InvalidArgumentError("report: pointer-size and alignment must be positive");
  }
  return std::unique_ptr<ReportPass>(
      new ReportPass(format, options.GetString("output"), report_options));
}

absl::StatusOr<bool> ReportPass::Run(HloModule& module, PassContext& /*context*/) {
  HMO_ASSIGN_OR_RETURN(MemoryReport report, BuildMemoryReport(module, options_));
  const std::string text = FormatMemoryReport(report, format_);
  if (output_.empty() || output_ == "-") {
    std::fwrite(text.data(), 1, text.size(), stderr);
    return false;
  }
  const std::string path = absl::StrReplaceAll(output_, {{"{module}", module.name()}});
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("report: cannot write ", path));
  return false;
}

absl::Status RegisterFrameworkAnalysisPasses(PassRegistry& registry) {
  HMO_RETURN_IF_ERROR(registry.Register(MakePassRegistration<ReportPass>(), "hmo"));
  return registry.Register(MakePassRegistration<CopyInsertion>(), "hmo");
}

}  // namespace hmo
