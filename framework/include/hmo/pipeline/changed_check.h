#ifndef HMO_PIPELINE_CHANGED_CHECK_H_
#define HMO_PIPELINE_CHANGED_CHECK_H_

// `--check-changed`: hashes the module's HLO text (which includes the schedule)
// before and after each pass and fails when the pass's `changed` result does
// not match: a pass that changed the module but returned false breaks
// fixed-point groups and skips verification; one that returned true without a
// change makes fixed-point groups spin and drops analyses for nothing.

#include <cstddef>

#include "hmo/pipeline/pass_instrumentation.h"

namespace hmo {

// Returns the hash of `module`'s HLO text.
size_t HashModuleText(const HloModule& module);

class ChangedCheckInstrumentation : public PassInstrumentation {
 public:
  absl::Status BeforePass(const PassRunInfo& run, const HloModule& module) override;
  // Returns FailedPrecondition naming the pass and what it reported.
  absl::Status AfterPass(const PassRunInfo& run, const HloModule& module, bool changed) override;

 private:
  size_t hash_before_ = 0;
};

}  // namespace hmo

#endif  // HMO_PIPELINE_CHANGED_CHECK_H_
