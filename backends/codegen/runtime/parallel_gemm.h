#ifndef HMO_CODEGEN_RUNTIME_PARALLEL_GEMM_H_
#define HMO_CODEGEN_RUNTIME_PARALLEL_GEMM_H_

// One row-major GEMM, C (m x n) = op(A) (m x k) * op(B) (k x n), split into
// slices of C's rows (or of its columns, when it has more of those) that the
// intra-op threads compute with single-threaded library calls
// (ForEachIntraOpPart): the kernels and the library share one pool, as
// XLA:CPU runs its contractions on its intra-op pool. Small products stay one
// call on the calling thread.

#include <cblas.h>

#include <algorithm>
#include <cstdint>

#include "hmo/codegen/runtime/intra_op_threads.h"

namespace hmo::codegen {

// Products of fewer multiply-adds than this are one call: a slice must pay
// for waking a thread.
inline constexpr int64_t kMinParallelGemmFlops = int64_t{1} << 20;
// The fewest rows (or columns) of C in one slice: GEMM kernels work on
// blocks of a few dozen.
inline constexpr int64_t kMinGemmSlice = 32;
// The most elements of scratch a runtime function keeps per intra-op thread
// (a convolution's band of patches and products, an epilogue GEMM's tile):
// scratch is bounded by this, not by the operands, as it lies outside the
// buffer plan.
inline constexpr int64_t kMaxScratchElements = int64_t{1} << 20;

// `product(trans_a, trans_b, rows, columns, k, a, lda, b, ldb, c, ldc)`
// computes one row-major slice, C = op(A) x op(B) (overwritten), on the
// calling thread; `a` and `b` are In, `c` is Out.
template <typename In, typename Out, typename Product>
void ParallelGemm(Product product, CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b, int64_t m,
                  int64_t n, int64_t k, const In* a, int64_t lda, const In* b, int64_t ldb, Out* c,
                  int64_t ldc) {
  const bool split_rows = m >= n;
  const int64_t extent = split_rows ? m : n;
  const int64_t max_parts =
      m * n * k < kMinParallelGemmFlops ? 1 : std::max<int64_t>(1, extent / kMinGemmSlice);
  ForEachIntraOpPart(max_parts, [&](int64_t part, int64_t parts) {
    const int64_t begin = extent * part / parts;
    const int64_t end = extent * (part + 1) / parts;
    if (begin == end) return;
    if (split_rows) {
      // Rows [begin, end) of op(A) and of C.
      const In* a_slice = trans_a == CblasNoTrans ? a + begin * lda : a + begin;
      product(trans_a, trans_b, end - begin, n, k, a_slice, lda, b, ldb, c + begin * ldc, ldc);
    } else {
      // Columns [begin, end) of op(B) and of C.
      const In* b_slice = trans_b == CblasNoTrans ? b + begin : b + begin * ldb;
      product(trans_a, trans_b, m, end - begin, k, a, lda, b_slice, ldb, c + begin, ldc);
    }
  });
}

// A CBLAS GEMM (cblas_sgemm, cblas_dgemm) as a ParallelGemm product.
template <typename T, typename Gemm>
auto CblasProduct(Gemm gemm) {
  return [gemm](CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b, int64_t rows, int64_t columns,
                int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb, T* c, int64_t ldc) {
    gemm(CblasRowMajor, trans_a, trans_b, static_cast<blasint>(rows), static_cast<blasint>(columns),
         static_cast<blasint>(k), T(1), a, static_cast<blasint>(lda), b, static_cast<blasint>(ldb),
         T(0), c, static_cast<blasint>(ldc));
  };
}

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_RUNTIME_PARALLEL_GEMM_H_
