// Output fusions (codegen::IsOutputFusionEmittable): a dot or convolution
// with its elementwise epilogue runs as one kernel, the epilogue applied to
// each tile of the runtime GEMM's or convolution's product. Results equal
// the evaluator's for every runtime GEMM's element types, batches,
// transposes, outputs in another layout, several tiles per product, an
// addend sharing the output's buffer, and f32, bf16, grouped and depthwise
// convolutions; the product takes no buffer of the plan.

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cpu/compiler/cpu_compiler.h"
#include "cpu_execution_expectations.h"
#include "hmo/analysis/target_memory_model.h"
#include "hmo/codegen/fusion_emitter.h"
#include "hmo/ir/hlo_computation.h"
#include "hmo/text/hlo_parser.h"

namespace hmo::cpu {
namespace {

struct OutputFusionCase {
  const char* name;
  const char* text;
};

// Compiles and runs `text`, compares with the evaluator, and checks that
// the prepared module kept its output fusion.
void ExpectMatchesTheEvaluator(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::unique_ptr<HloModule>> prepared = CpuMemoryModel().prepare(**module);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  int output_fusions = 0;
  for (const HloInstruction* instruction : (*prepared)->entry_computation()->instructions()) {
    if (instruction->opcode() == HloOpcode::kDot ||
        instruction->opcode() == HloOpcode::kConvolution) {
      ADD_FAILURE() << "expanded: " << instruction->name();
    }
    if (instruction->opcode() == HloOpcode::kFusion &&
        codegen::IsOutputFusionEmittable(*instruction)) {
      ++output_fusions;
    }
  }
  EXPECT_EQ(output_fusions, 1);
  testing::ExpectCpuMatchesTheEvaluator(**module, 5);
}

class OutputFusionTest : public ::testing::TestWithParam<OutputFusionCase> {};

TEST_P(OutputFusionTest, MatchesTheEvaluator) { ExpectMatchesTheEvaluator(GetParam().text); }

INSTANTIATE_TEST_SUITE_P(
    Modules, OutputFusionTest,
    ::testing::Values(
        // 600 x 2000 f32 outputs: more than one scratch tile (2^20 elements).
        OutputFusionCase{"F32BiasReluSeveralTiles", R"(HloModule f32_bias_relu
fused {
  x = f32[600,32]{1,0} parameter(0)
  w = f32[32,2000]{1,0} parameter(1)
  bias = f32[2000]{0} parameter(2)
  d = f32[600,2000]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  b = f32[600,2000]{1,0} broadcast(bias), dimensions={1}
  s = f32[600,2000]{1,0} add(d, b)
  zero = f32[] constant(0)
  z = f32[600,2000]{1,0} broadcast(zero), dimensions={}
  ROOT r = f32[600,2000]{1,0} maximum(s, z)
}
ENTRY e {
  x = f32[600,32]{1,0} parameter(0)
  w = f32[32,2000]{1,0} parameter(1)
  bias = f32[2000]{0} parameter(2)
  ROOT f = f32[600,2000]{1,0} fusion(x, w, bias), kind=kOutput, calls=fused
}
)"},
        // 16 rows, 1024 columns: the product is split into column tiles
        // for the intra-op threads.
        OutputFusionCase{"F32FewRowsColumnTiles", R"(HloModule f32_columns
fused {
  x = f32[16,64]{1,0} parameter(0)
  w = f32[64,1024]{1,0} parameter(1)
  d = f32[16,1024]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT e = f32[16,1024]{1,0} exponential(d)
}
ENTRY e {
  x = f32[16,64]{1,0} parameter(0)
  w = f32[64,1024]{1,0} parameter(1)
  ROOT f = f32[16,1024]{1,0} fusion(x, w), kind=kOutput, calls=fused
}
)"},
        // Batched bf16 dot, transposed rhs, the f32 product scaled and
        // narrowed to bf16 (a bf16 model's projection).
        OutputFusionCase{"Bf16BatchedTransposedNarrowed", R"(HloModule bf16_batched
fused {
  q = bf16[4,64,48]{2,1,0} parameter(0)
  k = bf16[4,80,48]{2,1,0} parameter(1)
  d = f32[4,64,80]{2,1,0} dot(q, k), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}
  c = f32[] constant(0.125)
  cb = f32[4,64,80]{2,1,0} broadcast(c), dimensions={}
  m = f32[4,64,80]{2,1,0} multiply(d, cb)
  ROOT n = bf16[4,64,80]{2,1,0} convert(m)
}
ENTRY e {
  q = bf16[4,64,48]{2,1,0} parameter(0)
  k = bf16[4,80,48]{2,1,0} parameter(1)
  ROOT f = bf16[4,64,80]{2,1,0} fusion(q, k), kind=kOutput, calls=fused
}
)"},
        // An f16 dot into f32 (widened blocks for the BLAS), narrowed to
        // f16 after a tanh.
        OutputFusionCase{"F16TanhNarrowed", R"(HloModule f16_tanh
fused {
  x = f16[96,80]{1,0} parameter(0)
  w = f16[120,80]{1,0} parameter(1)
  d = f32[96,120]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  t = f32[96,120]{1,0} tanh(d)
  ROOT n = f16[96,120]{1,0} convert(t)
}
ENTRY e {
  x = f16[96,80]{1,0} parameter(0)
  w = f16[120,80]{1,0} parameter(1)
  ROOT f = f16[96,120]{1,0} fusion(x, w), kind=kOutput, calls=fused
}
)"},
        // s8 x s8 -> s32, dequantized into f32.
        OutputFusionCase{"S8Dequantized", R"(HloModule s8_dequantized
fused {
  a = s8[40,300]{1,0} parameter(0)
  b = s8[300,50]{1,0} parameter(1)
  scale = f32[50]{0} parameter(2)
  d = s32[40,50]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  df = f32[40,50]{1,0} convert(d)
  sb = f32[40,50]{1,0} broadcast(scale), dimensions={1}
  ROOT r = f32[40,50]{1,0} multiply(df, sb)
}
ENTRY e {
  a = s8[40,300]{1,0} parameter(0)
  b = s8[300,50]{1,0} parameter(1)
  scale = f32[50]{0} parameter(2)
  ROOT f = f32[40,50]{1,0} fusion(a, b, scale), kind=kOutput, calls=fused
}
)"},
        // An f64 dot with a transposed lhs into a column-major output.
        OutputFusionCase{"F64TransposedLhsColumnMajorOutput", R"(HloModule f64_column_major
fused {
  a = f64[70,90]{1,0} parameter(0)
  b = f64[70,110]{1,0} parameter(1)
  d = f64[90,110]{1,0} dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  ROOT t = f64[90,110]{0,1} tanh(d)
}
ENTRY e {
  a = f64[70,90]{1,0} parameter(0)
  b = f64[70,110]{1,0} parameter(1)
  ROOT f = f64[90,110]{0,1} fusion(a, b), kind=kOutput, calls=fused
}
)"},
        // dot + addend, the addend (dead after the add) sharing the output's
        // buffer: each element is read before it is written.
        OutputFusionCase{"AddendSharesTheOutput", R"(HloModule addend
fused {
  x = f32[256,128]{1,0} parameter(0)
  w = f32[128,256]{1,0} parameter(1)
  acc = f32[256,256]{1,0} parameter(2)
  d = f32[256,256]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT s = f32[256,256]{1,0} add(d, acc)
}
ENTRY e {
  x = f32[256,128]{1,0} parameter(0)
  w = f32[128,256]{1,0} parameter(1)
  y = f32[256,256]{1,0} parameter(2)
  acc = f32[256,256]{1,0} negate(y)
  ROOT f = f32[256,256]{1,0} fusion(x, w, acc), kind=kOutput, calls=fused
}
)"},
        // A 3x3 f32 convolution with bias and relu6, in place in the output
        // (several bands of output rows).
        OutputFusionCase{"ConvBiasRelu6", R"(HloModule conv_bias_relu6
fused {
  x = f32[2,40,36,8]{3,2,1,0} parameter(0)
  w = f32[3,3,8,16]{3,2,1,0} parameter(1)
  bias = f32[16]{0} parameter(2)
  c = f32[2,40,36,16]{3,2,1,0} convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  b = f32[2,40,36,16]{3,2,1,0} broadcast(bias), dimensions={3}
  s = f32[2,40,36,16]{3,2,1,0} add(c, b)
  zero = f32[] constant(0)
  six = f32[] constant(6)
  ROOT r = f32[2,40,36,16]{3,2,1,0} clamp(zero, s, six)
}
ENTRY e {
  x = f32[2,40,36,8]{3,2,1,0} parameter(0)
  w = f32[3,3,8,16]{3,2,1,0} parameter(1)
  bias = f32[16]{0} parameter(2)
  ROOT f = f32[2,40,36,16]{3,2,1,0} fusion(x, w, bias), kind=kOutput, calls=fused
}
)"},
        // A strided bf16 convolution of two feature groups, widened to f32
        // and scaled per feature: the rounded bf16 tiles are scratch.
        OutputFusionCase{"Bf16GroupedConvWidened", R"(HloModule bf16_conv_widened
fused {
  x = bf16[1,17,15,6]{3,2,1,0} parameter(0)
  w = bf16[3,2,3,10]{3,2,1,0} parameter(1)
  scale = f32[10]{0} parameter(2)
  c = bf16[1,8,7,10]{3,2,1,0} convolution(x, w), window={size=3x2 stride=2x2}, dim_labels=b01f_01io->b01f, feature_group_count=2
  cf = f32[1,8,7,10]{3,2,1,0} convert(c)
  sb = f32[1,8,7,10]{3,2,1,0} broadcast(scale), dimensions={3}
  ROOT r = f32[1,8,7,10]{3,2,1,0} multiply(cf, sb)
}
ENTRY e {
  x = bf16[1,17,15,6]{3,2,1,0} parameter(0)
  w = bf16[3,2,3,10]{3,2,1,0} parameter(1)
  scale = f32[10]{0} parameter(2)
  ROOT f = f32[1,8,7,10]{3,2,1,0} fusion(x, w, scale), kind=kOutput, calls=fused
}
)"},
        // An f16 convolution (f16 patches, widened blocks for the BLAS)
        // with a bias, in place in its f16 output.
        OutputFusionCase{"F16ConvBias", R"(HloModule f16_conv_bias
fused {
  x = f16[2,12,10,8]{3,2,1,0} parameter(0)
  w = f16[3,3,8,12]{3,2,1,0} parameter(1)
  bias = f16[12]{0} parameter(2)
  c = f16[2,12,10,12]{3,2,1,0} convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  b = f16[2,12,10,12]{3,2,1,0} broadcast(bias), dimensions={3}
  ROOT s = f16[2,12,10,12]{3,2,1,0} add(c, b)
}
ENTRY e {
  x = f16[2,12,10,8]{3,2,1,0} parameter(0)
  w = f16[3,3,8,12]{3,2,1,0} parameter(1)
  bias = f16[12]{0} parameter(2)
  ROOT f = f16[2,12,10,12]{3,2,1,0} fusion(x, w, bias), kind=kOutput, calls=fused
}
)"},
        // A depthwise convolution plus a residual that shares the output's
        // buffer: each element is read before it is written.
        OutputFusionCase{"DepthwiseConvResidualSharesTheOutput", R"(HloModule depthwise_residual
fused {
  x = f32[2,24,24,32]{3,2,1,0} parameter(0)
  w = f32[3,3,1,32]{3,2,1,0} parameter(1)
  residual = f32[2,24,24,32]{3,2,1,0} parameter(2)
  c = f32[2,24,24,32]{3,2,1,0} convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=32
  ROOT s = f32[2,24,24,32]{3,2,1,0} add(c, residual)
}
ENTRY e {
  x = f32[2,24,24,32]{3,2,1,0} parameter(0)
  w = f32[3,3,1,32]{3,2,1,0} parameter(1)
  y = f32[2,24,24,32]{3,2,1,0} parameter(2)
  residual = f32[2,24,24,32]{3,2,1,0} negate(y)
  ROOT f = f32[2,24,24,32]{3,2,1,0} fusion(x, w, residual), kind=kOutput, calls=fused
}
)"}),
    [](const ::testing::TestParamInfo<OutputFusionCase>& info) { return info.param.name; });

// Plans `fused` and `separate` (the same computation with the product in
// its own buffer) and expects the fused plan `product_bytes` smaller.
void ExpectPlanSmallerBy(const char* fused_text, const char* separate_text, int64_t product_bytes) {
  absl::StatusOr<std::unique_ptr<HloModule>> fused = ParseHloModule(fused_text);
  absl::StatusOr<std::unique_ptr<HloModule>> separate = ParseHloModule(separate_text);
  ASSERT_TRUE(fused.ok() && separate.ok());
  absl::StatusOr<TargetMemoryPlan> fused_plan = PlanTargetMemory(**fused, CpuMemoryModel());
  absl::StatusOr<TargetMemoryPlan> separate_plan = PlanTargetMemory(**separate, CpuMemoryModel());
  ASSERT_TRUE(fused_plan.ok()) << fused_plan.status();
  ASSERT_TRUE(separate_plan.ok()) << separate_plan.status();
  EXPECT_EQ(fused_plan->arenas.device_bytes() + product_bytes,
            separate_plan->arenas.device_bytes());
}

// The bf16 projection's f32 product is never in memory: fused, the plan
// holds the operands and the bf16 output; as a dot and a loop fusion it
// also holds the f32 product (the bf16 output cannot take its buffer).
TEST(OutputFusionPlanTest, TheProductTakesNoBuffer) {
  constexpr char kFused[] = R"(HloModule fused
fused {
  q = bf16[64,256]{1,0} parameter(0)
  k = bf16[256,512]{1,0} parameter(1)
  d = f32[64,512]{1,0} dot(q, k), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT n = bf16[64,512]{1,0} convert(d)
}
ENTRY e {
  q = bf16[64,256]{1,0} parameter(0)
  k = bf16[256,512]{1,0} parameter(1)
  ROOT f = bf16[64,512]{1,0} fusion(q, k), kind=kOutput, calls=fused
}
)";
  constexpr char kSeparate[] = R"(HloModule separate
fused {
  d = f32[64,512]{1,0} parameter(0)
  ROOT n = bf16[64,512]{1,0} convert(d)
}
ENTRY e {
  q = bf16[64,256]{1,0} parameter(0)
  k = bf16[256,512]{1,0} parameter(1)
  d = f32[64,512]{1,0} dot(q, k), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT f = bf16[64,512]{1,0} fusion(d), kind=kLoop, calls=fused
}
)";
  ExpectPlanSmallerBy(kFused, kSeparate, 64 * 512 * 4);
}

// Likewise a bf16 convolution widened to f32 by its epilogue: its bf16
// output is never in memory.
TEST(OutputFusionPlanTest, TheConvolutionProductTakesNoBuffer) {
  constexpr char kFused[] = R"(HloModule fused
fused {
  x = bf16[4,32,32,16]{3,2,1,0} parameter(0)
  w = bf16[3,3,16,32]{3,2,1,0} parameter(1)
  c = bf16[4,32,32,32]{3,2,1,0} convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  ROOT n = f32[4,32,32,32]{3,2,1,0} convert(c)
}
ENTRY e {
  x = bf16[4,32,32,16]{3,2,1,0} parameter(0)
  w = bf16[3,3,16,32]{3,2,1,0} parameter(1)
  ROOT f = f32[4,32,32,32]{3,2,1,0} fusion(x, w), kind=kOutput, calls=fused
}
)";
  constexpr char kSeparate[] = R"(HloModule separate
fused {
  c = bf16[4,32,32,32]{3,2,1,0} parameter(0)
  ROOT n = f32[4,32,32,32]{3,2,1,0} convert(c)
}
ENTRY e {
  x = bf16[4,32,32,16]{3,2,1,0} parameter(0)
  w = bf16[3,3,16,32]{3,2,1,0} parameter(1)
  c = bf16[4,32,32,32]{3,2,1,0} convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  ROOT f = f32[4,32,32,32]{3,2,1,0} fusion(c), kind=kLoop, calls=fused
}
)";
  ExpectPlanSmallerBy(kFused, kSeparate, 4 * 32 * 32 * 32 * 2);
}

}  // namespace
}  // namespace hmo::cpu
