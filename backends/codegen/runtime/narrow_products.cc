#include "narrow_products.h"

#include <immintrin.h>

#include <algorithm>
#include <vector>

#include "hmo/base/half_float_bits.h"
#include "onednn_matmul.h"
#include "parallel_gemm.h"

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

// `count` f16 values widened to f32, eight at a time with F16C.
__attribute__((target("f16c,avx"))) void WidenF16RowF16c(const uint16_t* from, int64_t count,
                                                          float* to) {
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m128i half = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + i));
    _mm256_storeu_ps(to + i, _mm256_cvtph_ps(half));
  }
  for (; i < count; ++i) to[i] = hmo::half_float_bits::F16ToF32(from[i]);
}

// `count` f32 values rounded to f16 (nearest even), eight at a time with F16C.
__attribute__((target("f16c,avx"))) void RoundRowToF16F16c(const float* from, int64_t count,
                                                            uint16_t* to) {
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m128i half = _mm256_cvtps_ph(_mm256_loadu_ps(from + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(to + i), half);
  }
  for (; i < count; ++i) to[i] = hmo::half_float_bits::F32ToF16(from[i]);
}

bool HostHasF16c() {
  static const bool has_f16c = __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx");
  return has_f16c;
}

void WidenF16Row(const uint16_t* from, int64_t count, float* to) {
  if (HostHasF16c()) {
    WidenF16RowF16c(from, count, to);
    return;
  }
  for (int64_t i = 0; i < count; ++i) to[i] = hmo::half_float_bits::F16ToF32(from[i]);
}

// Rows [row_begin, row_end) and columns [column_begin, column_end) of the
// f16 matrix `data` (leading dimension ld) widened into `to`, densely.
void WidenF16Block(const uint16_t* data, int64_t ld, int64_t row_begin, int64_t row_end,
                   int64_t column_begin, int64_t column_end, float* to) {
  const int64_t width = column_end - column_begin;
  for (int64_t r = row_begin; r < row_end; ++r) {
    WidenF16Row(data + r * ld + column_begin, width, to + (r - row_begin) * width);
  }
}

// F16Product's blocks: the product is computed a (rows x columns) block of C
// at a time, summed over blocks of the contraction; each operand block is at
// most kMaxScratchElements widened floats. Blocks of many rows keep the
// BLAS's packing of each rhs block (once per call) small next to its work.
constexpr int64_t kF16BlockRows = 1024;
constexpr int64_t kF16BlockColumns = 256;
constexpr int64_t kF16BlockDepth = 1024;
static_assert(kF16BlockRows * kF16BlockDepth <= kMaxScratchElements);
static_assert(kF16BlockColumns * kF16BlockDepth <= kMaxScratchElements);

}  // namespace

void RoundRowToF16(const float* from, int64_t count, uint16_t* to) {
  if (HostHasF16c()) {
    RoundRowToF16F16c(from, count, to);
    return;
  }
  for (int64_t i = 0; i < count; ++i) to[i] = hmo::half_float_bits::F32ToF16(from[i]);
}

void F16Product(CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b, int64_t rows, int64_t columns,
                int64_t k, const uint16_t* a, int64_t lda, const uint16_t* b, int64_t ldb,
                float* c, int64_t ldc) {
  const bool ta = trans_a != CblasNoTrans;
  const bool tb = trans_b != CblasNoTrans;
  thread_local std::vector<float> a_block, b_block;
  a_block.resize(static_cast<size_t>(kF16BlockRows * kF16BlockDepth));
  b_block.resize(static_cast<size_t>(kF16BlockColumns * kF16BlockDepth));
  for (int64_t r0 = 0; r0 < rows; r0 += kF16BlockRows) {
    const int64_t r1 = std::min(rows, r0 + kF16BlockRows);
    for (int64_t p0 = 0; p0 < k; p0 += kF16BlockDepth) {
      const int64_t p1 = std::min(k, p0 + kF16BlockDepth);
      // op(A)'s block [r0, r1) x [p0, p1), stored as A stores it.
      if (ta) {
        WidenF16Block(a, lda, p0, p1, r0, r1, a_block.data());
      } else {
        WidenF16Block(a, lda, r0, r1, p0, p1, a_block.data());
      }
      for (int64_t c0 = 0; c0 < columns; c0 += kF16BlockColumns) {
        const int64_t c1 = std::min(columns, c0 + kF16BlockColumns);
        if (tb) {
          WidenF16Block(b, ldb, c0, c1, p0, p1, b_block.data());
        } else {
          WidenF16Block(b, ldb, p0, p1, c0, c1, b_block.data());
        }
        cblas_sgemm(CblasRowMajor, trans_a, trans_b, static_cast<blasint>(r1 - r0),
                    static_cast<blasint>(c1 - c0), static_cast<blasint>(p1 - p0), 1.0f,
                    a_block.data(), static_cast<blasint>(ta ? r1 - r0 : p1 - p0), b_block.data(),
                    static_cast<blasint>(tb ? p1 - p0 : c1 - c0), p0 == 0 ? 0.0f : 1.0f,
                    c + r0 * ldc + c0, static_cast<blasint>(ldc));
      }
    }
  }
}

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
