// Which kernels loop in tiles (transposed_reads.h): those whose output's
// most-minor dimension reads a large operand with a large stride, tiled
// along the output dimension that reads it contiguously; the tile's columns
// fewer when the operands' lines a page apart share L1 sets.

#include "hmo/codegen/transposed_reads.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string_view>

#include "hmo/ir/hlo_computation.h"
#include "hmo/ir/hlo_module.h"
#include "hmo/text/hlo_parser.h"

namespace hmo::codegen {
namespace {

std::optional<LoopTiling> TilingOfRoot(std::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return std::nullopt;
  return TransposedReadTiling(*(*module)->entry_computation()->root_instruction());
}

TEST(TransposedReadsTest, LayoutChangingCopyTilesAlongTheOperandsMinorDimension) {
  // The output's minor dimension is 0; the operand is contiguous along 1, a
  // page (1024 floats) between the elements dimension 0 reads.
  const std::optional<LoopTiling> tiling = TilingOfRoot(R"(
HloModule m
ENTRY e {
  x = f32[1024,1024]{1,0} parameter(0)
  ROOT c = f32[1024,1024]{0,1} copy(x)
})");
  ASSERT_TRUE(tiling.has_value());
  EXPECT_EQ(tiling->dimension, 1);
  EXPECT_EQ(tiling->columns, 8);  // one operand: the L1 set's ways
  EXPECT_EQ(tiling->rows, 128);   // 2 KiB of floats, capped at 8 tiles of 1024
}

TEST(TransposedReadsTest, FusionReadingThroughBitcastAndTranspose) {
  // XLA's widened dot operand: [8,128,2048] read as [2048,1024]: output
  // dimension 0 walks the operands' minor dimension; two operands a page
  // apart along the output's minor one share their sets.
  const std::optional<LoopTiling> tiling = TilingOfRoot(R"(
HloModule m
fused {
  p0 = f32[8,128,2048]{2,1,0} parameter(0)
  p1 = f32[8,128,2048]{2,1,0} parameter(1)
  add = f32[8,128,2048]{2,1,0} add(p0, p1)
  t = f32[2048,8,128]{0,2,1} transpose(add), dimensions={2,0,1}
  copy = f32[2048,8,128]{2,1,0} copy(t)
  ROOT b = f32[2048,1024]{1,0} bitcast(copy)
}
ENTRY e {
  a = f32[8,128,2048]{2,1,0} parameter(0)
  b = f32[8,128,2048]{2,1,0} parameter(1)
  ROOT f = f32[2048,1024]{1,0} fusion(a, b), kind=kLoop, calls=fused
})");
  ASSERT_TRUE(tiling.has_value());
  EXPECT_EQ(tiling->dimension, 0);
  EXPECT_EQ(tiling->columns, 4);
  EXPECT_EQ(tiling->rows, 256);  // 2048 / 8 tiles
}

TEST(TransposedReadsTest, StridesOffPagesGetAVectorOfColumns) {
  // A stride of 300 floats: the lines fall in different sets.
  const std::optional<LoopTiling> tiling = TilingOfRoot(R"(
HloModule m
ENTRY e {
  x = bf16[500,300]{1,0} parameter(0)
  ROOT t = bf16[300,500]{1,0} transpose(x), dimensions={1,0}
})");
  ASSERT_TRUE(tiling.has_value());
  EXPECT_EQ(tiling->dimension, 0);
  EXPECT_EQ(tiling->columns, 16);
  EXPECT_EQ(tiling->rows, 38);  // 300 / 8 tiles, rounded up (1024 bf16 per 2 KiB)
}

TEST(TransposedReadsTest, KernelsReadingInOrderOrSmallOperandsDoNotTile) {
  // Same layouts: contiguous along the output's minor dimension.
  EXPECT_FALSE(TilingOfRoot(R"(
HloModule m
ENTRY e {
  x = f32[512,512]{1,0} parameter(0)
  y = f32[512,512]{1,0} parameter(1)
  ROOT s = f32[512,512]{1,0} add(x, y)
})")
                   .has_value());
  // A broadcast along the minor dimension reads one element many times.
  EXPECT_FALSE(TilingOfRoot(R"(
HloModule m
ENTRY e {
  x = f32[512]{0} parameter(0)
  ROOT b = f32[512,512]{1,0} broadcast(x), dimensions={0}
})")
                   .has_value());
  // 16 KiB fits in L1 whatever the order.
  EXPECT_FALSE(TilingOfRoot(R"(
HloModule m
ENTRY e {
  x = f32[64,64]{1,0} parameter(0)
  ROOT t = f32[64,64]{1,0} transpose(x), dimensions={1,0}
})")
                   .has_value());
  // An operand read through a gather has no index the walk knows.
  EXPECT_FALSE(TilingOfRoot(R"(
HloModule m
fused {
  p = f32[1024,1024]{1,0} parameter(0)
  i = s32[1024,1]{1,0} parameter(1)
  g = f32[1024,1024]{1,0} gather(p, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,1024}
  ROOT t = f32[1024,1024]{0,1} copy(g)
}
ENTRY e {
  x = f32[1024,1024]{1,0} parameter(0)
  i = s32[1024,1]{1,0} parameter(1)
  ROOT f = f32[1024,1024]{0,1} fusion(x, i), kind=kLoop, calls=fused
})")
                   .has_value());
}

}  // namespace
}  // namespace hmo::codegen
