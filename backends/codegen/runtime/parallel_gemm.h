#ifndef HMO_CODEGEN_RUNTIME_PARALLEL_GEMM_H_
#define HMO_CODEGEN_RUNTIME_PARALLEL_GEMM_H_

// One row-major CBLAS GEMM, C (m x n) = op(A) (m x k) * op(B) (k x n), split
// into slices of C's rows (or of its columns, when it has more of those) that
// the intra-op threads compute with single-threaded BLAS calls
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
// The fewest rows (or columns) of C in one slice: BLAS kernels work on
// blocks of a few dozen.
inline constexpr int64_t kMinGemmSlice = 32;

template <typename T, typename Gemm>
void ParallelGemm(Gemm gemm, CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b, int64_t m, int64_t n,
                  int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb, T* c, int64_t ldc) {
  auto call = [&](int64_t rows, int64_t columns, const T* a_slice, const T* b_slice, T* c_slice) {
    gemm(CblasRowMajor, trans_a, trans_b, static_cast<blasint>(rows), static_cast<blasint>(columns),
         static_cast<blasint>(k), T(1), a_slice, static_cast<blasint>(lda), b_slice,
         static_cast<blasint>(ldb), T(0), c_slice, static_cast<blasint>(ldc));
  };
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
      const T* a_slice = trans_a == CblasNoTrans ? a + begin * lda : a + begin;
      call(end - begin, n, a_slice, b, c + begin * ldc);
    } else {
      // Columns [begin, end) of op(B) and of C.
      const T* b_slice = trans_b == CblasNoTrans ? b + begin : b + begin * ldb;
      call(m, end - begin, a, b_slice, c + begin);
    }
  });
}

}  // namespace hmo::codegen

#endif  // HMO_CODEGEN_RUNTIME_PARALLEL_GEMM_H_
