// Real XLA modules (tests/hlo) run on the CPU backend and compared with the
// reference evaluator.

#include <cmath>
#include <string>

#include "gtest/gtest.h"
#include "hmo/eval/hlo_evaluator.h"
#include "run_hlo.h"

namespace hmo::cpu::testing {
namespace {

void ExpectNear(const Literal& got, const Literal& want, double tolerance, const std::string& where) {
  ASSERT_EQ(got.tuple_elements().size(), want.tuple_elements().size()) << where;
  if (!want.tuple_elements().empty()) {
    for (size_t i = 0; i < want.tuple_elements().size(); ++i) {
      ExpectNear(got.tuple_elements()[i], want.tuple_elements()[i], tolerance, where + "{" + std::to_string(i) + "}");
    }
    return;
  }
  ASSERT_EQ(got.element_count(), want.element_count()) << where;
  for (int64_t i = 0; i < want.element_count(); ++i) {
    const double w = want.GetAsDouble(i), g = got.GetAsDouble(i);
    if (std::isnan(w)) {
      EXPECT_TRUE(std::isnan(g)) << where << " element " << i << ": " << g;
      continue;
    }
    if (std::isinf(w)) {
      EXPECT_EQ(g, w) << where << " element " << i;
      continue;
    }
    EXPECT_NEAR(g, w, tolerance * std::max(1.0, std::abs(w))) << where << " element " << i;
  }
}

void CompareWithEvaluator(const std::string& file, const std::vector<Literal>& arguments, double tolerance) {
  auto module = ParseHloModuleFile(std::string(HMO_TEST_DATA_DIR) + "/hlo/" + file);
  ASSERT_TRUE(module.ok()) << module.status();
  auto executable = CompileForCpu(**module, CpuCompileOptions{});
  ASSERT_TRUE(executable.ok()) << executable.status();
  auto got = (*executable)->Execute(arguments, nullptr);
  ASSERT_TRUE(got.ok()) << got.status();
  auto want = HloEvaluator().Evaluate(**module, arguments);
  ASSERT_TRUE(want.ok()) << want.status();
  ExpectNear(*got, *want, tolerance, file);
}

TEST(RealModuleTest, HostOffloadWhileLoops) {
  std::vector<double> x(16);
  for (int i = 0; i < 16; ++i) x[i] = 0.1 * i - 0.7;
  CompareWithEvaluator("host_offload_jit_f_while_loops.hlo", {R1F(PrimitiveType::F32, x)}, 1e-5);
}

TEST(RealModuleTest, IfConditional) {
  for (double v : {-2.5, 0.0, 3.25}) {
    CompareWithEvaluator("if_conditional.hlo", {Literal::CreateR0FromDouble(PrimitiveType::F32, v)}, 1e-6);
  }
}

}  // namespace
}  // namespace hmo::cpu::testing
