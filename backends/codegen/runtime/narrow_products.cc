#include "narrow_products.h"

#include <vector>

#include "hmo/base/half_float_bits.h"
#include "onednn_matmul.h"

namespace hmo::codegen {
namespace {

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

}  // namespace

void Bf16Product(CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b, int64_t rows, int64_t columns,
                 int64_t k, const uint16_t* a, int64_t lda, const uint16_t* b, int64_t ldb,
                 float* c, int64_t ldc) {
  if (OneDnnMatmul(OneDnnProduct::kBf16ToF32, trans_a, trans_b, rows, columns, k, a, lda, b, ldb, c,
                   ldc)) {
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

void S8Product(CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b, int64_t rows, int64_t columns,
               int64_t k, const int8_t* a, int64_t lda, const int8_t* b, int64_t ldb, int32_t* c,
               int64_t ldc) {
  if (OneDnnMatmul(OneDnnProduct::kS8ToS32, trans_a, trans_b, rows, columns, k, a, lda, b, ldb, c,
                   ldc)) {
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

}  // namespace hmo::codegen
