// Typed pass options: one declaration gives the schema the pipeline readers
// use and the read-back into the pass's options struct; enum options refuse
// values they do not list, at the value.

#include "hmo/pass/pass_option_binding.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace hmo {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

enum class Objective { kDeviceBytes, kHeapPeak };

struct SchedulerOptions {
  Objective objective = Objective::kDeviceBytes;
  int64_t alignment = 0;
  double slack = 0;
  bool verbose = false;
  std::vector<std::string> candidates;
  std::string label;
};

const PassOptionBinding<SchedulerOptions>& Binding() {
  static const PassOptionBinding<SchedulerOptions> binding =
      PassOptionBinding<SchedulerOptions>()
          .Enum("objective", &SchedulerOptions::objective, Objective::kDeviceBytes,
                {{"device-bytes", Objective::kDeviceBytes}, {"heap-peak", Objective::kHeapPeak}},
                "what is compared")
          .Option("alignment", &SchedulerOptions::alignment, 64, "offset alignment")
          .Option("slack", &SchedulerOptions::slack, 0.5, "a fraction")
          .Option("verbose", &SchedulerOptions::verbose, false, "talk more")
          .Option("candidates", &SchedulerOptions::candidates, {"list", "dfs"}, "strategies")
          .Option("label", &SchedulerOptions::label, "", "a name");
  return binding;
}

// The binding's keys declared by another schema, with `objective` a plain
// string defaulting to `objective`, and alignment a string or an int.
auto BindAnotherSchema(const std::string& objective, bool alignment_as_string) {
  PassOptionSchema schema;
  schema.String("objective", objective, "");
  if (alignment_as_string) {
    schema.String("alignment", "64", "");
  } else {
    schema.Int("alignment", 64, "");
  }
  return schema.Double("slack", 0.5, "")
      .Bool("verbose", false, "")
      .StringList("candidates", {}, "")
      .String("label", "", "")
      .Bind({});
}

TEST(PassOptionBindingTest, SchemaTypesEachOptionAsItsMember) {
  std::vector<std::pair<std::string, PassOptionType>> declared;
  for (const PassOptionSpec& spec : Binding().schema().specs()) {
    declared.emplace_back(spec.key, spec.type);
  }
  EXPECT_THAT(declared,
              ElementsAre(std::pair{std::string("objective"), PassOptionType::kString},
                          std::pair{std::string("alignment"), PassOptionType::kInt},
                          std::pair{std::string("slack"), PassOptionType::kDouble},
                          std::pair{std::string("verbose"), PassOptionType::kBool},
                          std::pair{std::string("candidates"), PassOptionType::kStringList},
                          std::pair{std::string("label"), PassOptionType::kString}));
  EXPECT_THAT(Binding().schema().Find("objective")->allowed_values,
              ElementsAre("device-bytes", "heap-peak"));
  EXPECT_EQ(Binding().schema().Find("objective")->default_value,
            PassOptionValue(std::string("device-bytes")));
  EXPECT_TRUE(Binding().schema().Find("label")->allowed_values.empty());
}

// An enum option reads its default as the value the default's name stands
// for, and a name the schema was not told of cannot reach the member.
TEST(PassOptionBindingTest, EnumOptionReadsTheValueItsNameStandsFor) {
  auto defaults = Binding().schema().Bind({});
  ASSERT_TRUE(defaults.ok()) << defaults.status();
  absl::StatusOr<SchedulerOptions> options = Binding().Read(*defaults);
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->objective, Objective::kDeviceBytes);

  // A schema that lets another name through: the binding refuses it.
  auto other = BindAnotherSchema("peak", /*alignment_as_string=*/false);
  ASSERT_TRUE(other.ok()) << other.status();
  absl::StatusOr<SchedulerOptions> read = Binding().Read(*other);
  ASSERT_FALSE(read.ok());
  EXPECT_THAT(read.status().message(), HasSubstr("'objective'"));
}

TEST(PassOptionBindingTest, ReadsBoundValuesAndDefaultsIntoTheStruct) {
  auto bound = Binding().schema().Bind({{"alignment", std::string("128")},
                                        {"objective", std::string("heap-peak")},
                                        {"candidates", std::vector<std::string>{"exact"}}});
  ASSERT_TRUE(bound.ok()) << bound.status();
  absl::StatusOr<SchedulerOptions> options = Binding().Read(*bound);
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->objective, Objective::kHeapPeak);
  EXPECT_EQ(options->alignment, 128);
  EXPECT_DOUBLE_EQ(options->slack, 0.5);
  EXPECT_FALSE(options->verbose);
  EXPECT_THAT(options->candidates, ElementsAre("exact"));
  EXPECT_EQ(options->label, "");
}

TEST(PassOptionBindingTest, EnumRefusesAnUnlistedValueAtTheValue) {
  PassOptionProblem problem;
  auto bound = Binding().schema().Bind(
      {{"alignment", std::string("8")}, {"objective", std::string("device-byte")}}, &problem);
  ASSERT_FALSE(bound.ok());
  EXPECT_THAT(bound.status().message(),
              HasSubstr("option 'objective' must be one of device-bytes, heap-peak, not "
                        "'device-byte'"));
  EXPECT_THAT(bound.status().message(), HasSubstr("did you mean 'device-bytes'"));
  EXPECT_EQ(problem.part, PassOptionProblem::Part::kValue);
  EXPECT_EQ(problem.assignment, 1u);
}

TEST(PassOptionBindingTest, ValuesOfAnotherSchemaAreAnErrorNotACrash) {
  // Same keys, but alignment declared as a string: the read-back must notice.
  auto other = BindAnotherSchema("device-bytes", /*alignment_as_string=*/true);
  ASSERT_TRUE(other.ok()) << other.status();
  absl::StatusOr<SchedulerOptions> options = Binding().Read(*other);
  ASSERT_FALSE(options.ok());
  EXPECT_EQ(options.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(options.status().message(), HasSubstr("'alignment'"));

  auto fewer = PassOptionSchema().String("objective", "heap-peak", "").Bind({});
  ASSERT_TRUE(fewer.ok());
  EXPECT_FALSE(Binding().Read(*fewer).ok());
}

}  // namespace
}  // namespace hmo
