#ifndef HMO_BACKENDS_GPU_BLAS_GEMM_DESCRIPTOR_H_
#define HMO_BACKENDS_GPU_BLAS_GEMM_DESCRIPTOR_H_

// A (batched) matrix multiplication in ROW-MAJOR terms, independent of HLO
// and of cuBLAS: for every b in [0, batch)
//
//   out[b] = op(lhs[b]) * op(rhs[b])
//
// where out[b] is m x n, row-major and dense (element (i, j) at i * n + j);
// op(lhs[b]) is m x k: lhs[b] is stored m x k row-major, or k x m row-major
// when transpose_lhs; op(rhs[b]) is k x n: rhs[b] is stored k x n row-major,
// or n x k row-major when transpose_rhs. Each stored matrix is dense; matrix b
// of an operand starts `<operand>_batch_stride * b` elements after the
// operand's base pointer. An input stride of 0 reuses one matrix for every
// batch (a broadcast operand); output matrices must not overlap.

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace hmo::gpu {

enum class GemmElementType { kF32, kF64 };

// "f32" / "f64" (HLO's names).
std::string_view GemmElementTypeName(GemmElementType type);
// 4 / 8.
int64_t GemmElementBytes(GemmElementType type);

struct GemmDescriptor {
  GemmElementType element_type = GemmElementType::kF32;
  int64_t batch = 1;
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  bool transpose_lhs = false;
  bool transpose_rhs = false;
  // Elements between consecutive batch matrices of each operand.
  int64_t lhs_batch_stride = 0;
  int64_t rhs_batch_stride = 0;
  int64_t out_batch_stride = 0;

  // e.g. "f32[2] 3x4x5 lhs^T strides(lhs 15, rhs 20, out 12)".
  std::string ToString() const;
};

// A descriptor whose batch matrices are packed back to back (each stride is
// its operand's matrix size: m*k, k*n, m*n).
GemmDescriptor DenseGemmDescriptor(GemmElementType element_type, int64_t batch, int64_t m, int64_t n, int64_t k,
                                   bool transpose_lhs = false, bool transpose_rhs = false);

// INVALID_ARGUMENT naming the descriptor when batch < 1, a dimension or
// stride is negative, output matrices would overlap (out_batch_stride < m*n
// with batch > 1), or an element offset would overflow int64.
absl::Status ValidateGemmDescriptor(const GemmDescriptor& gemm);

}  // namespace hmo::gpu

#endif  // HMO_BACKENDS_GPU_BLAS_GEMM_DESCRIPTOR_H_
