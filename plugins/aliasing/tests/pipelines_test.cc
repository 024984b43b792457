// The ready pipelines of pipelines/ (device-default.yaml, host-offload.yaml)
// on modules of tests/hlo: each runs through, verified after every change,
// leaves the module scheduled, and its memory-report shows the device and
// host memory before and after. On the JAX scan module with host-offload
// annotations, host-offload.yaml moves the two offloaded f32[16,16] buffers
// (2 x 1024 bytes) to the host and the device figure drops.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/golden_test_support.h"
#include "gtest/gtest.h"
#include "hmo/pipeline/changed_check.h"
#include "hmo/pipeline/pass_manager.h"
#include "hmo/pipeline/pipeline_yaml_parser.h"
#include "hmo/pipeline/resolved_pipeline.h"
#include "hmo/pipeline/verify_after_pass.h"
#include "hmo/text/hlo_parser.h"
#include "hmo/verifier/hlo_verifier.h"
#include "spdlog/sinks/ostream_sink.h"
#include "spdlog/spdlog.h"

namespace hmo {
namespace {

// What the "vs [before]" line of a memory report says.
struct ReportDelta {
  int64_t device_before = -1;
  int64_t device_after = -1;
  int64_t host_before = -1;
  int64_t host_after = -1;
};

// The deltas of every `memory-report [after]` in `log`, in order.
std::vector<ReportDelta> ParseReportDeltas(const std::string& log) {
  static const std::regex kDelta(
      R"(vs \[before\]: device (\d+) -> (\d+) B \([-+]\d+\), host (\d+) -> (\d+) B)");
  std::vector<ReportDelta> deltas;
  for (std::sregex_iterator it(log.begin(), log.end(), kDelta), end; it != end; ++it) {
    deltas.push_back({std::stoll((*it)[1]), std::stoll((*it)[2]), std::stoll((*it)[3]),
                      std::stoll((*it)[4])});
  }
  return deltas;
}

PluginHost& Host() {
  return golden::TestPluginHost(
      "placement,propagation,aliasing,scheduler,list_strategy,dfs_strategy,"
      "post_order_strategy,local_search_strategy,exact_strategy");
}

// Runs pipeline file `pipeline` on every module of tests/hlo/`file` and
// returns what was logged.
std::string RunPipelineFile(const std::string& pipeline, const std::string& file) {
  const std::filesystem::path pipeline_path =
      std::filesystem::path(HMO_SOURCE_DIR) / "pipelines" / pipeline;
  absl::StatusOr<PipelineSpec> spec = ParsePipelineYamlFile(pipeline_path);
  EXPECT_TRUE(spec.ok()) << spec.status();
  if (!spec.ok()) return "";
  absl::StatusOr<ResolvedPipeline> resolved = ResolvePipeline(*spec, Host().registries().passes);
  EXPECT_TRUE(resolved.ok()) << resolved.status();
  if (!resolved.ok()) return "";

  const std::filesystem::path module_path = std::filesystem::path(HMO_TEST_DATA_DIR) / "hlo" / file;
  absl::StatusOr<std::vector<std::unique_ptr<HloModule>>> modules =
      ParseHloModules(golden::ReadFileOrDie(module_path), module_path.string());
  EXPECT_TRUE(modules.ok()) << modules.status();
  if (!modules.ok()) return "";

  std::ostringstream log;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(log);
  spdlog::default_logger()->sinks().push_back(sink);
  for (std::unique_ptr<HloModule>& module : *modules) {
    PassManager manager(*resolved, Host().registries());
    VerifyAfterPassInstrumentation verify(
        resolved->verify, [](const HloModule& m) { return VerifyHloModule(m); });
    ChangedCheckInstrumentation changed_check;
    manager.AddInstrumentation(&verify);
    manager.AddInstrumentation(&changed_check);
    absl::StatusOr<PipelineRunSummary> summary = manager.Run(*module);
    EXPECT_TRUE(summary.ok()) << module->name() << ": " << summary.status();
    EXPECT_TRUE(module->has_schedule()) << module->name();
  }
  spdlog::default_logger()->sinks().pop_back();
  return log.str();
}

struct PipelineCase {
  std::string pipeline;
  std::string module_file;
  std::string name;
};

class PipelineFileTest : public ::testing::TestWithParam<PipelineCase> {};

TEST_P(PipelineFileTest, RunsAndReportsBeforeAndAfter) {
  const std::string log = RunPipelineFile(GetParam().pipeline, GetParam().module_file);
  const std::vector<ReportDelta> deltas = ParseReportDeltas(log);
  EXPECT_FALSE(deltas.empty()) << log;
  for (const ReportDelta& delta : deltas) {
    EXPECT_GT(delta.device_before, 0) << log;
    EXPECT_GT(delta.device_after, 0) << log;
    // Only annotated data moves to the host, and only in host-offload.yaml.
    if (GetParam().pipeline == "device-default.yaml" ||
        GetParam().module_file != "host_offload_jit_f_while_loops.hlo") {
      EXPECT_EQ(delta.host_after, delta.host_before) << log;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Pipelines, PipelineFileTest,
    ::testing::Values(
        PipelineCase{"device-default.yaml", "host_offload_jit_f_while_loops.hlo", "device_jit_f"},
        PipelineCase{"device-default.yaml", "tpu_s4_dus_fusion_memory_spaces.hlo", "device_tpu_s4"},
        PipelineCase{"device-default.yaml", "dynamic_update_slice_inplace_bf16.hlo",
                     "device_dus_inplace_bf16"},
        PipelineCase{"device-default.yaml", "if_conditional.hlo", "device_if_conditional"},
        PipelineCase{"device-default.yaml", "graphsage_tf.hlo", "device_graphsage"},
        PipelineCase{"device-default.yaml", "ssd_mobilenet_tf.hlo", "device_ssd_mobilenet"},
        PipelineCase{"device-default.yaml", "test_hlo.txt", "device_test_hlo"},
        PipelineCase{"device-default.yaml", "hlo_llama3_8b_cp_bf16_1x4.hlo", "device_llama3_8b"},
        PipelineCase{"device-default.yaml", "attention_model.hlo", "device_attention_model"},
        PipelineCase{"host-offload.yaml", "host_offload_jit_f_while_loops.hlo", "host_jit_f"},
        PipelineCase{"host-offload.yaml", "if_conditional.hlo", "host_if_conditional"}),
    [](const ::testing::TestParamInfo<PipelineCase>& info) { return info.param.name; });

// The JAX scan module: the first loop writes two f32[16,16] residuals into
// host buffers (MoveToHost + dynamic-update-slice), the second reads them
// back (dynamic-slice + MoveToDevice). host-offload.yaml makes those
// 2 x 1024 bytes host memory; device-default.yaml keeps everything on the
// device. On the device the residuals were one buffer (both loop carries
// start from the same broadcast, and without copy insertion the alias
// analysis merges them), so after the same scheduling the device figure of
// host-offload.yaml is at least that 1024-byte buffer lower.
TEST(HostOffloadPipelineTest, MovesTheScanResidualsToTheHost) {
  constexpr int64_t kResidualBytes = 16 * 16 * 4;
  const std::string offload_log =
      RunPipelineFile("host-offload.yaml", "host_offload_jit_f_while_loops.hlo");
  const std::vector<ReportDelta> offload = ParseReportDeltas(offload_log);
  ASSERT_EQ(offload.size(), 1u) << offload_log;
  EXPECT_EQ(offload[0].host_before, 0) << offload_log;
  EXPECT_EQ(offload[0].host_after, 2 * kResidualBytes) << offload_log;
  EXPECT_LT(offload[0].device_after, offload[0].device_before) << offload_log;

  const std::string device_log =
      RunPipelineFile("device-default.yaml", "host_offload_jit_f_while_loops.hlo");
  const std::vector<ReportDelta> device = ParseReportDeltas(device_log);
  ASSERT_EQ(device.size(), 1u) << device_log;
  EXPECT_EQ(device[0].host_after, 0) << device_log;
  EXPECT_EQ(device[0].device_before, offload[0].device_before);
  EXPECT_GE(device[0].device_after - offload[0].device_after, kResidualBytes)
      << offload_log << device_log;
}

}  // namespace
}  // namespace hmo
