// Golden tests of convert-memory-placement-to-internal-annotations and
// host-offloader: every *.hlo file in this folder is a case (see
// tests/support/golden_test_support.h).

#include <string>

#include "gtest/gtest.h"
#include "support/golden_test_support.h"

namespace hmo {
namespace {

PluginHost& Host() { return golden::TestPluginHost("placement"); }

class PlacementGoldenTest : public ::testing::TestWithParam<golden::GoldenCase> {};

TEST_P(PlacementGoldenTest, MatchesExpected) { golden::RunGoldenCase(GetParam(), Host()); }

INSTANTIATE_TEST_SUITE_P(Cases, PlacementGoldenTest,
                         ::testing::ValuesIn(golden::FindGoldenCases(HMO_GOLDEN_CASE_DIR)),
                         [](const ::testing::TestParamInfo<golden::GoldenCase>& info) {
                           return info.param.name;
                         });

TEST(PlacementPluginTest, RegistersBothPasses) {
  const PassRegistry& passes = Host().registries().passes;
  for (const char* name : {"convert-memory-placement-to-internal-annotations", "host-offloader"}) {
    const RegisteredPass* pass = passes.Find(name);
    ASSERT_NE(pass, nullptr) << name;
    EXPECT_EQ(pass->plugin, "placement");
  }
  const RegisteredPass* offloader = passes.Find("host-offloader");
  ASSERT_NE(offloader->registration.options.Find("update-entry-layout"), nullptr);
}

}  // namespace
}  // namespace hmo
