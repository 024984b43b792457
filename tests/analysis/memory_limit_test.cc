// CheckMemoryLimit on XLA's own optimized dump of a JAX training step (the
// corpus's mlp_sgd, weights donated): the device figure is hmo stats',
// the peak is the packed temp arena's floor, and the values named at the
// peak are exactly those live then.

#include "hmo/analysis/memory_limit.h"

#include <cstdint>
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hmo/analysis/memory_report.h"
#include "support/parsed_module.h"

namespace hmo {
namespace {

using ::hmo::test_support::LoadTestModule;
using ::testing::HasSubstr;

constexpr char kTrainingStep[] =
    "corpus/mlp_sgd/module_0000.jit_mlp_sgd_step.cpu_after_optimizations.txt";

TEST(MemoryLimitTest, DeviceBytesAreTheStatsFigure) {
  std::unique_ptr<HloModule> module = LoadTestModule(kTrainingStep);
  absl::StatusOr<MemoryReport> report = BuildMemoryReport(*module);
  ASSERT_TRUE(report.ok()) << report.status();
  const int64_t device = report->stats.PeakEstimateBytes();
  absl::StatusOr<MemoryLimitCheck> at = CheckMemoryLimit(*module, device);
  ASSERT_TRUE(at.ok()) << at.status();
  EXPECT_EQ(at->device_bytes, device);
  EXPECT_TRUE(at->fits());
  EXPECT_TRUE(MemoryLimitStatus(*at).ok());
  absl::StatusOr<MemoryLimitCheck> below = CheckMemoryLimit(*module, device - 1);
  ASSERT_TRUE(below.ok()) << below.status();
  EXPECT_FALSE(below->fits());
  const absl::Status status = MemoryLimitStatus(*below);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(status.message(), HasSubstr("does not fit the memory limit"));
}

TEST(MemoryLimitTest, ThePeakIsTheTempFloorAndNamesWhatIsLiveThen) {
  std::unique_ptr<HloModule> module = LoadTestModule(kTrainingStep);
  absl::StatusOr<MemoryLimitCheck> check = CheckMemoryLimit(*module, 1024);
  ASSERT_TRUE(check.ok()) << check.status();
  // No packing beats the bytes live together; this arena reaches them or not.
  EXPECT_GT(check->peak_temp_bytes, 0);
  EXPECT_LE(check->peak_temp_bytes, check->stats.temp_size_in_bytes);
  int64_t temps = 0, parameters = 0, outputs = 0;
  for (const PeakValue& value : check->live_at_peak) {
    if (value.kind == AllocationKind::kTemp) {
      temps += value.size;
      EXPECT_THAT(value.reason, HasSubstr("temporary, "));
      EXPECT_THAT(value.reason, HasSubstr("recomputable"));
    } else if (value.kind == AllocationKind::kParameter) {
      parameters += value.size;
      EXPECT_THAT(value.reason, HasSubstr("for the whole run"));
    } else if (value.kind == AllocationKind::kOutput) {
      outputs += value.size;
    }
  }
  // The temps named are exactly the peak's bytes; every argument is named.
  EXPECT_EQ(temps, check->peak_temp_bytes);
  EXPECT_EQ(parameters, check->stats.argument_size_in_bytes);
  EXPECT_EQ(parameters + outputs, check->stats.argument_size_in_bytes +
                                      check->stats.output_size_in_bytes -
                                      check->stats.alias_size_in_bytes);
  // Largest first.
  for (size_t i = 1; i < check->live_at_peak.size(); ++i) {
    EXPECT_GE(check->live_at_peak[i - 1].size, check->live_at_peak[i].size);
  }
  const std::string text = check->Describe(3);
  EXPECT_THAT(text, HasSubstr("> limit 1,024 B (1.00 KiB)"));
  EXPECT_THAT(text, HasSubstr("of temporaries live together at schedule time"));
  EXPECT_THAT(text, HasSubstr(" more values ("));
}

TEST(MemoryLimitTest, CountsTheMomentsThatReachThePeak) {
  // %a, %ab, %c and %cd share one 4 KiB slice, live over times 1-7; %b
  // (times 2-3) and %d (5-6) share another. Together: 8 KiB at times 2, 3,
  // 5 and 6, 4 KiB at 1, 4 and 7. The output is the 4-byte slice.
  auto module = test_support::ParseTestModule(R"(
HloModule two_peaks, is_scheduled=true
ENTRY %main (p: f32[1024]) -> f32[1] {
  %p = f32[1024]{0} parameter(0)
  %a = f32[1024]{0} negate(%p)
  %b = f32[1024]{0} exponential(%p)
  %ab = f32[1024]{0} add(%a, %b)
  %c = f32[1024]{0} log(%ab)
  %d = f32[1024]{0} sine(%p)
  %cd = f32[1024]{0} add(%c, %d)
  ROOT %s = f32[1]{0} slice(%cd), slice={[0:1]}
})");
  absl::StatusOr<MemoryLimitCheck> check = CheckMemoryLimit(*module, 0);
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_EQ(check->peak_temp_bytes, 8192);
  EXPECT_EQ(check->peak_time, 2);
  EXPECT_EQ(check->peak_moments, 4);
}

}  // namespace
}  // namespace hmo
