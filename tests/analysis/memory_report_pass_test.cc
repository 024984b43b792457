// The `memory-report` pass: registered by the framework, writes the full
// report or logs the summary against an earlier one, never changes the
// module.

#include "hmo/builtin_passes/framework_passes.h"
#include "hmo/builtin_passes/memory_report_pass.h"

#include <filesystem>

#include "analysis_test_util.h"
#include "gtest/gtest.h"
#include "hmo/pass/analysis_manager.h"
#include "hmo/pass/pass_context.h"
#include "hmo/pass/pipeline_run_state.h"
#include "hmo/plugin/plugin_registries.h"

namespace hmo {
namespace {

using ::hmo::testing::ParseOrDie;
using ::hmo::testing::ReadFileOrDie;

TEST(MemoryReportPassTest, RegisteredUnderTheFrameworkAndWritesJson) {
  PluginRegistries registries;
  ASSERT_TRUE(RegisterFrameworkPasses(registries.passes).ok());
  const RegisteredPass* registered = registries.passes.Find("memory-report");
  ASSERT_NE(registered, nullptr);

  const std::filesystem::path out =
      std::filesystem::temp_directory_path() / "hmo_report_pass_{module}.json";
  PassOptionAssignment format{"format", std::string("json")};
  PassOptionAssignment output{"output", out.string()};
  PassOptionAssignment heap{"heap", std::string("xla")};
  auto options = registered->registration.options.Bind({format, output, heap});
  ASSERT_TRUE(options.ok()) << options.status();
  auto pass = registered->registration.create(*options);
  ASSERT_TRUE(pass.ok()) << pass.status();

  auto module = ParseOrDie(R"(
HloModule reported, is_scheduled=true
ENTRY e {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}
)");
  const std::string before = module->ToString();
  AnalysisManager analyses(*module);
  PassContext context(analyses, registries);
  auto changed = (*pass)->Run(*module, context);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
  EXPECT_EQ(module->ToString(), before);
  const std::filesystem::path written =
      std::filesystem::temp_directory_path() / "hmo_report_pass_reported.json";
  const std::string json = ReadFileOrDie(written.string());
  EXPECT_NE(json.find("\"module\": \"reported\""), std::string::npos);
  EXPECT_NE(json.find("\"argument_size_in_bytes\": 16"), std::string::npos);
  std::filesystem::remove(written);
}

TEST(MemoryReportPassTest, RejectsUnknownFormats) {
  PluginRegistries registries;
  ASSERT_TRUE(RegisterFrameworkPasses(registries.passes).ok());
  const RegisteredPass* registered = registries.passes.Find("memory-report");
  ASSERT_NE(registered, nullptr);
  // An enum option: refused where the pipeline is read, at the value.
  PassOptionProblem problem;
  auto options = registered->registration.options.Bind(
      {PassOptionAssignment{"format", std::string("pdf")}}, &problem);
  ASSERT_FALSE(options.ok());
  EXPECT_NE(options.status().message().find(
                "option 'format' must be one of summary, table, json, html, not 'pdf'"),
            std::string::npos)
      << options.status();
  EXPECT_EQ(problem.part, PassOptionProblem::Part::kValue);
}

TEST(MemoryReportPassTest, SummaryComparesWithAnEarlierLabelAndReports) {
  PluginRegistries registries;
  ASSERT_TRUE(RegisterFrameworkPasses(registries.passes).ok());
  const RegisteredPass* registered = registries.passes.Find("memory-report");
  ASSERT_NE(registered, nullptr);
  auto make = [&](std::vector<PassOptionAssignment> assignments) {
    auto options = registered->registration.options.Bind(assignments);
    EXPECT_TRUE(options.ok()) << options.status();
    auto pass = registered->registration.create(*options);
    EXPECT_TRUE(pass.ok()) << pass.status();
    return std::move(*pass);
  };
  auto before = make({PassOptionAssignment{"label", std::string("before")}});
  auto after = make({PassOptionAssignment{"label", std::string("after")},
                     PassOptionAssignment{"baseline", std::string("before")}});
  auto missing = make({PassOptionAssignment{"baseline", std::string("nosuch")}});

  auto module = ParseOrDie(R"(
HloModule summarized, is_scheduled=true
ENTRY e {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}
)");
  AnalysisManager analyses(*module);
  // The two reports belong to one pipeline run: they share its state.
  PipelineRunState run;
  PassContext first(analyses, registries, &run);
  ASSERT_TRUE(before->Run(*module, first).ok());
  PassContext second(analyses, registries, &run);
  ASSERT_TRUE(after->Run(*module, second).ok());
  // argument 16 + output 16: 32 bytes on the device, nothing moved.
  EXPECT_NE(second.report().find("memory-report [after] summarized (scheduled)"),
            std::string::npos)
      << second.report();
  EXPECT_NE(second.report().find("device 32 B"), std::string::npos) << second.report();
  EXPECT_NE(second.report().find("vs [before]: device 32 -> 32 B (+0)"), std::string::npos)
      << second.report();
  PassContext third(analyses, registries, &run);
  EXPECT_EQ(missing->Run(*module, third).status().code(), absl::StatusCode::kFailedPrecondition);
  // Another run does not see this run's reports (they used to live in a
  // process-wide store).
  PipelineRunState next_run;
  PassContext fourth(analyses, registries, &next_run);
  EXPECT_EQ(after->Run(*module, fourth).status().code(), absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace hmo
