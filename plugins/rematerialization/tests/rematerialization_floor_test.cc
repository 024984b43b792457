// The proven floor: exact on small modules worked out by hand, and below
// what XLA's own schedule of every JAX corpus program needs (a floor above
// a figure XLA reaches would be no floor).

#include "rematerialization_floor.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hmo/analysis/memory_limit.h"
#include "hmo/text/hlo_parser.h"
#include "fitting_test_support.h"
#include "jax_corpus.h"
#include "support/parsed_module.h"

namespace hmo {
namespace {

RematerializationFloor FloorOf(const HloModule& module) {
  absl::StatusOr<MemoryLimitCheck> check =
      CheckMemoryLimit(module, std::numeric_limits<int64_t>::max());
  EXPECT_TRUE(check.ok()) << check.status();
  absl::StatusOr<RematerializationFloor> floor =
      ComputeRematerializationFloor(module, check->stats);
  EXPECT_TRUE(floor.ok()) << floor.status();
  return floor.ok() ? *floor : RematerializationFloor{};
}

// A donated 4 KiB argument %p and a 4 KiB argument %q: 8 KiB for the whole
// run. %c reads %a and %b and may take one's place: 8 KiB of temporaries.
// `update` is how the output, in %p's buffer, is computed.
std::string DonatedUpdate(const std::string& update) {
  return absl::StrCat(
      R"(HloModule donated, is_scheduled=true, input_output_alias={ {}: (0, {}, may-alias) }

ENTRY %main (p: f32[1024], q: f32[1024]) -> f32[1024] {
  %p = f32[1024]{0} parameter(0)
  %q = f32[1024]{0} parameter(1)
  %k = f32[1024]{0} copy(%p)
  %a = f32[1024]{0} exponential(%q)
  %b = f32[1024]{0} log(%q)
  %c = f32[1024]{0} add(%a, %b)
  ROOT %w = f32[1024]{0} )",
      update, R"(
}
)");
}

TEST(RematerializationFloorTest, AnOutputBufferHoldsOneTemporaryUntilItsOutputIsComputed) {
  std::unique_ptr<HloModule> module = test_support::ParseAndVerifyTestModule(testing::kLateUse);
  ASSERT_NE(module, nullptr);
  // 4 KiB argument + 4 KiB output; %e's 8 KiB of temporaries, one of which
  // the output's buffer, free until %out, can hold.
  const RematerializationFloor floor = FloorOf(*module);
  EXPECT_EQ(floor.bytes, 12288);
  EXPECT_EQ(floor.instruction, "e");
}

TEST(RematerializationFloorTest, ADonatedArgumentItsUpdateReadsIsNeverFree) {
  // %w reads %p and writes the output in its place: %p's buffer holds the
  // argument until %w, the output after. 8 KiB + 8 KiB at %c.
  std::unique_ptr<HloModule> module =
      test_support::ParseAndVerifyTestModule(DonatedUpdate("add(%p, %c)"));
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(FloorOf(*module).bytes, 16384);
}

TEST(RematerializationFloorTest, ACopyOfTheDonatedArgumentFreesItsBufferEarly) {
  // %w reads the copy %k: once %k is made, %p's buffer is free until %w
  // and can hold %a or %b (XLA places dW there in the MLP's update). The
  // copy itself counts as %p's data, where %p lies (copy elimination could
  // remove it): at %w, %p's buffer is taken and %c is a temporary.
  std::unique_ptr<HloModule> module =
      test_support::ParseAndVerifyTestModule(DonatedUpdate("add(%k, %c)"));
  ASSERT_NE(module, nullptr);
  const RematerializationFloor floor = FloorOf(*module);
  EXPECT_EQ(floor.bytes, 12288);
  EXPECT_NE(floor.instruction, "k");
}

// %d, the output, is a dot of the temporary %t: a dot cannot be computed
// over its operand, so while it runs the output's buffer holds %d and %t
// needs memory of its own. An elementwise %d could have taken %t's place.
TEST(RematerializationFloorTest, AnOutputWrittenByANonElementwiseInstructionHoldsNoOperand) {
  const auto module_with = [](const std::string& root) {
    return test_support::ParseAndVerifyTestModule(
        absl::StrCat(R"(HloModule dot_of_temporary, is_scheduled=true

ENTRY %main (x: f32[32,32], w: f32[32,32]) -> f32[32,32] {
  %x = f32[32,32]{1,0} parameter(0)
  %w = f32[32,32]{1,0} parameter(1)
  %t = f32[32,32]{1,0} exponential(%x)
  ROOT %d = f32[32,32]{1,0} )",
                     root, R"(
}
)"));
  };
  std::unique_ptr<HloModule> dot =
      module_with("dot(%t, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  ASSERT_NE(dot, nullptr);
  // 8 KiB of arguments, 4 KiB of output, 4 KiB for %t.
  const RematerializationFloor floor = FloorOf(*dot);
  EXPECT_EQ(floor.bytes, 16384);
  EXPECT_EQ(floor.instruction, "d");
  std::unique_ptr<HloModule> elementwise = module_with("add(%t, %w)");
  ASSERT_NE(elementwise, nullptr);
  EXPECT_EQ(FloorOf(*elementwise).bytes, 12288);
}

// A variadic all-reduce writes each result apart from its operands (it is
// not computed in place): while it runs its two 4 KiB temporaries and two
// 4 KiB results are all live, beside the 4 KiB argument, the reduced
// scalar output and the 16 B table of the result tuple. Counting each
// result in an operand's place would give 8 KiB less.
TEST(RematerializationFloorTest, AVariadicCollectiveHoldsItsOperandsAndResults) {
  std::unique_ptr<HloModule> module = test_support::ParseAndVerifyTestModule(
      R"(HloModule variadic_all_reduce, is_scheduled=true, num_partitions=2

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}

ENTRY %main (x: f32[1024]) -> f32[] {
  %x = f32[1024]{0} parameter(0)
  %e = f32[1024]{0} exponential(%x)
  %l = f32[1024]{0} log(%x)
  %r = (f32[1024]{0}, f32[1024]{0}) all-reduce(%e, %l), channel_id=1, replica_groups={{0,1}}, use_global_device_ids=true, to_apply=%add
  %r0 = f32[1024]{0} get-tuple-element(%r), index=0
  %r1 = f32[1024]{0} get-tuple-element(%r), index=1
  %m = f32[1024]{0} multiply(%r0, %r1)
  %zero = f32[] constant(0)
  ROOT %sum = f32[] reduce(%m, %zero), dimensions={0}, to_apply=%add
}
)");
  ASSERT_NE(module, nullptr);
  const RematerializationFloor floor = FloorOf(*module);
  EXPECT_EQ(floor.bytes, 4096 + 4 + 16 + 4 * 4096);
  EXPECT_EQ(floor.instruction, "r");
}

// A model whose arenas pad every allocation to 64 B (the CPU's) pays 52 B
// for each 12 B argument or output, whatever else the module computes; an
// output computed in its donated argument's place shares that allocation.
TEST(RematerializationFloorTest, TheArenaPadsTheArgumentsAndOutputs) {
  const auto module_with = [](const std::string& header) {
    return test_support::ParseAndVerifyTestModule(absl::StrCat(header, R"(

ENTRY %main (p: f32[3], q: f32[16]) -> f32[3] {
  %p = f32[3]{0} parameter(0)
  %q = f32[16]{0} parameter(1)
  %t = f32[16]{0} exponential(%q)
  %s = f32[3]{0} slice(%t), slice={[0:3]}
  ROOT %out = f32[3]{0} add(%p, %s)
}
)"));
  };
  TargetMemoryModel model;
  model.target = "aligned";
  model.assignment.alignment = 64;
  std::unique_ptr<HloModule> separate = module_with("HloModule separate, is_scheduled=true");
  ASSERT_NE(separate, nullptr);
  absl::StatusOr<int64_t> padding = ArenaPaddingOfArgumentsAndOutputs(*separate, model);
  ASSERT_TRUE(padding.ok()) << padding.status();
  EXPECT_EQ(*padding, 2 * 52);
  std::unique_ptr<HloModule> donated = module_with(
      "HloModule donated, is_scheduled=true, input_output_alias={ {}: (0, {}, may-alias) }");
  ASSERT_NE(donated, nullptr);
  padding = ArenaPaddingOfArgumentsAndOutputs(*donated, model);
  ASSERT_TRUE(padding.ok()) << padding.status();
  EXPECT_EQ(*padding, 52);
  // The model of no target packs with alignment 1: nothing added.
  padding = ArenaPaddingOfArgumentsAndOutputs(*separate, TargetMemoryModel());
  ASSERT_TRUE(padding.ok()) << padding.status();
  EXPECT_EQ(*padding, 0);
}

// The floor is a bound: no figure XLA's own schedule reaches is below it,
// neither hmo's measure of the dump nor XLA's memory_analysis().
class CorpusFloorTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusFloorTest, IsBelowWhatXlasScheduleNeeds) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModuleFile(testing::JaxCorpusDump(GetParam(), "after").string());
  ASSERT_TRUE(module.ok()) << module.status();
  const RematerializationFloor floor = FloorOf(**module);
  EXPECT_LE(floor.bytes, testing::DeviceBytes(**module));
  const YAML::Node xla = testing::JaxCorpusMemoryAnalysis(GetParam());
  const int64_t xla_device =
      xla["argument_size_in_bytes"].as<int64_t>() + xla["output_size_in_bytes"].as<int64_t>() -
      xla["alias_size_in_bytes"].as<int64_t>() + xla["temp_size_in_bytes"].as<int64_t>();
  EXPECT_LE(floor.bytes, xla_device);
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusFloorTest,
                         ::testing::ValuesIn(testing::JaxCorpusPrograms()));

// On the embedding step the floor is what hmo's schedule reaches: the
// scatter of the gradient reads its 8 KiB accumulator and 6 KiB of updates
// at once, beside the 8,984 B of arguments and outputs.
TEST(RematerializationFloorTest, IsTightOnTheEmbeddingStep) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModuleFile(testing::JaxCorpusDump("embedding", "after").string());
  ASSERT_TRUE(module.ok()) << module.status();
  const RematerializationFloor floor = FloorOf(**module);
  EXPECT_EQ(floor.bytes, 23704);
  EXPECT_EQ(floor.instruction, "wrapped_scatter.1");
}

}  // namespace
}  // namespace hmo
