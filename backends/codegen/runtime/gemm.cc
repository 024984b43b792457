// Batched GEMM for dot instructions: f32 and f64 through CBLAS (OpenBLAS),
// bf16 x bf16 -> f32 and s8 x s8 -> s32 through oneDNN (narrow_products.h).

#include <cblas.h>

#include <algorithm>
#include <cstdint>

#include "hmo/codegen/runtime/intra_op_threads.h"
#include "hmo/codegen/runtime/runtime_functions.h"
#include "narrow_products.h"
#include "parallel_gemm.h"

namespace {

// One row-major product per batch, C = op(A) x op(B) computed by `product`
// (a ParallelGemm product). The leading dimensions are the stored row
// lengths: lhs is stored m x k (k x m transposed), rhs k x n (n x k).
// k == 0 is handled here because libraries reject a zero leading dimension.
template <typename In, typename Out, typename Product>
void BatchedGemm(Product product, Out* out, const In* lhs, const In* rhs, int64_t batch, int64_t m,
                 int64_t n, int64_t k, int32_t transpose_lhs, int32_t transpose_rhs) {
  if (batch <= 0 || m <= 0 || n <= 0) return;
  if (k <= 0) {
    std::fill(out, out + batch * m * n, Out(0));
    return;
  }
  const CBLAS_TRANSPOSE trans_a = transpose_lhs ? CblasTrans : CblasNoTrans;
  const CBLAS_TRANSPOSE trans_b = transpose_rhs ? CblasTrans : CblasNoTrans;
  const int64_t lda = transpose_lhs ? m : k;
  const int64_t ldb = transpose_rhs ? k : n;
  const int64_t ldc = n;
  if (batch >= hmo::codegen::IntraOpThreadCount() &&
      m * n * k * batch >= hmo::codegen::kMinParallelGemmFlops) {
    // Whole products per part.
    hmo::codegen::ForEachIntraOpPart(batch, [&](int64_t part, int64_t parts) {
      for (int64_t b = batch * part / parts; b < batch * (part + 1) / parts; ++b) {
        product(trans_a, trans_b, m, n, k, lhs + b * m * k, lda, rhs + b * k * n, ldb,
                out + b * m * n, ldc);
      }
    });
    return;
  }
  for (int64_t b = 0; b < batch; ++b) {
    hmo::codegen::ParallelGemm<In, Out>(product, trans_a, trans_b, m, n, k, lhs + b * m * k, lda,
                                        rhs + b * k * n, ldb, out + b * m * n, ldc);
  }
}

}  // namespace

extern "C" void __hmo_cpu_gemm_f32(float* out, const float* lhs, const float* rhs, int64_t batch,
                                   int64_t m, int64_t n, int64_t k, int32_t transpose_lhs,
                                   int32_t transpose_rhs) {
  BatchedGemm<float, float>(hmo::codegen::CblasProduct<float>(cblas_sgemm), out, lhs, rhs, batch, m,
                            n, k, transpose_lhs, transpose_rhs);
}

extern "C" void __hmo_cpu_gemm_f64(double* out, const double* lhs, const double* rhs, int64_t batch,
                                   int64_t m, int64_t n, int64_t k, int32_t transpose_lhs,
                                   int32_t transpose_rhs) {
  BatchedGemm<double, double>(hmo::codegen::CblasProduct<double>(cblas_dgemm), out, lhs, rhs, batch,
                              m, n, k, transpose_lhs, transpose_rhs);
}

extern "C" void __hmo_cpu_gemm_bf16_f32(float* out, const uint16_t* lhs, const uint16_t* rhs,
                                        int64_t batch, int64_t m, int64_t n, int64_t k,
                                        int32_t transpose_lhs, int32_t transpose_rhs) {
  BatchedGemm<uint16_t, float>(hmo::codegen::Bf16Product, out, lhs, rhs, batch, m, n, k,
                               transpose_lhs, transpose_rhs);
}

extern "C" void __hmo_cpu_gemm_s8_s32(int32_t* out, const int8_t* lhs, const int8_t* rhs,
                                      int64_t batch, int64_t m, int64_t n, int64_t k,
                                      int32_t transpose_lhs, int32_t transpose_rhs) {
  BatchedGemm<int8_t, int32_t>(hmo::codegen::S8Product, out, lhs, rhs, batch, m, n, k,
                               transpose_lhs, transpose_rhs);
}
