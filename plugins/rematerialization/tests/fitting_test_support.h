#ifndef HMO_PLUGINS_REMATERIALIZATION_TESTS_FITTING_TEST_SUPPORT_H_
#define HMO_PLUGINS_REMATERIALIZATION_TESTS_FITTING_TEST_SUPPORT_H_

// What the tests of the memory-limit passes share: modules with a value
// live across a peak, a pass run on its own, and what they read off a
// module (its device bytes as the limit counts them, the entry's order).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hmo/analysis/memory_limit.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/pass/analysis_manager.h"
#include "hmo/pass/pass_context.h"
#include "hmo/plugin/plugin_host.h"
#include "memory_fitter.h"

namespace hmo::testing {

// A module whose entry computes %big first, then %a, %c and %d, which
// peak beside it, and reads %big at the end; `a` is how %a is computed.
inline std::string ValueAcrossThePeak(const std::string& name, const std::string& a) {
  return absl::StrCat("HloModule ", name, R"(, is_scheduled=true

%fused_negate (param_0: f32[1024]) -> f32[1024] {
  %param_0 = f32[1024]{0} parameter(0)
  ROOT %negate = f32[1024]{0} negate(%param_0)
}

ENTRY %main (p: f32[1024]) -> f32[1024] {
  %p = f32[1024]{0} parameter(0)
  %big = f32[1024]{0} fusion(%p), kind=kLoop, calls=%fused_negate
  %a = f32[1024]{0} )",
                      a, R"(
  %c = f32[1024]{0} log(%p)
  %d = f32[1024]{0} sine(%p)
  %e = f32[1024]{0} add(%a, %c)
  %f = f32[1024]{0} add(%e, %d)
  ROOT %out = f32[1024]{0} add(%f, %big)
}
)");
}

// %big is read only at the end: moving the fusion right before %out frees
// 4 KiB at the peak for free, since nothing before the peak reads it.
inline const std::string kLateUse = ValueAcrossThePeak("late_use", "exponential(%p)");

// %big is also read before the peak: now it is recomputed.
inline const std::string kEarlyAndLateUse =
    ValueAcrossThePeak("early_and_late_use", "multiply(%p, %big)");

// Runs pass `Pass` (a MemoryLimitPass) created with `options` on `module`,
// with the plugins of `host` and, when given, a pipeline limit and a progress
// sink.
template <typename Pass>
absl::StatusOr<MemoryFitMetrics> RunMemoryLimitPass(HloModule& module,
                                                    std::vector<PassOptionAssignment> options,
                                                    const PluginHost& host,
                                                    std::optional<int64_t> pipeline_limit = {},
                                                    ProgressSink* progress = nullptr) {
  HMO_ASSIGN_OR_RETURN(PassOptions bound, Pass::OptionSchema().Bind(options));
  HMO_ASSIGN_OR_RETURN(std::unique_ptr<Pass> pass, Pass::Create(bound));
  AnalysisManager analyses(module, &host.registries().analyses);
  PassContext context(analyses, host.registries());
  context.set_memory_limit(pipeline_limit);
  context.set_progress(progress);
  HMO_RETURN_IF_ERROR(pass->Run(module, context).status());
  return pass->metrics();
}

inline int64_t DeviceBytes(const HloModule& module) {
  absl::StatusOr<MemoryLimitCheck> check = CheckMemoryLimit(module, 0);
  EXPECT_TRUE(check.ok()) << check.status();
  return check.ok() ? check->device_bytes : -1;
}

inline std::vector<std::string> EntryOrder(const HloModule& module) {
  std::vector<std::string> names;
  for (const HloInstruction* instruction :
       module.schedule().sequence(module.entry_computation()).instructions()) {
    names.push_back(instruction->name());
  }
  return names;
}

}  // namespace hmo::testing

#endif  // HMO_PLUGINS_REMATERIALIZATION_TESTS_FITTING_TEST_SUPPORT_H_
