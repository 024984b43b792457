#include "narrow_products.h"

#include <immintrin.h>

#include <algorithm>
#include <vector>

#include "hmo/base/half_float_bits.h"
#include "onednn_matmul.h"
#include "parallel_gemm.h"

namespace hmo::codegen {
namespace {

// `count` f16 values widened to f32, eight at a time with F16C.
__attribute__((target("avx2,f16c"))) void WidenF16RowF16c(const uint16_t* from, int64_t count,
                                                          float* to) {
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m128i half = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + i));
    _mm256_storeu_ps(to + i, _mm256_cvtph_ps(half));
  }
  for (; i < count; ++i) to[i] = hmo::half_float_bits::F16ToF32(from[i]);
}

// `count` f32 values rounded to f16 (nearest even), eight at a time with F16C.
__attribute__((target("avx2,f16c"))) void RoundRowToF16F16c(const float* from, int64_t count,
                                                            uint16_t* to) {
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m128i half = _mm256_cvtps_ph(_mm256_loadu_ps(from + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(to + i), half);
  }
  for (; i < count; ++i) to[i] = hmo::half_float_bits::F32ToF16(from[i]);
}

// `count` f32 values rounded to bf16 as half_float_bits::F32ToBf16 rounds
// each (nearest even; a NaN stays a quiet NaN), eight at a time with AVX2.
__attribute__((target("avx2"))) void RoundRowToBf16Avx2(const float* from, int64_t count,
                                                        uint16_t* to) {
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i round = _mm256_set1_epi32(0x7fff);
  const __m256i magnitude = _mm256_set1_epi32(0x7fffffff);
  const __m256i infinity = _mm256_set1_epi32(0x7f800000);
  const __m256i quiet = _mm256_set1_epi32(0x40);
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m256i bits = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(from + i));
    const __m256i kept = _mm256_srli_epi32(bits, 16);
    const __m256i rounded = _mm256_srli_epi32(
        _mm256_add_epi32(_mm256_add_epi32(bits, round), _mm256_and_si256(kept, one)), 16);
    const __m256i is_nan = _mm256_cmpgt_epi32(_mm256_and_si256(bits, magnitude), infinity);
    const __m256i value = _mm256_blendv_epi8(rounded, _mm256_or_si256(kept, quiet), is_nan);
    // Eight 32-bit values below 2^16 packed into eight 16-bit ones, in order.
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(value, value), 0x08);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(to + i), _mm256_castsi256_si128(packed));
  }
  for (; i < count; ++i) to[i] = hmo::half_float_bits::F32ToBf16(from[i]);
}

// Every x86 CPU with AVX2 also has F16C (which came first), so one check
// serves both kinds of rows.
bool HostHasAvx2() {
  static const bool has_avx2 = __builtin_cpu_supports("avx2");
  return has_avx2;
}

// `count` values converted by `vector_row` where the host has its
// instructions, else one at a time by `one` (the same conversion).
template <typename From, typename To>
void ConvertRow(bool host_has_vector_row, void (*vector_row)(const From*, int64_t, To*),
                To (*one)(From), const From* from, int64_t count, To* to) {
  if (host_has_vector_row) {
    vector_row(from, count, to);
    return;
  }
  for (int64_t i = 0; i < count; ++i) to[i] = one(from[i]);
}

void WidenF16Row(const uint16_t* from, int64_t count, float* to) {
  ConvertRow(HostHasAvx2(), WidenF16RowF16c, hmo::half_float_bits::F16ToF32, from, count, to);
}

void WidenBf16Row(const uint16_t* from, int64_t count, float* to) {
  for (int64_t i = 0; i < count; ++i) to[i] = hmo::half_float_bits::Bf16ToF32(from[i]);
}

using WidenRow = void (*)(const uint16_t* from, int64_t count, float* to);

// Rows [row_begin, row_end) and columns [column_begin, column_end) of the
// 16-bit matrix `data` (leading dimension ld) widened into `to`, densely.
void WidenBlock(WidenRow widen_row, const uint16_t* data, int64_t ld, int64_t row_begin,
                int64_t row_end, int64_t column_begin, int64_t column_end, float* to) {
  const int64_t width = column_end - column_begin;
  for (int64_t r = row_begin; r < row_end; ++r) {
    widen_row(data + r * ld + column_begin, width, to + (r - row_begin) * width);
  }
}

// WidenedProduct's blocks: the product is computed a (rows x columns) block
// of C at a time, summed over blocks of the contraction; each operand block is at
// most kMaxScratchElements widened floats. Blocks of many rows keep the
// BLAS's packing of each rhs block (once per call) small next to its work.
constexpr int64_t kWidenedBlockRows = 1024;
constexpr int64_t kWidenedBlockColumns = 256;
constexpr int64_t kWidenedBlockDepth = 1024;
static_assert(kWidenedBlockRows * kWidenedBlockDepth <= kMaxScratchElements);
static_assert(kWidenedBlockColumns * kWidenedBlockDepth <= kMaxScratchElements);

// C = op(A) x op(B) for 16-bit float A and B (`widen_row` reads their
// values): blocks of the operands widened into per-thread scratch, multiplied
// by the BLAS, summed over blocks of the contraction in C.
void WidenedProduct(WidenRow widen_row, CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b,
                    int64_t rows, int64_t columns, int64_t k, const uint16_t* a, int64_t lda,
                    const uint16_t* b, int64_t ldb, float* c, int64_t ldc) {
  const bool ta = trans_a != CblasNoTrans;
  const bool tb = trans_b != CblasNoTrans;
  // Kept between calls (grown to the largest blocks yet): the scratch is
  // mapped once per thread, and no larger than the products need.
  thread_local std::vector<float> a_block, b_block;
  const int64_t depth = std::min(k, kWidenedBlockDepth);
  const size_t a_size = static_cast<size_t>(std::min(rows, kWidenedBlockRows) * depth);
  const size_t b_size = static_cast<size_t>(std::min(columns, kWidenedBlockColumns) * depth);
  if (a_block.size() < a_size) a_block.resize(a_size);
  if (b_block.size() < b_size) b_block.resize(b_size);
  for (int64_t r0 = 0; r0 < rows; r0 += kWidenedBlockRows) {
    const int64_t r1 = std::min(rows, r0 + kWidenedBlockRows);
    for (int64_t p0 = 0; p0 < k; p0 += kWidenedBlockDepth) {
      const int64_t p1 = std::min(k, p0 + kWidenedBlockDepth);
      // op(A)'s block [r0, r1) x [p0, p1), stored as A stores it.
      if (ta) {
        WidenBlock(widen_row, a, lda, p0, p1, r0, r1, a_block.data());
      } else {
        WidenBlock(widen_row, a, lda, r0, r1, p0, p1, a_block.data());
      }
      for (int64_t c0 = 0; c0 < columns; c0 += kWidenedBlockColumns) {
        const int64_t c1 = std::min(columns, c0 + kWidenedBlockColumns);
        if (tb) {
          WidenBlock(widen_row, b, ldb, c0, c1, p0, p1, b_block.data());
        } else {
          WidenBlock(widen_row, b, ldb, p0, p1, c0, c1, b_block.data());
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

}  // namespace

void RoundRowToBf16(const float* from, int64_t count, uint16_t* to) {
  ConvertRow(HostHasAvx2(), RoundRowToBf16Avx2, hmo::half_float_bits::F32ToBf16, from, count, to);
}

void RoundRowToF16(const float* from, int64_t count, uint16_t* to) {
  ConvertRow(HostHasAvx2(), RoundRowToF16F16c, hmo::half_float_bits::F32ToF16, from, count, to);
}

void F16Product(CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b, int64_t rows, int64_t columns,
                int64_t k, const uint16_t* a, int64_t lda, const uint16_t* b, int64_t ldb, float* c,
                int64_t ldc) {
  WidenedProduct(WidenF16Row, trans_a, trans_b, rows, columns, k, a, lda, b, ldb, c, ldc);
}

void Bf16Product(CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b, int64_t rows, int64_t columns,
                 int64_t k, const uint16_t* a, int64_t lda, const uint16_t* b, int64_t ldb,
                 float* c, int64_t ldc) {
  if (OneDnnMatmul(OneDnnProduct::kBf16ToF32, trans_a, trans_b, rows, columns, k, a, lda, b, ldb, c,
                   ldc)) {
    return;
  }
  WidenedProduct(WidenBf16Row, trans_a, trans_b, rows, columns, k, a, lda, b, ldb, c, ldc);
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
