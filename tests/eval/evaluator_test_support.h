#ifndef HMO_TESTS_EVAL_EVALUATOR_TEST_SUPPORT_H_
#define HMO_TESTS_EVAL_EVALUATOR_TEST_SUPPORT_H_

// Helpers for the evaluator tests: parse an HLO module, evaluate it, and
// read results back as plain vectors.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "hmo/eval/hlo_evaluator.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/text/hlo_parser.h"

namespace hmo::eval_test {

// Parses `hlo` and evaluates its entry computation on `args`.
inline absl::StatusOr<Literal> EvaluateText(std::string_view hlo, std::vector<Literal> args = {}) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
  if (!module.ok()) return module.status();
  HloEvaluator evaluator;
  return evaluator.Evaluate(**module, args);
}

// Every element as double / int64, row-major.
inline std::vector<double> Doubles(const Literal& literal) {
  std::vector<double> values;
  for (int64_t i = 0; i < literal.element_count(); ++i) values.push_back(literal.GetAsDouble(i));
  return values;
}
inline std::vector<int64_t> Ints(const Literal& literal) {
  std::vector<int64_t> values;
  for (int64_t i = 0; i < literal.element_count(); ++i) values.push_back(literal.GetAsInt64(i));
  return values;
}

// An array literal of `shape_text` (e.g. "f32[2,2]") with `values` row-major.
inline Literal MakeArray(std::string_view shape_text, const std::vector<double>& values) {
  absl::StatusOr<Shape> shape = ParseShape(shape_text);
  EXPECT_TRUE(shape.ok()) << shape.status();
  Literal literal(*shape);
  for (size_t i = 0; i < values.size(); ++i) literal.SetFromDouble(static_cast<int64_t>(i), values[i]);
  return literal;
}

// Evaluates and asserts success; returns the value.
#define HMO_EVAL_OK(result_var, ...)                   \
  absl::StatusOr<Literal> result_var##_or = __VA_ARGS__; \
  ASSERT_TRUE(result_var##_or.ok()) << result_var##_or.status(); \
  const Literal& result_var = *result_var##_or

}  // namespace hmo::eval_test

#endif  // HMO_TESTS_EVAL_EVALUATOR_TEST_SUPPORT_H_
