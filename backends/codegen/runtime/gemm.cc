// Batched GEMM for dot instructions: f32 and f64 through CBLAS (OpenBLAS),
// bf16 x bf16 -> f32 and s8 x s8 -> s32 through oneDNN (onednn_matmul.h).

#include <cblas.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "hmo/base/half_float_bits.h"
#include "hmo/codegen/runtime/intra_op_threads.h"
#include "hmo/codegen/runtime/runtime_functions.h"
#include "onednn_matmul.h"
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

// A bf16 operand (rows x columns stored with leading dimension ld) widened
// to a dense f32 copy with leading dimension `columns`.
std::vector<float> WidenBf16(const uint16_t* data, int64_t rows, int64_t columns, int64_t ld) {
  std::vector<float> widened(static_cast<size_t>(rows * columns));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < columns; ++c)
      widened[r * columns + c] = hmo::half_float_bits::Bf16ToF32(data[r * ld + c]);
  }
  return widened;
}

// bf16 x bf16 -> f32: oneDNN, or (where oneDNN refuses the product) the
// operands widened to f32 and multiplied by the BLAS; both accumulate in f32
// the exact products of the bf16 values.
void Bf16Product(CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b, int64_t rows, int64_t columns,
                 int64_t k, const uint16_t* a, int64_t lda, const uint16_t* b, int64_t ldb,
                 float* c, int64_t ldc) {
  if (hmo::codegen::OneDnnMatmul(hmo::codegen::OneDnnProduct::kBf16ToF32, trans_a, trans_b, rows,
                                 columns, k, a, lda, b, ldb, c, ldc)) {
    return;
  }
  const bool ta = trans_a != CblasNoTrans;
  const bool tb = trans_b != CblasNoTrans;
  const std::vector<float> wide_a = WidenBf16(a, ta ? k : rows, ta ? rows : k, lda);
  const std::vector<float> wide_b = WidenBf16(b, tb ? columns : k, tb ? k : columns, ldb);
  cblas_sgemm(CblasRowMajor, trans_a, trans_b, static_cast<blasint>(rows),
              static_cast<blasint>(columns), static_cast<blasint>(k), 1.0f, wide_a.data(),
              static_cast<blasint>(ta ? rows : k), wide_b.data(),
              static_cast<blasint>(tb ? k : columns), 0.0f, c, static_cast<blasint>(ldc));
}

// s8 x s8 -> s32: oneDNN, or (where oneDNN refuses the product) a loop
// accumulating in s32; both exact while the sums fit s32.
void S8Product(CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b, int64_t rows, int64_t columns,
               int64_t k, const int8_t* a, int64_t lda, const int8_t* b, int64_t ldb, int32_t* c,
               int64_t ldc) {
  if (hmo::codegen::OneDnnMatmul(hmo::codegen::OneDnnProduct::kS8ToS32, trans_a, trans_b, rows,
                                 columns, k, a, lda, b, ldb, c, ldc)) {
    return;
  }
  const bool ta = trans_a != CblasNoTrans;
  const bool tb = trans_b != CblasNoTrans;
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < columns; ++j) {
      int32_t sum = 0;
      for (int64_t p = 0; p < k; ++p) {
        sum += static_cast<int32_t>(ta ? a[p * lda + i] : a[i * lda + p]) *
               static_cast<int32_t>(tb ? b[j * ldb + p] : b[p * ldb + j]);
      }
      c[i * ldc + j] = sum;
    }
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
  BatchedGemm<uint16_t, float>(Bf16Product, out, lhs, rhs, batch, m, n, k, transpose_lhs,
                               transpose_rhs);
}

extern "C" void __hmo_cpu_gemm_s8_s32(int32_t* out, const int8_t* lhs, const int8_t* rhs,
                                      int64_t batch, int64_t m, int64_t n, int64_t k,
                                      int32_t transpose_lhs, int32_t transpose_rhs) {
  BatchedGemm<int8_t, int32_t>(S8Product, out, lhs, rhs, batch, m, n, k, transpose_lhs,
                               transpose_rhs);
}
