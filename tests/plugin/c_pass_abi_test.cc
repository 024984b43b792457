// The C tier for passes (pass_abi.h, ABI 1.3): C plugins built as strict C99
// register passes whose options the host declares, types and checks; the
// module crosses as HLO text, and what comes back is parsed and verified
// before it replaces the module.

#include <filesystem>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_replace.h"
#include "fmt/format.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/hlo_printer.h"
#include "hmo/pass/analysis_manager.h"
#include "hmo/pass/pass_context.h"
#include "hmo/plugin/plugin_host.h"
#include "hmo/text/hlo_parser.h"
#include "hmo/verifier/hlo_verifier.h"

namespace hmo {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

const fs::path kCPassDir = fs::path(HMO_BINARY_DIR) / "tests/fixtures/c_passes";
const fs::path kBrokenDir = fs::path(HMO_BINARY_DIR) / "tests/fixtures/broken";

constexpr std::string_view kModule = R"(
HloModule cpass, is_scheduled=true

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b), metadata={op_name="sum \"%quoted\""}
}

ENTRY main {
  p = f32[8] parameter(0)
  z = f32[] constant(0)
  n = f32[8] negate(p)
  ROOT r = f32[] reduce(n, z), dimensions={0}, to_apply=add
}
)";

class CPassTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(host_.LoadPlugin(kCPassDir / "libhmo_fixture_c_passes.so").ok());
    ASSERT_TRUE(host_.LoadPlugin(kCPassDir / "libhmo_example_prefix_names.so").ok());
    auto module = ParseHloModule(kModule);
    ASSERT_TRUE(module.ok()) << module.status();
    module_ = *std::move(module);
  }

  // Creates pass `name` with `assignments` and runs it on module_.
  absl::StatusOr<bool> Run(std::string_view name,
                           std::vector<PassOptionAssignment> assignments = {}) {
    const RegisteredPass* registered = host_.registries().passes.Find(name);
    if (registered == nullptr) return absl::NotFoundError(std::string(name));
    absl::StatusOr<PassOptions> options = registered->registration.options.Bind(assignments);
    if (!options.ok()) return options.status();
    absl::StatusOr<std::unique_ptr<HloPass>> pass = registered->registration.create(*options);
    if (!pass.ok()) return pass.status();
    AnalysisManager analyses(*module_);
    PassContext context(analyses, host_.registries());
    return (*pass)->Run(*module_, context);
  }

  PluginHost host_;
  std::unique_ptr<HloModule> module_;
};

PassOptionAssignment Scalar(std::string key, std::string value) {
  return {std::move(key), std::move(value)};
}

TEST_F(CPassTest, AC99PluginRegistersPassesAsACPlugin) {
  ASSERT_EQ(host_.plugins().size(), 2u);
  const LoadedPlugin& plugin = host_.plugins()[0];
  EXPECT_EQ(plugin.name, "fixture-c-passes");
  EXPECT_FALSE(plugin.cxx);
  EXPECT_EQ(plugin.abi_minor, 3u);
  EXPECT_THAT(plugin.passes, ElementsAre("c-echo-options", "c-identity", "c-no-result",
                                         "c-unparsable-result", "c-unverifiable-result"));
  EXPECT_THAT(host_.plugins()[1].passes, ElementsAre("prefix-names"));
  const RegisteredPass* echo = host_.registries().passes.Find("c-echo-options");
  ASSERT_NE(echo, nullptr);
  EXPECT_EQ(echo->plugin, "fixture-c-passes");
  EXPECT_EQ(echo->registration.description, "fails, listing the options it received");
}

TEST_F(CPassTest, TheDeclarationsBecomeATypedSchema) {
  const PassOptionSchema& schema =
      host_.registries().passes.Find("c-echo-options")->registration.options;
  ASSERT_EQ(schema.specs().size(), 6u);
  std::vector<PassOptionType> types;
  for (const PassOptionSpec& spec : schema.specs()) types.push_back(spec.type);
  EXPECT_THAT(types, ElementsAre(PassOptionType::kBool, PassOptionType::kInt,
                                 PassOptionType::kDouble, PassOptionType::kString,
                                 PassOptionType::kString, PassOptionType::kStringList));
  EXPECT_EQ(schema.Find("count")->default_value, PassOptionValue(int64_t{3}));
  EXPECT_EQ(schema.Find("ratio")->default_value, PassOptionValue(0.5));
  EXPECT_TRUE(schema.Find("label")->required);
  EXPECT_THAT(schema.Find("mode")->allowed_values, ElementsAre("fast", "slow"));
  EXPECT_EQ(schema.Find("names")->default_value,
            PassOptionValue(std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(schema.Find("flag")->help, "a bool");
}

TEST_F(CPassTest, TypedValuesReachThePass) {
  absl::StatusOr<bool> run =
      Run("c-echo-options", {Scalar("label", "x"),
                             Scalar("count", "-7"),
                             Scalar("flag", "true"),
                             Scalar("ratio", "0.25"),
                             Scalar("mode", "slow"),
                             {"names", std::vector<std::string>{"p", "q", "r"}}});
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(run.status().message(),
            "pass 'c-echo-options' (plugin 'fixture-c-passes') failed on module 'cpass': "
            "flag=1 count=-7 ratio=0.25 label=x mode=slow names=[p,q,r]");
}

TEST_F(CPassTest, DefaultsReachThePassWhereThePipelineGivesNone) {
  absl::StatusOr<bool> run = Run("c-echo-options", {Scalar("label", "y")});
  ASSERT_FALSE(run.ok());
  EXPECT_THAT(std::string(run.status().message()),
              HasSubstr("flag=0 count=3 ratio=0.5 label=y mode=fast names=[a,b]"));
}

TEST_F(CPassTest, TheHostRefusesBadValuesBeforeThePassRuns) {
  for (const auto& assignments : std::vector<std::vector<PassOptionAssignment>>{
           {},                                                  // label is required
           {Scalar("label", "x"), Scalar("mode", "medium")},    // not an allowed value
           {Scalar("label", "x"), Scalar("count", "many")},     // not an int
           {Scalar("label", "x"), Scalar("colour", "red")}}) {  // not declared
    absl::StatusOr<bool> run = Run("c-echo-options", assignments);
    ASSERT_FALSE(run.ok());
    EXPECT_EQ(run.status().code(), absl::StatusCode::kInvalidArgument) << run.status();
    EXPECT_THAT(std::string(run.status().message()), ::testing::Not(HasSubstr("flag=")));
  }
}

TEST_F(CPassTest, TheSameTextOrNoTextIsNoChange) {
  const std::string before = module_->ToString();
  for (std::string_view pass : {"c-identity", "c-no-result"}) {
    absl::StatusOr<bool> run = Run(pass);
    ASSERT_TRUE(run.ok()) << run.status();
    EXPECT_FALSE(*run) << pass;
    EXPECT_EQ(module_->ToString(), before) << pass;
  }
}

TEST_F(CPassTest, TextThatDoesNotParseIsAnErrorWithItsPlace) {
  const std::string before = module_->ToString();
  absl::StatusOr<bool> run = Run("c-unparsable-result");
  ASSERT_FALSE(run.ok());
  EXPECT_THAT(std::string(run.status().message()),
              StartsWith("pass 'c-unparsable-result' (plugin 'fixture-c-passes') returned HLO "
                         "text that does not parse:\n<output of pass 'c-unparsable-result' "
                         "(plugin 'fixture-c-passes')>:5:1: error: expected ')'"));
  EXPECT_EQ(module_->ToString(), before);
}

TEST_F(CPassTest, AModuleThatDoesNotVerifyIsAnError) {
  const std::string before = module_->ToString();
  absl::StatusOr<bool> run = Run("c-unverifiable-result");
  ASSERT_FALSE(run.ok());
  EXPECT_THAT(std::string(run.status().message()),
              StartsWith("pass 'c-unverifiable-result' (plugin 'fixture-c-passes') returned a "
                         "module that does not verify"));
  EXPECT_THAT(std::string(run.status().message()), HasSubstr("f32[3]"));
  EXPECT_EQ(module_->ToString(), before);
}

// The SDK example's C pass, built in-tree as strict C99: its result replaces
// the module, which keeps its name and schedule and differs only in names.
TEST_F(CPassTest, TheExamplesPrefixNamesRenamesEverythingAndOnlyThat) {
  HloPrintOptions percent = HloPrintOptions::Canonical();
  percent.print_percent = true;
  const std::string before = PrintHloModule(*module_, percent);
  absl::StatusOr<bool> run = Run("prefix-names", {Scalar("prefix", "c_")});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_TRUE(*run);
  ASSERT_TRUE(VerifyHloModule(*module_).ok());
  EXPECT_EQ(module_->name(), "cpass");
  EXPECT_TRUE(module_->has_schedule());
  for (const HloComputation* computation : module_->computations()) {
    EXPECT_THAT(computation->name(), StartsWith("c_"));
    for (const HloInstruction* instruction : computation->instructions()) {
      EXPECT_THAT(instruction->name(), StartsWith("c_"));
    }
  }
  // The quoted metadata kept its `%`.
  const std::string after = PrintHloModule(*module_, percent);
  EXPECT_THAT(after, HasSubstr(R"(op_name="sum \"%quoted\"")"));
  EXPECT_EQ(absl::StrReplaceAll(after, {{"%c_", "%"}}), before);
  // An empty prefix hands back nothing: no change.
  run = Run("prefix-names", {Scalar("prefix", "")});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_FALSE(*run);
}

TEST(CPassLoaderTest, AMalformedDeclarationRefusesThePluginNamingTheFault) {
  const std::vector<std::string> faults = {
      "C pass 'c-broken-declaration' of plugin 'broken-c-pass' enum option 'mode' has default "
      "'medium', which is not among its values",
      "C pass 'c-broken-declaration' of plugin 'broken-c-pass' option key 'Bad_Key' is not "
      "kebab-case",
      "C pass 'c-broken-declaration' of plugin 'broken-c-pass' has a NULL run function",
      "C pass 'c-broken-declaration' of plugin 'broken-c-pass' option 'count' has default "
      "'many':"};
  for (size_t i = 0; i < faults.size(); ++i) {
    const fs::path file = kBrokenDir / fmt::format("libhmo_broken_c_pass_declaration_{}.so", i + 1);
    PluginHost host;
    absl::Status status = host.LoadPlugin(file);
    ASSERT_FALSE(status.ok()) << file;
    EXPECT_THAT(std::string(status.message()),
                StartsWith(fmt::format("{}: plugin 'broken-c-pass': register_c_passes failed: {}",
                                       file.string(), faults[i])));
    EXPECT_TRUE(host.plugins().empty());
    EXPECT_EQ(host.registries().passes.Find("c-broken-declaration"), nullptr);
  }
}

}  // namespace
}  // namespace hmo
