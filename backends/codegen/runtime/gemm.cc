// Batched GEMM for dot instructions: f32 and f64 through CBLAS (OpenBLAS),
// bf16 x bf16 -> f32 and s8 x s8 -> s32 through oneDNN, f16 x f16 -> f32
// through the BLAS on widened blocks (narrow_products.h);
// with an epilogue (an output fusion), tile by tile into bounded scratch.

#include <cblas.h>

#include <algorithm>
#include <cstdint>
#include <vector>

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

// The tiles of an epilogue GEMM: tile_rows x tile_columns blocks of each
// product, row-major over (batch, row block, column block).
struct EpilogueTiling {
  int64_t tile_rows = 1;
  int64_t tile_columns = 1;
  int64_t row_tiles = 1;
  int64_t column_tiles = 1;
};

// A library GEMM call packs its operand blocks, so a tile keeps at least
// this many rows where it can: packing then costs little next to the
// multiply-adds it serves.
constexpr int64_t kMinEpilogueTileRows = 256;

// Tiles of at most `max_tile_elements` (where kMinEpilogueTileRows rows
// allow).
EpilogueTiling TileEpilogueGemm(int64_t batch, int64_t m, int64_t n, int64_t k,
                                int64_t max_tile_elements) {
  using hmo::codegen::kMinGemmSlice;
  EpilogueTiling t;
  t.tile_rows = std::clamp<int64_t>(max_tile_elements / n, std::min(m, kMinEpilogueTileRows), m);
  t.tile_columns =
      std::clamp<int64_t>(max_tile_elements / t.tile_rows, std::min(n, kMinGemmSlice), n);
  t.row_tiles = (m + t.tile_rows - 1) / t.tile_rows;
  t.column_tiles = (n + t.tile_columns - 1) / t.tile_columns;
  // Enough tiles for every intra-op thread when the product is worth
  // splitting: the longer side is cut further (not below kMinGemmSlice).
  const int64_t threads = hmo::codegen::IntraOpThreadCount();
  const int64_t tiles = batch * t.row_tiles * t.column_tiles;
  if (m * n * k * batch >= hmo::codegen::kMinParallelGemmFlops && tiles < threads) {
    const int64_t factor = (threads + tiles - 1) / tiles;
    if (m >= n) {
      const int64_t row_tiles =
          std::min(std::max<int64_t>(1, m / kMinGemmSlice), t.row_tiles * factor);
      t.tile_rows = (m + row_tiles - 1) / row_tiles;
      t.row_tiles = (m + t.tile_rows - 1) / t.tile_rows;
    } else {
      const int64_t column_tiles =
          std::min(std::max<int64_t>(1, n / kMinGemmSlice), t.column_tiles * factor);
      t.tile_columns = (n + column_tiles - 1) / column_tiles;
      t.column_tiles = (n + t.tile_columns - 1) / t.tile_columns;
    }
  }
  return t;
}

// The product of BatchedGemm a tile at a time, each tile handed to
// `epilogue` (runtime_functions.h): into per-thread scratch, or, when
// `product_out` is given, into it (the batch x m x n product, row-major),
// in tiles as large as the threads allow.
template <typename In, typename Out, typename Product>
void EpilogueGemm(Product product, const In* lhs, const In* rhs, int64_t batch, int64_t m,
                  int64_t n, int64_t k, int32_t transpose_lhs, int32_t transpose_rhs,
                  Out* product_out, HmoCpuGemmEpilogue epilogue, char** buffer_table) {
  if (batch <= 0 || m <= 0 || n <= 0) return;
  const CBLAS_TRANSPOSE trans_a = transpose_lhs ? CblasTrans : CblasNoTrans;
  const CBLAS_TRANSPOSE trans_b = transpose_rhs ? CblasTrans : CblasNoTrans;
  const int64_t lda = transpose_lhs ? m : k;
  const int64_t ldb = transpose_rhs ? k : n;
  const EpilogueTiling t = TileEpilogueGemm(
      batch, m, n, k, product_out != nullptr ? m * n : hmo::codegen::kMaxScratchElements);
  const int64_t tiles = batch * t.row_tiles * t.column_tiles;
  const bool parallel = m * n * k * batch >= hmo::codegen::kMinParallelGemmFlops;
  hmo::codegen::ForEachIntraOpPart(parallel ? tiles : 1, [&](int64_t part, int64_t parts) {
    // Kept between calls: the scratch is mapped once per thread.
    thread_local std::vector<Out> scratch;
    if (product_out == nullptr) {
      scratch.resize(static_cast<size_t>(
          std::max<int64_t>(static_cast<int64_t>(scratch.size()), t.tile_rows * t.tile_columns)));
    }
    for (int64_t tile = tiles * part / parts; tile < tiles * (part + 1) / parts; ++tile) {
      const int64_t b = tile / (t.row_tiles * t.column_tiles);
      const int64_t row_begin = (tile / t.column_tiles) % t.row_tiles * t.tile_rows;
      const int64_t column_begin = tile % t.column_tiles * t.tile_columns;
      const int64_t rows = std::min(t.tile_rows, m - row_begin);
      const int64_t columns = std::min(t.tile_columns, n - column_begin);
      Out* c = scratch.data();
      int64_t ldc = columns;
      if (product_out != nullptr) {
        c = product_out + (b * m + row_begin) * n + column_begin;
        ldc = n;
      }
      if (k <= 0) {
        for (int64_t r = 0; r < rows; ++r) std::fill(c + r * ldc, c + r * ldc + columns, Out(0));
      } else {
        const In* a = lhs + b * m * k + (transpose_lhs ? row_begin : row_begin * lda);
        const In* bb = rhs + b * k * n + (transpose_rhs ? column_begin * ldb : column_begin);
        product(trans_a, trans_b, rows, columns, k, a, lda, bb, ldb, c, ldc);
      }
      epilogue(buffer_table, c, ldc, b, row_begin, row_begin + rows, column_begin,
               column_begin + columns);
    }
  });
}

}  // namespace

extern "C" void __hmo_cpu_gemm_epilogue_f32(const float* lhs, const float* rhs, int64_t batch,
                                            int64_t m, int64_t n, int64_t k, int32_t transpose_lhs,
                                            int32_t transpose_rhs, float* product_out,
                                            HmoCpuGemmEpilogue epilogue, char** buffer_table) {
  EpilogueGemm<float, float>(hmo::codegen::CblasProduct<float>(cblas_sgemm), lhs, rhs, batch, m, n,
                             k, transpose_lhs, transpose_rhs, product_out, epilogue, buffer_table);
}

extern "C" void __hmo_cpu_gemm_epilogue_f64(const double* lhs, const double* rhs, int64_t batch,
                                            int64_t m, int64_t n, int64_t k, int32_t transpose_lhs,
                                            int32_t transpose_rhs, double* product_out,
                                            HmoCpuGemmEpilogue epilogue, char** buffer_table) {
  EpilogueGemm<double, double>(hmo::codegen::CblasProduct<double>(cblas_dgemm), lhs, rhs, batch, m,
                               n, k, transpose_lhs, transpose_rhs, product_out, epilogue,
                               buffer_table);
}

extern "C" void __hmo_cpu_gemm_epilogue_bf16_f32(const uint16_t* lhs, const uint16_t* rhs,
                                                 int64_t batch, int64_t m, int64_t n, int64_t k,
                                                 int32_t transpose_lhs, int32_t transpose_rhs,
                                                 float* product_out, HmoCpuGemmEpilogue epilogue,
                                                 char** buffer_table) {
  EpilogueGemm<uint16_t, float>(hmo::codegen::Bf16Product, lhs, rhs, batch, m, n, k, transpose_lhs,
                                transpose_rhs, product_out, epilogue, buffer_table);
}

extern "C" void __hmo_cpu_gemm_epilogue_f16_f32(const uint16_t* lhs, const uint16_t* rhs,
                                                int64_t batch, int64_t m, int64_t n, int64_t k,
                                                int32_t transpose_lhs, int32_t transpose_rhs,
                                                float* product_out, HmoCpuGemmEpilogue epilogue,
                                                char** buffer_table) {
  EpilogueGemm<uint16_t, float>(hmo::codegen::F16Product, lhs, rhs, batch, m, n, k, transpose_lhs,
                                transpose_rhs, product_out, epilogue, buffer_table);
}

extern "C" void __hmo_cpu_gemm_epilogue_s8_s32(const int8_t* lhs, const int8_t* rhs, int64_t batch,
                                               int64_t m, int64_t n, int64_t k,
                                               int32_t transpose_lhs, int32_t transpose_rhs,
                                               int32_t* product_out, HmoCpuGemmEpilogue epilogue,
                                               char** buffer_table) {
  EpilogueGemm<int8_t, int32_t>(hmo::codegen::S8Product, lhs, rhs, batch, m, n, k, transpose_lhs,
                                transpose_rhs, product_out, epilogue, buffer_table);
}

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

extern "C" void __hmo_cpu_gemm_f16_f32(float* out, const uint16_t* lhs, const uint16_t* rhs,
                                       int64_t batch, int64_t m, int64_t n, int64_t k,
                                       int32_t transpose_lhs, int32_t transpose_rhs) {
  BatchedGemm<uint16_t, float>(hmo::codegen::F16Product, out, lhs, rhs, batch, m, n, k,
                               transpose_lhs, transpose_rhs);
}

extern "C" void __hmo_cpu_gemm_s8_s32(int32_t* out, const int8_t* lhs, const int8_t* rhs,
                                      int64_t batch, int64_t m, int64_t n, int64_t k,
                                      int32_t transpose_lhs, int32_t transpose_rhs) {
  BatchedGemm<int8_t, int32_t>(hmo::codegen::S8Product, out, lhs, rhs, batch, m, n, k,
                               transpose_lhs, transpose_rhs);
}
