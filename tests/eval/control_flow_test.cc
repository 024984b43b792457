// Control flow and calls: while, conditional (pred and index forms), call,
// fusion, plus the evaluator's errors (elided constants, unsupported ops,
// loop limits, argument checks).

#include "evaluator_test_support.h"

namespace hmo::eval_test {
namespace {

constexpr std::string_view kSumLoop = R"(HloModule m
cond {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = s32[] get-tuple-element(s), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  sum = s32[] add(acc, next)
  ROOT t = (s32[], s32[]) tuple(next, sum)
}
ENTRY e {
  zero = s32[] constant(0)
  init = (s32[], s32[]) tuple(zero, zero)
  w = (s32[], s32[]) while(init), condition=cond, body=body
  ROOT r = s32[] get-tuple-element(w), index=1
})";

TEST(ControlFlowTest, WhileLoopComputesSum) {
  HMO_EVAL_OK(result, EvaluateText(kSumLoop));
  EXPECT_EQ(Ints(result), (std::vector<int64_t>{55}));
}

TEST(ControlFlowTest, WhileLoopIterationLimitIsAnError) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kSumLoop);
  ASSERT_TRUE(module.ok()) << module.status();
  HloEvaluator evaluator(HloEvaluator::Options{.max_loop_iterations = 3});
  absl::StatusOr<Literal> result = evaluator.Evaluate(**module, {});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kResourceExhausted) << result.status();
  EXPECT_NE(result.status().message().find("while loop w ran its body 3 times"), std::string::npos)
      << result.status();
}

TEST(ControlFlowTest, WhileLoopThatEndsWithinItsBudgetRuns) {
  // The sum loop runs its body 10 times: a budget of exactly 10 is enough.
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kSumLoop);
  ASSERT_TRUE(module.ok()) << module.status();
  HloEvaluator evaluator(HloEvaluator::Options{.max_loop_iterations = 10});
  absl::StatusOr<Literal> result = evaluator.Evaluate(**module, {});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(Ints(*result), (std::vector<int64_t>{55}));
}

constexpr std::string_view kIndexedConditional = R"(HloModule m
b0 {
  x = f32[] parameter(0)
  ROOT r = f32[] negate(x)
}
b1 {
  x = f32[] parameter(0)
  ROOT r = f32[] add(x, x)
}
b2 {
  x = f32[] parameter(0)
  ROOT r = f32[] multiply(x, x)
}
ENTRY e {
  i = s32[] parameter(0)
  x = f32[] constant(3)
  ROOT c = f32[] conditional(i, x, x, x), branch_computations={b0, b1, b2}
})";

TEST(ControlFlowTest, ConditionalByIndexWithOutOfRangeGoingToLastBranch) {
  auto run = [](int64_t index) {
    std::vector<Literal> args;
    args.push_back(Literal::CreateR0FromInt(PrimitiveType::S32, index));
    return EvaluateText(kIndexedConditional, std::move(args));
  };
  for (auto [index, expected] : std::vector<std::pair<int64_t, double>>{
           {0, -3}, {1, 6}, {2, 9}, {7, 9}, {-1, 9}}) {
    absl::StatusOr<Literal> result = run(index);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->GetAsDouble(0), expected) << "index " << index;
  }
}

TEST(ControlFlowTest, CallAndFusionWithBroadcastInside) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
fused {
  p0 = f32[2,2] parameter(0)
  p1 = f32[] parameter(1)
  b = f32[2,2] broadcast(p1), dimensions={}
  ROOT m = f32[2,2] multiply(p0, b)
}
callee {
  a = f32[2,2] parameter(0)
  ROOT n = f32[2,2] negate(a)
}
ENTRY e {
  x = f32[2,2] constant({{1, 2}, {3, 4}})
  s = f32[] constant(10)
  f = f32[2,2] fusion(x, s), kind=kLoop, calls=fused
  ROOT c = f32[2,2] call(f), to_apply=callee
})"));
  EXPECT_EQ(Doubles(result), (std::vector<double>{-10, -20, -30, -40}));
}

TEST(ControlFlowTest, HostMovesAndBarriersPassValuesThrough) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  x = f32[2] constant({1, 2})
  h = f32[2] custom-call(x), custom_call_target="MoveToHost"
  d = f32[2] custom-call(h), custom_call_target="MoveToDevice"
  t = (f32[2]) tuple(d)
  b = (f32[2]) opt-barrier(t)
  ROOT g = f32[2] get-tuple-element(b), index=0
})"));
  EXPECT_EQ(Doubles(result), (std::vector<double>{1, 2}));
}

TEST(ControlFlowTest, ParametersAreTakenFromArguments) {
  std::vector<Literal> args;
  args.push_back(MakeArray("f32[3]", {1, 2, 3}));
  args.push_back(MakeArray("f32[3]", {10, 20, 30}));
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  a = f32[3] parameter(0)
  b = f32[3] parameter(1)
  ROOT s = f32[3] subtract(b, a)
})", std::move(args)));
  EXPECT_EQ(Doubles(result), (std::vector<double>{9, 18, 27}));
}

TEST(ControlFlowTest, ArgumentShapeMismatchIsAnError) {
  std::vector<Literal> args;
  args.push_back(MakeArray("f32[2]", {1, 2}));
  absl::StatusOr<Literal> result = EvaluateText(R"(HloModule m
ENTRY e {
  ROOT a = f32[3] parameter(0)
})", std::move(args));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ControlFlowTest, ElidedConstantIsAnErrorNamingIt) {
  absl::StatusOr<Literal> result = EvaluateText(R"(HloModule m
ENTRY e {
  ROOT weights = f32[4] constant({...})
})");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("weights"), std::string::npos) << result.status();
}

TEST(ControlFlowTest, UnsupportedOpcodeIsUnimplementedNamingTheInstruction) {
  absl::StatusOr<Literal> result = EvaluateText(R"(HloModule m
ENTRY e {
  x = f32[4] constant({1, 2, 3, 4})
  ROOT fft.7 = c64[4] fft(x), fft_type=FFT, fft_length={4}
})");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(result.status().message().find("fft.7"), std::string::npos) << result.status();
}

TEST(ControlFlowTest, UnsupportedElementTypeIsUnimplemented) {
  absl::StatusOr<Literal> result = EvaluateText(R"(HloModule m
ENTRY e {
  x = f8e4m3fn[2] constant({1, 2})
  ROOT n = f8e4m3fn[2] negate(x)
})");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kUnimplemented);
}

TEST(ControlFlowTest, InstructionsTheRootDoesNotUseAreNotEvaluated) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  x = f32[2] constant({1, 2})
  dead = f32[2] custom-call(x), custom_call_target="SomethingUnknown"
  ROOT n = f32[2] negate(x)
})"));
  EXPECT_EQ(Doubles(result), (std::vector<double>{-1, -2}));
}

TEST(ControlFlowTest, ConditionalWithPredicate) {
  constexpr std::string_view kText = R"(HloModule m
yes {
  x = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT r = s32[] add(x, one)
}
no {
  x = s32[] parameter(0)
  ROOT r = s32[] negate(x)
}
ENTRY e {
  p = pred[] parameter(0)
  x = s32[] constant(41)
  ROOT c = s32[] conditional(p, x, x), true_computation=yes, false_computation=no
})";
  std::vector<Literal> t;
  t.push_back(Literal::CreateR0Pred(true));
  HMO_EVAL_OK(on_true, EvaluateText(kText, std::move(t)));
  EXPECT_EQ(on_true.GetAsInt64(0), 42);
  std::vector<Literal> f;
  f.push_back(Literal::CreateR0Pred(false));
  HMO_EVAL_OK(on_false, EvaluateText(kText, std::move(f)));
  EXPECT_EQ(on_false.GetAsInt64(0), -41);
}

}  // namespace
}  // namespace hmo::eval_test
