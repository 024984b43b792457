// __hmo_cpu_gemm_f32/f64/bf16_f32/f16_f32/s8_s32 against a naive triple loop.

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "hmo/base/half_float_bits.h"
#include "hmo/codegen/runtime/runtime_functions.h"

namespace {

// out[b] = op(lhs[b]) * op(rhs[b]), written with explicit indexing so a wrong
// leading dimension or transpose flag in the BLAS call shows up.
template <typename T>
std::vector<T> NaiveGemm(const std::vector<T>& lhs, const std::vector<T>& rhs, int64_t batch,
                         int64_t m, int64_t n, int64_t k, bool transpose_lhs, bool transpose_rhs) {
  std::vector<T> out(batch * m * n, T(0));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < k; ++p) {
          const T a = transpose_lhs ? lhs[b * m * k + p * m + i] : lhs[b * m * k + i * k + p];
          const T c = transpose_rhs ? rhs[b * k * n + j * k + p] : rhs[b * k * n + p * n + j];
          sum += static_cast<double>(a) * static_cast<double>(c);
        }
        out[b * m * n + i * n + j] = static_cast<T>(sum);
      }
    }
  }
  return out;
}

template <typename T>
std::vector<T> Random(int64_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<T> values(size);
  for (T& v : values) v = static_cast<T>(dist(rng));
  return values;
}

struct GemmCase {
  int64_t batch, m, n, k;
  bool transpose_lhs, transpose_rhs;
};

class GemmF32Test : public ::testing::TestWithParam<GemmCase> {};

TEST_P(GemmF32Test, MatchesNaiveLoop) {
  const GemmCase c = GetParam();
  const auto lhs = Random<float>(c.batch * c.m * c.k, 1);
  const auto rhs = Random<float>(c.batch * c.k * c.n, 2);
  std::vector<float> out(c.batch * c.m * c.n, 123.0f);  // Must be overwritten.
  __hmo_cpu_gemm_f32(out.data(), lhs.data(), rhs.data(), c.batch, c.m, c.n, c.k, c.transpose_lhs,
                     c.transpose_rhs);
  const auto expected =
      NaiveGemm(lhs, rhs, c.batch, c.m, c.n, c.k, c.transpose_lhs, c.transpose_rhs);
  for (size_t i = 0; i < out.size(); ++i) ASSERT_NEAR(out[i], expected[i], 1e-4f) << "at " << i;
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, GemmF32Test,
    ::testing::Values(GemmCase{1, 5, 7, 4, false, false}, GemmCase{3, 5, 7, 4, false, false},
                      GemmCase{3, 5, 7, 4, true, false}, GemmCase{3, 5, 7, 4, false, true},
                      GemmCase{3, 5, 7, 4, true, true}, GemmCase{2, 1, 9, 6, true, true},
                      GemmCase{4, 6, 1, 3, false, true}, GemmCase{2, 17, 13, 33, true, false},
                      // Past kMinParallelGemmFlops (parallel_gemm.h), on two or more threads:
                      // slices of C's rows, of its columns, and whole products per thread.
                      GemmCase{1, 200, 70, 90, false, false}, GemmCase{1, 200, 70, 90, true, true},
                      GemmCase{1, 201, 70, 90, true, false}, GemmCase{1, 200, 71, 90, false, true},
                      GemmCase{1, 40, 300, 100, false, false},
                      GemmCase{1, 40, 301, 100, true, true}, GemmCase{1, 40, 300, 100, true, false},
                      GemmCase{1, 41, 300, 100, false, true}, GemmCase{5, 64, 64, 64, false, true},
                      GemmCase{3, 130, 33, 96, true, false}));

// 16-bit float operands: the exact products of their values summed in
// f32, so against the naive loop over the same (widened) values the error is
// f32 summation's, not the narrow type's rounding.
template <typename Narrow, typename Widen, typename Gemm>
void ExpectNarrowGemmMatchesNaiveLoop(const GemmCase& c, Narrow narrow, Widen widen, Gemm gemm) {
  std::vector<float> lhs = Random<float>(c.batch * c.m * c.k, 3);
  std::vector<float> rhs = Random<float>(c.batch * c.k * c.n, 4);
  std::vector<uint16_t> lhs_bits, rhs_bits;
  for (float& v : lhs) {
    lhs_bits.push_back(narrow(v));
    v = widen(lhs_bits.back());
  }
  for (float& v : rhs) {
    rhs_bits.push_back(narrow(v));
    v = widen(rhs_bits.back());
  }
  std::vector<float> out(c.batch * c.m * c.n, 123.0f);  // Must be overwritten.
  gemm(out.data(), lhs_bits.data(), rhs_bits.data(), c.batch, c.m, c.n, c.k, c.transpose_lhs,
       c.transpose_rhs);
  const auto expected =
      NaiveGemm(lhs, rhs, c.batch, c.m, c.n, c.k, c.transpose_lhs, c.transpose_rhs);
  // The sums' f32 rounding grows with k.
  const float tolerance = 1e-4f * std::max<float>(1.0f, static_cast<float>(c.k) / 100.0f);
  for (size_t i = 0; i < out.size(); ++i) {
    ASSERT_NEAR(out[i], expected[i], tolerance) << "at " << i;
  }
}

class GemmBf16Test : public ::testing::TestWithParam<GemmCase> {};

TEST_P(GemmBf16Test, MatchesNaiveLoopOverTheBf16Values) {
  ExpectNarrowGemmMatchesNaiveLoop(GetParam(), hmo::half_float_bits::F32ToBf16,
                                   hmo::half_float_bits::Bf16ToF32, __hmo_cpu_gemm_bf16_f32);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, GemmBf16Test,
    ::testing::Values(GemmCase{1, 5, 7, 4, false, false}, GemmCase{3, 5, 7, 4, true, false},
                      GemmCase{3, 5, 7, 4, false, true}, GemmCase{3, 5, 7, 4, true, true},
                      GemmCase{2, 17, 13, 33, true, false}, GemmCase{2, 3, 4, 0, false, false},
                      // Slices of C's rows and columns, and whole products per thread.
                      GemmCase{1, 200, 70, 90, false, false}, GemmCase{1, 200, 71, 90, true, true},
                      GemmCase{1, 40, 301, 100, false, true},
                      GemmCase{5, 64, 64, 64, true, false}));

class GemmF16Test : public ::testing::TestWithParam<GemmCase> {};

TEST_P(GemmF16Test, MatchesNaiveLoopOverTheF16Values) {
  ExpectNarrowGemmMatchesNaiveLoop(GetParam(), hmo::half_float_bits::F32ToF16,
                                   hmo::half_float_bits::F16ToF32, __hmo_cpu_gemm_f16_f32);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, GemmF16Test,
    ::testing::Values(GemmCase{1, 5, 7, 4, false, false}, GemmCase{3, 5, 7, 4, true, false},
                      GemmCase{3, 5, 7, 4, false, true}, GemmCase{3, 5, 7, 4, true, true},
                      GemmCase{2, 17, 13, 33, true, false}, GemmCase{2, 3, 4, 0, false, false},
                      GemmCase{1, 200, 70, 90, false, false}, GemmCase{1, 200, 71, 90, true, true},
                      GemmCase{5, 64, 64, 64, true, false},
                      // More than one widened block along every side (256 rows and
                      // columns, 1024 deep), in each transpose.
                      GemmCase{1, 300, 270, 1100, false, false},
                      GemmCase{1, 300, 270, 1100, true, true},
                      GemmCase{1, 261, 300, 1030, true, false},
                      GemmCase{1, 261, 300, 1030, false, true}));

// s8 operands into s32: exact, so equal to the naive loop's sums.
class GemmS8Test : public ::testing::TestWithParam<GemmCase> {};

TEST_P(GemmS8Test, EqualsNaiveLoop) {
  const GemmCase c = GetParam();
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> value(-128, 127);
  std::vector<int8_t> lhs(c.batch * c.m * c.k), rhs(c.batch * c.k * c.n);
  for (int8_t& v : lhs) v = static_cast<int8_t>(value(rng));
  for (int8_t& v : rhs) v = static_cast<int8_t>(value(rng));
  std::vector<int32_t> out(c.batch * c.m * c.n, 123);  // Must be overwritten.
  __hmo_cpu_gemm_s8_s32(out.data(), lhs.data(), rhs.data(), c.batch, c.m, c.n, c.k, c.transpose_lhs,
                        c.transpose_rhs);
  const std::vector<double> expected = NaiveGemm(
      std::vector<double>(lhs.begin(), lhs.end()), std::vector<double>(rhs.begin(), rhs.end()),
      c.batch, c.m, c.n, c.k, c.transpose_lhs, c.transpose_rhs);
  for (size_t i = 0; i < out.size(); ++i)
    ASSERT_EQ(out[i], static_cast<int32_t>(expected[i])) << "at " << i;
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, GemmS8Test,
    ::testing::Values(GemmCase{1, 5, 7, 4, false, false}, GemmCase{3, 5, 7, 4, true, false},
                      GemmCase{3, 5, 7, 4, false, true}, GemmCase{3, 5, 7, 4, true, true},
                      GemmCase{2, 3, 4, 0, false, false}, GemmCase{1, 200, 71, 90, true, true},
                      GemmCase{1, 40, 301, 100, false, true},
                      GemmCase{5, 64, 64, 64, true, false}));

TEST(GemmF64Test, BatchedTransposedMatchesNaiveLoop) {
  const int64_t batch = 3, m = 4, n = 6, k = 5;
  for (int transpose = 0; transpose < 4; ++transpose) {
    const bool tl = transpose & 1, tr = transpose & 2;
    const auto lhs = Random<double>(batch * m * k, 3);
    const auto rhs = Random<double>(batch * k * n, 4);
    std::vector<double> out(batch * m * n, -5.0);
    __hmo_cpu_gemm_f64(out.data(), lhs.data(), rhs.data(), batch, m, n, k, tl, tr);
    const auto expected = NaiveGemm(lhs, rhs, batch, m, n, k, tl, tr);
    for (size_t i = 0; i < out.size(); ++i) ASSERT_NEAR(out[i], expected[i], 1e-12);
  }
}

TEST(GemmF32Test, KnownValues) {
  // [1 2; 3 4] * [5 6; 7 8] = [19 22; 43 50]; with rhs transposed
  // [1 2; 3 4] * [5 7; 6 8] = [17 23; 39 53].
  const std::vector<float> lhs = {1, 2, 3, 4}, rhs = {5, 6, 7, 8};
  std::vector<float> out(4);
  __hmo_cpu_gemm_f32(out.data(), lhs.data(), rhs.data(), 1, 2, 2, 2, 0, 0);
  EXPECT_EQ(out, (std::vector<float>{19, 22, 43, 50}));
  __hmo_cpu_gemm_f32(out.data(), lhs.data(), rhs.data(), 1, 2, 2, 2, 0, 1);
  EXPECT_EQ(out, (std::vector<float>{17, 23, 39, 53}));
}

TEST(GemmF32Test, EmptyContractionWritesZeros) {
  std::vector<float> out(2 * 3 * 4, 7.0f);
  __hmo_cpu_gemm_f32(out.data(), nullptr, nullptr, 2, 3, 4, 0, 0, 0);
  for (float v : out) EXPECT_EQ(v, 0.0f);
}

}  // namespace
