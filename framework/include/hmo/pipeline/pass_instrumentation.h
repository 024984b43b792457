#ifndef HMO_PIPELINE_PASS_INSTRUMENTATION_H_
#define HMO_PIPELINE_PASS_INSTRUMENTATION_H_

// Hooks the pass manager calls around the pipeline and around every pass.
// Timing, dumping, verifying and change checking are instrumentations, so the
// pass loop and the passes stay free of them.
//
// For one module run, the manager calls BeforePipeline, then for each pass
// run BeforePass, the pass, AfterPass (only if the pass succeeded), and
// finally AfterPipeline (only if every pass succeeded). "Before" hooks are
// called in the order instrumentations were added, "after" hooks in reverse
// order, so instrumentations nest. A hook returning an error stops the
// pipeline with that error. An instrumentation object serves one module run
// at a time unless it says otherwise.

#include <cstdint>
#include <string_view>

#include "absl/status/status.h"
#include "hmo/pass/pass_options.h"

namespace hmo {

class HloModule;

// Identifies one pass run within a module run.
struct PassRunInfo {
  std::string_view pass_name;
  const PassOptions* options = nullptr;
  // 1-based position of this run among all pass runs of the module run.
  int64_t sequence = 0;
  // 1-based iteration of the innermost enclosing fixed-point group; 0 outside
  // any group.
  int64_t iteration = 0;
};

class PassInstrumentation {
 public:
  virtual ~PassInstrumentation() = default;

  virtual absl::Status BeforePipeline(const HloModule& /*module*/) { return absl::OkStatus(); }
  virtual absl::Status BeforePass(const PassRunInfo& /*run*/, const HloModule& /*module*/) {
    return absl::OkStatus();
  }
  // `changed` is what the pass reported.
  virtual absl::Status AfterPass(const PassRunInfo& /*run*/, const HloModule& /*module*/,
                                 bool /*changed*/) {
    return absl::OkStatus();
  }
  virtual absl::Status AfterPipeline(const HloModule& /*module*/) { return absl::OkStatus(); }
};

}  // namespace hmo

#endif  // HMO_PIPELINE_PASS_INSTRUMENTATION_H_
