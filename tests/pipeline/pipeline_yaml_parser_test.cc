// YAML pipelines: what a valid file reads as, and each error kind reported
// as file:line:col with the source line and a caret.

#include "hmo/pipeline/pipeline_yaml_parser.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace hmo {
namespace {

using ::testing::HasSubstr;

std::string ErrorOf(std::string_view yaml) {
  auto spec = ParsePipelineYaml(yaml, "p.yaml");
  EXPECT_FALSE(spec.ok()) << "parsed:\n" << yaml;
  return spec.ok() ? "" : std::string(spec.status().message());
}

TEST(PipelineYamlParserTest, ReadsEveryPart) {
  auto spec = ParsePipelineYaml(R"(version: 1
plugins: [scheduler, ./local/libmine.so]
verify: always
dump:
  to: /tmp/d
  after: "memory-.*"
passes:
  - simplify
  - pass: memory-scheduler
    options:
      strategy: list
      candidates: [a, b]
  - fixed-point:
      max-iterations: 4
      passes:
        - pass-b
        - pass: pass-c
)",
                                "p.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->version, 1);
  ASSERT_EQ(spec->plugins.size(), 2u);
  EXPECT_EQ(spec->plugins[1].reference, "./local/libmine.so");
  EXPECT_EQ(spec->plugins[1].position.line, 2);
  EXPECT_EQ(spec->verify, VerifyMode::kAlways);
  EXPECT_EQ(spec->dump.directory, "/tmp/d");
  EXPECT_EQ(spec->dump.after, "memory-.*");
  ASSERT_EQ(spec->steps.size(), 3u);
  EXPECT_EQ(spec->steps[0].pass_name, "simplify");
  EXPECT_TRUE(spec->steps[0].options.empty());
  const PipelineStepSpec& scheduler = spec->steps[1];
  EXPECT_EQ(scheduler.pass_name, "memory-scheduler");
  EXPECT_EQ(scheduler.position.line, 9);
  EXPECT_EQ(scheduler.position.column, 11);
  ASSERT_EQ(scheduler.options.size(), 2u);
  EXPECT_EQ(scheduler.options[0].assignment.key, "strategy");
  EXPECT_EQ(std::get<std::string>(scheduler.options[0].assignment.value), "list");
  EXPECT_EQ(scheduler.options[0].value_position.line, 11);
  EXPECT_EQ(scheduler.options[0].value_position.column, 17);
  EXPECT_THAT(std::get<std::vector<std::string>>(scheduler.options[1].assignment.value),
              ::testing::ElementsAre("a", "b"));
  const PipelineStepSpec& group = spec->steps[2];
  EXPECT_EQ(group.kind, PipelineStepSpec::Kind::kFixedPoint);
  EXPECT_EQ(group.max_iterations, 4);
  ASSERT_EQ(group.steps.size(), 2u);
  EXPECT_EQ(group.steps[1].pass_name, "pass-c");
}

TEST(PipelineYamlParserTest, DefaultsVerifyToChangedAndFixedPointCap) {
  auto spec = ParsePipelineYaml("version: 1\npasses:\n  - fixed-point:\n      passes: [a]\n",
                                "p.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->verify, VerifyMode::kChanged);
  EXPECT_EQ(spec->steps[0].max_iterations, kDefaultFixedPointIterations);
  EXPECT_EQ(spec->max_pass_runs, kDefaultMaxPassRuns);
}

TEST(PipelineYamlParserTest, MaxPassRunsIsAPositiveInteger) {
  auto spec = ParsePipelineYaml("version: 1\nmax-pass-runs: 40\npasses: [a]\n", "p.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->max_pass_runs, 40);
  EXPECT_THAT(ErrorOf("version: 1\nmax-pass-runs: 0\npasses: [a]\n"),
              HasSubstr("p.yaml:2:16: error: 'max-pass-runs' must be at least 1, got 0"));
  EXPECT_THAT(ErrorOf("version: 1\nmax-pass-runs: many\npasses: [a]\n"),
              HasSubstr("p.yaml:2:16: error: 'max-pass-runs' must be an integer"));
}

TEST(PipelineYamlParserTest, MemoryLimitInBytesOrBinaryUnits) {
  auto spec = ParsePipelineYaml("version: 1\nmemory-limit: 1.5GiB\npasses: [a]\n", "p.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->memory_limit, int64_t{3} << 29);
  EXPECT_EQ(spec->memory_limit_position.line, 2);
  auto none = ParsePipelineYaml("version: 1\npasses: [a]\n", "p.yaml");
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_FALSE(none->memory_limit.has_value());
  EXPECT_EQ(ErrorOf("version: 1\nmemory-limit: 80GB\npasses: [a]\n"),
            "p.yaml:2:15: error: 'memory-limit': invalid byte size '80GB': unknown unit 'GB' (B, "
            "KiB, MiB, GiB or TiB) (write e.g. 80GiB, 512MiB, 1.5GiB or 4096)\n"
            "memory-limit: 80GB\n"
            "              ^");
  EXPECT_THAT(ErrorOf("version: 1\nmemory-limit: [1]\npasses: [a]\n"), HasSubstr("p.yaml:2:15:"));
}

TEST(PipelineYamlParserTest, UnknownTopLevelKeyWithSuggestionAndCaret) {
  EXPECT_EQ(ErrorOf("version: 1\nverfy: always\npasses: [a]\n"),
            "p.yaml:2:1: error: unknown key 'verfy' at the top level (did you mean 'verify'?); "
            "expected one of: version, plugins, verify, dump, memory-limit, target, max-pass-runs, "
            "passes\n"
            "verfy: always\n"
            "^");
}

// yaml-cpp keeps the first of two equal keys; a pipeline must not silently
// lose the second.
TEST(PipelineYamlParserTest, AnAliasOfAnEnclosingListIsRefusedWithItsPosition) {
  // `passes: *p` inside the list anchored as &p would nest without end.
  EXPECT_THAT(ErrorOf("version: 1\npasses: &p\n  - fixed-point:\n      passes: *p\n"),
              HasSubstr("p.yaml:4:7: error: 'fixed-point' 'passes' is an alias of a list that "
                        "contains it"));
}

TEST(PipelineYamlParserTest, FixedPointNestsAtMostTwoDeep) {
  const std::string two =
      "version: 1\npasses:\n  - fixed-point:\n      passes:\n        - fixed-point:\n"
      "            passes: [a]\n";
  EXPECT_TRUE(ParsePipelineYaml(two, "p.yaml").ok());
  EXPECT_THAT(ErrorOf("version: 1\npasses:\n  - fixed-point:\n      passes:\n"
                      "        - fixed-point:\n            passes:\n"
                      "              - fixed-point:\n                  passes: [a]\n"),
              HasSubstr("nests fixed-point groups more than 2 deep"));
}

TEST(PipelineYamlParserTest, DuplicateKeysAreErrors) {
  EXPECT_EQ(ErrorOf("version: 1\npasses: [a]\npasses: [b]\n"),
            "p.yaml:3:1: error: duplicate key 'passes' at the top level\n"
            "passes: [b]\n"
            "^");
  EXPECT_THAT(ErrorOf("version: 1\npasses:\n  - pass: a\n    options:\n      k: 1\n      k: 2\n"),
              HasSubstr("p.yaml:6:7: error: duplicate key 'k' in 'options'"));
}

// yaml-cpp reads an unclosed quote to the end of the document.
TEST(PipelineYamlParserTest, UnclosedQuotesAreErrors) {
  EXPECT_EQ(ErrorOf("version: 1\npasses:\n  - \"memory-scheduler\n"),
            "p.yaml:3:5: error: a pass name starts a quoted string that is not closed on its line\n"
            "  - \"memory-scheduler\n"
            "    ^");
  EXPECT_THAT(ErrorOf("version: 1\npasses:\n  - pass: a\n    options:\n      k: 'v\n"),
              HasSubstr("option 'k' starts a quoted string that is not closed on its line"));
  auto quoted = ParsePipelineYaml("version: 1\npasses:\n  - 'it''s'\n  - \"a\\\"b\"\n", "p.yaml");
  ASSERT_TRUE(quoted.ok()) << quoted.status();
  EXPECT_EQ(quoted->steps[0].pass_name, "it's");
  EXPECT_EQ(quoted->steps[1].pass_name, "a\"b");
}

TEST(PipelineYamlParserTest, UnknownKeyInAPassEntry) {
  EXPECT_EQ(ErrorOf("version: 1\npasses:\n  - pass: a\n    option:\n      k: v\n"),
            "p.yaml:4:5: error: unknown key 'option' in a pass entry (did you mean 'options'?); "
            "expected one of: pass, options\n"
            "    option:\n"
            "    ^");
}

TEST(PipelineYamlParserTest, UnknownKeyInAFixedPointGroup) {
  EXPECT_THAT(ErrorOf("version: 1\npasses:\n  - fixed-point:\n      max-iteration: 3\n"
                      "      passes: [a]\n"),
              HasSubstr("p.yaml:4:7: error: unknown key 'max-iteration' in 'fixed-point' "
                        "(did you mean 'max-iterations'?)"));
}

TEST(PipelineYamlParserTest, WrongNodeKinds) {
  EXPECT_EQ(ErrorOf("version: 1\npasses: memory-scheduler\n"),
            "p.yaml:2:9: error: 'passes' must be a list, got a scalar\n"
            "passes: memory-scheduler\n"
            "        ^");
  EXPECT_THAT(ErrorOf("version: 1\npasses:\n  - pass: a\n    options: [x]\n"),
              HasSubstr("p.yaml:4:14: error: 'options' must be a mapping, got a list"));
  EXPECT_THAT(ErrorOf("version: 1\npasses:\n  - pass: a\n    options:\n      k: {x: 1}\n"),
              HasSubstr("p.yaml:5:10: error: option 'k' must be a scalar or a list, got a mapping"));
  EXPECT_THAT(ErrorOf("version: 1\nplugins: scheduler\npasses: [a]\n"),
              HasSubstr("p.yaml:2:10: error: 'plugins' must be a list, got a scalar"));
}

TEST(PipelineYamlParserTest, BadScalars) {
  EXPECT_THAT(ErrorOf("version: one\npasses: [a]\n"),
              HasSubstr("p.yaml:1:10: error: 'version' must be an integer, got 'one'"));
  EXPECT_THAT(ErrorOf("version: 2\npasses: [a]\n"),
              HasSubstr("p.yaml:1:10: error: unsupported pipeline version 2; this hmo reads "
                        "version 1"));
  EXPECT_THAT(ErrorOf("version: 1\nverify: sometimes\npasses: [a]\n"),
              HasSubstr("p.yaml:2:9: error: 'verify' is never, changed or always, got "
                        "'sometimes'"));
  EXPECT_THAT(ErrorOf("version: 1\npasses:\n  - fixed-point:\n      max-iterations: 0\n"
                      "      passes: [a]\n"),
              HasSubstr("p.yaml:4:23: error: 'max-iterations' must be at least 1, got 0"));
}

TEST(PipelineYamlParserTest, MissingRequiredParts) {
  EXPECT_THAT(ErrorOf("passes: [a]\n"), HasSubstr("p.yaml:1:1: error: missing 'version'"));
  EXPECT_THAT(ErrorOf("version: 1\n"), HasSubstr("p.yaml:1:1: error: missing 'passes'"));
  EXPECT_THAT(ErrorOf("version: 1\npasses:\n"),
              HasSubstr("p.yaml:2:1: error: 'passes' must list at least one pass"));
  EXPECT_THAT(ErrorOf("version: 1\npasses:\n  - options: {a: 1}\n"),
              HasSubstr("p.yaml:3:5: error: a pass entry needs 'pass: NAME'"));
}

TEST(PipelineYamlParserTest, YamlSyntaxErrorsKeepTheirPosition) {
  EXPECT_THAT(ErrorOf("version: 1\npasses: [a, b\n"), HasSubstr("p.yaml:3:1: error: "));
  EXPECT_THAT(ErrorOf("- just\n- a list\n"),
              HasSubstr("p.yaml:1:1: error: a pipeline is a mapping with 'version' and 'passes', "
                        "got a list"));
}

TEST(PipelineYamlParserTest, MissingFileIsNotFound) {
  auto spec = ParsePipelineYamlFile("/nonexistent/pipeline.yaml");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(spec.status().message(), HasSubstr("/nonexistent/pipeline.yaml"));
}

}  // namespace
}  // namespace hmo
