// dot: the GEMM path (row-major operands, transposed operands, batches) and
// the loop path (other layouts, integer and half types, several contracting
// dimensions), against hand-computed values and the reference evaluator.

#include <vector>

#include "gtest/gtest.h"
#include "op_emitter_test_support.h"

namespace hmo::cpu {
namespace {

using ::hmo::cpu::testing::AsDoubles;
using ::hmo::cpu::testing::CompileAndRun;
using ::hmo::cpu::testing::ExpectMatchesEvaluator;
using ::hmo::cpu::testing::ParseOrFail;

TEST(DotEmitterTest, MatrixProductHandComputed) {
  auto module = ParseOrFail(R"(
HloModule m
ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[3,2] parameter(1)
  ROOT d = f32[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)");
  ASSERT_NE(module, nullptr);
  Literal a(ShapeUtil::MakeShape(PrimitiveType::F32, {2, 3}));
  Literal b(ShapeUtil::MakeShape(PrimitiveType::F32, {3, 2}));
  for (int i = 0; i < 6; ++i) {
    a.SetFromDouble(i, i + 1);        // [[1,2,3],[4,5,6]]
    b.SetFromDouble(i, 10 * (i + 1));  // [[10,20],[30,40],[50,60]]
  }
  std::vector<Literal> arguments;
  arguments.push_back(std::move(a));
  arguments.push_back(std::move(b));
  auto result = CompileAndRun(*module, arguments);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(AsDoubles(*result), (std::vector<double>{220, 280, 490, 640}));
}

TEST(DotEmitterTest, TransposedOperandsThroughGemm) {
  // lhs contracts its dimension 0 (stored k x m), rhs its dimension 1
  // (stored n x k).
  ExpectMatchesEvaluator(R"(
HloModule m
ENTRY e {
  a = f32[5,4] parameter(0)
  b = f32[3,5] parameter(1)
  ROOT d = f32[4,3] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={1}
}
)");
}

TEST(DotEmitterTest, GemmOnlyForRowMajorMatrices) {
  auto gemm = ParseOrFail(R"(
HloModule m
ENTRY e {
  a = f32[5,4] parameter(0)
  b = f32[3,5] parameter(1)
  ROOT d = f32[4,3] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={1}
}
)");
  ASSERT_NE(gemm, nullptr);
  EXPECT_NE(testing::GeneratedIr(*gemm).find("__hmo_cpu_gemm_f32"), std::string::npos);
  auto loops = ParseOrFail(R"(
HloModule m
ENTRY e {
  a = f32[3,4]{0,1} parameter(0)
  b = f32[4,2]{1,0} parameter(1)
  ROOT d = f32[3,2]{0,1} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)");
  ASSERT_NE(loops, nullptr);
  EXPECT_EQ(testing::GeneratedIr(*loops).find("__hmo_cpu_gemm"), std::string::npos);
}

TEST(DotEmitterTest, BatchedF64) {
  ExpectMatchesEvaluator(R"(
HloModule m
ENTRY e {
  a = f64[2,3,4] parameter(0)
  b = f64[2,4,5] parameter(1)
  ROOT d = f64[2,3,5] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
}
)");
}

TEST(DotEmitterTest, MatrixVectorAndVectorVector) {
  ExpectMatchesEvaluator(R"(
HloModule m
ENTRY e {
  a = f32[3,4] parameter(0)
  v = f32[4] parameter(1)
  mv = f32[3] dot(a, v), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  vv = f32[] dot(v, v), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  ROOT t = (f32[3], f32[]) tuple(mv, vv)
}
)");
}

TEST(DotEmitterTest, ColumnMajorOperandUsesLoops) {
  ExpectMatchesEvaluator(R"(
HloModule m
ENTRY e {
  a = f32[3,4]{0,1} parameter(0)
  b = f32[4,2]{1,0} parameter(1)
  ROOT d = f32[3,2]{0,1} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)");
}

TEST(DotEmitterTest, BatchDimensionNotLeadingAndTwoContractingDims) {
  ExpectMatchesEvaluator(R"(
HloModule m
ENTRY e {
  a = f32[3,2,4,5] parameter(0)
  b = f32[5,2,4,6] parameter(1)
  ROOT d = f32[2,3,6] dot(a, b), lhs_batch_dims={1}, rhs_batch_dims={1}, lhs_contracting_dims={2,3}, rhs_contracting_dims={2,0}
}
)");
}

TEST(DotEmitterTest, IntegersHandComputed) {
  auto module = ParseOrFail(R"(
HloModule m
ENTRY e {
  a = s32[2,2] constant({{1, -2}, {3, 4}})
  b = s32[2,2] constant({{5, 6}, {7, 8}})
  ROOT d = s32[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)");
  ASSERT_NE(module, nullptr);
  auto result = CompileAndRun(*module, {});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(AsDoubles(*result), (std::vector<double>{-9, -10, 43, 50}));
}

TEST(DotEmitterTest, HalfPrecisionAndMixedTypes) {
  ExpectMatchesEvaluator(R"(
HloModule m
ENTRY e {
  a = bf16[4,8] parameter(0)
  b = bf16[8,3] parameter(1)
  ROOT d = f32[4,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)");
}

}  // namespace
}  // namespace hmo::cpu
