#ifndef HMO_BACKENDS_GPU_BLAS_TESTS_GEMM_REFERENCE_H_
#define HMO_BACKENDS_GPU_BLAS_TESTS_GEMM_REFERENCE_H_

// Test-only reference GEMMs, written as naive loops straight from the two
// definitions they check against each other:
//  - RowMajorGemm: what a GemmDescriptor means (gemm_descriptor.h);
//  - ColumnMajorGemmStridedBatched: what the BLAS strided-batched GEMM
//    computes from its arguments (column-major, element (i, j) of X at
//    X[i + j * ldx], batch p at an offset of p * stride_x), including the
//    BLAS argument rules (ld >= max(1, rows of the stored matrix)) and a
//    bounds check of every element it touches.
// Plus operand buffers sized exactly as a descriptor requires.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gpu/blas/cublas_gemm_arguments.h"
#include "gpu/blas/gemm_descriptor.h"
#include "gtest/gtest.h"

namespace hmo::gpu::testing_reference {

// Elements an operand buffer needs: (batch - 1) * stride + rows * cols.
inline int64_t OperandElements(int64_t batch, int64_t stride, int64_t rows, int64_t cols) {
  return (batch - 1) * stride + rows * cols;
}
inline int64_t LhsElements(const GemmDescriptor& g) { return OperandElements(g.batch, g.lhs_batch_stride, g.m, g.k); }
inline int64_t RhsElements(const GemmDescriptor& g) { return OperandElements(g.batch, g.rhs_batch_stride, g.k, g.n); }
inline int64_t OutElements(const GemmDescriptor& g) { return OperandElements(g.batch, g.out_batch_stride, g.m, g.n); }

// Small integers (exact in f32 and f64 sums), distinct per `seed`, so that
// reading a wrong element changes the result.
template <typename T>
std::vector<T> Values(int64_t count, int seed) {
  std::vector<T> values(count);
  for (int64_t i = 0; i < count; ++i) values[i] = static_cast<T>(((i * 37 + seed * 11 + 5) % 19) - 9);
  return values;
}

// out[b] = op(lhs[b]) * op(rhs[b]) in row-major terms; elements of `out`
// outside the output matrices are left as they are.
template <typename T>
void RowMajorGemm(const GemmDescriptor& g, const std::vector<T>& lhs, const std::vector<T>& rhs,
                  std::vector<T>& out) {
  for (int64_t b = 0; b < g.batch; ++b) {
    const T* l = lhs.data() + b * g.lhs_batch_stride;
    const T* r = rhs.data() + b * g.rhs_batch_stride;
    T* o = out.data() + b * g.out_batch_stride;
    for (int64_t i = 0; i < g.m; ++i) {
      for (int64_t j = 0; j < g.n; ++j) {
        T sum = 0;
        for (int64_t p = 0; p < g.k; ++p) {
          const T lhs_ip = g.transpose_lhs ? l[p * g.m + i] : l[i * g.k + p];
          const T rhs_pj = g.transpose_rhs ? r[j * g.k + p] : r[p * g.n + j];
          sum += lhs_ip * rhs_pj;
        }
        o[i * g.n + j] = sum;
      }
    }
  }
}

// C[p] = op_a(A[p]) * op_b(B[p]) (alpha 1, beta 0), column-major, from the
// BLAS arguments. Fails (and leaves C partly written) when an argument breaks
// the BLAS rules or an element outside a buffer would be touched.
template <typename T>
::testing::AssertionResult ColumnMajorGemmStridedBatched(const CublasGemmArguments& g, const std::vector<T>& a,
                                                         const std::vector<T>& b, std::vector<T>& c) {
  const bool ta = g.transa != cublas_abi::kOpN;
  const bool tb = g.transb != cublas_abi::kOpN;
  // Rows of the stored matrices: A is m x k (k x m when transposed), B is
  // k x n (n x k when transposed), C is m x n.
  const int64_t rows_a = ta ? g.k : g.m;
  const int64_t rows_b = tb ? g.n : g.k;
  if (g.m < 0 || g.n < 0 || g.k < 0 || g.batch_count < 0) return ::testing::AssertionFailure() << "negative size";
  if (g.lda < std::max<int64_t>(1, rows_a)) return ::testing::AssertionFailure() << "lda " << g.lda << " < " << rows_a;
  if (g.ldb < std::max<int64_t>(1, rows_b)) return ::testing::AssertionFailure() << "ldb " << g.ldb << " < " << rows_b;
  if (g.ldc < std::max<int64_t>(1, g.m)) return ::testing::AssertionFailure() << "ldc " << g.ldc << " < " << g.m;
  auto at = [](const std::vector<T>& x, int64_t index, const char* name, T& value) -> ::testing::AssertionResult {
    if (index < 0 || index >= static_cast<int64_t>(x.size())) {
      return ::testing::AssertionFailure() << name << "[" << index << "] is outside its " << x.size() << " elements";
    }
    value = x[index];
    return ::testing::AssertionSuccess();
  };
  for (int64_t p = 0; p < g.batch_count; ++p) {
    for (int64_t i = 0; i < g.m; ++i) {
      for (int64_t j = 0; j < g.n; ++j) {
        T sum = 0;
        for (int64_t l = 0; l < g.k; ++l) {
          T a_il, b_lj;
          const int64_t ia = p * g.stride_a + (ta ? l + i * g.lda : i + l * g.lda);
          const int64_t ib = p * g.stride_b + (tb ? j + l * g.ldb : l + j * g.ldb);
          if (auto r = at(a, ia, "A", a_il); !r) return r;
          if (auto r = at(b, ib, "B", b_lj); !r) return r;
          sum += a_il * b_lj;
        }
        const int64_t ic = p * g.stride_c + i + j * g.ldc;
        if (ic < 0 || ic >= static_cast<int64_t>(c.size())) {
          return ::testing::AssertionFailure() << "C[" << ic << "] is outside its " << c.size() << " elements";
        }
        c[ic] = sum;
      }
    }
  }
  return ::testing::AssertionSuccess();
}

// Runs the mapped arguments on the reference, passing lhs/rhs where the
// mapping says.
template <typename T>
::testing::AssertionResult RunMapped(const CublasGemmArguments& g, const std::vector<T>& lhs,
                                     const std::vector<T>& rhs, std::vector<T>& out) {
  const std::vector<T>& a = g.a == GemmOperand::kLhs ? lhs : rhs;
  const std::vector<T>& b = g.b == GemmOperand::kLhs ? lhs : rhs;
  return ColumnMajorGemmStridedBatched(g, a, b, out);
}

}  // namespace hmo::gpu::testing_reference

#endif  // HMO_BACKENDS_GPU_BLAS_TESTS_GEMM_REFERENCE_H_
