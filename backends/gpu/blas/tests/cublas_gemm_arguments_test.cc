// The row-major -> column-major cuBLAS mapping, checked without a GPU: the
// mapped arguments fed to a naive BLAS-definition GEMM must reproduce a naive
// row-major GEMM of the descriptor, for every transpose combination, several
// shapes (mostly non-square, so swapped m/n or leading dimensions show),
// batches, padded strides and broadcast operands.

#include <limits>
#include <vector>

#include "gpu/blas/cublas_gemm_arguments.h"
#include "gemm_reference.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hmo::gpu {
namespace {

using ::testing::HasSubstr;
using testing_reference::LhsElements;
using testing_reference::OutElements;
using testing_reference::RhsElements;
using testing_reference::RowMajorGemm;
using testing_reference::RunMapped;
using testing_reference::Values;

// Sentinel for output elements no matrix covers (the padding between padded
// batch matrices): neither side may write them.
constexpr double kUntouched = -777.0;

// Compares mapped-cuBLAS-on-the-reference against the row-major reference.
template <typename T>
void ExpectMappingComputes(const GemmDescriptor& gemm) {
  SCOPED_TRACE(gemm.ToString());
  const std::vector<T> lhs = Values<T>(LhsElements(gemm), 1);
  const std::vector<T> rhs = Values<T>(RhsElements(gemm), 2);
  std::vector<T> expected(OutElements(gemm), static_cast<T>(kUntouched));
  RowMajorGemm(gemm, lhs, rhs, expected);
  absl::StatusOr<CublasGemmArguments> arguments = MapGemmToCublas(gemm);
  ASSERT_TRUE(arguments.ok()) << arguments.status();
  std::vector<T> actual(OutElements(gemm), static_cast<T>(kUntouched));
  ASSERT_TRUE(RunMapped(*arguments, lhs, rhs, actual));
  EXPECT_EQ(actual, expected);
}

struct Shape {
  int64_t m, n, k;
};
const Shape kShapes[] = {{1, 1, 1}, {2, 3, 4}, {3, 4, 5}, {5, 2, 3}, {4, 1, 6}, {1, 6, 2}, {7, 5, 1}, {4, 4, 4}};

TEST(MapGemmToCublasTest, DenseSingleMatricesMatchRowMajorForAllTransposes) {
  for (const Shape& s : kShapes) {
    for (bool tl : {false, true}) {
      for (bool tr : {false, true}) {
        ExpectMappingComputes<double>(DenseGemmDescriptor(GemmElementType::kF64, 1, s.m, s.n, s.k, tl, tr));
      }
    }
  }
}

TEST(MapGemmToCublasTest, DenseBatchesMatchRowMajor) {
  for (const Shape& s : kShapes) {
    for (bool tl : {false, true}) {
      for (bool tr : {false, true}) {
        ExpectMappingComputes<float>(DenseGemmDescriptor(GemmElementType::kF32, 3, s.m, s.n, s.k, tl, tr));
      }
    }
  }
}

TEST(MapGemmToCublasTest, PaddedStridesAndBroadcastOperandsMatchRowMajor) {
  for (const Shape& s : kShapes) {
    for (bool tl : {false, true}) {
      for (bool tr : {false, true}) {
        GemmDescriptor padded = DenseGemmDescriptor(GemmElementType::kF64, 4, s.m, s.n, s.k, tl, tr);
        padded.lhs_batch_stride += 3;
        padded.rhs_batch_stride += 5;
        padded.out_batch_stride += 2;
        ExpectMappingComputes<double>(padded);

        GemmDescriptor broadcast_rhs = DenseGemmDescriptor(GemmElementType::kF64, 3, s.m, s.n, s.k, tl, tr);
        broadcast_rhs.rhs_batch_stride = 0;
        ExpectMappingComputes<double>(broadcast_rhs);

        GemmDescriptor broadcast_lhs = DenseGemmDescriptor(GemmElementType::kF64, 2, s.m, s.n, s.k, tl, tr);
        broadcast_lhs.lhs_batch_stride = 0;
        ExpectMappingComputes<double>(broadcast_lhs);
      }
    }
  }
}

TEST(MapGemmToCublasTest, ArgumentsForAPlainProduct) {
  // out (2 x 3) = lhs (2 x 4) * rhs (4 x 3): cuBLAS computes the 3 x 2
  // column-major out^T = rhs^T * lhs^T.
  absl::StatusOr<CublasGemmArguments> g = MapGemmToCublas(DenseGemmDescriptor(GemmElementType::kF32, 5, 2, 3, 4));
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->a, GemmOperand::kRhs);
  EXPECT_EQ(g->b, GemmOperand::kLhs);
  EXPECT_EQ(g->transa, cublas_abi::kOpN);
  EXPECT_EQ(g->transb, cublas_abi::kOpN);
  EXPECT_EQ(g->m, 3);
  EXPECT_EQ(g->n, 2);
  EXPECT_EQ(g->k, 4);
  EXPECT_EQ(g->lda, 3);  // row length of rhs (4 x 3)
  EXPECT_EQ(g->ldb, 4);  // row length of lhs (2 x 4)
  EXPECT_EQ(g->ldc, 3);  // row length of out (2 x 3)
  EXPECT_EQ(g->stride_a, 12);
  EXPECT_EQ(g->stride_b, 8);
  EXPECT_EQ(g->stride_c, 6);
  EXPECT_EQ(g->batch_count, 5);
}

TEST(MapGemmToCublasTest, ArgumentsForTransposedOperands) {
  // lhs stored 4 x 2 (k x m), rhs stored 3 x 4 (n x k).
  absl::StatusOr<CublasGemmArguments> g =
      MapGemmToCublas(DenseGemmDescriptor(GemmElementType::kF64, 1, 2, 3, 4, /*transpose_lhs=*/true,
                                          /*transpose_rhs=*/true));
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->transa, cublas_abi::kOpT);
  EXPECT_EQ(g->transb, cublas_abi::kOpT);
  EXPECT_EQ(g->m, 3);
  EXPECT_EQ(g->n, 2);
  EXPECT_EQ(g->lda, 4);  // row length of rhs stored n x k
  EXPECT_EQ(g->ldb, 2);  // row length of lhs stored k x m
  EXPECT_EQ(g->ldc, 3);
}

TEST(MapGemmToCublasTest, EmptyMatricesKeepLeadingDimensionsAtLeastOne) {
  absl::StatusOr<CublasGemmArguments> g = MapGemmToCublas(DenseGemmDescriptor(GemmElementType::kF32, 1, 0, 0, 0));
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->lda, 1);
  EXPECT_EQ(g->ldb, 1);
  EXPECT_EQ(g->ldc, 1);
  // k = 0: the reference gives all zeros, and so must the mapping.
  ExpectMappingComputes<double>(DenseGemmDescriptor(GemmElementType::kF64, 2, 3, 2, 0));
}

TEST(MapGemmToCublasTest, InvalidDescriptorIsRejected) {
  GemmDescriptor gemm = DenseGemmDescriptor(GemmElementType::kF32, 2, 3, 4, 5);
  gemm.out_batch_stride = 11;  // < 3 * 4: the two outputs would overlap
  absl::StatusOr<CublasGemmArguments> g = MapGemmToCublas(gemm);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(g.status().message()), HasSubstr("overlap"));
}

// The reference must notice the mistakes a mapping can make; otherwise the
// tests above would prove nothing. Each corruption of a correct mapping for
// a non-square, batched, transposed GEMM must either break a BLAS argument
// rule, touch memory outside a buffer, or change the numbers.
TEST(MapGemmToCublasTest, ReferenceRejectsCorruptedMappings) {
  for (bool tl : {false, true}) {
    for (bool tr : {false, true}) {
      const GemmDescriptor gemm = DenseGemmDescriptor(GemmElementType::kF64, 2, 3, 4, 5, tl, tr);
      SCOPED_TRACE(gemm.ToString());
      const std::vector<double> lhs = Values<double>(LhsElements(gemm), 1);
      const std::vector<double> rhs = Values<double>(RhsElements(gemm), 2);
      std::vector<double> expected(OutElements(gemm), kUntouched);
      RowMajorGemm(gemm, lhs, rhs, expected);
      absl::StatusOr<CublasGemmArguments> correct = MapGemmToCublas(gemm);
      ASSERT_TRUE(correct.ok()) << correct.status();

      auto flip = [](cublas_abi::Operation op) { return op == cublas_abi::kOpN ? cublas_abi::kOpT : cublas_abi::kOpN; };
      std::vector<std::pair<std::string, CublasGemmArguments>> corruptions;
      auto add = [&](std::string name, auto mutate) {
        CublasGemmArguments g = *correct;
        mutate(g);
        // Some changes are no-ops for some transposes (lda == ldb when only
        // rhs is transposed: both are k); there is nothing to detect then.
        if (g != *correct) corruptions.emplace_back(std::move(name), g);
      };
      add("operands swapped", [](CublasGemmArguments& g) { std::swap(g.a, g.b); });
      add("m and n swapped", [](CublasGemmArguments& g) { std::swap(g.m, g.n); });
      add("lda and ldb swapped", [](CublasGemmArguments& g) { std::swap(g.lda, g.ldb); });
      add("lda + 1", [](CublasGemmArguments& g) { g.lda += 1; });
      add("ldb + 1", [](CublasGemmArguments& g) { g.ldb += 1; });
      add("ldc = m of out", [](CublasGemmArguments& g) { g.ldc = g.n; });
      add("transa flipped", [&](CublasGemmArguments& g) { g.transa = flip(g.transa); });
      add("transb flipped", [&](CublasGemmArguments& g) { g.transb = flip(g.transb); });
      add("strides of A and B swapped", [](CublasGemmArguments& g) { std::swap(g.stride_a, g.stride_b); });
      add("row-major taken as column-major (no swap)", [&](CublasGemmArguments& g) {
        std::swap(g.a, g.b);
        std::swap(g.m, g.n);
        std::swap(g.lda, g.ldb);
        std::swap(g.stride_a, g.stride_b);
        std::swap(g.transa, g.transb);
        g.ldc = gemm.m;
      });
      EXPECT_GE(corruptions.size(), 9u);
      for (const auto& [name, g] : corruptions) {
        std::vector<double> actual(OutElements(gemm), kUntouched);
        ::testing::AssertionResult ran = RunMapped(g, lhs, rhs, actual);
        EXPECT_TRUE(!ran || actual != expected) << name << " was not detected";
      }
    }
  }
}

TEST(CheckCublasIntRangeTest, NamesTheArgumentBeyondInt) {
  GemmDescriptor gemm = DenseGemmDescriptor(GemmElementType::kF32, 1, int64_t{1} << 31, 1, 1);
  absl::StatusOr<CublasGemmArguments> g = MapGemmToCublas(gemm);
  ASSERT_TRUE(g.ok()) << g.status();
  absl::Status range = CheckCublasIntRange(*g);
  EXPECT_EQ(range.code(), absl::StatusCode::kInvalidArgument);
  // Our m is cuBLAS's n.
  EXPECT_THAT(std::string(range.message()), HasSubstr("argument n = 2147483648"));
  EXPECT_TRUE(CheckCublasIntRange(*MapGemmToCublas(DenseGemmDescriptor(GemmElementType::kF32, 7, 64, 48, 32))).ok());
}

}  // namespace
}  // namespace hmo::gpu
