// The epilogue GEMMs (__hmo_cpu_gemm_epilogue_*): every element of every
// product reaches the epilogue exactly once, in a tile that holds the same
// values the plain GEMM writes, and tiles stay within the scratch bound.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "hmo/codegen/runtime/intra_op_threads.h"
#include "hmo/codegen/runtime/runtime_functions.h"

namespace {

// What the test's epilogue writes: each tile copied into `product` (batch x
// m x n), and a count of the times each element was handed over.
template <typename Out>
struct Collected {
  int64_t m = 0;
  int64_t n = 0;
  std::vector<Out> product;
  std::vector<std::atomic<int>> visits;
  std::atomic<int64_t> largest_tile{0};
};

template <typename Out>
void CollectTile(char** buffer_table, const void* tile, int64_t ld, int64_t batch_index,
                 int64_t row_begin, int64_t row_end, int64_t column_begin, int64_t column_end) {
  auto& collected = *reinterpret_cast<Collected<Out>*>(buffer_table[0]);
  const auto* values = static_cast<const Out*>(tile);
  int64_t largest = collected.largest_tile.load();
  const int64_t size = (row_end - row_begin) * (column_end - column_begin);
  while (size > largest && !collected.largest_tile.compare_exchange_weak(largest, size)) {
  }
  for (int64_t r = row_begin; r < row_end; ++r) {
    for (int64_t c = column_begin; c < column_end; ++c) {
      const int64_t at = (batch_index * collected.m + r) * collected.n + c;
      collected.product[at] = values[(r - row_begin) * ld + (c - column_begin)];
      collected.visits[at].fetch_add(1);
    }
  }
}

struct EpilogueCase {
  int64_t batch, m, n, k;
  int32_t transpose_lhs, transpose_rhs;
};

class GemmEpilogueTest : public ::testing::TestWithParam<EpilogueCase> {
 protected:
  void SetUp() override {
    previous_ = hmo::codegen::IntraOpThreadCount();
    hmo::codegen::SetIntraOpThreadCount(3);
  }
  void TearDown() override { hmo::codegen::SetIntraOpThreadCount(previous_); }

 private:
  int previous_ = 1;
};

// Runs `epilogue_gemm` (an __hmo_cpu_gemm_epilogue_* bound to its operands,
// called with a product_out) with the collecting epilogue, into scratch
// (product_out null) and into a product array, and checks every element
// against `expected` (the plain GEMM's product of the same operands).
template <typename Out, typename EpilogueGemm>
void ExpectTilesCoverTheProduct(const EpilogueCase& c, const std::vector<Out>& expected,
                                EpilogueGemm epilogue_gemm) {
  for (const bool into_product : {false, true}) {
    SCOPED_TRACE(into_product ? "into the product array" : "into scratch");
    Collected<Out> collected;
    collected.m = c.m;
    collected.n = c.n;
    collected.product.assign(expected.size(), Out(0));
    collected.visits = std::vector<std::atomic<int>>(expected.size());
    std::vector<Out> product_out(expected.size(), Out(-7));
    char* table[] = {reinterpret_cast<char*>(&collected)};
    epilogue_gemm(into_product ? product_out.data() : nullptr, &CollectTile<Out>, table);
    for (size_t i = 0; i < expected.size(); ++i) {
      ASSERT_EQ(collected.visits[i].load(), 1) << "element " << i;
      // Tiles are other library calls than the plain GEMM's slices: the
      // sums may be blocked differently.
      ASSERT_NEAR(collected.product[i], expected[i], 1e-4 * (1 + c.k)) << "element " << i;
      if (into_product) {
        ASSERT_EQ(product_out[i], collected.product[i]) << "element " << i;
      }
    }
    if (!into_product) {
      // Scratch tiles stay within their bound; the product array is unused.
      EXPECT_LE(collected.largest_tile.load(), int64_t{1} << 20);
      EXPECT_TRUE(
          std::all_of(product_out.begin(), product_out.end(), [](Out v) { return v == Out(-7); }));
    }
  }
}

TEST_P(GemmEpilogueTest, F32TilesCoverTheProductOnceWithThePlainGemmsValues) {
  const EpilogueCase c = GetParam();
  std::mt19937 random(7);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> lhs(c.batch * c.m * c.k), rhs(c.batch * c.k * c.n);
  for (float& v : lhs) v = value(random);
  for (float& v : rhs) v = value(random);
  std::vector<float> expected(c.batch * c.m * c.n, -1.0f);
  __hmo_cpu_gemm_f32(expected.data(), lhs.data(), rhs.data(), c.batch, c.m, c.n, c.k,
                     c.transpose_lhs, c.transpose_rhs);
  ExpectTilesCoverTheProduct(
      c, expected, [&](float* product_out, HmoCpuGemmEpilogue epilogue, char** table) {
        __hmo_cpu_gemm_epilogue_f32(lhs.data(), rhs.data(), c.batch, c.m, c.n, c.k, c.transpose_lhs,
                                    c.transpose_rhs, product_out, epilogue, table);
      });
}

TEST_P(GemmEpilogueTest, Bf16TilesHoldTheF32Products) {
  const EpilogueCase c = GetParam();
  std::mt19937 random(8);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<uint16_t> lhs(c.batch * c.m * c.k), rhs(c.batch * c.k * c.n);
  for (uint16_t& v : lhs) v = __hmo_cpu_f32_to_bf16(value(random));
  for (uint16_t& v : rhs) v = __hmo_cpu_f32_to_bf16(value(random));
  std::vector<float> expected(c.batch * c.m * c.n, -1.0f);
  __hmo_cpu_gemm_bf16_f32(expected.data(), lhs.data(), rhs.data(), c.batch, c.m, c.n, c.k,
                          c.transpose_lhs, c.transpose_rhs);
  ExpectTilesCoverTheProduct(
      c, expected, [&](float* product_out, HmoCpuGemmEpilogue epilogue, char** table) {
        __hmo_cpu_gemm_epilogue_bf16_f32(lhs.data(), rhs.data(), c.batch, c.m, c.n, c.k,
                                         c.transpose_lhs, c.transpose_rhs, product_out, epilogue,
                                         table);
      });
}

INSTANTIATE_TEST_SUITE_P(Shapes, GemmEpilogueTest,
                         ::testing::Values(
                             // batch, m, n, k, transposes
                             EpilogueCase{1, 3, 5, 4, 0, 0},     // one small tile, one call
                             EpilogueCase{2, 70, 90, 33, 1, 0},  // batched, split for the threads
                             EpilogueCase{1, 8, 600, 64, 0, 1},  // few rows: columns split
                             EpilogueCase{1, 5, 7, 0, 0, 0},     // k = 0: zeros
                             EpilogueCase{1, 700, 3000, 16, 1,
                                          1}),  // 2.1M elements: several bounded tiles
                         [](const ::testing::TestParamInfo<EpilogueCase>& info) {
                           const EpilogueCase& c = info.param;
                           return "b" + std::to_string(c.batch) + "m" + std::to_string(c.m) + "n" +
                                  std::to_string(c.n) + "k" + std::to_string(c.k) + "t" +
                                  std::to_string(c.transpose_lhs) + std::to_string(c.transpose_rhs);
                         });

// (Exact: the tolerance is below one.)
TEST(GemmEpilogueS8Test, S32TilesHoldTheExactProducts) {
  const int64_t m = 40, n = 50, k = 300;
  std::mt19937 random(9);
  std::uniform_int_distribution<int> value(-128, 127);
  std::vector<int8_t> lhs(m * k), rhs(k * n);
  for (int8_t& v : lhs) v = static_cast<int8_t>(value(random));
  for (int8_t& v : rhs) v = static_cast<int8_t>(value(random));
  std::vector<int32_t> expected(m * n);
  __hmo_cpu_gemm_s8_s32(expected.data(), lhs.data(), rhs.data(), 1, m, n, k, 0, 0);
  ExpectTilesCoverTheProduct(EpilogueCase{1, m, n, k, 0, 0}, expected,
                             [&](int32_t* product_out, HmoCpuGemmEpilogue epilogue, char** table) {
                               __hmo_cpu_gemm_epilogue_s8_s32(lhs.data(), rhs.data(), 1, m, n, k, 0,
                                                              0, product_out, epilogue, table);
                             });
}

}  // namespace
