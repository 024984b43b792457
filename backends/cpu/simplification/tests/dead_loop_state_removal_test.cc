// dead-loop-state-removal: which loop-state elements go (a second counter
// nothing reads, a value passed along and never read after the loop), which
// stay (read by the condition, by the loop's users, by a needed element, by
// an instruction with side effects), loops it leaves alone, and that values
// and schedules stay valid.

#include "cpu/simplification/dead_loop_state_removal.h"

#include <memory>
#include <string_view>

#include "gtest/gtest.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_instruction.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/hlo_schedule.h"
#include "hmo/verifier/hlo_verifier.h"
#include "simplification_test_support.h"
#include "support/parsed_module.h"

namespace hmo::cpu {
namespace {

using test_support::ParseTestModule;

absl::StatusOr<bool> RunPass(HloModule& module) {
  return testing::RunPassOn<DeadLoopStateRemoval>(module);
}

const HloInstruction& OnlyLoop(const HloModule& module) {
  const HloInstruction* found = nullptr;
  for (const HloComputation* computation : module.computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      if (instruction->opcode() == HloOpcode::kWhile) found = instruction;
    }
  }
  EXPECT_NE(found, nullptr);
  return *found;
}

// JAX's fori_loop: the condition counts with element 0; element 1 is the
// loop index the body also increments, which nothing reads after the loop;
// element 3 is a matrix passed along unchanged and not read after the loop
// either; element 2 is the result. Elements 1 and 3 go.
constexpr std::string_view kForiLoop = R"(
HloModule m

body {
  s = (s32[], s32[], f32[4], f32[4,4]) parameter(0)
  n = s32[] get-tuple-element(s), index=0
  i = s32[] get-tuple-element(s), index=1
  v = f32[4] get-tuple-element(s), index=2
  a = f32[4,4] get-tuple-element(s), index=3
  one = s32[] constant(1)
  n1 = s32[] add(n, one)
  i1 = s32[] add(i, one)
  i_f = f32[] convert(i)
  i_b = f32[4] broadcast(i_f), dimensions={}
  unused = f32[4] multiply(i_b, v)
  v1 = f32[4] add(v, v)
  ROOT t = (s32[], s32[], f32[4], f32[4,4]) tuple(n1, i1, v1, a)
}

cond {
  s = (s32[], s32[], f32[4], f32[4,4]) parameter(0)
  n = s32[] get-tuple-element(s), index=0
  limit = s32[] constant(3)
  ROOT lt = pred[] compare(n, limit), direction=LT
}

ENTRY e {
  a = f32[4,4] parameter(0)
  v = f32[4] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], s32[], f32[4], f32[4,4]) tuple(zero, zero, v, a)
  loop = (s32[], s32[], f32[4], f32[4,4]) while(init), condition=cond, body=body
  i = s32[] get-tuple-element(loop), index=1
  r = f32[4] get-tuple-element(loop), index=2
  ROOT out = (f32[4]) tuple(r)
}
)";

TEST(DeadLoopStateRemovalTest, DropsTheSecondCounterAndThePassedAlongMatrix) {
  std::unique_ptr<HloModule> module = ParseTestModule(kForiLoop);
  absl::StatusOr<bool> changed = RunPass(*module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  const HloInstruction& loop = OnlyLoop(*module);
  EXPECT_EQ(loop.shape().ToString(), "(s32[], f32[4])");
  EXPECT_EQ(loop.name(), "loop");
  EXPECT_EQ(loop.while_body()->parameter_instruction(0)->shape(), loop.shape());
  EXPECT_EQ(loop.while_condition()->parameter_instruction(0)->shape(), loop.shape());
  EXPECT_EQ(loop.while_body()->root_instruction()->shape(), loop.shape());
  EXPECT_EQ(loop.while_body()->GetInstructionWithName("i1"), nullptr);
  EXPECT_EQ(loop.while_body()->GetInstructionWithName("unused"), nullptr);
  EXPECT_TRUE(HloVerifier().Run(*module).ok());
  testing::ExpectPassKeepsValues<DeadLoopStateRemoval>(kForiLoop);
  // Nothing is left to drop.
  absl::StatusOr<bool> again = RunPass(*module);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_FALSE(*again);
}

// Element 1 is read after the loop; element 2 feeds element 0, which the
// condition reads; element 3 feeds an outfeed-like side effect. All stay.
TEST(DeadLoopStateRemovalTest, KeepsWhatTheConditionUsersNeededElementsAndSideEffectsRead) {
  constexpr std::string_view kText = R"(
HloModule m

body {
  s = (s32[], s32[], s32[], s32[]) parameter(0)
  n = s32[] get-tuple-element(s), index=0
  i = s32[] get-tuple-element(s), index=1
  step = s32[] get-tuple-element(s), index=2
  x = s32[] get-tuple-element(s), index=3
  n1 = s32[] add(n, step)
  i1 = s32[] add(i, i)
  seen = () custom-call(x), custom_call_target="record", custom_call_has_side_effect=true
  ROOT t = (s32[], s32[], s32[], s32[]) tuple(n1, i1, step, x)
}

cond {
  s = (s32[], s32[], s32[], s32[]) parameter(0)
  n = s32[] get-tuple-element(s), index=0
  limit = s32[] constant(10)
  ROOT lt = pred[] compare(n, limit), direction=LT
}

ENTRY e {
  p = s32[] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], s32[], s32[], s32[]) tuple(zero, p, p, p)
  loop = (s32[], s32[], s32[], s32[]) while(init), condition=cond, body=body
  ROOT i = s32[] get-tuple-element(loop), index=1
}
)";
  std::unique_ptr<HloModule> module = ParseTestModule(kText);
  absl::StatusOr<bool> changed = RunPass(*module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
  EXPECT_EQ(OnlyLoop(*module).shape().tuple_shapes_size(), 4);
}

// A body shared by two loops, and a loop whose state is read whole, are left
// as written.
TEST(DeadLoopStateRemovalTest, LeavesLoopsItCannotSeeWhole) {
  constexpr std::string_view kText = R"(
HloModule m

body {
  s = (s32[], s32[]) parameter(0)
  n = s32[] get-tuple-element(s), index=0
  i = s32[] get-tuple-element(s), index=1
  one = s32[] constant(1)
  n1 = s32[] add(n, one)
  i1 = s32[] add(i, one)
  ROOT t = (s32[], s32[]) tuple(n1, i1)
}

cond {
  s = (s32[], s32[]) parameter(0)
  n = s32[] get-tuple-element(s), index=0
  limit = s32[] constant(3)
  ROOT lt = pred[] compare(n, limit), direction=LT
}

cond2 {
  s = (s32[], s32[]) parameter(0)
  n = s32[] get-tuple-element(s), index=0
  limit = s32[] constant(4)
  ROOT lt = pred[] compare(n, limit), direction=LT
}

ENTRY e {
  zero = s32[] constant(0)
  init = (s32[], s32[]) tuple(zero, zero)
  first = (s32[], s32[]) while(init), condition=cond, body=body
  second = (s32[], s32[]) while(init), condition=cond2, body=body
  a = s32[] get-tuple-element(first), index=0
  b = s32[] get-tuple-element(second), index=0
  ROOT out = (s32[], s32[]) tuple(a, b)
}
)";
  std::unique_ptr<HloModule> module = ParseTestModule(kText);
  absl::StatusOr<bool> changed = RunPass(*module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
}

// On a scheduled module the loop keeps its place, the new initial tuple is
// scheduled before it, and the schedule still verifies.
TEST(DeadLoopStateRemovalTest, KeepsAScheduledModuleScheduled) {
  std::unique_ptr<HloModule> module = ParseTestModule(R"(
HloModule m, is_scheduled=true

body {
  s = (s32[], s32[], f32[4]) parameter(0)
  n = s32[] get-tuple-element(s), index=0
  i = s32[] get-tuple-element(s), index=1
  v = f32[4] get-tuple-element(s), index=2
  one = s32[] constant(1)
  n1 = s32[] add(n, one)
  i1 = s32[] add(i, one)
  v1 = f32[4] add(v, v)
  ROOT t = (s32[], s32[], f32[4]) tuple(n1, i1, v1)
}

cond {
  s = (s32[], s32[], f32[4]) parameter(0)
  n = s32[] get-tuple-element(s), index=0
  limit = s32[] constant(3)
  ROOT lt = pred[] compare(n, limit), direction=LT
}

ENTRY e {
  v = f32[4] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], s32[], f32[4]) tuple(zero, zero, v)
  loop = (s32[], s32[], f32[4]) while(init), condition=cond, body=body
  ROOT r = f32[4] get-tuple-element(loop), index=2
}
)");
  absl::StatusOr<bool> changed = RunPass(*module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(OnlyLoop(*module).shape().tuple_shapes_size(), 2);
  absl::Status schedule = module->schedule().Verify();
  EXPECT_TRUE(schedule.ok()) << schedule;
  EXPECT_TRUE(HloVerifier().Run(*module).ok());
}

}  // namespace
}  // namespace hmo::cpu
