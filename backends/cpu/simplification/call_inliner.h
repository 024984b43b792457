#ifndef HMO_BACKENDS_CPU_SIMPLIFICATION_CALL_INLINER_H_
#define HMO_BACKENDS_CPU_SIMPLIFICATION_CALL_INLINER_H_

// call-inliner: the pass form of InlineCalls (hmo/rewrites/call_inlining.h),
// which the CPU and GPU backends apply anyway before they plan memory. Run
// first in a pipeline, it lets fusion work across call boundaries and the
// scheduler place each callee instruction on its own (a scan body's
// dynamic-index calls then read their slice just before its use), so the
// order the pipeline measures is the order that runs.

#include <string_view>

#include "absl/status/statusor.h"
#include "hmo/pass/hlo_pass.h"
#include "hmo/pass/pass_option_schema.h"
#include "hmo/pass/pass_options.h"

namespace hmo::cpu {

class CallInliner : public HloPass {
 public:
  static constexpr std::string_view kName = "call-inliner";
  static constexpr std::string_view kDescription =
      "Inline calls of non-fusion computations, as the backends do before planning (CPU backend)";

  // The pass has no options.
  static PassOptionSchema OptionSchema() { return PassOptionSchema(); }

  explicit CallInliner(const PassOptions& /*options*/) {}
  CallInliner() = default;

  std::string_view name() const override { return kName; }

  // Returns whether a call was inlined.
  absl::StatusOr<bool> Run(HloModule& module, PassContext& context) override;
};

}  // namespace hmo::cpu

#endif  // HMO_BACKENDS_CPU_SIMPLIFICATION_CALL_INLINER_H_
