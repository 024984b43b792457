// convert from every supported element type to every other, on values every
// type represents exactly.

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "run_hlo.h"

namespace hmo::cpu::testing {
namespace {

const std::vector<PrimitiveType> kTypes = {
    PrimitiveType::PRED, PrimitiveType::S8,  PrimitiveType::S16, PrimitiveType::S32, PrimitiveType::S64,
    PrimitiveType::U8,   PrimitiveType::U16, PrimitiveType::U32, PrimitiveType::U64, PrimitiveType::F16,
    PrimitiveType::BF16, PrimitiveType::F32, PrimitiveType::F64};

class ConvertMatrixTest : public ::testing::TestWithParam<PrimitiveType> {};

TEST_P(ConvertMatrixTest, ToEveryType) {
  const PrimitiveType from = GetParam();
  const std::string from_name(PrimitiveTypeName(from));
  std::string hlo = "HloModule m\nENTRY e {\n  x = " + from_name + "[4] parameter(0)\n";
  std::string tuple_shape, tuple_operands;
  for (size_t k = 0; k < kTypes.size(); ++k) {
    const std::string to(PrimitiveTypeName(kTypes[k]));
    hlo += "  c" + std::to_string(k) + " = " + to + "[4] convert(x)\n";
    tuple_shape += (k ? ", " : "") + to + "[4]";
    tuple_operands += (k ? ", c" : "c") + std::to_string(k);
  }
  hlo += "  ROOT t = (" + tuple_shape + ") tuple(" + tuple_operands + ")\n}\n";

  const std::vector<int64_t> values =
      from == PrimitiveType::PRED ? std::vector<int64_t>{0, 1, 1, 0} : std::vector<int64_t>{0, 1, 5, 100};
  Literal input(Shape(from, {4}));
  for (int i = 0; i < 4; ++i) {
    if (IsFloatingPoint(from)) {
      input.SetFromDouble(i, static_cast<double>(values[i]));
    } else {
      input.SetFromInt64(i, values[i]);
    }
  }
  auto result = RunHlo(hlo, {input});
  ASSERT_TRUE(result.ok()) << result.status();
  for (size_t k = 0; k < kTypes.size(); ++k) {
    const Literal& out = result->tuple_elements()[k];
    for (int i = 0; i < 4; ++i) {
      const double expected = kTypes[k] == PrimitiveType::PRED ? (values[i] != 0) : static_cast<double>(values[i]);
      EXPECT_EQ(out.GetAsDouble(i), expected) << from_name << " -> " << PrimitiveTypeName(kTypes[k]) << " [" << i << "]";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllTypes, ConvertMatrixTest, ::testing::ValuesIn(kTypes),
                         [](const ::testing::TestParamInfo<PrimitiveType>& info) {
                           return std::string(PrimitiveTypeName(info.param));
                         });

TEST(ConvertMatrixTest, NegativeValuesBetweenSignedAndFloatTypes) {
  constexpr const char* kHlo = R"(
HloModule m
ENTRY e {
  x = s64[2] parameter(0)
  a = s8[2] convert(x)
  b = f16[2] convert(a)
  c = bf16[2] convert(b)
  d = s16[2] convert(c)
  f = f64[2] convert(d)
  g = s32[2] convert(f)
  ROOT h = u32[2] convert(g)
})";
  auto result = RunHlo(kHlo, {R1I(PrimitiveType::S64, {-7, -100})});
  ASSERT_TRUE(result.ok()) << result.status();
  // -7 and -100 survive every step; u32 wraps them.
  EXPECT_EQ(result->GetAsUint64(0), 4294967289u);
  EXPECT_EQ(result->GetAsUint64(1), 4294967196u);
}

}  // namespace
}  // namespace hmo::cpu::testing
