// What the GPU kernels of reduction fusions compute, checked on the host
// (host_kernel_emulation.h): a fusion reducing more than a loop fusion
// computes inside its loop (kMaxInnerReductionBytes) stays one kernel (the
// shared reduction-fusion emitter, its elementwise producers computed
// inside the reduce's loop) instead of being expanded. Launches of fewer
// threads than outputs make each thread reduce several outputs;
// integer-valued inputs make every sum exact whatever the order.

#include <memory>
#include <string_view>
#include <vector>

#include "gpu/compiler/gpu_module_preparation.h"
#include "gtest/gtest.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/text/hlo_parser.h"
#include "gpu_codegen_test_support.h"
#include "host_kernel_emulation.h"

namespace hmo::gpu {
namespace {

using testing::HostLaunch;
using testing::RunKernelsOnHost;

Literal Iota(std::vector<int64_t> dims, double scale, double offset) {
  Literal literal(Shape(PrimitiveType::F32, std::move(dims)));
  for (int64_t i = 0; i < literal.element_count(); ++i)
    literal.SetFromDouble(i, scale * (i % 7) + offset);
  return literal;
}

std::vector<double> Values(const Literal& literal) {
  std::vector<double> out;
  for (int64_t i = 0; i < literal.element_count(); ++i) out.push_back(literal.GetAsDouble(i));
  return out;
}

// The fusions of the prepared module's entry, by kind.
int CountFusions(std::string_view hlo, FusionKind kind) {
  absl::StatusOr<std::unique_ptr<HloModule>> parsed = ParseHloModule(hlo);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  if (!parsed.ok()) return -1;
  absl::StatusOr<PreparedGpuModule> prepared = PrepareGpuModule(**parsed);
  EXPECT_TRUE(prepared.ok()) << prepared.status();
  if (!prepared.ok()) return -1;
  int count = 0;
  for (const HloInstruction* instruction : prepared->module->entry_computation()->instructions()) {
    if (instruction->opcode() == HloOpcode::kFusion && instruction->fusion_kind() == kind) ++count;
  }
  return count;
}

constexpr char kRowReduction[] = R"(
HloModule row, is_scheduled=true
add {
  l = f32[] parameter(0)
  r = f32[] parameter(1)
  ROOT s = f32[] add(l, r)
}
fused {
  x = f32[64,1100] parameter(0)
  y = f32[64,1100] parameter(1)
  one = f32[] constant(1)
  ones = f32[64,1100] broadcast(one), dimensions={}
  xy = f32[64,1100] multiply(x, y)
  e = f32[64,1100] add(xy, ones)
  z = f32[] constant(0)
  ROOT r = f32[64] reduce(e, z), dimensions={1}, to_apply=add
}
ENTRY main {
  x = f32[64,1100] parameter(0)
  y = f32[64,1100] parameter(1)
  ROOT f = f32[64] fusion(x, y), kind=kInput, calls=fused
}
)";

TEST(GpuFusionKernelsEmulationTest, RowReductionComputesItsProducersInsideTheLoop) {
  EXPECT_EQ(CountFusions(kRowReduction, FusionKind::kInput), 1);
  const Literal x = Iota({64, 1100}, 1, -3);
  const Literal y = Iota({64, 1100}, 2, 1);
  std::vector<double> expected(64, 0);
  for (int64_t i = 0; i < 64; ++i) {
    for (int64_t j = 0; j < 1100; ++j) {
      expected[i] += x.GetAsDouble(i * 1100 + j) * y.GetAsDouble(i * 1100 + j) + 1;
    }
  }
  for (const HostLaunch launch :
       {HostLaunch{1, 1}, HostLaunch{1, 2}, HostLaunch{2, 3}, HostLaunch{4, 8}}) {
    auto result = RunKernelsOnHost(kRowReduction, {x, y}, {{}}, launch);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(Values((*result)[0]), expected) << launch.blocks << "x" << launch.threads_per_block;
  }
}

// A bias gradient's column sum and the sum of squares beside it: one
// multi-output reduction fusion over the batch dimension, each output
// reduced by one thread.
constexpr char kColumnSiblings[] = R"(
HloModule columns, is_scheduled=true
add {
  l = f32[] parameter(0)
  r = f32[] parameter(1)
  ROOT s = f32[] add(l, r)
}
fused {
  x = f32[1100,64] parameter(0)
  z = f32[] parameter(1)
  sum = f32[64] reduce(x, z), dimensions={0}, to_apply=add
  sq = f32[1100,64] multiply(x, x)
  squares = f32[64] reduce(sq, z), dimensions={0}, to_apply=add
  ROOT t = (f32[64], f32[64]) tuple(sum, squares)
}
ENTRY main {
  x = f32[1100,64] parameter(0)
  z = f32[] constant(0)
  ROOT f = (f32[64], f32[64]) fusion(x, z), kind=kInput, calls=fused
}
)";

TEST(GpuFusionKernelsEmulationTest, MultiOutputColumnReductionGivesEachOutputAThread) {
  EXPECT_EQ(CountFusions(kColumnSiblings, FusionKind::kInput), 1);
  // One kernel, a grid-stride iteration per output column, PTX that ptxas
  // takes.
  testing::Emitted e = testing::Emit(kColumnSiblings);
  ASSERT_TRUE(e.kernels.ok()) << e.kernels.status();
  ASSERT_EQ(e.kernels->kernels.size(), 1u);
  EXPECT_EQ(e.kernels->kernels.front().instruction->opcode(), HloOpcode::kFusion);
  EXPECT_EQ(e.kernels->kernels.front().element_count, 64);
  testing::ExpectPtxasAccepts(e.kernels->ptx, "multi_output_reduction");
  const Literal x = Iota({1100, 64}, 1, -2);
  std::vector<double> sum(64, 0), squares(64, 0);
  for (int64_t i = 0; i < 1100; ++i) {
    for (int64_t j = 0; j < 64; ++j) {
      const double v = x.GetAsDouble(i * 64 + j);
      sum[j] += v;
      squares[j] += v * v;
    }
  }
  for (const HostLaunch launch : {HostLaunch{1, 1}, HostLaunch{1, 3}, HostLaunch{2, 3}}) {
    auto result = RunKernelsOnHost(kColumnSiblings, {x}, {{0}, {1}}, launch);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(Values((*result)[0]), sum) << launch.blocks << "x" << launch.threads_per_block;
    EXPECT_EQ(Values((*result)[1]), squares) << launch.blocks << "x" << launch.threads_per_block;
  }
}

}  // namespace
}  // namespace hmo::gpu
