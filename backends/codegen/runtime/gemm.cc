// Batched GEMM for dot instructions, through CBLAS (OpenBLAS).

#include <cblas.h>

#include <algorithm>
#include <cstdint>

#include "hmo/codegen/runtime/intra_op_threads.h"
#include "hmo/codegen/runtime/runtime_functions.h"
#include "parallel_gemm.h"

namespace {

// One row-major product per batch. CBLAS's leading dimensions are the stored
// row lengths: lhs is stored m x k (k x m transposed), rhs k x n (n x k).
// k == 0 is handled here because BLAS rejects a zero leading dimension.
template <typename T, typename Gemm>
void BatchedGemm(Gemm gemm, T* out, const T* lhs, const T* rhs, int64_t batch, int64_t m, int64_t n,
                 int64_t k, int32_t transpose_lhs, int32_t transpose_rhs) {
  if (batch <= 0 || m <= 0 || n <= 0) return;
  if (k <= 0) {
    std::fill(out, out + batch * m * n, T(0));
    return;
  }
  const CBLAS_TRANSPOSE trans_a = transpose_lhs ? CblasTrans : CblasNoTrans;
  const CBLAS_TRANSPOSE trans_b = transpose_rhs ? CblasTrans : CblasNoTrans;
  const blasint lda = static_cast<blasint>(transpose_lhs ? m : k);
  const blasint ldb = static_cast<blasint>(transpose_rhs ? k : n);
  const blasint ldc = static_cast<blasint>(n);
  if (batch >= hmo::codegen::IntraOpThreadCount() &&
      m * n * k * batch >= hmo::codegen::kMinParallelGemmFlops) {
    // Whole products per part.
    hmo::codegen::ForEachIntraOpPart(batch, [&](int64_t part, int64_t parts) {
      for (int64_t b = batch * part / parts; b < batch * (part + 1) / parts; ++b) {
        gemm(CblasRowMajor, trans_a, trans_b, static_cast<blasint>(m), static_cast<blasint>(n),
             static_cast<blasint>(k), T(1), lhs + b * m * k, lda, rhs + b * k * n, ldb, T(0),
             out + b * m * n, ldc);
      }
    });
    return;
  }
  for (int64_t b = 0; b < batch; ++b) {
    hmo::codegen::ParallelGemm<T>(gemm, trans_a, trans_b, m, n, k, lhs + b * m * k, lda,
                                  rhs + b * k * n, ldb, out + b * m * n, ldc);
  }
}

}  // namespace

extern "C" void __hmo_cpu_gemm_f32(float* out, const float* lhs, const float* rhs, int64_t batch,
                                   int64_t m, int64_t n, int64_t k, int32_t transpose_lhs,
                                   int32_t transpose_rhs) {
  BatchedGemm<float>(cblas_sgemm, out, lhs, rhs, batch, m, n, k, transpose_lhs, transpose_rhs);
}

extern "C" void __hmo_cpu_gemm_f64(double* out, const double* lhs, const double* rhs, int64_t batch,
                                   int64_t m, int64_t n, int64_t k, int32_t transpose_lhs,
                                   int32_t transpose_rhs) {
  BatchedGemm<double>(cblas_dgemm, out, lhs, rhs, batch, m, n, k, transpose_lhs, transpose_rhs);
}
