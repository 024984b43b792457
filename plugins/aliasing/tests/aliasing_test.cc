// Golden tests of optimize-input-output-buffer-alias and copy-elimination:
// every *.hlo file in this folder is a case (see
// tests/support/golden_test_support.h).

#include "gtest/gtest.h"
#include "support/golden_test_support.h"

namespace hmo {
namespace {

PluginHost& Host() { return golden::TestPluginHost("aliasing"); }

class AliasingGoldenTest : public ::testing::TestWithParam<golden::GoldenCase> {};

TEST_P(AliasingGoldenTest, MatchesExpected) { golden::RunGoldenCase(GetParam(), Host()); }

INSTANTIATE_TEST_SUITE_P(Cases, AliasingGoldenTest,
                         ::testing::ValuesIn(golden::FindGoldenCases(HMO_GOLDEN_CASE_DIR)),
                         [](const ::testing::TestParamInfo<golden::GoldenCase>& info) {
                           return info.param.name;
                         });

TEST(AliasingPluginTest, RegistersBothPasses) {
  const PassRegistry& passes = Host().registries().passes;
  for (const char* name : {"optimize-input-output-buffer-alias", "copy-elimination"}) {
    const RegisteredPass* pass = passes.Find(name);
    ASSERT_NE(pass, nullptr) << name;
    EXPECT_EQ(pass->plugin, "aliasing");
  }
  EXPECT_NE(passes.Find("optimize-input-output-buffer-alias")
                ->registration.options.Find("registered-buffer-donor-only"),
            nullptr);
}

}  // namespace
}  // namespace hmo
