// The fit pass: recomputation against host offload at a backend's rates.

#include "fit.h"

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hmo/analysis/memory_limit.h"
#include "hmo/base/status_macros.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/instruction_source.h"
#include "hmo/ir/layout.h"
#include "hmo/pass/analysis_manager.h"
#include "hmo/pass/pass_context.h"
#include "hmo/plugin/plugin_host.h"
#include "hmo/text/hlo_parser.h"
#include "hmo/verifier/hlo_verifier.h"
#include "fitting_test_support.h"
#include "jax_corpus.h"
#include "support/parsed_module.h"
#include "support/recording_progress.h"

namespace hmo {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Loads the backends whose rates the pass reads.
PluginHost& Host() {
  static PluginHost* host = [] {
    auto* host = new PluginHost();
    const std::filesystem::path dir = HMO_TEST_PLUGIN_DIR;
    for (const char* name : {"libhmo_cpu_backend.so", "libhmo_gpu_backend.so"}) {
      absl::Status status = host->LoadPlugin(dir / name);
      EXPECT_TRUE(status.ok()) << status;
    }
    return host;
  }();
  return *host;
}

absl::StatusOr<MemoryFitMetrics> RunFit(HloModule& module,
                                        std::vector<PassOptionAssignment> options) {
  return testing::RunMemoryLimitPass<FitPass>(module, std::move(options), Host());
}

using testing::DeviceBytes;
using testing::EntryOrder;

TEST(FitTest, OffloadKeepsTheValueOnTheHostAcrossThePeak) {
  auto module = test_support::ParseTestModule(testing::kEarlyAndLateUse);
  const int64_t before = DeviceBytes(*module);
  absl::StatusOr<MemoryFitMetrics> metrics = RunFit(
      *module, {{"memory-limit", std::to_string(before - 1)}, {"recompute", std::string("false")}});
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  EXPECT_TRUE(metrics->fits);
  ASSERT_EQ(metrics->decisions.size(), 1u);
  EXPECT_EQ(metrics->decisions[0].kind, MemoryFitMetrics::Decision::Kind::kOffload);
  EXPECT_EQ(metrics->decisions[0].change, "big to host");
  EXPECT_EQ(metrics->decisions[0].transferred_bytes, 8192);
  EXPECT_EQ(metrics->offloaded_bytes, 4096);
  EXPECT_EQ(metrics->recompute_flops, 0);
  // To the host after its last use before the peak, back before the use
  // after it.
  EXPECT_THAT(EntryOrder(*module), ElementsAre("p", "big", "a", "big.to_host", "c", "d", "e", "f",
                                               "big.to_device", "out"));
  const HloInstruction* to_host =
      module->entry_computation()->GetInstructionWithName("big.to_host");
  ASSERT_NE(to_host, nullptr);
  EXPECT_EQ(to_host->shape().memory_space(), Layout::kHostMemorySpace);
  EXPECT_TRUE(VerifyHloModule(*module).ok()) << VerifyHloModule(*module);
}

// kEarlyAndLateUse with metadata: the fusion %big has none of its own, its
// fused negate and the multiply beside it name the user's lines.
std::string WithMetadata(std::string text) {
  auto add = [&text](const std::string& line, const std::string& metadata) {
    const size_t at = text.find(line);
    ASSERT_NE(at, std::string::npos) << line;
    text.insert(at + line.size(), ", metadata={" + metadata + "}");
  };
  add("negate(%param_0)", R"(op_name="jit(step)/neg" source_file="model.py" source_line=7)");
  add("multiply(%p, %big)", R"(op_name="jit(step)/mul" source_file="model.py" source_line=9)");
  return text;
}

TEST(FitTest, EachDecisionNamesTheSourceOfItsValue) {
  auto module = test_support::ParseTestModule(WithMetadata(testing::kEarlyAndLateUse));
  const int64_t limit = DeviceBytes(*module) - 1;
  absl::StatusOr<MemoryFitMetrics> recompute =
      RunFit(*module, {{"memory-limit", std::to_string(limit)}});
  ASSERT_TRUE(recompute.ok()) << recompute.status();
  ASSERT_EQ(recompute->decisions.size(), 1u);
  const MemoryFitMetrics::Decision& decision = recompute->decisions[0];
  EXPECT_EQ(decision.kind, MemoryFitMetrics::Decision::Kind::kRecompute);
  EXPECT_EQ(decision.change, "big");
  // The fusion without metadata is named by its fused root.
  EXPECT_EQ(decision.source, "model.py:7");
  EXPECT_EQ(decision.op_name, "jit(step)/neg");
  EXPECT_THAT(decision.fused_sources, ElementsAre("model.py:7"));
  EXPECT_THAT(recompute->ToString(),
              HasSubstr(" measured); op jit(step)/neg; made at model.py:7\n"));

  // Offloaded, the same value; its copies carry its metadata.
  auto offloaded = test_support::ParseTestModule(WithMetadata(testing::kEarlyAndLateUse));
  absl::StatusOr<MemoryFitMetrics> offload = RunFit(
      *offloaded, {{"memory-limit", std::to_string(limit)}, {"recompute", std::string("false")}});
  ASSERT_TRUE(offload.ok()) << offload.status();
  ASSERT_EQ(offload->decisions.size(), 1u);
  EXPECT_EQ(offload->decisions[0].kind, MemoryFitMetrics::Decision::Kind::kOffload);
  EXPECT_EQ(offload->decisions[0].source, "model.py:7");
  EXPECT_THAT(offload->ToString(), HasSubstr("big to host in main: "));
  EXPECT_THAT(offload->ToString(), HasSubstr("; made at model.py:7\n"));
  const HloInstruction* to_device =
      offloaded->entry_computation()->GetInstructionWithName("big.to_device");
  ASSERT_NE(to_device, nullptr);
  EXPECT_EQ(InstructionSource(*to_device), "model.py:7");
}

TEST(FitTest, ADecisionOnAValueWithoutMetadataSaysSo) {
  auto module = test_support::ParseTestModule(testing::kEarlyAndLateUse);
  absl::StatusOr<MemoryFitMetrics> metrics =
      RunFit(*module, {{"memory-limit", std::to_string(DeviceBytes(*module) - 1)}});
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  ASSERT_EQ(metrics->decisions.size(), 1u);
  EXPECT_EQ(metrics->decisions[0].source, "");
  EXPECT_THAT(metrics->decisions[0].fused_sources, ::testing::IsEmpty());
  EXPECT_THAT(metrics->ToString(), HasSubstr(" measured); no source in the module's metadata\n"));
  EXPECT_THAT(metrics->ToString(), ::testing::Not(HasSubstr("made at")));
}

TEST(FitTest, TheBackendsRatesDecideBetweenRecomputeAndOffload) {
  // On the cpu backend, recomputing %big (1024 FLOPs, 4 KiB written) costs
  // less than 8 KiB over the host link; both free the same bytes.
  auto module = test_support::ParseTestModule(testing::kEarlyAndLateUse);
  const int64_t limit = DeviceBytes(*module) - 1;
  absl::StatusOr<MemoryFitMetrics> cpu = RunFit(*module, {{"memory-limit", std::to_string(limit)}});
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  ASSERT_EQ(cpu->decisions.size(), 1u);
  EXPECT_EQ(cpu->decisions[0].kind, MemoryFitMetrics::Decision::Kind::kRecompute);
  EXPECT_EQ(cpu->recompute_flops, 1024);

  absl::StatusOr<MemoryFitMetrics> unknown =
      RunFit(*module, {{"memory-limit", std::to_string(limit)}, {"backend", std::string("tpu")}});
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(unknown.status().message(), HasSubstr("no backend 'tpu'"));

  absl::StatusOr<PassOptions> neither = FitPass::OptionSchema().Bind(
      {{"recompute", std::string("false")}, {"offload", std::string("false")}});
  ASSERT_TRUE(neither.ok());
  EXPECT_FALSE(FitPass::Create(*neither).ok());
}

// XLA's optimized MLP training step at 80% of its device bytes: the copy
// that keeps the old weights cannot be recomputed, so rematerialization
// alone stops short (bench/fit); with offload it fits.
TEST(FitTest, OffloadFitsWhatRecomputationCannot) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModuleFile(testing::JaxCorpusDump("mlp_sgd", "after").string());
  ASSERT_TRUE(module.ok()) << module.status();
  const int64_t limit = DeviceBytes(**module) * 8 / 10;
  std::unique_ptr<HloModule> copy = (*module)->Clone();
  absl::StatusOr<MemoryFitMetrics> recompute_only =
      RunFit(*copy, {{"memory-limit", std::to_string(limit)}, {"offload", std::string("false")}});
  ASSERT_FALSE(recompute_only.ok());
  EXPECT_THAT(recompute_only.status().message(), HasSubstr("proven floor"));

  absl::StatusOr<MemoryFitMetrics> metrics =
      RunFit(**module, {{"memory-limit", std::to_string(limit)}});
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  EXPECT_TRUE(metrics->fits);
  EXPECT_GT(metrics->offloaded_bytes, 0);
  EXPECT_LE(DeviceBytes(**module), limit);
  EXPECT_TRUE(VerifyHloModule(**module).ok()) << VerifyHloModule(**module);
}

// XLA's scan transformer at 60% of its device bytes: the forward loop's
// stacked residuals and the backward loop's stacked gradients are loop
// state no whole-array change can move; kept on the host a slice per
// iteration, they fit, and nothing is recomputed.
TEST(FitTest, AScansStacksGoToTheHostASlicePerIteration) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModuleFile(testing::JaxCorpusDump("transformer_scan", "after").string());
  ASSERT_TRUE(module.ok()) << module.status();
  const int64_t limit = DeviceBytes(**module) * 6 / 10;
  absl::StatusOr<MemoryFitMetrics> metrics =
      RunFit(**module, {{"memory-limit", std::to_string(limit)}});
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  EXPECT_TRUE(metrics->fits);
  EXPECT_EQ(metrics->recompute_flops, 0);
  bool by_slices = false;
  for (const MemoryFitMetrics::Decision& decision : metrics->decisions) {
    by_slices |= absl::StrContains(decision.change, "to host by slices");
  }
  EXPECT_TRUE(by_slices) << metrics->ToString();
  // The floor leaves the stacks out: the fitted module is above it.
  EXPECT_LE(metrics->floor_bytes, metrics->device_bytes_after);
  EXPECT_LE(DeviceBytes(**module), limit);
  EXPECT_TRUE(VerifyHloModule(**module).ok()) << VerifyHloModule(**module);
}

// Candidates measured several at once lead to the choice measuring them one
// by one gives: the same decisions and the same order.
TEST(FitTest, MeasuringCandidatesAtOnceChangesNoChoice) {
  std::vector<std::vector<std::string>> orders;
  std::vector<std::string> reports;
  for (const char* threads : {"1", "3"}) {
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        ParseHloModuleFile(testing::JaxCorpusDump("transformer_adam", "after").string());
    ASSERT_TRUE(module.ok()) << module.status();
    const int64_t limit = DeviceBytes(**module) * 8 / 10;
    absl::StatusOr<MemoryFitMetrics> metrics = RunFit(
        **module, {{"memory-limit", std::to_string(limit)}, {"threads", std::string(threads)}});
    ASSERT_TRUE(metrics.ok()) << metrics.status();
    EXPECT_TRUE(metrics->fits);
    std::string decisions;
    for (const MemoryFitMetrics::Decision& decision : metrics->decisions) {
      decisions += decision.change + " " + std::to_string(decision.device_bytes_after) + "\n";
    }
    reports.push_back(decisions);
    orders.push_back(EntryOrder(**module));
  }
  EXPECT_EQ(reports[0], reports[1]);
  EXPECT_EQ(orders[0], orders[1]);
}

// Records what a search reports.
using test_support::RecordingProgress;

// Each step of the search is reported with the device bytes against the
// limit, and the report ends once, when the pass does.
TEST(FitTest, EachStepIsReportedToTheProgressSink) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModuleFile(testing::JaxCorpusDump("batch_norm", "after").string());
  ASSERT_TRUE(module.ok()) << module.status();
  const int64_t limit = DeviceBytes(**module) * 6 / 10;
  RecordingProgress progress;
  absl::StatusOr<MemoryFitMetrics> metrics = testing::RunMemoryLimitPass<FitPass>(
      **module, {{"memory-limit", std::to_string(limit)}}, Host(), {}, &progress);
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  EXPECT_TRUE(metrics->fits);
  // Every step taken, and those of searches that did not stay.
  ASSERT_GE(progress.Lines().size(), metrics->decisions.size());
  ASSERT_FALSE(progress.Lines().empty());
  EXPECT_THAT(progress.Lines().front(),
              HasSubstr(absl::StrCat("fit (bytes freed per second) 1/0 device ")));
  EXPECT_THAT(progress.Lines().back(), HasSubstr(absl::StrCat(" B against the limit ", limit)));
  EXPECT_EQ(progress.done_calls, 1);
}

// At a GPU's rates recomputing is cheap, and ranked by cost the search
// walks into a dead end on XLA's batch-norm step at half its device bytes;
// the fallback orders start again from the module as it came, and the
// one by bytes freed fits.
TEST(FitTest, WhenTheCheapestOrderStopsShortAnotherOrderFits) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModuleFile(testing::JaxCorpusDump("batch_norm", "after").string());
  ASSERT_TRUE(module.ok()) << module.status();
  const int64_t limit = DeviceBytes(**module) / 2;
  std::unique_ptr<HloModule> copy = (*module)->Clone();
  absl::StatusOr<MemoryFitMetrics> greedy = RunFit(*copy, {{"memory-limit", std::to_string(limit)},
                                                           {"backend", std::string("gpu")},
                                                           {"fallback", std::string("false")}});
  ASSERT_FALSE(greedy.ok());
  EXPECT_THAT(greedy.status().message(), HasSubstr("cannot fit the limit"));

  absl::StatusOr<MemoryFitMetrics> metrics =
      RunFit(**module, {{"memory-limit", std::to_string(limit)}, {"backend", std::string("gpu")}});
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  EXPECT_TRUE(metrics->fits);
  EXPECT_THAT(metrics->ranking, HasSubstr("bytes freed (by bytes freed per second it stopped at"));
  EXPECT_LE(DeviceBytes(**module), limit);
  // The module took the fallback's contents and kept its own name.
  EXPECT_EQ((*module)->name(), "jit_batch_norm_step");
  EXPECT_TRUE(VerifyHloModule(**module).ok()) << VerifyHloModule(**module);
}

}  // namespace
}  // namespace hmo
