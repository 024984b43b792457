#include "hmo/pipeline/verify_after_pass.h"

#include "fmt/format.h"
#include "hmo/ir/hlo_module.h"

namespace hmo {
namespace {

absl::Status Check(const ModuleVerifier& verifier, const HloModule& module,
                   std::string_view when) {
  absl::Status status = verifier(module);
  if (status.ok()) return status;
  return absl::Status(status.code(), fmt::format("module '{}' failed verification: {}; {}",
                                                 module.name(), std::string(status.message()),
                                                 when));
}

}  // namespace

absl::Status VerifyAfterPassInstrumentation::BeforePipeline(const HloModule& module) {
  // Always: analyses and passes assume a well-formed module, so input that
  // is not one must be refused here, whatever the mode.
  return Check(verifier_, module, "before any pass");
}

absl::Status VerifyAfterPassInstrumentation::AfterPass(const PassRunInfo& run,
                                                       const HloModule& module, bool changed) {
  if (mode_ == VerifyMode::kNever || (mode_ == VerifyMode::kChanged && !changed)) {
    return absl::OkStatus();
  }
  return Check(verifier_, module, fmt::format("after pass {}", run.pass_name));
}

}  // namespace hmo
