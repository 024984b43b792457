// What the GPU kernels of the non-elemental operations compute, checked on
// the host (host_kernel_emulation.h): launches of a few threads, smaller
// than the iteration space, so every thread runs several grid-stride
// iterations; hand-computed expected values, duplicate scatter indices.

#include <vector>

#include "gtest/gtest.h"
#include "host_kernel_emulation.h"

namespace hmo::gpu {
namespace {

using testing::HostLaunch;
using testing::RunKernelsOnHost;

Literal Array(PrimitiveType type, std::vector<int64_t> dims, const std::vector<double>& values) {
  Literal literal(Shape(type, std::move(dims)));
  for (size_t i = 0; i < values.size(); ++i) literal.SetFromDouble(static_cast<int64_t>(i), values[i]);
  return literal;
}

std::vector<double> Values(const Literal& literal) {
  std::vector<double> out;
  for (int64_t i = 0; i < literal.element_count(); ++i) out.push_back(literal.GetAsDouble(i));
  return out;
}

TEST(GpuOpKernelsEmulationTest, StableKeyValueSortOfSeveralRows) {
  constexpr char kSort[] = R"(
HloModule sort, is_scheduled=true
gt {
  ka = s32[] parameter(0)
  kb = s32[] parameter(1)
  va = f32[] parameter(2)
  vb = f32[] parameter(3)
  ROOT c = pred[] compare(ka, kb), direction=GT
}
ENTRY main {
  k = s32[3,6] parameter(0)
  v = f32[3,6] parameter(1)
  ROOT s = (s32[3,6], f32[3,6]) sort(k, v), dimensions={1}, is_stable=true, to_apply=gt
}
)";
  const Literal keys = Array(PrimitiveType::S32, {3, 6}, {2, 7, 2, 5, 7, 2,  //
                                                         1, 2, 3, 4, 5, 6,  //
                                                         0, 0, 0, 0, 0, -1});
  const Literal values = Array(PrimitiveType::F32, {3, 6}, {0, 1, 2, 3, 4, 5,  //
                                                           10, 11, 12, 13, 14, 15,  //
                                                           20, 21, 22, 23, 24, 25});
  // Two threads in all for three rows.
  auto result = RunKernelsOnHost(kSort, {keys, values}, {{0}, {1}}, HostLaunch{2, 1});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(Values((*result)[0]), (std::vector<double>{7, 7, 5, 2, 2, 2,  //
                                                      6, 5, 4, 3, 2, 1,  //
                                                      0, 0, 0, 0, 0, -1}));
  // Ties keep their order (stable).
  EXPECT_EQ(Values((*result)[1]), (std::vector<double>{1, 4, 3, 0, 2, 5,  //
                                                      15, 14, 13, 12, 11, 10,  //
                                                      20, 21, 22, 23, 24, 25}));
}

TEST(GpuOpKernelsEmulationTest, SortAlongTheMajorDimension) {
  constexpr char kSort[] = R"(
HloModule sort_columns, is_scheduled=true
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT
}
ENTRY main {
  x = f32[4,3] parameter(0)
  ROOT s = f32[4,3] sort(x), dimensions={0}, to_apply=lt
}
)";
  const Literal x = Array(PrimitiveType::F32, {4, 3}, {4, 0, 9,  //
                                                      3, -1, 8,  //
                                                      2, 5, 7,  //
                                                      1, 2, 6});
  auto result = RunKernelsOnHost(kSort, {x}, {{}}, HostLaunch{1, 2});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(Values((*result)[0]), (std::vector<double>{1, -1, 6,  //
                                                      2, 0, 7,  //
                                                      3, 2, 8,  //
                                                      4, 5, 9}));
}

constexpr char kScatterRows[] = R"(
HloModule scatter, is_scheduled=true
combine {
  old = TYPE[] parameter(0)
  new = TYPE[] parameter(1)
  ROOT c = TYPE[] COMBINER(old, new)
}
ENTRY main {
  x = TYPE[4,2] parameter(0)
  ids = s32[5,1] parameter(1)
  u = TYPE[5,2] parameter(2)
  ROOT s = TYPE[4,2] scatter(x, ids, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=combine
}
)";

std::string Scatter(std::string_view type, std::string_view combiner) {
  std::string text = kScatterRows;
  for (auto [from, to] : {std::pair<std::string_view, std::string_view>{"TYPE", type}, {"COMBINER", combiner}}) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
      text.replace(at, from.size(), to);
    }
  }
  return text;
}

// Rows 1 and 3 are hit twice, row 2 never; index 7 is out of bounds
// (skipped).
const std::vector<double> kOperand = {1, 2, 3, 4, 5, 6, 7, 8};
const std::vector<double> kIds = {1, 3, 1, 0, 3 + 4};
const std::vector<double> kUpdates = {10, 20, 30, 40, 50, 60, 70, 80, 90, 100};

TEST(GpuOpKernelsEmulationTest, AtomicAddScatterSumsDuplicates) {
  for (PrimitiveType type : {PrimitiveType::F32, PrimitiveType::S32, PrimitiveType::F64}) {
    const std::string name = type == PrimitiveType::F32 ? "f32" : type == PrimitiveType::S32 ? "s32" : "f64";
    SCOPED_TRACE(name);
    std::vector<double> ids = kIds;
    ids[4] = 3;  // rows 1 and 3 twice each
    auto result = RunKernelsOnHost(Scatter(name, "add"),
                                   {Array(type, {4, 2}, kOperand), Array(PrimitiveType::S32, {5, 1}, ids),
                                    Array(type, {5, 2}, kUpdates)},
                                   {{}}, HostLaunch{2, 3});
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(Values((*result)[0]), (std::vector<double>{1 + 70, 2 + 80,  //
                                                        3 + 10 + 50, 4 + 20 + 60,  //
                                                        5, 6,  //
                                                        7 + 30 + 90, 8 + 40 + 100}));
  }
}

TEST(GpuOpKernelsEmulationTest, SerializedScatterAppliesEveryUpdateInOrder) {
  // subtract is not commutative: the order of the two updates of a row
  // shows, and must be the updates' order.
  auto result = RunKernelsOnHost(Scatter("f32", "subtract"),
                                 {Array(PrimitiveType::F32, {4, 2}, kOperand),
                                  Array(PrimitiveType::S32, {5, 1}, kIds),
                                  Array(PrimitiveType::F32, {5, 2}, kUpdates)},
                                 {{}}, HostLaunch{3, 2});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(Values((*result)[0]), (std::vector<double>{1 - 70, 2 - 80,  //
                                                      3 - 10 - 50, 4 - 20 - 60,  //
                                                      5, 6,  //
                                                      7 - 30, 8 - 40}));
}

TEST(GpuOpKernelsEmulationTest, DotReduceAndGather) {
  constexpr char kModule[] = R"(
HloModule mixed, is_scheduled=true
add {
  l = f32[] parameter(0)
  r = f32[] parameter(1)
  ROOT s = f32[] add(l, r)
}
ENTRY main {
  a = f32[2,3] parameter(0)
  b = f32[3,2] parameter(1)
  ids = s32[3] parameter(2)
  d = f32[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  z = f32[] constant(0.5)
  r = f32[3] reduce(b, z), dimensions={1}, to_apply=add
  g = f32[3,3] gather(a, ids), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}
  ROOT t = (f32[2,2], f32[3], f32[3,3]) tuple(d, r, g)
}
)";
  const Literal a = Array(PrimitiveType::F32, {2, 3}, {1, 2, 3, 4, 5, 6});
  const Literal b = Array(PrimitiveType::F32, {3, 2}, {7, 8, 9, 10, 11, 12});
  const Literal ids = Array(PrimitiveType::S32, {3}, {1, 0, 5});  // 5 clamps to 1
  auto result = RunKernelsOnHost(kModule, {a, b, ids}, {{0}, {1}, {2}}, HostLaunch{1, 3});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(Values((*result)[0]), (std::vector<double>{58, 64, 139, 154}));
  EXPECT_EQ(Values((*result)[1]), (std::vector<double>{15.5, 19.5, 23.5}));
  EXPECT_EQ(Values((*result)[2]), (std::vector<double>{4, 5, 6, 1, 2, 3, 4, 5, 6}));
}

TEST(GpuOpKernelsEmulationTest, ConvolutionAndReduceWindow) {
  constexpr char kModule[] = R"(
HloModule windows, is_scheduled=true
max {
  l = f32[] parameter(0)
  r = f32[] parameter(1)
  ROOT m = f32[] maximum(l, r)
}
ENTRY main {
  x = f32[1,4,1] parameter(0)
  w = f32[2,1,1] parameter(1)
  y = f32[6] parameter(2)
  c = f32[1,3,1] convolution(x, w), window={size=2}, dim_labels=b0f_0io->b0f
  lo = f32[] constant(-1000)
  p = f32[3] reduce-window(y, lo), window={size=2 stride=2}, to_apply=max
  ROOT t = (f32[1,3,1], f32[3]) tuple(c, p)
}
)";
  auto result = RunKernelsOnHost(kModule,
                                 {Array(PrimitiveType::F32, {1, 4, 1}, {1, 2, 3, 4}),
                                  Array(PrimitiveType::F32, {2, 1, 1}, {1, 10}),
                                  Array(PrimitiveType::F32, {6}, {1, 5, 3, 2, 8, 0})},
                                 {{0}, {1}}, HostLaunch{1, 2});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(Values((*result)[0]), (std::vector<double>{1 + 20, 2 + 30, 3 + 40}));
  EXPECT_EQ(Values((*result)[1]), (std::vector<double>{5, 3, 8}));
}

}  // namespace
}  // namespace hmo::gpu
