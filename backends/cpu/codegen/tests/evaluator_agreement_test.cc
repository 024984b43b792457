// Every elementwise opcode on every element type family, run on the CPU
// backend and on the reference evaluator, over inputs that include the edge
// cases (zero, negative zero, extremes, NaN, infinities).

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hmo/eval/hlo_evaluator.h"
#include "run_hlo.h"

namespace hmo::cpu::testing {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

const std::vector<double> kFloatA = {-3.7, -1, -0.0, 0, 0.5, 1, 2.5, 100, kNaN, kInf, -kInf, 1e-3};
const std::vector<double> kFloatB = {2, -1, 0, -0.0, 3, 0.25, -2.5, 7, 1, 2, kInf, -4};

std::vector<int64_t> IntInputs(PrimitiveType type, bool second) {
  const bool is_signed = primitive_util::IsSignedIntegralType(type);
  const int bits = BitWidth(type);
  const int64_t max = bits == 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (bits - (is_signed ? 1 : 0))) - 1;
  const int64_t min = is_signed ? (bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (bits - 1))) : 0;
  if (second) return {3, 0, -1, 2, 1, 7, is_signed ? -3 : 5, max, 0, 1, 40, bits};
  return {7, 5, min, max, 0, -7, 12, -1, 1, 100, 3, 2};
}

Literal Input(PrimitiveType type, bool second) {
  Literal literal(Shape(type, {12}));
  if (IsFloatingPoint(type)) {
    const auto& v = second ? kFloatB : kFloatA;
    for (int i = 0; i < 12; ++i) literal.SetFromDouble(i, v[i]);
  } else {
    const auto v = IntInputs(type, second);
    for (int i = 0; i < 12; ++i) literal.SetFromInt64(i, v[i]);
  }
  return literal;
}

double Tolerance(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::BF16: return 1.0 / 64;
    case PrimitiveType::F16: return 1.0 / 512;
    case PrimitiveType::F32: return 2e-6;
    case PrimitiveType::F64: return 1e-13;
    default: return 0;
  }
}

void Compare(const std::string& op, const std::string& type_name, bool binary, const std::string& out_type) {
  const PrimitiveType type = *primitive_util::StringToPrimitiveType(type_name);
  std::string hlo = "HloModule m\nENTRY e {\n  a = " + type_name + "[12] parameter(0)\n";
  if (binary) hlo += "  b = " + type_name + "[12] parameter(1)\n";
  hlo += "  ROOT r = " + out_type + "[12] " + op + "\n}\n";
  std::vector<Literal> args;
  args.push_back(Input(type, false));
  if (binary) args.push_back(Input(type, true));
  auto module = ParseHloModule(hlo);
  ASSERT_TRUE(module.ok()) << module.status() << "\n" << hlo;
  auto executable = CompileForCpu(**module, CpuCompileOptions{});
  ASSERT_TRUE(executable.ok()) << executable.status();
  auto got = (*executable)->Execute(args, nullptr);
  ASSERT_TRUE(got.ok()) << got.status();
  auto want = HloEvaluator().Evaluate(**module, args);
  ASSERT_TRUE(want.ok()) << want.status() << "\n" << hlo;
  const PrimitiveType result_type = *primitive_util::StringToPrimitiveType(out_type);
  for (int64_t i = 0; i < 12; ++i) {
    if (IsFloatingPoint(result_type)) {
      const double w = want->GetAsDouble(i), g = got->GetAsDouble(i);
      if (std::isnan(w) || std::isinf(w)) {
        EXPECT_TRUE((std::isnan(w) && std::isnan(g)) || g == w) << op << " " << type_name << " [" << i << "]: " << g << " vs " << w;
      } else {
        EXPECT_NEAR(g, w, Tolerance(result_type) * std::max(1.0, std::abs(w)))
            << op << " " << type_name << " [" << i << "]";
      }
    } else {
      EXPECT_EQ(got->GetAsUint64(i), want->GetAsUint64(i)) << op << " " << type_name << " [" << i << "]";
    }
  }
}

class FloatOpsAgreeTest : public ::testing::TestWithParam<const char*> {};
class IntegerOpsAgreeTest : public ::testing::TestWithParam<const char*> {};

TEST_P(FloatOpsAgreeTest, WithEvaluator) {
  const char* unary[] = {"abs", "negate", "exponential", "exponential-minus-one", "log", "log-plus-one",
                         "logistic", "sqrt", "rsqrt", "cbrt", "tanh", "sine", "cosine", "tan", "floor",
                         "ceil", "round-nearest-afz", "round-nearest-even", "sign"};
  const char* binary[] = {"add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum",
                          "power", "atan2"};
  const char* type = GetParam();
  for (const char* op : unary) Compare(std::string(op) + "(a)", type, false, type);
  for (const char* op : binary) Compare(std::string(op) + "(a, b)", type, true, type);
  Compare("is-finite(a)", type, false, "pred");
  for (const char* dir : {"EQ", "NE", "LT", "LE", "GT", "GE"}) {
    Compare(std::string("compare(a, b), direction=") + dir, type, true, "pred");
    Compare(std::string("compare(a, b), direction=") + dir + ", type=TOTALORDER", type, true, "pred");
  }
}

INSTANTIATE_TEST_SUITE_P(Types, FloatOpsAgreeTest, ::testing::Values("f16", "bf16", "f32", "f64"),
                         [](const auto& info) { return std::string(info.param); });

TEST_P(IntegerOpsAgreeTest, WithEvaluator) {
  const char* unary[] = {"abs", "negate", "sign", "not", "popcnt", "count-leading-zeros"};
  const char* binary[] = {"add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "power",
                          "and", "or", "xor", "shift-left", "shift-right-arithmetic", "shift-right-logical"};
  const char* type = GetParam();
  for (const char* op : unary) Compare(std::string(op) + "(a)", type, false, type);
  for (const char* op : binary) Compare(std::string(op) + "(a, b)", type, true, type);
  for (const char* dir : {"EQ", "NE", "LT", "LE", "GT", "GE"}) {
    Compare(std::string("compare(a, b), direction=") + dir, type, true, "pred");
  }
}

INSTANTIATE_TEST_SUITE_P(Types, IntegerOpsAgreeTest,
                         ::testing::Values("s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace hmo::cpu::testing
