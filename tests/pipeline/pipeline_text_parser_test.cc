// The one-line pipeline form of --passes.

#include "hmo/pipeline/pipeline_text_parser.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace hmo {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(PipelineTextParserTest, ReadsPassesOptionsListsAndGroups) {
  auto spec = ParsePipelineText(
      "a, memory-scheduler{strategy=list, candidates=[x,'y z'], note=\"a,b\"},"
      "fixed-point(max-iterations=4){b,c{k=1}}");
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_EQ(spec->steps.size(), 3u);
  EXPECT_EQ(spec->steps[0].pass_name, "a");
  const PipelineStepSpec& scheduler = spec->steps[1];
  EXPECT_EQ(scheduler.pass_name, "memory-scheduler");
  EXPECT_EQ(scheduler.position.column, 4);
  ASSERT_EQ(scheduler.options.size(), 3u);
  EXPECT_EQ(std::get<std::string>(scheduler.options[0].assignment.value), "list");
  EXPECT_EQ(scheduler.options[0].key_position.column, 21);
  EXPECT_EQ(scheduler.options[0].value_position.column, 30);
  EXPECT_THAT(std::get<std::vector<std::string>>(scheduler.options[1].assignment.value),
              ElementsAre("x", "y z"));
  EXPECT_EQ(std::get<std::string>(scheduler.options[2].assignment.value), "a,b");
  const PipelineStepSpec& group = spec->steps[2];
  EXPECT_EQ(group.kind, PipelineStepSpec::Kind::kFixedPoint);
  EXPECT_EQ(group.max_iterations, 4);
  ASSERT_EQ(group.steps.size(), 2u);
  EXPECT_EQ(group.steps[1].pass_name, "c");
  EXPECT_EQ(std::get<std::string>(group.steps[1].options[0].assignment.value), "1");
}

TEST(PipelineTextParserTest, FixedPointWithoutSettingsUsesTheDefaultCap) {
  auto spec = ParsePipelineText("fixed-point{a}");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->steps[0].max_iterations, kDefaultFixedPointIterations);
}

TEST(PipelineTextParserTest, ValuesMayContainEquals) {
  auto spec = ParsePipelineText("s{opts=[seed=1,mode=x],expr=a=b}");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_THAT(std::get<std::vector<std::string>>(spec->steps[0].options[0].assignment.value),
              ElementsAre("seed=1", "mode=x"));
  EXPECT_EQ(std::get<std::string>(spec->steps[0].options[1].assignment.value), "a=b");
}

TEST(PipelineTextParserTest, EmptyListAndEmptyOptions) {
  auto spec = ParsePipelineText("a{}, b{l=[]}");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->steps[0].options.empty());
  EXPECT_TRUE(std::get<std::vector<std::string>>(spec->steps[1].options[0].assignment.value).empty());
}

TEST(PipelineTextParserTest, ErrorsPointAtTheColumn) {
  auto missing_brace = ParsePipelineText("a{k=v");
  ASSERT_FALSE(missing_brace.ok());
  EXPECT_EQ(missing_brace.status().message(),
            "<--passes>:1:6: error: expected '}' to close the options of 'a', got the end\n"
            "a{k=v\n"
            "     ^");
  auto missing_equals = ParsePipelineText("a{k}");
  ASSERT_FALSE(missing_equals.ok());
  EXPECT_THAT(missing_equals.status().message(),
              HasSubstr("1:4: error: expected '=' after option name 'k', got '}'"));
  auto bad_cap = ParsePipelineText("fixed-point(max-iterations=zero){a}");
  ASSERT_FALSE(bad_cap.ok());
  EXPECT_THAT(bad_cap.status().message(),
              HasSubstr("1:28: error: 'max-iterations' must be an integer of at least 1, got "
                        "'zero'"));
  auto bad_setting = ParsePipelineText("fixed-point(cap=2){a}");
  ASSERT_FALSE(bad_setting.ok());
  EXPECT_THAT(bad_setting.status().message(),
              HasSubstr("1:13: error: unknown fixed-point setting 'cap'"));
  auto trailing = ParsePipelineText("a}");
  ASSERT_FALSE(trailing.ok());
  EXPECT_THAT(trailing.status().message(), HasSubstr("1:2: error: unexpected '}'"));
  auto empty = ParsePipelineText("");
  ASSERT_FALSE(empty.ok());
  EXPECT_THAT(empty.status().message(), HasSubstr("expected a pass name, got the end"));
  auto unterminated = ParsePipelineText("a{k='v}");
  ASSERT_FALSE(unterminated.ok());
  EXPECT_THAT(unterminated.status().message(), HasSubstr("1:5: error: unterminated quoted string"));
}

}  // namespace
}  // namespace hmo

namespace hmo {
namespace {

TEST(PipelineTextParserTest, FixedPointNestsAtMostTwoDeep) {
  EXPECT_TRUE(ParsePipelineText("fixed-point{fixed-point{a}}").ok());
  auto deep = ParsePipelineText("fixed-point{fixed-point{fixed-point{a}}}");
  ASSERT_FALSE(deep.ok());
  EXPECT_THAT(std::string(deep.status().message()),
              ::testing::HasSubstr("1:25: error: fixed-point groups nest more than 2 deep"));
}

}  // namespace
}  // namespace hmo
