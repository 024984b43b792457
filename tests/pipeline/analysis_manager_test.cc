// Analyses are computed on demand, cached, and dropped after a change unless
// preserved; an analysis built on another is dropped with it.

#include "hmo/pass/analysis_manager.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hmo/text/hlo_parser.h"

namespace hmo {
namespace {

using ::testing::HasSubstr;

constexpr std::string_view kModule = R"(
HloModule small

ENTRY main {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  add = f32[4] add(p0, p1)
  ROOT mul = f32[4] multiply(add, p1)
}
)";

int g_counts_computed = 0;
int g_doubled_computed = 0;

// Counts the module's instructions.
struct InstructionCount {
  int64_t value = 0;
  static absl::StatusOr<std::unique_ptr<InstructionCount>> Compute(const HloModule& module,
                                                                   AnalysisManager&) {
    ++g_counts_computed;
    auto result = std::make_unique<InstructionCount>();
    result->value = module.instruction_count();
    return result;
  }
};

// Built on InstructionCount.
struct DoubledCount {
  int64_t value = 0;
  static absl::StatusOr<std::unique_ptr<DoubledCount>> Compute(const HloModule& /*module*/,
                                                               AnalysisManager& analyses) {
    ++g_doubled_computed;
    auto count = analyses.Get<InstructionCount>();
    if (!count.ok()) return count.status();
    auto result = std::make_unique<DoubledCount>();
    result->value = 2 * (*count)->value;
    return result;
  }
};

// Depends on itself.
struct SelfDependent {
  static absl::StatusOr<std::unique_ptr<SelfDependent>> Compute(const HloModule&,
                                                                AnalysisManager& analyses) {
    auto self = analyses.Get<SelfDependent>();
    if (!self.ok()) return self.status();
    return std::make_unique<SelfDependent>();
  }
};

// Has no Compute(); only a registration can provide it.
struct ProvidedByPlugin {
  int64_t value = 0;
};

absl::StatusOr<std::unique_ptr<ProvidedByPlugin>> ComputeProvided(const HloModule&,
                                                                  AnalysisManager&) {
  auto result = std::make_unique<ProvidedByPlugin>();
  result->value = 99;
  return result;
}

class AnalysisManagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_counts_computed = 0;
    g_doubled_computed = 0;
    auto module = ParseHloModule(kModule);
    ASSERT_TRUE(module.ok()) << module.status();
    module_ = *std::move(module);
  }
  std::unique_ptr<HloModule> module_;
};

TEST_F(AnalysisManagerTest, ComputesOnceAndServesFromTheCache) {
  AnalysisManager analyses(*module_);
  auto first = analyses.Get<InstructionCount>();
  auto second = analyses.Get<InstructionCount>();
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ((*first)->value, 4);
  EXPECT_EQ(*first, *second);
  EXPECT_EQ(g_counts_computed, 1);
  EXPECT_EQ(analyses.compute_count(), 1);
}

TEST_F(AnalysisManagerTest, InvalidateDropsWhatIsNotPreserved) {
  AnalysisManager analyses(*module_);
  ASSERT_TRUE(analyses.Get<InstructionCount>().ok());
  analyses.Invalidate(PreservedAnalyses());
  EXPECT_FALSE(analyses.IsCached<InstructionCount>());
  ASSERT_TRUE(analyses.Get<InstructionCount>().ok());
  EXPECT_EQ(g_counts_computed, 2);

  PreservedAnalyses preserved;
  preserved.Preserve<InstructionCount>();
  analyses.Invalidate(preserved);
  EXPECT_TRUE(analyses.IsCached<InstructionCount>());
  ASSERT_TRUE(analyses.Get<InstructionCount>().ok());
  EXPECT_EQ(g_counts_computed, 2);
}

TEST_F(AnalysisManagerTest, DroppingAnAnalysisDropsThoseBuiltOnIt) {
  AnalysisManager analyses(*module_);
  auto doubled = analyses.Get<DoubledCount>();
  ASSERT_TRUE(doubled.ok()) << doubled.status();
  EXPECT_EQ((*doubled)->value, 8);
  // Keeping only the dependent is not enough: its input is gone, so it goes too.
  PreservedAnalyses preserved;
  preserved.Preserve<DoubledCount>();
  analyses.Invalidate(preserved);
  EXPECT_FALSE(analyses.IsCached<InstructionCount>());
  EXPECT_FALSE(analyses.IsCached<DoubledCount>());
  // Keeping the input keeps both.
  ASSERT_TRUE(analyses.Get<DoubledCount>().ok());
  PreservedAnalyses keep_input;
  keep_input.Preserve<InstructionCount>();
  keep_input.Preserve<DoubledCount>();
  analyses.Invalidate(keep_input);
  EXPECT_TRUE(analyses.IsCached<DoubledCount>());
  EXPECT_EQ(g_doubled_computed, 2);
}

TEST_F(AnalysisManagerTest, ReportsAnAnalysisThatDependsOnItself) {
  AnalysisManager analyses(*module_);
  auto result = analyses.Get<SelfDependent>();
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), HasSubstr("SelfDependent depends on itself"));
}

TEST_F(AnalysisManagerTest, UsesTheRegisteredComputationForATypeWithoutCompute) {
  AnalysisManager without_registry(*module_);
  auto missing = without_registry.Get<ProvidedByPlugin>();
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("ProvidedByPlugin"));

  AnalysisRegistry registry;
  ASSERT_TRUE(registry
                  .Register(MakeAnalysisRegistration<ProvidedByPlugin, &ComputeProvided>(
                                "provided", "test analysis"),
                            "test-plugin")
                  .ok());
  AnalysisManager analyses(*module_, &registry);
  auto provided = analyses.Get<ProvidedByPlugin>();
  ASSERT_TRUE(provided.ok()) << provided.status();
  EXPECT_EQ((*provided)->value, 99);
}

TEST(AnalysisRegistryTest, RejectsASecondProviderOfTheSameTypeNamingBoth) {
  AnalysisRegistry registry;
  ASSERT_TRUE(registry
                  .Register(MakeAnalysisRegistration<ProvidedByPlugin, &ComputeProvided>(
                                "provided", ""),
                            "plugin-a")
                  .ok());
  absl::Status again = registry.Register(
      MakeAnalysisRegistration<ProvidedByPlugin, &ComputeProvided>("provided-again", ""),
      "plugin-b");
  EXPECT_EQ(again.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(again.message(), HasSubstr("'provided-again' from plugin 'plugin-b'"));
  EXPECT_THAT(again.message(), HasSubstr("'provided' from plugin 'plugin-a'"));
}

}  // namespace
}  // namespace hmo
