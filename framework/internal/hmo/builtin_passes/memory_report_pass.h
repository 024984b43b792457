#ifndef HMO_BUILTIN_PASSES_MEMORY_REPORT_PASS_H_
#define HMO_BUILTIN_PASSES_MEMORY_REPORT_PASS_H_

// memory-report: the module's memory at its place in a pipeline; never
// changes the module. Two kinds of output:
//
//   format=summary (default): one log line per side, compared with an
//   earlier report of the same module run:
//
//     memory-report{label=before}  ...passes...  memory-report{label=after,baseline=before}
//
//   logs, for `after`:
//     memory-report [after] jit_f (scheduled)
//       device 2368 B on cpu (argument 64, output 64, alias 0, temp 2240; +0 B the executable adds)
//       host 2048 B (argument 0, output 0, alias 0, temp 2048)
//       vs [before]: device 4416 -> 2368 B (-2048), host 0 -> 2048 B (+2048)
//   The device figure is the pipeline target's (target_memory_model.h: the
//   device arenas its executable allocates, what the limit check counts);
//   the four figures in parentheses are the module's as written, as XLA
//   reports them after compiling (CompiledMemoryStats). Host figures are
//   S(5)'s.
//   With `output`, the text is also appended to that file. `hmo run
//   --report` shows it too.
//
//   format=table | json | html: the full memory report (memory_report.h:
//   allocations, temp heaps, buffers, timeline) written to `output`, or to
//   stderr when `output` is empty or "-". "{module}" in `output` is replaced
//   by the module name, so one pipeline run over several modules writes one
//   file each.
//
// Options: label, baseline, format, output, and overrides of the target's
// model: pointer-size (bytes per tuple element pointer), alignment (of
// buffer offsets), heap (xla | search | best: how temp buffers are packed).
//
// The framework registers it (RegisterFrameworkPasses, framework_passes.h)
// under the plugin name "hmo".

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hmo/analysis/memory_report.h"
#include "hmo/analysis/target_memory_model.h"
#include "hmo/pass/hlo_pass.h"
#include "hmo/pass/pass_option_binding.h"
#include "hmo/pass/pass_option_schema.h"
#include "hmo/pass/pass_options.h"
#include "hmo/pass/pass_registry.h"

namespace hmo {

class MemoryReportPass : public HloPass {
 public:
  static constexpr std::string_view kName = "memory-report";
  static constexpr std::string_view kDescription =
      "Report the module's memory (summary against an earlier report, or the full report as "
      "table, JSON or HTML timeline); changes nothing";
  // The options, bound to their schema (PassOptionBinding).
  struct Options {
    std::string label;
    std::string baseline;
    // None: the one-line summary.
    std::optional<MemoryReportFormat> format;
    std::string output;
    int64_t pointer_size = 0;
    int64_t alignment = 0;
    // None: the pipeline target's.
    std::optional<TempHeapAlgorithm> heap;
  };
  static const PassOptionBinding<Options>& Binding();
  static PassOptionSchema OptionSchema() { return Binding().schema(); }
  // Errors: a negative pointer size or alignment.
  static absl::StatusOr<std::unique_ptr<MemoryReportPass>> Create(const PassOptions& options);

  std::string_view name() const override { return kName; }
  // Always returns false. Errors: the buffer assignment fails, `baseline`
  // names no earlier report of this module, or `output` cannot be written.
  absl::StatusOr<bool> Run(HloModule& module, PassContext& context) override;

 private:
  MemoryReportPass() = default;

  absl::Status RunSummary(HloModule& module, PassContext& context);
  absl::Status RunFullReport(const HloModule& module, const PassContext& context);
  // The pipeline target's model with this pass's overrides.
  TargetMemoryModel Model(const PassContext& context) const;

  std::string label_;
  std::string baseline_;
  std::string output_;
  // Empty for the summary.
  std::optional<MemoryReportFormat> format_;
  // Overrides of the target's assignment options (0 / none: the target's).
  int64_t pointer_size_ = 0;
  int64_t alignment_ = 0;
  std::optional<TempHeapAlgorithm> heap_;
};

}  // namespace hmo

#endif  // HMO_BUILTIN_PASSES_MEMORY_REPORT_PASS_H_
