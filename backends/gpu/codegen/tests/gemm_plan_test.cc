// GemmPlanFor (hmo/codegen/gemm_plan.h), which the GPU backend can use to map
// dots to a library GEMM: sizes, transpose flags, and the layouts that give
// no plan.

#include <memory>
#include <optional>
#include <string>

#include "hmo/codegen/gemm_plan.h"
#include "gtest/gtest.h"
#include "hmo/text/hlo_parser.h"

namespace hmo::codegen {
namespace {

// The plan of the root dot of a module whose entry is `body`.
std::optional<GemmPlan> PlanOf(const std::string& body) {
  auto module = ParseHloModule("HloModule m\nENTRY e {\n" + body + "\n}\n");
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return std::nullopt;
  return GemmPlanFor(*(*module)->entry_computation()->root_instruction());
}

TEST(GemmPlanTest, RowMajorMatrixProduct) {
  auto plan = PlanOf(R"(
  a = f32[2,3] parameter(0)
  b = f32[3,4] parameter(1)
  ROOT d = f32[2,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0})");
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->batch, 1);
  EXPECT_EQ(plan->m, 2);
  EXPECT_EQ(plan->n, 4);
  EXPECT_EQ(plan->k, 3);
  EXPECT_FALSE(plan->transpose_lhs);
  EXPECT_FALSE(plan->transpose_rhs);
}

TEST(GemmPlanTest, ContractingLayoutsPickTheTransposeFlags) {
  // lhs stored k-major (column-major [m,k]), rhs contracting on its minor
  // dimension ([n,k] row-major).
  auto plan = PlanOf(R"(
  a = f32[2,3]{0,1} parameter(0)
  b = f32[4,3] parameter(1)
  ROOT d = f32[2,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1})");
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->m, 2);
  EXPECT_EQ(plan->n, 4);
  EXPECT_EQ(plan->k, 3);
  EXPECT_TRUE(plan->transpose_lhs);
  EXPECT_TRUE(plan->transpose_rhs);
}

TEST(GemmPlanTest, BatchedWithSeveralFreeDimensions) {
  auto plan = PlanOf(R"(
  a = f32[5,2,7,3] parameter(0)
  b = f32[5,3,4] parameter(1)
  ROOT d = f32[5,2,7,4] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={3}, rhs_contracting_dims={1})");
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->batch, 5);
  EXPECT_EQ(plan->m, 14);
  EXPECT_EQ(plan->n, 4);
  EXPECT_EQ(plan->k, 3);
}

TEST(GemmPlanTest, LayoutsThatAreNotBatchesOfMatricesHaveNoPlan) {
  // Column-major output.
  EXPECT_FALSE(PlanOf(R"(
  a = f32[2,3] parameter(0)
  b = f32[3,4] parameter(1)
  ROOT d = f32[2,4]{0,1} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0})")
                   .has_value());
  // Batch dimension not the most major in memory.
  EXPECT_FALSE(PlanOf(R"(
  a = f32[5,2,3]{2,0,1} parameter(0)
  b = f32[5,3,4] parameter(1)
  ROOT d = f32[5,2,4] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1})")
                   .has_value());
}

TEST(GemmPlanTest, DotFreeDimensionsSkipBatchAndContracting) {
  EXPECT_EQ(DotFreeDimensions(4, {0}, {3}), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(DotFreeDimensions(2, {}, {0, 1}), (std::vector<int64_t>{}));
}

}  // namespace
}  // namespace hmo::codegen
