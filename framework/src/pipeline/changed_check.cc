#include "hmo/pipeline/changed_check.h"

#include <functional>
#include <string>

#include "fmt/format.h"
#include "hmo/ir/hlo_module.h"

namespace hmo {

size_t HashModuleText(const HloModule& module) {
  return std::hash<std::string>()(module.ToString());
}

absl::Status ChangedCheckInstrumentation::BeforePass(const PassRunInfo& /*run*/,
                                                     const HloModule& module) {
  hash_before_ = HashModuleText(module);
  return absl::OkStatus();
}

absl::Status ChangedCheckInstrumentation::AfterPass(const PassRunInfo& run,
                                                    const HloModule& module, bool changed) {
  const bool text_changed = HashModuleText(module) != hash_before_;
  if (text_changed == changed) return absl::OkStatus();
  return absl::FailedPreconditionError(
      changed ? fmt::format("pass '{}' reported changed=true but left module '{}' unchanged",
                            run.pass_name, module.name())
              : fmt::format("pass '{}' reported changed=false but changed module '{}'",
                            run.pass_name, module.name()));
}

}  // namespace hmo
