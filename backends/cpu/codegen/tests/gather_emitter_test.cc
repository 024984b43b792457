// gather: row gathers, clamped starts, implicit index vectors, batching
// dimensions, against hand-computed values and the evaluator.

#include <vector>

#include "gtest/gtest.h"
#include "op_emitter_test_support.h"

namespace hmo::cpu {
namespace {

using ::hmo::cpu::testing::AsDoubles;
using ::hmo::cpu::testing::CompileAndRun;
using ::hmo::cpu::testing::ExpectMatchesEvaluator;
using ::hmo::cpu::testing::ParseOrFail;

TEST(GatherEmitterTest, RowsWithClampedStartHandComputed) {
  // Rows 2, 0 and 5 (clamped to the last row, 2) of a 3x2 operand.
  auto module = ParseOrFail(R"(
HloModule m
ENTRY e {
  x = f32[3,2] constant({{1, 2}, {3, 4}, {5, 6}})
  i = s32[3] constant({2, 0, 5})
  ROOT g = f32[3,2] gather(x, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,2}
}
)");
  ASSERT_NE(module, nullptr);
  auto result = CompileAndRun(*module, {});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(AsDoubles(*result), (std::vector<double>{5, 6, 1, 2, 5, 6}));
}

TEST(GatherEmitterTest, TwoDimensionalStartsAndWindows) {
  ExpectMatchesEvaluator(R"(
HloModule m
ENTRY e {
  x = f32[4,5] parameter(0)
  i = s64[2,3,2] constant({{{0, 0}, {3, 4}, {1, 2}}, {{2, 1}, {-1, 0}, {0, 3}}})
  ROOT g = f32[2,2,3,2] gather(x, i), offset_dims={1,3}, collapsed_slice_dims={}, start_index_map={1,0}, index_vector_dim=2, slice_sizes={2,2}
}
)");
}

TEST(GatherEmitterTest, EmbeddingLookupWithImplicitIndexVector) {
  ExpectMatchesEvaluator(R"(
HloModule m
ENTRY e {
  table = f32[10,4] parameter(0)
  ids = s32[2,3] constant({{9, 0, 3}, {3, 3, 7}})
  ROOT g = f32[2,3,4] gather(table, ids), offset_dims={2}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=2, slice_sizes={1,4}
}
)");
}

TEST(GatherEmitterTest, BatchingDimensions) {
  ExpectMatchesEvaluator(R"(
HloModule m
ENTRY e {
  x = f32[3,6,2] parameter(0)
  i = s32[3,4,1] constant({{{0}, {5}, {2}, {2}}, {{1}, {1}, {4}, {0}}, {{3}, {5}, {0}, {1}}})
  ROOT g = f32[3,4,2] gather(x, i), offset_dims={2}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1,2}
}
)");
}

}  // namespace
}  // namespace hmo::cpu
