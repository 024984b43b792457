// gather and scatter with XLA dimension numbers: row gathers, clamped start
// indices, batching dimensions, scatter-add with repeated indices (applied in
// order), out-of-bounds updates skipped, window scatters; select-and-scatter.

#include "evaluator_test_support.h"

namespace hmo::eval_test {
namespace {

TEST(GatherTest, GatherRowsWithClampedIndex) {
  // Index 5 is clamped to the last row that fits (2).
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  table = f32[3,2] constant({{1, 2}, {3, 4}, {5, 6}})
  idx = s32[3] constant({2, 0, 5})
  ROOT g = f32[3,2] gather(table, idx), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,2}
})"));
  EXPECT_EQ(Doubles(result), (std::vector<double>{5, 6, 1, 2, 5, 6}));
}

TEST(GatherTest, GatherWindowsWithIndexVectorDimension) {
  // Start vectors (row, col) pick 2x2 windows; offset dims come last.
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  m = s32[3,3] constant({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}})
  idx = s32[2,2] constant({{0, 1}, {1, 0}})
  ROOT g = s32[2,2,2] gather(m, idx), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={2,2}
})"));
  EXPECT_EQ(Ints(result), (std::vector<int64_t>{2, 3, 5, 6, 4, 5, 7, 8}));
}

TEST(GatherTest, GatherWithBatchingDimensions) {
  // Row b of the operand is indexed by indices[b].
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ENTRY e {
  m = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  idx = s32[2,1] constant({{2}, {0}})
  ROOT g = f32[2] gather(m, idx), offset_dims={}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=1, slice_sizes={1,1}
})"));
  EXPECT_EQ(Doubles(result), (std::vector<double>{3, 4}));
}

TEST(ScatterTest, ScatterAddWithRepeatedIndices) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[3] constant({1, 2, 3})
  idx = s32[3,1] constant({{0}, {2}, {0}})
  upd = f32[3] constant({10, 20, 30})
  ROOT s = f32[3] scatter(x, idx, upd), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
})"));
  EXPECT_EQ(Doubles(result), (std::vector<double>{41, 2, 23}));
}

TEST(ScatterTest, OverwriteAppliesUpdatesInOrderAndSkipsOutOfBounds) {
  // The combiner returns the update, so the last update to an index wins;
  // index 5 is out of bounds and is dropped.
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
overwrite {
  a = s32[] parameter(0)
  ROOT b = s32[] parameter(1)
}
ENTRY e {
  x = s32[3] constant({1, 2, 3})
  idx = s32[4] constant({0, 0, 5, 2})
  upd = s32[4] constant({5, 7, 9, 11})
  ROOT s = s32[3] scatter(x, idx, upd), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=overwrite
})"));
  EXPECT_EQ(Ints(result), (std::vector<int64_t>{7, 2, 11}));
}

TEST(ScatterTest, ScatterRowWindows) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[3,2] constant({{1, 1}, {1, 1}, {1, 1}})
  idx = s32[2] constant({1, 1})
  upd = f32[2,2] constant({{7, 8}, {10, 20}})
  ROOT s = f32[3,2] scatter(x, idx, upd), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
})"));
  EXPECT_EQ(Doubles(result), (std::vector<double>{1, 1, 18, 29, 1, 1}));
}

TEST(ScatterTest, VariadicScatterWithBatchingDimensions) {
  // Row b of both operands receives its update at column indices[b]; the
  // combiner adds in operand 0 and takes the maximum in operand 1.
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
combine {
  a0 = s32[] parameter(0)
  a1 = s32[] parameter(1)
  u0 = s32[] parameter(2)
  u1 = s32[] parameter(3)
  s = s32[] add(a0, u0)
  m = s32[] maximum(a1, u1)
  ROOT t = (s32[], s32[]) tuple(s, m)
}
ENTRY e {
  x = s32[2,3] constant({{1, 1, 1}, {1, 1, 1}})
  y = s32[2,3] constant({{5, 5, 5}, {5, 5, 5}})
  idx = s32[2,1] constant({{2}, {0}})
  u = s32[2] constant({10, 20})
  v = s32[2] constant({3, 9})
  ROOT s = (s32[2,3], s32[2,3]) scatter(x, y, idx, u, v), update_window_dims={}, inserted_window_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={0}, scatter_dims_to_operand_dims={1}, index_vector_dim=1, to_apply=combine
})"));
  EXPECT_EQ(Ints(result.tuple_elements()[0]), (std::vector<int64_t>{1, 1, 11, 21, 1, 1}));
  EXPECT_EQ(Ints(result.tuple_elements()[1]), (std::vector<int64_t>{5, 5, 5, 9, 5, 5}));
}

}  // namespace
TEST(GatherScatterTest, SelectAndScatterAddsSourceAtEachWindowsPick) {
  HMO_EVAL_OK(result, EvaluateText(R"(HloModule m
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[5] constant({1, 3, 2, 5, 5})
  s = f32[2] constant({10, 20})
  z = f32[] constant(0)
  ROOT r = f32[5] select-and-scatter(x, s, z), window={size=2 stride=2}, select=ge, scatter=add
})"));
  // Windows {1,3} and {2,5}: the later element replaces the pick when
  // select(pick, later) is false; the last element is in no window.
  EXPECT_EQ(Doubles(result), (std::vector<double>{0, 10, 0, 20, 0}));
}

}  // namespace hmo::eval_test
