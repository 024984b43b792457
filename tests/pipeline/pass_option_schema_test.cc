// A pass's option schema types what the user wrote, fills in defaults and
// names the first problem precisely enough for the pipeline parsers to point
// at it.

#include "hmo/pass/pass_option_schema.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace hmo {
namespace {

using ::testing::HasSubstr;

PassOptionSchema SchedulerLikeSchema() {
  return PassOptionSchema()
      .Required("strategy", PassOptionType::kString, "which strategy")
      .Int("max-steps", 10, "step cap")
      .Double("ratio", 0.5, "a ratio")
      .Bool("verbose", false, "talk more")
      .StringList("candidates", {"list", "dfs"}, "strategies to try");
}

TEST(PassOptionSchemaTest, BindsTypedValuesAndFillsDefaultsInDeclarationOrder) {
  auto options = SchedulerLikeSchema().Bind({{"ratio", std::string("0.25")},
                                            {"strategy", std::string("list")},
                                            {"verbose", std::string("true")}});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->GetString("strategy"), "list");
  EXPECT_EQ(options->GetInt("max-steps"), 10);
  EXPECT_DOUBLE_EQ(options->GetDouble("ratio"), 0.25);
  EXPECT_TRUE(options->GetBool("verbose"));
  EXPECT_THAT(options->GetStringList("candidates"), ::testing::ElementsAre("list", "dfs"));
  std::vector<std::string> keys;
  for (const auto& [key, value] : options->values()) keys.push_back(key);
  EXPECT_THAT(keys, ::testing::ElementsAre("strategy", "max-steps", "ratio", "verbose",
                                           "candidates"));
}

TEST(PassOptionSchemaTest, BindsAListValue) {
  auto options = SchedulerLikeSchema().Bind(
      {{"strategy", std::string("x")}, {"candidates", std::vector<std::string>{"a", "b", "c"}}});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_THAT(options->GetStringList("candidates"), ::testing::ElementsAre("a", "b", "c"));
}

TEST(PassOptionSchemaTest, UnknownKeySuggestsTheClosestAndPointsAtTheKey) {
  PassOptionProblem problem;
  auto options = SchedulerLikeSchema().Bind(
      {{"strategy", std::string("x")}, {"max-step", std::string("3")}}, &problem);
  ASSERT_FALSE(options.ok());
  EXPECT_THAT(options.status().message(), HasSubstr("unknown option 'max-step'"));
  EXPECT_THAT(options.status().message(), HasSubstr("did you mean 'max-steps'?"));
  EXPECT_EQ(problem.part, PassOptionProblem::Part::kKey);
  EXPECT_EQ(problem.assignment, 1u);
}

TEST(PassOptionSchemaTest, KeyGivenTwiceIsAnError) {
  PassOptionProblem problem;
  auto options = SchedulerLikeSchema().Bind(
      {{"strategy", std::string("x")}, {"strategy", std::string("y")}}, &problem);
  ASSERT_FALSE(options.ok());
  EXPECT_THAT(options.status().message(), HasSubstr("'strategy' is given twice"));
  EXPECT_EQ(problem.assignment, 1u);
}

TEST(PassOptionSchemaTest, WrongScalarTypesPointAtTheValue) {
  struct Case {
    std::string key, value, expected;
  };
  for (const Case& c : std::vector<Case>{{"max-steps", "ten", "expected an int, got 'ten'"},
                                         {"max-steps", "3.5", "expected an int, got '3.5'"},
                                         {"ratio", "half", "expected a double, got 'half'"},
                                         {"verbose", "yes", "expected a bool (true or false)"}}) {
    PassOptionProblem problem;
    auto options =
        SchedulerLikeSchema().Bind({{"strategy", std::string("x")}, {c.key, c.value}}, &problem);
    ASSERT_FALSE(options.ok()) << c.key << "=" << c.value;
    EXPECT_THAT(options.status().message(), HasSubstr(c.expected));
    EXPECT_EQ(problem.part, PassOptionProblem::Part::kValue);
    EXPECT_EQ(problem.assignment, 1u);
  }
}

TEST(PassOptionSchemaTest, ListAndScalarShapesMustMatch) {
  auto scalar_for_list = SchedulerLikeSchema().Bind(
      {{"strategy", std::string("x")}, {"candidates", std::string("list")}});
  ASSERT_FALSE(scalar_for_list.ok());
  EXPECT_THAT(scalar_for_list.status().message(),
              HasSubstr("'candidates' expects a string-list like [a, b], got 'list'"));
  auto list_for_int = SchedulerLikeSchema().Bind(
      {{"strategy", std::string("x")}, {"max-steps", std::vector<std::string>{"1"}}});
  ASSERT_FALSE(list_for_int.ok());
  EXPECT_THAT(list_for_int.status().message(), HasSubstr("'max-steps' expects a int, got a list"));
}

TEST(PassOptionSchemaTest, MissingRequiredOptionIsAboutThePass) {
  PassOptionProblem problem;
  auto options = SchedulerLikeSchema().Bind({}, &problem);
  ASSERT_FALSE(options.ok());
  EXPECT_THAT(options.status().message(),
              HasSubstr("missing required option 'strategy' (string): which strategy"));
  EXPECT_EQ(problem.part, PassOptionProblem::Part::kPass);
}

TEST(PassOptionSchemaTest, PassWithoutOptionsSaysSo) {
  auto options = PassOptionSchema().Bind({{"x", std::string("1")}});
  ASSERT_FALSE(options.ok());
  EXPECT_THAT(options.status().message(), HasSubstr("it takes no options"));
}

TEST(PassOptionSchemaTest, FormatsValuesInTheTextualPipelineSpelling) {
  EXPECT_EQ(FormatPassOptionValue(true), "true");
  EXPECT_EQ(FormatPassOptionValue(int64_t{-42}), "-42");
  EXPECT_EQ(FormatPassOptionValue(0.1), "0.1");
  EXPECT_EQ(FormatPassOptionValue(std::string("list")), "list");
  EXPECT_EQ(FormatPassOptionValue(std::vector<std::string>{"a", "b"}), "[a,b]");
  // A formatted double reads back as the same number.
  auto reread = ParsePassOptionScalar(PassOptionType::kDouble, FormatPassOptionValue(1.0 / 3));
  ASSERT_TRUE(reread.ok());
  EXPECT_EQ(std::get<double>(*reread), 1.0 / 3);
}

}  // namespace
}  // namespace hmo
