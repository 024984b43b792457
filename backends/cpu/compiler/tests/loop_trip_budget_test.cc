// The while loops of a CPU executable count their trips against the budget
// Executable::set_max_loop_trips sets: a loop that never ends stops the run
// with RESOURCE_EXHAUSTED naming it (no hang), a loop that ends within the
// budget computes the evaluator's values, and `hmo run --max-loop-trips`
// sets the budget of the executable and the reference evaluator.

#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cpu/compiler/cpu_compiler.h"
#include "hmo/eval/hlo_evaluator.h"
#include "hmo/execution/literal_comparison.h"
#include "hmo/execution/random_literals.h"
#include "hmo/text/hlo_parser.h"
#include "support/hmo_cli_runner.h"

namespace hmo::cpu {
namespace {

using ::testing::HasSubstr;

// A counting loop whose bound is the parameter: `n` trips, each adding 1.5.
constexpr char kCountingLoop[] = R"(
HloModule counting

body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  x = f32[4] get-tuple-element(p), index=1
  c = f32[] constant(1.5)
  cs = f32[4] broadcast(c), dimensions={}
  y = f32[4] add(x, cs)
  ROOT t = (s32[], f32[4]) tuple(next, y)
}

cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(40)
  ROOT lt = pred[] compare(i, n), direction=LT
}

ENTRY e {
  zero = s32[] constant(0)
  x = f32[4] parameter(0)
  init = (s32[], f32[4]) tuple(zero, x)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  ROOT r = f32[4] get-tuple-element(w), index=1
}
)";

// An outer loop of three trips around an inner loop whose counter stops at 1
// (a fori_loop counter mutated into minimum(i + 1, 1)): the inner loop's
// condition i < 10 always holds.
constexpr char kNestedLoopThatNeverEnds[] = R"(
HloModule never_ends

inner_body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  stuck = s32[] minimum(next, one)
  x = f32[4] get-tuple-element(p), index=1
  y = f32[4] negate(x)
  ROOT t = (s32[], f32[4]) tuple(stuck, y)
}

inner_cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  ten = s32[] constant(10)
  ROOT lt = pred[] compare(i, ten), direction=LT
}

outer_body {
  p = (s32[], f32[4]) parameter(0)
  j = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  next = s32[] add(j, one)
  x = f32[4] get-tuple-element(p), index=1
  zero = s32[] constant(0)
  init = (s32[], f32[4]) tuple(zero, x)
  inner = (s32[], f32[4]) while(init), condition=inner_cond, body=inner_body
  y = f32[4] get-tuple-element(inner), index=1
  ROOT t = (s32[], f32[4]) tuple(next, y)
}

outer_cond {
  p = (s32[], f32[4]) parameter(0)
  j = s32[] get-tuple-element(p), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(j, three), direction=LT
}

ENTRY e {
  zero = s32[] constant(0)
  x = f32[4] parameter(0)
  init = (s32[], f32[4]) tuple(zero, x)
  outer = (s32[], f32[4]) while(init), condition=outer_cond, body=outer_body
  ROOT r = f32[4] get-tuple-element(outer), index=1
}
)";

std::unique_ptr<CpuExecutable> Compile(const HloModule& module) {
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
      CompileForCpu(module, CpuCompileOptions{});
  EXPECT_TRUE(executable.ok()) << executable.status();
  return executable.ok() ? std::move(*executable) : nullptr;
}

TEST(CpuLoopTripBudgetTest, ALoopThatEndsWithinItsBudgetRuns) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kCountingLoop);
  ASSERT_TRUE(module.ok()) << module.status();
  const std::vector<Literal> arguments = MakeRandomArguments(**module, 3);
  std::unique_ptr<CpuExecutable> executable = Compile(**module);
  ASSERT_NE(executable, nullptr);
  absl::StatusOr<Literal> expected = HloEvaluator().Evaluate(**module, arguments);
  ASSERT_TRUE(expected.ok()) << expected.status();
  // No budget (the default), and a budget of exactly the loop's 40 trips.
  for (int64_t budget : {int64_t{-1}, int64_t{40}}) {
    SCOPED_TRACE(budget);
    executable->set_max_loop_trips(budget);
    absl::StatusOr<Literal> actual = executable->Execute(arguments, nullptr);
    ASSERT_TRUE(actual.ok()) << actual.status();
    EXPECT_TRUE(CompareLiterals(*expected, *actual, LiteralComparisonOptions{}).ok());
  }
  // One trip short: the evaluator and the executable refuse it alike.
  executable->set_max_loop_trips(39);
  absl::StatusOr<Literal> short_run = executable->Execute(arguments, nullptr);
  ASSERT_FALSE(short_run.ok());
  EXPECT_EQ(short_run.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(short_run.status().message(),
              HasSubstr("CPU executable: while loop w ran its body 39 times"));
  absl::StatusOr<Literal> short_evaluation =
      HloEvaluator(HloEvaluator::Options{.max_loop_iterations = 39}).Evaluate(**module, arguments);
  ASSERT_FALSE(short_evaluation.ok());
  EXPECT_THAT(short_evaluation.status().message(), HasSubstr("while loop w ran its body 39 times"));
  // The executable runs again after a refused run.
  executable->set_max_loop_trips(40);
  EXPECT_TRUE(executable->Execute(arguments, nullptr).ok());
}

TEST(CpuLoopTripBudgetTest, AnInnerLoopThatNeverEndsStopsTheRunNamingIt) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kNestedLoopThatNeverEnds);
  ASSERT_TRUE(module.ok()) << module.status();
  const std::vector<Literal> arguments = MakeRandomArguments(**module, 3);
  std::unique_ptr<CpuExecutable> executable = Compile(**module);
  ASSERT_NE(executable, nullptr);
  executable->set_max_loop_trips(1000);
  absl::StatusOr<Literal> result = executable->Execute(arguments, nullptr);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kResourceExhausted);
  // The inner loop ran out; the outer one (three trips) did not.
  EXPECT_THAT(result.status().message(), HasSubstr("while loop inner ran its body 1000 times"));
}

std::string WriteModule(const std::string& name, const char* text) {
  const std::string path = ::testing::TempDir() + "/" + name + ".hlo";
  FILE* file = std::fopen(path.c_str(), "w");
  EXPECT_NE(file, nullptr);
  std::fputs(text, file);
  std::fclose(file);
  return path;
}

TEST(CpuLoopTripBudgetTest, HmoRunStopsALoopThatNeverEndsAndTakesTheBudget) {
  const std::string never_ends = WriteModule("never_ends", kNestedLoopThatNeverEnds);
  // The default budget: an error naming the loop, no result.
  test_support::HmoCliRun run =
      test_support::RunHmoCli("run --passes=memory-report " + never_ends + " --execute");
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_THAT(
      run.err,
      HasSubstr(
          "backend cpu: execute: CPU executable: while loop inner ran its body 1000000 times"));
  EXPECT_THAT(run.out, ::testing::Not(HasSubstr("output {}")));
  // --check: the executable stops first, with the budget given.
  run = test_support::RunHmoCli("run --passes=memory-report " + never_ends +
                                " --check --max-loop-trips 25");
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_THAT(run.err, HasSubstr("while loop inner ran its body 25 times"));
  // A budget the loop fits in, and none at all.
  const std::string counting = WriteModule("counting", kCountingLoop);
  for (const char* budget : {"40", "none"}) {
    run = test_support::RunHmoCli("run --passes=memory-report " + counting +
                                  " --check --max-loop-trips " + budget);
    EXPECT_EQ(run.exit_code, 0) << budget << run.out << run.err;
  }
  run = test_support::RunHmoCli("run --passes=memory-report " + counting +
                                " --check --max-loop-trips 39");
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  // Not a count: a usage error.
  for (const char* bad : {"-1", "lots", "1e6"}) {
    run = test_support::RunHmoCli("run --passes=memory-report " + counting +
                                  " --execute --max-loop-trips " + bad);
    EXPECT_EQ(run.exit_code, 2) << bad << run.out << run.err;
    EXPECT_THAT(run.err, HasSubstr("--max-loop-trips needs a non-negative integer")) << bad;
  }
}

}  // namespace
}  // namespace hmo::cpu
