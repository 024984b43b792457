// while, conditional and call, with loop state in tuples, and tuple results.

#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "run_hlo.h"

namespace hmo::cpu::testing {
namespace {

using ::testing::ElementsAre;

TEST(ControlFlowTest, WhileLoopAccumulates) {
  // Adds 2 ten times and counts iterations. The counter starts from a copy
  // of a constant, as copy insertion leaves it (a constant's buffer gets no
  // allocation, so it cannot be the loop state itself).
  constexpr const char* kHlo = R"(
HloModule m
cond {
  s = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = f32[3] get-tuple-element(s), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  two = f32[] constant(2)
  twos = f32[3] broadcast(two), dimensions={}
  acc2 = f32[3] add(acc, twos)
  ROOT t = (s32[], f32[3]) tuple(next, acc2)
}
ENTRY e {
  x = f32[3] parameter(0)
  zero = s32[] constant(0)
  zero_copy = s32[] copy(zero)
  init = (s32[], f32[3]) tuple(zero_copy, x)
  w = (s32[], f32[3]) while(init), condition=cond, body=body
  count = s32[] get-tuple-element(w), index=0
  acc = f32[3] get-tuple-element(w), index=1
  ROOT r = (f32[3], s32[]) tuple(acc, count)
})";
  auto result = RunHlo(kHlo, {R1F(PrimitiveType::F32, {1, 2, 3})});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(AsDoubles(result->tuple_elements()[0]), ElementsAre(21, 22, 23));
  EXPECT_EQ(result->tuple_elements()[1].GetAsInt64(0), 10);
}

TEST(ControlFlowTest, WhileLoopThatNeverRuns) {
  constexpr const char* kHlo = R"(
HloModule m
cond {
  s = (s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(0)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  ROOT t = (s32[]) tuple(next)
}
ENTRY e {
  x = s32[] parameter(0)
  init = (s32[]) tuple(x)
  w = (s32[]) while(init), condition=cond, body=body
  ROOT r = s32[] get-tuple-element(w), index=0
})";
  auto result = RunHlo(kHlo, {Literal::CreateR0FromInt(PrimitiveType::S32, 5)});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->GetAsInt64(0), 5);
}

constexpr const char* kIndexedConditional = R"(
HloModule m
b0 {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p)
}
b1 {
  p = f32[2] parameter(0)
  ROOT a = f32[2] add(p, p)
}
b2 {
  p = f32[2] parameter(0)
  ROOT m = f32[2] multiply(p, p)
}
ENTRY e {
  i = s32[] parameter(0)
  x = f32[2] parameter(1)
  ROOT c = f32[2] conditional(i, x, x, x), branch_computations={b0, b1, b2}
})";

TEST(ControlFlowTest, ConditionalWithBranchIndex) {
  const std::vector<std::pair<int64_t, std::vector<double>>> cases = {
      {0, {-3, 4}}, {1, {6, -8}}, {2, {9, 16}}, {7, {9, 16}}, {-1, {9, 16}}};
  for (const auto& [index, expected] : cases) {
    auto result = RunHlo(kIndexedConditional,
                         {Literal::CreateR0FromInt(PrimitiveType::S32, index), R1F(PrimitiveType::F32, {3, -4})});
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(AsDoubles(*result), expected) << "branch index " << index;
  }
}

TEST(ControlFlowTest, ConditionalWithPredicate) {
  constexpr const char* kHlo = R"(
HloModule m
on_true {
  p = (f32[], f32[]) parameter(0)
  a = f32[] get-tuple-element(p), index=0
  b = f32[] get-tuple-element(p), index=1
  ROOT s = f32[] subtract(a, b)
}
on_false {
  p = f32[] parameter(0)
  ROOT n = f32[] negate(p)
}
ENTRY e {
  c = pred[] parameter(0)
  a = f32[] parameter(1)
  b = f32[] parameter(2)
  t = (f32[], f32[]) tuple(a, b)
  ROOT r = f32[] conditional(c, t, b), true_computation=on_true, false_computation=on_false
})";
  for (bool pred : {true, false}) {
    auto result = RunHlo(kHlo, {Literal::CreateR0Pred(pred), Literal::CreateR0FromDouble(PrimitiveType::F32, 10),
                                Literal::CreateR0FromDouble(PrimitiveType::F32, 4)});
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->GetAsDouble(0), pred ? 6 : -4);
  }
}

TEST(ControlFlowTest, CallAndNestedTupleResult) {
  constexpr const char* kHlo = R"(
HloModule m
callee {
  a = s32[2] parameter(0)
  b = s32[2] parameter(1)
  s = s32[2] add(a, b)
  d = s32[2] subtract(a, b)
  ROOT t = (s32[2], s32[2]) tuple(s, d)
}
ENTRY e {
  x = s32[2] parameter(0)
  y = s32[2] parameter(1)
  c = (s32[2], s32[2]) call(x, y), to_apply=callee
  s = s32[2] get-tuple-element(c), index=0
  m = s32[2] multiply(s, y)
  ROOT r = ((s32[2], s32[2]), s32[2]) tuple(c, m)
})";
  auto result = RunHlo(kHlo, {R1I(PrimitiveType::S32, {5, 7}), R1I(PrimitiveType::S32, {1, 2})});
  ASSERT_TRUE(result.ok()) << result.status();
  const Literal& inner = result->tuple_elements()[0];
  EXPECT_THAT(AsInts(inner.tuple_elements()[0]), ElementsAre(6, 9));
  EXPECT_THAT(AsInts(inner.tuple_elements()[1]), ElementsAre(4, 5));
  EXPECT_THAT(AsInts(result->tuple_elements()[1]), ElementsAre(6, 18));
}

TEST(ControlFlowTest, ScheduledModuleRunsInScheduleOrder) {
  constexpr const char* kHlo = R"(
HloModule m, is_scheduled=true
ENTRY e {
  x = f32[4] parameter(0)
  a = f32[4] exponential(x)
  b = f32[4] log(a)
  ROOT c = f32[4] add(a, b)
})";
  auto result = RunHlo(kHlo, {R1F(PrimitiveType::F32, {0, 1, 2, 3})});
  ASSERT_TRUE(result.ok()) << result.status();
  auto got = AsDoubles(*result);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(got[i], std::exp(static_cast<float>(i)) + i, 1e-4);
}

TEST(ControlFlowTest, UnsupportedInstructionNamesOpcode) {
  constexpr const char* kHlo = R"(
HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  ROOT c = f32[4] custom-call(x), custom_call_target="SomethingElse"
})";
  auto result = RunHlo(kHlo, {R1F(PrimitiveType::F32, {0, 1, 2, 3})});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(std::string(result.status().message()).find("custom-call"), std::string::npos);
  EXPECT_NE(std::string(result.status().message()).find("c"), std::string::npos);
}


TEST(ControlFlowTest, MemorySpaceMovesAndTupleCopy) {
  constexpr const char* kHlo = R"(
HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  h = f32[4]{0:S(5)} custom-call(x), custom_call_target="MoveToHost"
  d = f32[4] custom-call(h), custom_call_target="MoveToDevice"
  n = f32[4] negate(d)
  t = (f32[4], f32[4]) tuple(n, x)
  c = (f32[4], f32[4]) copy(t)
  a = f32[4] get-tuple-element(c), index=0
  b = f32[4] get-tuple-element(c), index=1
  ROOT s = f32[4] subtract(a, b)
})";
  auto result = RunHlo(kHlo, {R1F(PrimitiveType::F32, {1, 2, 3, 4})});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(AsDoubles(*result), ::testing::ElementsAre(-2, -4, -6, -8));
}


TEST(ControlFlowTest, CopyStartAndCopyDoneMoveBetweenMemorySpaces) {
  constexpr const char* kHlo = R"(
HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  n = f32[4] negate(x)
  cs = (f32[4]{0:S(1)}, f32[4], u32[]) copy-start(n)
  e = f32[4] exponential(x)
  cd = f32[4]{0:S(1)} copy-done(cs)
  ROOT a = f32[4] add(cd, e)
})";
  auto result = RunHlo(kHlo, {R1F(PrimitiveType::F32, {0, 1, 2, 3})});
  ASSERT_TRUE(result.ok()) << result.status();
  auto got = AsDoubles(*result);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(got[i], std::exp(static_cast<float>(i)) - i, 1e-4);
}

}  // namespace
}  // namespace hmo::cpu::testing
