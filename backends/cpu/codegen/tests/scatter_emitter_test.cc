// scatter: accumulating and overwriting updates, skipped out-of-bounds
// windows, variadic scatters, against hand-computed values and the
// evaluator.

#include <vector>

#include "gtest/gtest.h"
#include "op_emitter_test_support.h"

namespace hmo::cpu {
namespace {

using ::hmo::cpu::testing::AsDoubles;
using ::hmo::cpu::testing::CompileAndRun;
using ::hmo::cpu::testing::ExpectMatchesEvaluator;
using ::hmo::cpu::testing::ParseOrFail;

TEST(ScatterEmitterTest, AddRowsWithRepeatsAndOutOfBoundsHandComputed) {
  // Row 1 gets two updates, row 7 is out of bounds and skipped; the
  // operand parameter is not modified (the output is a copy).
  auto module = ParseOrFail(R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[3,2] parameter(0)
  i = s32[3] constant({1, 7, 1})
  u = f32[3,2] constant({{10, 20}, {30, 40}, {1, 2}})
  ROOT s = f32[3,2] scatter(x, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}
)");
  ASSERT_NE(module, nullptr);
  Literal x(ShapeUtil::MakeShape(PrimitiveType::F32, {3, 2}));
  for (int i = 0; i < 6; ++i) x.SetFromDouble(i, i);
  std::vector<Literal> arguments;
  arguments.push_back(std::move(x));
  auto result = CompileAndRun(*module, arguments);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(AsDoubles(*result), (std::vector<double>{0, 1, 13, 25, 4, 5}));
  EXPECT_EQ(AsDoubles(arguments[0]), (std::vector<double>{0, 1, 2, 3, 4, 5}));
}

TEST(ScatterEmitterTest, OverwriteWindowsPartlyOutOfBounds) {
  ExpectMatchesEvaluator(R"(
HloModule m
assign {
  a = f32[] parameter(0)
  ROOT b = f32[] parameter(1)
}
ENTRY e {
  x = f32[6,5] parameter(0)
  i = s32[4,2] constant({{0, 0}, {4, 3}, {5, 4}, {2, 1}})
  u = f32[4,2,2] parameter(1)
  ROOT s = f32[6,5] scatter(x, i, u), update_window_dims={1,2}, inserted_window_dims={}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1, to_apply=assign
}
)");
}

TEST(ScatterEmitterTest, InPlaceOnTemporaryAndVariadic) {
  ExpectMatchesEvaluator(R"(
HloModule m
both {
  a = f32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = s32[] parameter(3)
  s = f32[] add(a, c)
  m = s32[] maximum(b, d)
  ROOT r = (f32[], s32[]) tuple(s, m)
}
ENTRY e {
  p = f32[8] parameter(0)
  x = f32[8] negate(p)
  y = s32[8] iota(), iota_dimension=0
  i = s32[5,1] constant({{0}, {7}, {3}, {3}, {-2}})
  u = f32[5] parameter(1)
  v = s32[5] constant({4, 2, 9, 1, 100})
  ROOT s = (f32[8], s32[8]) scatter(x, y, i, u, v), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=both
}
)");
}

TEST(ScatterEmitterTest, BatchingDimensions) {
  ExpectMatchesEvaluator(R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[2,5,3] parameter(0)
  i = s32[2,4] constant({{0, 4, 4, 1}, {2, 2, 3, 0}})
  u = f32[2,4,3] parameter(1)
  ROOT s = f32[2,5,3] scatter(x, i, u), update_window_dims={2}, inserted_window_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={0}, scatter_dims_to_operand_dims={1}, index_vector_dim=2, to_apply=add
}
)");
}

}  // namespace
}  // namespace hmo::cpu
