#ifndef HMO_PIPELINE_VERIFY_AFTER_PASS_H_
#define HMO_PIPELINE_VERIFY_AFTER_PASS_H_

// Runs a module verifier on the input and after passes, per the pipeline's
// VerifyMode, so that a pass that breaks the module is caught right away:
// errors end with "after pass <name>" (or "before any pass" for the input).

#include <functional>

#include "absl/status/status.h"
#include "hmo/pipeline/pass_instrumentation.h"
#include "hmo/pipeline/pipeline_spec.h"

namespace hmo {

// Checks a module; returns an error describing the first problem.
using ModuleVerifier = std::function<absl::Status(const HloModule&)>;

class VerifyAfterPassInstrumentation : public PassInstrumentation {
 public:
  // The input is always checked (passes and analyses assume a well-formed
  // module; malformed input is an error, never a crash). After passes: with
  // kNever nothing; with kChanged every module a pass reported changed; with
  // kAlways the module after every pass.
  VerifyAfterPassInstrumentation(VerifyMode mode, ModuleVerifier verifier)
      : mode_(mode), verifier_(std::move(verifier)) {}

  absl::Status BeforePipeline(const HloModule& module) override;
  absl::Status AfterPass(const PassRunInfo& run, const HloModule& module, bool changed) override;

 private:
  VerifyMode mode_;
  ModuleVerifier verifier_;
};

}  // namespace hmo

#endif  // HMO_PIPELINE_VERIFY_AFTER_PASS_H_
