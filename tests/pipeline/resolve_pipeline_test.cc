// Checking a parsed pipeline against the registered passes: unknown passes
// and option problems point at the right place; the printed YAML of a
// resolved pipeline reads back to the same pipeline.

#include "hmo/pipeline/resolved_pipeline.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hmo/pass/hlo_pass.h"
#include "hmo/pipeline/pipeline_text_parser.h"
#include "hmo/pipeline/pipeline_yaml_parser.h"
#include "hmo/pipeline/pipeline_yaml_printer.h"

namespace hmo {
namespace {

using ::testing::HasSubstr;

class NoOpPass : public HloPass {
 public:
  explicit NoOpPass(std::string name) : name_(std::move(name)) {}
  std::string_view name() const override { return name_; }
  absl::StatusOr<bool> Run(HloModule&, PassContext&) override { return false; }

 private:
  std::string name_;
};

void RegisterNoOp(PassRegistry& registry, std::string name, PassOptionSchema schema) {
  PassRegistration registration;
  registration.name = name;
  registration.description = "does nothing";
  registration.options = std::move(schema);
  registration.create = [name](const PassOptions&) -> absl::StatusOr<std::unique_ptr<HloPass>> {
    return std::make_unique<NoOpPass>(name);
  };
  ASSERT_TRUE(registry.Register(std::move(registration), "test").ok());
}

class ResolvePipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RegisterNoOp(passes_, "memory-scheduler",
                 PassOptionSchema()
                     .Required("strategy", PassOptionType::kString, "which strategy")
                     .Int("max-steps", 10, "cap")
                     .StringList("candidates", {}, "tries")
                     .String("empty-default", "", "a string that defaults to nothing"));
    RegisterNoOp(passes_, "simplify", PassOptionSchema());
  }

  std::string ErrorOf(std::string_view yaml) {
    auto spec = ParsePipelineYaml(yaml, "p.yaml");
    EXPECT_TRUE(spec.ok()) << spec.status();
    if (!spec.ok()) return "";
    auto resolved = ResolvePipeline(*spec, passes_);
    EXPECT_FALSE(resolved.ok());
    return resolved.ok() ? "" : std::string(resolved.status().message());
  }

  PassRegistry passes_;
};

TEST_F(ResolvePipelineTest, UnknownPassSuggestsTheClosestName) {
  EXPECT_EQ(ErrorOf("version: 1\npasses:\n  - simplify\n  - pass: memory-schedular\n"),
            "p.yaml:4:11: error: unknown pass 'memory-schedular' (did you mean "
            "'memory-scheduler'?)\n"
            "  - pass: memory-schedular\n"
            "          ^");
}

TEST_F(ResolvePipelineTest, UnknownPassWithNothingLoadedHintsAtTheSearchPath) {
  PassRegistry empty;
  auto spec = ParsePipelineText("memory-scheduler");
  ASSERT_TRUE(spec.ok());
  auto resolved = ResolvePipeline(*spec, empty);
  ASSERT_FALSE(resolved.ok());
  EXPECT_THAT(resolved.status().message(),
              HasSubstr("no passes are loaded (check --plugin-dir, HMO_PLUGIN_PATH"));
}

TEST_F(ResolvePipelineTest, UnknownOptionPointsAtTheKey) {
  EXPECT_THAT(ErrorOf("version: 1\npasses:\n  - pass: memory-scheduler\n    options:\n"
                      "      strategy: list\n      max-step: 3\n"),
              HasSubstr("p.yaml:6:7: error: pass 'memory-scheduler': unknown option 'max-step' "
                        "(did you mean 'max-steps'?)"));
}

TEST_F(ResolvePipelineTest, BadOptionValuePointsAtTheValue) {
  EXPECT_EQ(ErrorOf("version: 1\npasses:\n  - pass: memory-scheduler\n    options:\n"
                    "      strategy: list\n      max-steps: lots\n"),
            "p.yaml:6:18: error: pass 'memory-scheduler': option 'max-steps': expected an int, "
            "got 'lots'\n"
            "      max-steps: lots\n"
            "                 ^");
}

// A value the schema types but the pass refuses (its factory fails) is
// reported when the pipeline is resolved, at the option the message names.
TEST_F(ResolvePipelineTest, ValueThePassRefusesPointsAtTheValue) {
  PassRegistration picky;
  picky.name = "picky";
  picky.description = "refuses alignment 0";
  picky.options = PassOptionSchema().Int("alignment", 64, "offsets").Int("other", 1, "unused");
  picky.create = [](const PassOptions& options) -> absl::StatusOr<std::unique_ptr<HloPass>> {
    if (options.GetInt("alignment") <= 0) {
      return absl::InvalidArgumentError("option 'alignment' must be positive");
    }
    return std::make_unique<NoOpPass>("picky");
  };
  ASSERT_TRUE(passes_.Register(std::move(picky), "test").ok());
  EXPECT_EQ(ErrorOf("version: 1\npasses:\n  - pass: picky\n    options:\n      other: 2\n"
                    "      alignment: 0\n"),
            "p.yaml:6:18: error: pass 'picky': option 'alignment' must be positive\n"
            "      alignment: 0\n"
            "                 ^");
}

TEST_F(ResolvePipelineTest, MissingRequiredOptionPointsAtThePass) {
  EXPECT_THAT(ErrorOf("version: 1\npasses:\n  - fixed-point:\n      passes:\n"
                      "        - memory-scheduler\n"),
              HasSubstr("p.yaml:5:11: error: pass 'memory-scheduler': missing required option "
                        "'strategy' (string): which strategy"));
}

TEST_F(ResolvePipelineTest, BadDumpRegexPointsAtIt) {
  EXPECT_THAT(ErrorOf("version: 1\ndump:\n  to: d\n  after: \"(\"\npasses: [simplify]\n"),
              HasSubstr("p.yaml:4:10: error: 'dump.after' is not a valid regex"));
}

TEST_F(ResolvePipelineTest, TextFormErrorsAreColumnsOnOneLine) {
  auto spec = ParsePipelineText("simplify,memory-scheduler{strategy=list,max-steps=x}");
  ASSERT_TRUE(spec.ok());
  auto resolved = ResolvePipeline(*spec, passes_);
  ASSERT_FALSE(resolved.ok());
  EXPECT_THAT(resolved.status().message(),
              HasSubstr("<--passes>:1:51: error: pass 'memory-scheduler': option 'max-steps': "
                        "expected an int, got 'x'"));
}

TEST_F(ResolvePipelineTest, PrintedPipelineListsDefaultsAndReadsBackTheSame) {
  auto spec = ParsePipelineText(
      "simplify,fixed-point(max-iterations=3){memory-scheduler{strategy=list,candidates=[a,b]}}");
  ASSERT_TRUE(spec.ok()) << spec.status();
  auto resolved = ResolvePipeline(*spec, passes_);
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  const std::string yaml = PrintPipelineYaml(*resolved);
  EXPECT_EQ(yaml,
            "version: 1\n"
            "verify: changed\n"
            "passes:\n"
            "  - pass: simplify\n"
            "  - fixed-point:\n"
            "      max-iterations: 3\n"
            "      passes:\n"
            "        - pass: memory-scheduler\n"
            "          options:\n"
            "            strategy: list\n"
            "            max-steps: 10\n"
            "            candidates: [a, b]\n"
            "            empty-default: \"\"\n");
  auto reread = ParsePipelineYaml(yaml, "printed.yaml");
  ASSERT_TRUE(reread.ok()) << reread.status();
  auto reresolved = ResolvePipeline(*reread, passes_);
  ASSERT_TRUE(reresolved.ok()) << reresolved.status();
  EXPECT_EQ(PrintPipelineYaml(*reresolved), yaml);
  const ResolvedStep& nested = reresolved->steps[1].steps[0];
  EXPECT_EQ(nested.options, resolved->steps[1].steps[0].options);
  EXPECT_EQ(CountPassSteps(reresolved->steps), 2);
  // A memory limit is printed in bytes and reads back the same.
  auto limited =
      ParsePipelineYaml("version: 1\nmemory-limit: 2KiB\npasses: [simplify]\n", "l.yaml");
  ASSERT_TRUE(limited.ok()) << limited.status();
  auto limited_resolved = ResolvePipeline(*limited, passes_);
  ASSERT_TRUE(limited_resolved.ok()) << limited_resolved.status();
  EXPECT_EQ(limited_resolved->memory_limit, 2048);
  EXPECT_THAT(PrintPipelineYaml(*limited_resolved), HasSubstr("\nmemory-limit: 2048\n"));
}

TEST(PassRegistryTest, RejectsCollisionsNamingBothPluginsAndBadNames) {
  PassRegistry registry;
  RegisterNoOp(registry, "simplify", PassOptionSchema());
  PassRegistration again;
  again.name = "simplify";
  again.create = [](const PassOptions&) -> absl::StatusOr<std::unique_ptr<HloPass>> {
    return std::make_unique<NoOpPass>("simplify");
  };
  absl::Status clash = registry.Register(again, "other-plugin");
  EXPECT_EQ(clash.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(clash.message(),
            "pass 'simplify' from plugin 'other-plugin' is already registered by plugin 'test'");
  again.name = "Simplify_Pass";
  EXPECT_THAT(registry.Register(again, "p").message(), HasSubstr("is not kebab-case"));
  again.name = "fixed-point";
  EXPECT_THAT(registry.Register(again, "p").message(), HasSubstr("reserved"));
}

}  // namespace
}  // namespace hmo
