// The rematerialization pass: what it recomputes, where the recomputation
// goes, that the result fits and still verifies, and how it fails.

#include "rematerialization.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hmo/analysis/memory_limit.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/pass/analysis_manager.h"
#include "hmo/pass/pass_context.h"
#include "hmo/pipeline/pass_manager.h"
#include "hmo/pipeline/pipeline_text_parser.h"
#include "hmo/pipeline/resolved_pipeline.h"
#include "hmo/plugin/plugin_host.h"
#include "hmo/text/hlo_parser.h"
#include "hmo/verifier/hlo_verifier.h"
#include "fitting_test_support.h"
#include "jax_corpus.h"
#include "rematerialization_block.h"
#include "support/parsed_module.h"

namespace hmo {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<MemoryFitMetrics> RunPass(HloModule& module,
                                         std::vector<PassOptionAssignment> options,
                                         std::optional<int64_t> pipeline_limit = {}) {
  static const PluginHost* host = new PluginHost();
  return testing::RunMemoryLimitPass<RematerializationPass>(module, std::move(options), *host,
                                                            pipeline_limit);
}

using testing::DeviceBytes;
using testing::EntryOrder;

TEST(RematerializationTest, MovesAValueNothingReadsBeforeThePeak) {
  auto module = test_support::ParseTestModule(testing::kLateUse);
  const int64_t before = DeviceBytes(*module);
  absl::StatusOr<MemoryFitMetrics> metrics =
      RunPass(*module, {{"memory-limit", std::to_string(before - 4096)}});
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  EXPECT_TRUE(metrics->fits);
  ASSERT_EQ(metrics->decisions.size(), 1u);
  EXPECT_EQ(metrics->decisions[0].change, "big");
  EXPECT_EQ(metrics->decisions[0].flops, 0);
  EXPECT_EQ(metrics->device_bytes_after, before - 4096);
  EXPECT_EQ(DeviceBytes(*module), before - 4096);
  EXPECT_THAT(EntryOrder(*module),
              ::testing::ElementsAre("p", "a", "c", "d", "e", "f", "big.remat", "out"));
  // The original went with its fused computation; the clone has its own.
  const HloInstruction* moved = module->entry_computation()->GetInstructionWithName("big.remat");
  ASSERT_NE(moved, nullptr);
  EXPECT_EQ(moved->fused_instructions_computation()->FusionInstruction(), moved);
  EXPECT_EQ(module->computation_count(), 2);
  EXPECT_TRUE(VerifyHloModule(*module).ok()) << VerifyHloModule(*module);
}

TEST(RematerializationTest, RecomputesAValueReadBeforeAndAfterThePeak) {
  auto module = test_support::ParseTestModule(testing::kEarlyAndLateUse);
  const int64_t before = DeviceBytes(*module);
  absl::StatusOr<MemoryFitMetrics> metrics =
      RunPass(*module, {{"memory-limit", std::to_string(before - 1)}});
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  EXPECT_TRUE(metrics->fits);
  ASSERT_EQ(metrics->decisions.size(), 1u);
  EXPECT_EQ(metrics->decisions[0].change, "big");
  EXPECT_EQ(metrics->decisions[0].flops, 1024);  // one negate per element
  EXPECT_EQ(metrics->recompute_flops, 1024);
  EXPECT_THAT(EntryOrder(*module),
              ::testing::ElementsAre("p", "big", "a", "c", "d", "e", "f", "big.remat", "out"));
  // The clone runs its own copy of the fused computation.
  const HloInstruction* clone = module->entry_computation()->GetInstructionWithName("big.remat");
  const HloInstruction* original = module->entry_computation()->GetInstructionWithName("big");
  ASSERT_NE(clone, nullptr);
  ASSERT_NE(original, nullptr);
  EXPECT_NE(clone->fused_instructions_computation(), original->fused_instructions_computation());
  EXPECT_EQ(clone->operand(0)->name(), "p");
  EXPECT_TRUE(VerifyHloModule(*module).ok()) << VerifyHloModule(*module);
}

TEST(RematerializationTest, TheLimitComesFromThePipelineWhenThePassHasNone) {
  auto module = test_support::ParseTestModule(testing::kLateUse);
  const int64_t before = DeviceBytes(*module);
  absl::StatusOr<MemoryFitMetrics> metrics = RunPass(*module, {}, before - 4096);
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  EXPECT_EQ(metrics->limit, before - 4096);
  EXPECT_TRUE(metrics->fits);

  auto unlimited = test_support::ParseTestModule(testing::kLateUse);
  absl::StatusOr<MemoryFitMetrics> none = RunPass(*unlimited, {});
  EXPECT_EQ(none.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(none.status().message(), HasSubstr("no memory limit"));
}

TEST(RematerializationTest, BelowTheProvenFloorItFailsNamingIt) {
  auto module = test_support::ParseTestModule(testing::kLateUse);
  // %e reads %a and %c (8 KiB) beside the 4 KiB argument and the 4 KiB
  // output, whose buffer, free until %out, can hold one of them: 12 KiB.
  absl::StatusOr<MemoryFitMetrics> metrics =
      RunPass(*module, {{"memory-limit", std::string("12287")}});
  ASSERT_FALSE(metrics.ok());
  EXPECT_EQ(metrics.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(metrics.status().message(), HasSubstr("below the proven floor of 12288 B"));
  EXPECT_THAT(
      metrics.status().message(),
      HasSubstr("the arguments and outputs (8192 B), plus the 8192 B of temporaries e reads "
                "and writes, less 4096 B that output buffers free then could hold"));
  // Each temporary at the peak says how it meets it.
  EXPECT_THAT(metrics.status().message(),
              HasSubstr("d f32[1024]{0} 4,096 B (4.00 KiB): computed at the peak (d)"));
  EXPECT_THAT(metrics.status().message(),
              HasSubstr("c f32[1024]{0} 4,096 B (4.00 KiB): crosses the peak, but recomputing it "
                        "measured no lower"));
}

TEST(RematerializationTest, NeedsAScheduleAndValidOptions) {
  auto module = test_support::ParseTestModule(R"(
HloModule unscheduled
ENTRY %main (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  ROOT %n = f32[4]{0} negate(%p)
})");
  absl::StatusOr<MemoryFitMetrics> metrics =
      RunPass(*module, {{"memory-limit", std::string("1KiB")}});
  EXPECT_EQ(metrics.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(metrics.status().message(), HasSubstr("run memory-scheduler first"));

  absl::StatusOr<PassOptions> bad =
      RematerializationPass::OptionSchema().Bind({{"memory-limit", std::string("12 parsecs")}});
  ASSERT_TRUE(bad.ok());
  EXPECT_FALSE(RematerializationPass::Create(*bad).ok());
  absl::StatusOr<PassOptions> negative =
      RematerializationPass::OptionSchema().Bind({{"threads", std::string("-1")}});
  ASSERT_TRUE(negative.ok());
  absl::StatusOr<std::unique_ptr<RematerializationPass>> refused =
      RematerializationPass::Create(*negative);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("'threads' must be >= 0"));
}

// XLA's optimized dumps at 80% of the device bytes XLA's own schedule needs:
// the pass fits them, and the result verifies.
class CorpusRematerializationTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusRematerializationTest, FitsEightyPercentOfXlasDeviceBytes) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModuleFile(testing::JaxCorpusDump(GetParam(), "after").string());
  ASSERT_TRUE(module.ok()) << module.status();
  const int64_t before = DeviceBytes(**module);
  const int64_t limit = before * 8 / 10;
  absl::StatusOr<MemoryFitMetrics> metrics =
      RunPass(**module, {{"memory-limit", std::to_string(limit)}});
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  EXPECT_TRUE(metrics->fits);
  EXPECT_LE(DeviceBytes(**module), limit);
  EXPECT_GT(metrics->recompute_flops + static_cast<int64_t>(metrics->decisions.size()), 0);
  EXPECT_LE(metrics->floor_bytes, metrics->device_bytes_after);
  EXPECT_TRUE(VerifyHloModule(**module).ok()) << VerifyHloModule(**module);
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusRematerializationTest,
                         ::testing::Values("batch_norm", "cnn_maxpool", "kv_decode",
                                           "transformer_adam"));

// The measured choice is never worse than XLA's greedy estimate here, and
// costs no more FLOPs for the same limit.
TEST(RematerializationTest, EvaluatedChoicesBeatTheEstimateOnTheTransformer) {
  auto load = [] {
    return ParseHloModuleFile(testing::JaxCorpusDump("transformer_adam", "after").string());
  };
  absl::StatusOr<std::unique_ptr<HloModule>> evaluated = load(), estimated = load();
  ASSERT_TRUE(evaluated.ok() && estimated.ok());
  const int64_t limit = DeviceBytes(**evaluated) * 85 / 100;
  absl::StatusOr<MemoryFitMetrics> by_measure =
      RunPass(**evaluated, {{"memory-limit", std::to_string(limit)}});
  ASSERT_TRUE(by_measure.ok()) << by_measure.status();
  absl::StatusOr<MemoryFitMetrics> by_estimate =
      RunPass(**estimated, {{"memory-limit", std::to_string(limit)},
                            {"selection", std::string("estimate")},
                            {"fail-over-limit", std::string("false")}});
  ASSERT_TRUE(by_estimate.ok()) << by_estimate.status();
  EXPECT_TRUE(by_measure->fits);
  if (by_estimate->fits) {
    EXPECT_LE(by_measure->recompute_flops, by_estimate->recompute_flops);
  } else {
    EXPECT_LT(by_measure->device_bytes_after, by_estimate->device_bytes_after);
  }
}

// Through a pipeline: the pass reads the limit the pipeline sets.
TEST(RematerializationTest, PipelineLimitReachesThePass) {
  PluginHost host;
  ASSERT_TRUE(
      host.LoadPlugin(std::filesystem::path(HMO_TEST_PLUGIN_DIR) / "libhmo_rematerialization.so")
          .ok());
  absl::StatusOr<PipelineSpec> spec = ParsePipelineText("rematerialization", "<test>");
  ASSERT_TRUE(spec.ok()) << spec.status();
  absl::StatusOr<ResolvedPipeline> pipeline = ResolvePipeline(*spec, host.registries().passes);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  auto module = test_support::ParseTestModule(testing::kLateUse);
  pipeline->memory_limit = DeviceBytes(*module) - 4096;
  PassManager manager(*pipeline, host.registries());
  absl::StatusOr<PipelineRunSummary> summary = manager.Run(*module);
  ASSERT_TRUE(summary.ok()) << summary.status();
  ASSERT_TRUE(summary->memory_limit.has_value());
  EXPECT_TRUE(summary->memory_limit->fits());
  ASSERT_EQ(summary->runs.size(), 1u);
  EXPECT_THAT(summary->runs[0].report, HasSubstr("step 1: recompute big in main"));
}

}  // namespace
}  // namespace hmo
