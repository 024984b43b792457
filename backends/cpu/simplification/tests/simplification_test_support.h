#ifndef HMO_BACKENDS_CPU_SIMPLIFICATION_TESTS_SIMPLIFICATION_TEST_SUPPORT_H_
#define HMO_BACKENDS_CPU_SIMPLIFICATION_TESTS_SIMPLIFICATION_TEST_SUPPORT_H_

// What the simplification passes' tests share: running a pass on a module,
// and checking that a rewritten module computes what the original did.

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "hmo/eval/hlo_evaluator.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/pass/analysis_manager.h"
#include "hmo/pass/pass_context.h"
#include "hmo/plugin/plugin_registries.h"
#include "support/parsed_module.h"

namespace hmo::cpu::testing {

template <typename Pass>
absl::StatusOr<bool> RunPassOn(HloModule& module) {
  PluginRegistries registries;
  AnalysisManager analyses(module);
  PassContext context(analyses, registries);
  Pass pass;
  return pass.Run(module, context);
}

// Parses `text` twice, runs `rewrite` on one copy and evaluates both on the
// same arguments (integers 2, floats a small repeating ramp): the results
// must be equal.
inline void ExpectRewriteKeepsValues(std::string_view text,
                                     const std::function<absl::Status(HloModule&)>& rewrite) {
  std::unique_ptr<HloModule> rewritten = test_support::ParseTestModule(text);
  std::unique_ptr<HloModule> reference = test_support::ParseTestModule(text);
  absl::Status status = rewrite(*rewritten);
  ASSERT_TRUE(status.ok()) << status;
  std::vector<Literal> arguments;
  for (const HloInstruction* parameter : reference->entry_computation()->parameter_instructions()) {
    Literal literal(parameter->shape());
    for (int64_t i = 0; i < literal.element_count(); ++i) {
      literal.SetFromDouble(i, primitive_util::IsIntegralType(parameter->shape().element_type())
                                   ? 2.0
                                   : static_cast<double>((i * 7) % 11) - 5.0);
    }
    arguments.push_back(std::move(literal));
  }
  absl::StatusOr<Literal> expected = HloEvaluator().Evaluate(*reference, arguments);
  absl::StatusOr<Literal> actual = HloEvaluator().Evaluate(*rewritten, arguments);
  ASSERT_TRUE(expected.ok()) << expected.status();
  ASSERT_TRUE(actual.ok()) << actual.status();
  EXPECT_EQ(*expected, *actual) << expected->ToString() << "\n" << actual->ToString();
}

// ExpectRewriteKeepsValues with `Pass` as the rewrite.
template <typename Pass>
void ExpectPassKeepsValues(std::string_view text) {
  ExpectRewriteKeepsValues(text,
                           [](HloModule& module) { return RunPassOn<Pass>(module).status(); });
}

}  // namespace hmo::cpu::testing

#endif  // HMO_BACKENDS_CPU_SIMPLIFICATION_TESTS_SIMPLIFICATION_TEST_SUPPORT_H_
