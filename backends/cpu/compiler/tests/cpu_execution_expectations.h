#ifndef HMO_BACKENDS_CPU_COMPILER_TESTS_CPU_EXECUTION_EXPECTATIONS_H_
#define HMO_BACKENDS_CPU_COMPILER_TESTS_CPU_EXECUTION_EXPECTATIONS_H_

// What the compiler's execution tests share: a module compiled for the CPU
// and run must give the evaluator's results on the module as given.

#include <cstdint>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "cpu/compiler/cpu_compiler.h"
#include "hmo/eval/hlo_evaluator.h"
#include "hmo/execution/literal_comparison.h"
#include "hmo/execution/random_literals.h"

namespace hmo::cpu::testing {

// Compiles `module` (CompileForCpu), runs it on random arguments from
// `seed` and compares the result with the evaluator's (default tolerances).
inline void ExpectCpuMatchesTheEvaluator(const HloModule& module, uint64_t seed) {
  const std::vector<Literal> arguments = MakeRandomArguments(module, seed);
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
      CompileForCpu(module, CpuCompileOptions{});
  ASSERT_TRUE(executable.ok()) << executable.status();
  absl::StatusOr<Literal> actual = (*executable)->Execute(arguments, nullptr);
  ASSERT_TRUE(actual.ok()) << actual.status();
  absl::StatusOr<Literal> expected = HloEvaluator().Evaluate(module, arguments);
  ASSERT_TRUE(expected.ok()) << expected.status();
  absl::Status same = CompareLiterals(*expected, *actual, LiteralComparisonOptions{});
  EXPECT_TRUE(same.ok()) << same;
}

}  // namespace hmo::cpu::testing

#endif  // HMO_BACKENDS_CPU_COMPILER_TESTS_CPU_EXECUTION_EXPECTATIONS_H_
