#ifndef HMO_PLUGINS_ALIASING_MEMORY_REPORT_H_
#define HMO_PLUGINS_ALIASING_MEMORY_REPORT_H_

// memory-report: logs the module's memory figures (see module_memory_stats.h)
// at its place in a pipeline, and compares them with an earlier report of the
// same module run. Never changes the module.
//
//   memory-report{label=before}   ...passes...   memory-report{label=after,baseline=before}
//
// logs, for `after`:
//   memory-report [after] jit_f (scheduled)
//     device 2368 B (argument 64, output 64, alias 0, temp 2240)
//     host 2048 B (argument 0, output 0, alias 0, temp 2048)
//     vs [before]: device 4416 -> 2368 B (-2048), host 0 -> 2048 B (+2048)
// Device figures count every memory space but S(5); host figures S(5). With
// `output`, the same text is also appended to that file.

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "hmo/pass/hlo_pass.h"
#include "hmo/pass/pass_option_schema.h"
#include "hmo/pass/pass_options.h"

namespace hmo {

class MemoryReport : public HloPass {
 public:
  static constexpr std::string_view kName = "memory-report";
  static constexpr std::string_view kDescription =
      "Log device and host memory (CompiledMemoryStats), optionally against an earlier report";

  static PassOptionSchema OptionSchema();

  explicit MemoryReport(const PassOptions& options);

  std::string_view name() const override { return kName; }

  // Returns false (the module is unchanged). Errors: the buffer assignment
  // fails, `baseline` names no earlier report of this module, or `output`
  // cannot be written.
  absl::StatusOr<bool> Run(HloModule& module, PassContext& context) override;

 private:
  std::string label_;
  std::string baseline_;
  std::string output_;
  int64_t pointer_size_ = 8;
  int64_t alignment_ = 1;
};

}  // namespace hmo

#endif  // HMO_PLUGINS_ALIASING_MEMORY_REPORT_H_
