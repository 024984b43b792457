// Golden tests of memory-space-propagation: every *.hlo file in this folder
// is a case (see tests/support/golden_test_support.h).

#include "gtest/gtest.h"
#include "support/golden_test_support.h"

namespace hmo {
namespace {

PluginHost& Host() { return golden::TestPluginHost("propagation"); }

class PropagationGoldenTest : public ::testing::TestWithParam<golden::GoldenCase> {};

TEST_P(PropagationGoldenTest, MatchesExpected) { golden::RunGoldenCase(GetParam(), Host()); }

INSTANTIATE_TEST_SUITE_P(Cases, PropagationGoldenTest,
                         ::testing::ValuesIn(golden::FindGoldenCases(HMO_GOLDEN_CASE_DIR)),
                         [](const ::testing::TestParamInfo<golden::GoldenCase>& info) {
                           return info.param.name;
                         });

TEST(PropagationPluginTest, RegistersThePass) {
  const RegisteredPass* pass = Host().registries().passes.Find("memory-space-propagation");
  ASSERT_NE(pass, nullptr);
  EXPECT_EQ(pass->plugin, "propagation");
  EXPECT_NE(pass->registration.options.Find("computations"), nullptr);
}

}  // namespace
}  // namespace hmo
