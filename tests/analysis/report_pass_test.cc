// The `report` pass: registered by the framework, writes the report, never
// changes the module.

#include "hmo/analysis/report_pass.h"

#include <filesystem>

#include "analysis_test_util.h"
#include "gtest/gtest.h"
#include "hmo/pass/analysis_manager.h"
#include "hmo/pass/pass_context.h"
#include "hmo/plugin/plugin_registries.h"

namespace hmo {
namespace {

using ::hmo::testing::ParseOrDie;
using ::hmo::testing::ReadFileOrDie;

TEST(ReportPassTest, RegisteredUnderTheFrameworkAndWritesJson) {
  PluginRegistries registries;
  ASSERT_TRUE(RegisterFrameworkAnalysisPasses(registries.passes).ok());
  const RegisteredPass* registered = registries.passes.Find("report");
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

TEST(ReportPassTest, RejectsUnknownFormats) {
  PluginRegistries registries;
  ASSERT_TRUE(RegisterFrameworkAnalysisPasses(registries.passes).ok());
  const RegisteredPass* registered = registries.passes.Find("report");
  ASSERT_NE(registered, nullptr);
  auto options = registered->registration.options.Bind(
      {PassOptionAssignment{"format", std::string("pdf")}});
  ASSERT_TRUE(options.ok());
  EXPECT_FALSE(registered->registration.create(*options).ok());
}

}  // namespace
}  // namespace hmo
