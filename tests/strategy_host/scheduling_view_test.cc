// The C view of a computation handed to scheduler strategies.

#include "hmo/strategy_host/scheduling_view.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/text/hlo_parser.h"

namespace hmo {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr std::string_view kModule = R"(
HloModule view

ENTRY main {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  add = f32[4] add(p0, p1)
  neg = f32[4] negate(add)
  mul = f32[4] multiply(neg, neg), control-predecessors={p1}
  ROOT t = (f32[4], f32[4]) tuple(mul, add)
}
)";

std::vector<HmoInstructionId> Ids(const HmoInstructionId* ids, size_t count) {
  return std::vector<HmoInstructionId>(ids, ids + count);
}

class SchedulingViewTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto module = ParseHloModule(kModule);
    ASSERT_TRUE(module.ok()) << module.status();
    module_ = *std::move(module);
  }
  const HmoSchedulingInstruction& At(const SchedulingView& view, HmoInstructionId id) {
    return *view.view().instructions[id];
  }
  std::unique_ptr<HloModule> module_;
};

TEST_F(SchedulingViewTest, DescribesEveryInstructionById) {
  auto view = *BuildSchedulingView(*module_->entry_computation());
  const HmoSchedulingView& c = view->view();
  EXPECT_EQ(c.struct_size, sizeof(HmoSchedulingView));
  EXPECT_STREQ(c.computation_name, "main");
  EXPECT_STREQ(c.module_name, "view");
  ASSERT_EQ(c.instruction_count, 6u);
  EXPECT_EQ(c.root_id, 5u);
  for (HmoInstructionId id = 0; id < 6; ++id) {
    EXPECT_EQ(At(*view, id).id, id);
    EXPECT_EQ(view->IdOf(view->instruction(id)), id);
  }
  const HmoSchedulingInstruction& mul = At(*view, 4);
  EXPECT_STREQ(mul.name, "mul");
  EXPECT_STREQ(mul.opcode, "multiply");
  EXPECT_THAT(Ids(mul.operand_ids, mul.operand_count), ElementsAre(3, 3));
  EXPECT_THAT(Ids(mul.control_predecessor_ids, mul.control_predecessor_count), ElementsAre(1));
  EXPECT_THAT(Ids(mul.user_ids, mul.user_count), ElementsAre(5));
  const HmoSchedulingInstruction& p1 = At(*view, 1);
  EXPECT_THAT(Ids(p1.control_successor_ids, p1.control_successor_count), ElementsAre(4));
  // Distinct users, sorted: neg uses add once, the tuple once.
  const HmoSchedulingInstruction& add = At(*view, 2);
  EXPECT_THAT(Ids(add.user_ids, add.user_count), ElementsAre(3, 5));
  const HmoSchedulingInstruction& neg = At(*view, 3);
  EXPECT_THAT(Ids(neg.user_ids, neg.user_count), ElementsAre(4));
  EXPECT_EQ(add.bytes_defined, 16u);
  EXPECT_EQ(At(*view, 5).bytes_defined, 16u);  // two 8-byte tuple pointers
}

TEST_F(SchedulingViewTest, LiveOutIsTheRootAndWhatTheRootTupleForwards) {
  auto view = *BuildSchedulingView(*module_->entry_computation());
  std::vector<int> live;
  for (HmoInstructionId id = 0; id < view->size(); ++id) live.push_back(At(*view, id).is_live_out);
  EXPECT_THAT(live, ElementsAre(0, 0, 1, 0, 1, 1));
}

TEST_F(SchedulingViewTest, MayShareIsEmptyWithoutAnalysisAndFilledByTheCallback) {
  auto plain = *BuildSchedulingView(*module_->entry_computation());
  for (HmoInstructionId id = 0; id < plain->size(); ++id) {
    EXPECT_EQ(At(*plain, id).may_share_operand_count, 0u);
  }
  std::vector<std::pair<std::string, int64_t>> asked;
  auto shared = *BuildSchedulingView(*module_->entry_computation(),
                                     [&](const HloInstruction& instruction, int64_t operand) {
                                       asked.emplace_back(instruction.name(), operand);
                                       return instruction.opcode() == HloOpcode::kMultiply ||
                                              instruction.opcode() == HloOpcode::kNegate;
                                     });
  const HmoSchedulingInstruction& mul = At(*shared, 4);
  // mul uses neg twice; the operand appears once.
  EXPECT_THAT(Ids(mul.may_share_operand_ids, mul.may_share_operand_count), ElementsAre(3));
  const HmoSchedulingInstruction& neg = At(*shared, 3);
  EXPECT_THAT(Ids(neg.may_share_operand_ids, neg.may_share_operand_count), ElementsAre(2));
  EXPECT_THAT(Ids(At(*shared, 2).may_share_operand_ids, At(*shared, 2).may_share_operand_count),
              IsEmpty());
  // An operand already accepted is not asked about again.
  EXPECT_EQ(std::count(asked.begin(), asked.end(), std::make_pair(std::string("mul"), int64_t{1})),
            0);
}

// Two outputs donated crosswise: each parameter's other reader must run
// before the output written over it, which no order allows. The strategies
// never see that graph; the build names the aliases.
TEST(SchedulingViewDonationTest, DonationOrdersAreControlEdgesAndACycleIsRefused) {
  constexpr std::string_view kDonated = R"(
HloModule donated, input_output_alias={ {0}: (0, {}, may-alias) }

ENTRY main {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  reader = f32[4] negate(p0)
  writer = f32[4] add(p1, p1)
  ROOT t = (f32[4], f32[4]) tuple(writer, reader)
}
)";
  auto module = ParseHloModule(kDonated);
  ASSERT_TRUE(module.ok()) << module.status();
  auto view = BuildSchedulingView(*(*module)->entry_computation());
  ASSERT_TRUE(view.ok()) << view.status();
  const HmoSchedulingInstruction& writer = *(*view)->view().instructions[3];
  EXPECT_THAT(Ids(writer.control_predecessor_ids, writer.control_predecessor_count),
              ElementsAre(2));

  constexpr std::string_view kCrosswise = R"(
HloModule crosswise, input_output_alias={ {0}: (1, {}, may-alias), {1}: (0, {}, may-alias) }

ENTRY main {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  n0 = f32[4] negate(p0)
  n1 = f32[4] negate(p1)
  ROOT t = (f32[4], f32[4]) tuple(n0, n1)
}
)";
  auto crosswise = ParseHloModule(kCrosswise);
  ASSERT_TRUE(crosswise.ok()) << crosswise.status();
  auto refused = BuildSchedulingView(*(*crosswise)->entry_computation());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(refused.status().message()), ::testing::HasSubstr("outputs {0} and {1}"));
}

}  // namespace
}  // namespace hmo
