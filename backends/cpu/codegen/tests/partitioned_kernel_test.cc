// Partitioned kernels: an element-by-element kernel split into parts that
// run on the intra-op threads computes exactly what the evaluator does, for
// any thread count (more threads than parts, parts not dividing the
// dimension, flat and nested loops, several outputs, leading unit
// dimensions).

#include <memory>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "hmo/eval/hlo_evaluator.h"
#include "run_hlo.h"

namespace hmo::cpu::testing {
namespace {

void ExpectSameForEveryThreadCount(std::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  const std::vector<Literal> arguments = RampArguments(**module);
  absl::StatusOr<Literal> expected = HloEvaluator().Evaluate(**module, arguments);
  ASSERT_TRUE(expected.ok()) << expected.status();
  for (int64_t threads : {1, 2, 3, 7}) {
    CpuCompileOptions options;
    options.threads = threads;
    absl::StatusOr<std::unique_ptr<CpuExecutable>> executable = CompileForCpu(**module, options);
    ASSERT_TRUE(executable.ok()) << executable.status();
    absl::StatusOr<Literal> actual = (*executable)->Execute(arguments, /*profile=*/nullptr);
    ASSERT_TRUE(actual.ok()) << actual.status();
    EXPECT_EQ(*expected, *actual) << "threads " << threads;
  }
}

TEST(PartitionedKernelTest, FlatElementwiseKernel) {
  ExpectSameForEveryThreadCount(R"(
HloModule m
ENTRY e {
  a = f32[301,999] parameter(0)
  b = f32[301,999] parameter(1)
  ROOT s = f32[301,999] subtract(a, b)
})");
}

TEST(PartitionedKernelTest, NestedLoopOfATransposingFusion) {
  ExpectSameForEveryThreadCount(R"(
HloModule m
fused {
  a = f32[517,611]{1,0} parameter(0)
  t = f32[611,517]{1,0} transpose(a), dimensions={1,0}
  b = f32[611,517]{1,0} parameter(1)
  ROOT m = f32[611,517]{1,0} multiply(t, b)
}
ENTRY e {
  x = f32[517,611]{1,0} parameter(0)
  y = f32[611,517]{1,0} parameter(1)
  ROOT f = f32[611,517]{1,0} fusion(x, y), kind=kLoop, calls=fused
})");
}

// Kernels reading an operand transposed loop in tiles (transposed_reads.h),
// the last tiles clipped: a page-strided copy, XLA's widened dot operand
// read through a bitcast, a 16-bit transpose, dimensions no tile divides.
TEST(PartitionedKernelTest, TiledLoopsOfTransposedReads) {
  ExpectSameForEveryThreadCount(R"(
HloModule m
ENTRY e {
  x = f32[1024,1030]{1,0} parameter(0)
  ROOT c = f32[1024,1030]{0,1} copy(x)
})");
  ExpectSameForEveryThreadCount(R"(
HloModule m
fused {
  p0 = f32[3,40,700]{2,1,0} parameter(0)
  p1 = f32[3,40,700]{2,1,0} parameter(1)
  add = f32[3,40,700]{2,1,0} add(p0, p1)
  n = bf16[3,40,700]{2,1,0} convert(add)
  w = f32[3,40,700]{2,1,0} convert(n)
  t = f32[700,3,40]{0,2,1} transpose(w), dimensions={2,0,1}
  copy = f32[700,3,40]{2,1,0} copy(t)
  ROOT b = f32[700,120]{1,0} bitcast(copy)
}
ENTRY e {
  a = f32[3,40,700]{2,1,0} parameter(0)
  b = f32[3,40,700]{2,1,0} parameter(1)
  ROOT f = f32[700,120]{1,0} fusion(a, b), kind=kLoop, calls=fused
})");
  ExpectSameForEveryThreadCount(R"(
HloModule m
ENTRY e {
  x = bf16[5,300,333]{2,1,0} parameter(0)
  ROOT t = bf16[5,333,300]{2,1,0} transpose(x), dimensions={0,2,1}
})");
}

// Blocks transposed in registers (transposed_blocks.h): whole blocks only,
// a 16-bit fusion of a slice and a transpose with clipped blocks, a 32-bit
// integer transpose, and a transpose whose tiled dimension is the output's
// most-major one, with a dimension of two indices between. And a fusion
// with arithmetic beside its transposed read, which loops in tiles.
TEST(PartitionedKernelTest, TransposedBlocks) {
  ExpectSameForEveryThreadCount(R"(
HloModule m
ENTRY e {
  x = f32[480,160]{1,0} parameter(0)
  ROOT c = f32[480,160]{0,1} copy(x)
})");
  ExpectSameForEveryThreadCount(R"(
HloModule m
fused {
  a = f16[200,333]{1,0} parameter(0)
  b = f16[333,200]{1,0} parameter(1)
  t = f16[333,200]{1,0} transpose(a), dimensions={1,0}
  ROOT s = f16[333,200]{1,0} add(t, b)
}
ENTRY e {
  a = f16[200,333]{1,0} parameter(0)
  b = f16[333,200]{1,0} parameter(1)
  ROOT f = f16[333,200]{1,0} fusion(a, b), kind=kLoop, calls=fused
})");
  ExpectSameForEveryThreadCount(R"(
HloModule m
fused {
  a = bf16[210,340]{1,0} parameter(0)
  s = bf16[200,333]{1,0} slice(a), slice={[5:205], [7:340]}
  ROOT t = bf16[333,200]{1,0} transpose(s), dimensions={1,0}
}
ENTRY e {
  a = bf16[210,340]{1,0} parameter(0)
  ROOT f = bf16[333,200]{1,0} fusion(a), kind=kLoop, calls=fused
})");
  ExpectSameForEveryThreadCount(R"(
HloModule m
ENTRY e {
  x = s32[4,33,700]{2,1,0} parameter(0)
  ROOT t = s32[4,700,33]{2,1,0} transpose(x), dimensions={0,2,1}
})");
  ExpectSameForEveryThreadCount(R"(
HloModule m
ENTRY e {
  x = f32[600,2,40]{2,1,0} parameter(0)
  ROOT t = f32[40,2,600]{2,1,0} transpose(x), dimensions={2,1,0}
})");
}

// A reduce-window taking its outputs in lanes (reduce_window_emitter.cc):
// the parts split the blocks of lanes, the last block partial.
TEST(PartitionedKernelTest, ReduceWindowInLanes) {
  ExpectSameForEveryThreadCount(R"(
HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[64,2000] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[2,1000] reduce-window(x, z), window={size=32x2 stride=32x2 pad=0_0x1_1}, to_apply=sum
})");
  ExpectSameForEveryThreadCount(R"(
HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[64,1001] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[2,1001] reduce-window(x, z), window={size=32x1 stride=32x1}, to_apply=sum
})");
}

// A multi-output reduction fusion: the parts split the outputs' rows.
TEST(PartitionedKernelTest, MultiOutputRowReductions) {
  ExpectSameForEveryThreadCount(R"(
HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
fused {
  x = f32[517,611] parameter(0)
  zero = f32[] constant(0)
  sq = f32[517,611] multiply(x, x)
  s = f32[517] reduce(x, zero), dimensions={1}, to_apply=sum
  s2 = f32[517] reduce(sq, zero), dimensions={1}, to_apply=sum
  ROOT t = (f32[517], f32[517]) tuple(s, s2)
}
ENTRY e {
  p = f32[517,611] parameter(0)
  ROOT f = (f32[517], f32[517]) fusion(p), kind=kInput, calls=fused
})");
}

TEST(PartitionedKernelTest, MultiOutputFusionWithLeadingUnitDimensions) {
  ExpectSameForEveryThreadCount(R"(
HloModule m
fused {
  a = f32[1,1,389,733]{3,2,1,0} parameter(0)
  n = f32[1,1,389,733]{3,2,1,0} negate(a)
  x = f32[1,1,389,733]{3,2,1,0} multiply(n, a)
  ROOT t = (f32[1,1,389,733]{3,2,1,0}, f32[1,1,389,733]{3,2,1,0}) tuple(n, x)
}
ENTRY e {
  p = f32[1,1,389,733]{3,2,1,0} parameter(0)
  ROOT f = (f32[1,1,389,733]{3,2,1,0}, f32[1,1,389,733]{3,2,1,0}) fusion(p), kind=kLoop, calls=fused
})");
}

TEST(PartitionedKernelTest, RowReductionAndReductionFusion) {
  // Each part reduces its share of the rows; the column reduction (kept
  // dimension minor) runs whole, accumulating in its output.
  ExpectSameForEveryThreadCount(R"(
HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
fused {
  x = f32[611,517] parameter(0)
  e = f32[611,517] multiply(x, x)
  zero = f32[] constant(0)
  ROOT r = f32[611] reduce(e, zero), dimensions={1}, to_apply=sum
}
ENTRY e {
  p = f32[611,517] parameter(0)
  rows = f32[611] reduce(p, f32[] constant(0)), dimensions={1}, to_apply=sum
  squares = f32[611] fusion(p), kind=kInput, calls=fused
  columns = f32[517] reduce(p, f32[] constant(0)), dimensions={0}, to_apply=sum
  ROOT t = (f32[611], f32[611], f32[517]) tuple(rows, squares, columns)
})");
}

}  // namespace
}  // namespace hmo::cpu::testing
