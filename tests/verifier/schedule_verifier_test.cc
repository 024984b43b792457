// Schedule rules: a parsed `is_scheduled=true` module verifies; hand-mutated
// sequences (missing, duplicated, foreign or misordered instructions, missing
// or extra sequences) are rejected.

#include <gtest/gtest.h>

#include <vector>

#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_schedule.h"
#include "hmo/verifier/hlo_verifier.h"
#include "hmo/verifier/schedule_verifier.h"
#include "verifier_test_util.h"

namespace hmo {
namespace {

using testing::FirstViolationIs;
using testing::Parse;
using testing::VerifiesOk;

constexpr char kScheduled[] = R"(
HloModule s, is_scheduled=true
fused {
  fp = f32[2] parameter(0)
  ROOT fn = f32[2] negate(fp)
}
ENTRY main {
  p0 = f32[2] parameter(0)
  p1 = f32[2] parameter(1)
  add = f32[2] add(p0, p1)
  f = f32[2] fusion(add), kind=kLoop, calls=fused
  n1 = f32[2] negate(p0)
  ROOT mul = f32[2] multiply(f, n1)
})";

class ScheduleVerifierTest : public ::testing::Test {
 protected:
  void SetUp() override {
    module_ = Parse(kScheduled);
    ASSERT_NE(module_, nullptr);
    ASSERT_TRUE(module_->has_schedule());
    main_ = module_->entry_computation();
    fused_ = module_->GetComputationWithName("fused");
  }
  HloInstruction* I(std::string_view name) const { return main_->GetInstructionWithName(name); }
  void SetMain(std::vector<std::string_view> names) {
    std::vector<HloInstruction*> seq;
    for (std::string_view n : names) seq.push_back(n == "fn" ? fused_->root_instruction() : I(n));
    module_->schedule().set_sequence(main_, seq);
  }

  std::unique_ptr<HloModule> module_;
  HloComputation* main_ = nullptr;
  HloComputation* fused_ = nullptr;
};

TEST_F(ScheduleVerifierTest, ParsedScheduleVerifies) {
  EXPECT_TRUE(VerifiesOk(*module_));
  EXPECT_TRUE(VerifyModuleSchedule(*module_).ok());
  SetMain({"p1", "p0", "n1", "add", "f", "mul"});  // any topological order
  EXPECT_TRUE(VerifiesOk(*module_));
}

TEST_F(ScheduleVerifierTest, MissingInstruction) {
  SetMain({"p0", "p1", "add", "f", "mul"});
  EXPECT_TRUE(FirstViolationIs(*module_, {"schedule-missing-instruction", "n1", "main",
                                          "instruction is not in the computation's schedule"}));
}

TEST_F(ScheduleVerifierTest, DuplicateInstruction) {
  SetMain({"p0", "p1", "add", "f", "n1", "add", "mul"});
  EXPECT_TRUE(FirstViolationIs(*module_, {"schedule-duplicate", "add", "main",
                                          "instruction appears more than once in the schedule "
                                          "(positions 2 and 5)"}));
}

TEST_F(ScheduleVerifierTest, OperandAfterUser) {
  SetMain({"p0", "p1", "f", "add", "n1", "mul"});
  EXPECT_TRUE(FirstViolationIs(*module_, {"schedule-order", "f", "main",
                                          "instruction is scheduled at position 2, not after its "
                                          "operand add at position 3"}));
}

TEST_F(ScheduleVerifierTest, ControlPredecessorAfterSuccessor) {
  ASSERT_TRUE(I("n1")->AddControlDependencyTo(I("add")).ok());
  EXPECT_TRUE(FirstViolationIs(*module_, {"schedule-order", "add", "main",
                                          "not after its control predecessor n1"}));
  SetMain({"p0", "p1", "n1", "add", "f", "mul"});
  EXPECT_TRUE(VerifiesOk(*module_));
}

TEST_F(ScheduleVerifierTest, ForeignInstruction) {
  SetMain({"p0", "p1", "add", "f", "n1", "fn", "mul"});
  EXPECT_TRUE(FirstViolationIs(*module_, {"schedule-foreign-instruction", "", "main",
                                          "schedule position 5 holds an instruction"}));
}

TEST_F(ScheduleVerifierTest, RemovedInstructionIsForeign) {
  HloInstruction* extra = main_->AddInstruction(
      HloInstruction::CreateUnary(I("p0")->shape(), HloOpcode::kNegate, I("p0")), "extra");
  SetMain({"p0", "p1", "add", "f", "n1", "extra", "mul"});
  EXPECT_TRUE(VerifiesOk(*module_));
  ASSERT_TRUE(main_->RemoveInstruction(extra).ok());
  EXPECT_TRUE(FirstViolationIs(*module_, {"schedule-foreign-instruction", "", "main",
                                          "schedule position 5 holds an instruction"}));
}

TEST_F(ScheduleVerifierTest, MissingSequence) {
  module_->schedule().remove_computation(main_);
  EXPECT_TRUE(FirstViolationIs(*module_, {"schedule-missing-sequence", "", "main",
                                          "computation has no sequence in the module's schedule"}));
}

TEST_F(ScheduleVerifierTest, FusionComputationsAreNotScheduled) {
  std::vector<HloInstruction*> seq = {fused_->parameter_instruction(0), fused_->root_instruction()};
  module_->schedule().set_sequence(fused_, seq);
  EXPECT_TRUE(FirstViolationIs(*module_, {"schedule-extra-sequence", "", "fused",
                                          "fusion computations are not scheduled"}));
}

TEST_F(ScheduleVerifierTest, ScheduleCheckCanBeTurnedOff) {
  SetMain({"p0", "p1", "f", "add", "n1", "mul"});
  HloVerifierOptions options;
  options.verify_schedule = false;
  EXPECT_TRUE(VerifiesOk(*module_, options));
}

TEST(ScheduleVerifierNoFixtureTest, UnscheduledModuleHasNothingToCheck) {
  auto m = Parse(R"(
HloModule u
ENTRY main {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(m->has_schedule());
  EXPECT_TRUE(VerifyModuleSchedule(*m).ok());
}

}  // namespace
}  // namespace hmo
