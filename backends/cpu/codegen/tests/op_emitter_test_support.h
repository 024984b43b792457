#ifndef HMO_BACKENDS_CPU_CODEGEN_TESTS_OP_EMITTER_TEST_SUPPORT_H_
#define HMO_BACKENDS_CPU_CODEGEN_TESTS_OP_EMITTER_TEST_SUPPORT_H_

// Shared by the op emitter tests: compile an HLO module for the CPU, run it
// (run_hlo.h), and compare with hand-computed values or the reference
// evaluator.

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <memory>
#include <string_view>
#include <vector>

#include "cpu/compiler/cpu_compiler.h"
#include "gtest/gtest.h"
#include "hmo/eval/hlo_evaluator.h"
#include "hmo/execution/literal_comparison.h"
#include "hmo/execution/random_literals.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/ir/literal.h"
#include "hmo/text/hlo_parser.h"
#include "run_hlo.h"

namespace hmo::cpu::testing {

inline std::unique_ptr<HloModule> ParseOrFail(std::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? *std::move(module) : nullptr;
}

// Runs `text` on random arguments (fixed seed) on the CPU and in the
// reference evaluator and expects equal results.
inline void ExpectMatchesEvaluator(std::string_view text, uint64_t seed = 7) {
  std::unique_ptr<HloModule> module = ParseOrFail(text);
  ASSERT_NE(module, nullptr);
  std::vector<Literal> arguments = MakeRandomArguments(*module, seed);
  absl::StatusOr<Literal> actual = CompileAndRun(*module, arguments);
  ASSERT_TRUE(actual.ok()) << actual.status();
  HloEvaluator evaluator;
  absl::StatusOr<Literal> expected = evaluator.Evaluate(*module, arguments);
  ASSERT_TRUE(expected.ok()) << expected.status();
  absl::Status same = CompareLiterals(*expected, *actual);
  EXPECT_TRUE(same.ok()) << same;
}

// The LLVM IR CompileForCpu generates for `module` (before optimization).
inline std::string GeneratedIr(const HloModule& module) {
  const std::string path = ::testing::TempDir() + "/hmo_op_emitter_" +
                           ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".ll";
  CpuCompileOptions options;
  options.dump_ir_to = path;
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable = CompileForCpu(module, options);
  EXPECT_TRUE(executable.ok()) << executable.status();
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  std::remove(path.c_str());
  return text.str();
}

}  // namespace hmo::cpu::testing

#endif  // HMO_BACKENDS_CPU_CODEGEN_TESTS_OP_EMITTER_TEST_SUPPORT_H_
