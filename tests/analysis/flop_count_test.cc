// FLOPs as XLA's HloCostAnalysis counts them, worked by hand.

#include "hmo/analysis/flop_count.h"

#include "gtest/gtest.h"
#include "hmo/ir/hlo_module.h"
#include "support/parsed_module.h"

namespace hmo {
namespace {

constexpr char kModule[] = R"(
HloModule flops

%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %sum = f32[] add(%x, %y)
}

%fused (param_0: f32[8,16], param_1: f32[8,16]) -> f32[8,16] {
  %param_0 = f32[8,16]{1,0} parameter(0)
  %param_1 = f32[8,16]{1,0} parameter(1)
  %m = f32[8,16]{1,0} multiply(%param_0, %param_1)
  ROOT %t = f32[8,16]{1,0} tanh(%m)
}

ENTRY %main (a: f32[8,32], b: f32[32,16], img: f32[1,6,6,3], k: f32[3,3,3,4]) -> f32[8] {
  %a = f32[8,32]{1,0} parameter(0)
  %b = f32[32,16]{1,0} parameter(1)
  %img = f32[1,6,6,3]{3,2,1,0} parameter(2)
  %k = f32[3,3,3,4]{3,2,1,0} parameter(3)
  %dot = f32[8,16]{1,0} dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %conv = f32[1,4,4,4]{3,2,1,0} convolution(%img, %k), window={size=3x3}, dim_labels=b01f_01io->b01f
  %fusion = f32[8,16]{1,0} fusion(%dot, %dot), kind=kLoop, calls=%fused
  %transpose = f32[16,8]{0,1} transpose(%fusion), dimensions={1,0}
  %zero = f32[] constant(0)
  ROOT %reduce = f32[8]{0} reduce(%fusion, %zero), dimensions={1}, to_apply=%add
}
)";

TEST(FlopCountTest, CountsAsXlasCostAnalysis) {
  auto module = test_support::ParseTestModule(kModule);
  const HloComputation& entry = *module->entry_computation();
  auto flops = [&](const char* name) { return FlopCount(*entry.GetInstructionWithName(name)); };
  EXPECT_EQ(flops("dot"), 2 * 8 * 16 * 32);
  // 16 outputs x 4 features, each 3x3x3 multiply-adds.
  EXPECT_EQ(flops("conv"), 2 * 64 * 27);
  // multiply and tanh, 128 elements each.
  EXPECT_EQ(flops("fusion"), 256);
  EXPECT_EQ(flops("transpose"), 0);
  EXPECT_EQ(flops("zero"), 0);
  // 128 inputs reduced to 8.
  EXPECT_EQ(flops("reduce"), 120);
  EXPECT_EQ(FlopCount(entry), 2 * 8 * 16 * 32 + 2 * 64 * 27 + 256 + 120);
}

}  // namespace
}  // namespace hmo
