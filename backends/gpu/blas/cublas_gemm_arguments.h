#ifndef HMO_BACKENDS_GPU_BLAS_CUBLAS_GEMM_ARGUMENTS_H_
#define HMO_BACKENDS_GPU_BLAS_CUBLAS_GEMM_ARGUMENTS_H_

// The column-major cuBLAS call computing a row-major GemmDescriptor.
//
// cuBLAS follows the BLAS convention: matrices are column-major and
//   C (m x n) = op_a(A) (m x k) * op_b(B) (k x n),
// element (i, j) of a matrix X with leading dimension ldx at X[i + j * ldx].
// A row-major matrix R (r x c, dense) has the same bytes as the column-major
// matrix R^T (c x r, leading dimension c). So the row-major product
//   out = op(lhs) * op(rhs)
// is, seen column-major, out^T = op(rhs)^T * op(lhs)^T: cuBLAS's A is our
// rhs, its B our lhs, its m our n and its n our m, and each operand is
// transposed for cuBLAS exactly when it is transposed in the descriptor
// (the row-major -> column-major reinterpretation already supplies the
// outer transpose). Each leading dimension is the row length of the stored
// row-major matrix.

#include <cstdint>

#include "absl/status/statusor.h"
#include "gpu/blas/cublas_library.h"
#include "gpu/blas/gemm_descriptor.h"

namespace hmo::gpu {

// Which of the descriptor's pointers a cuBLAS operand is.
enum class GemmOperand { kLhs, kRhs };

// The arguments of cublas{S,D}gemmStridedBatched (alpha = 1, beta = 0), in
// int64 (CheckCublasIntRange says whether the 32-bit API can take them).
struct CublasGemmArguments {
  cublas_abi::Operation transa = cublas_abi::kOpN;
  cublas_abi::Operation transb = cublas_abi::kOpN;
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  GemmOperand a = GemmOperand::kRhs;  // the pointer passed as A
  int64_t lda = 1;
  int64_t stride_a = 0;
  GemmOperand b = GemmOperand::kLhs;  // the pointer passed as B
  int64_t ldb = 1;
  int64_t stride_b = 0;
  int64_t ldc = 1;  // C is always the descriptor's out
  int64_t stride_c = 0;
  int64_t batch_count = 1;

  bool operator==(const CublasGemmArguments&) const = default;
};

// The cuBLAS arguments computing `gemm`; INVALID_ARGUMENT when
// ValidateGemmDescriptor rejects it. Leading dimensions are at least 1 (BLAS
// requires it even for empty matrices).
absl::StatusOr<CublasGemmArguments> MapGemmToCublas(const GemmDescriptor& gemm);

// OK when m, n, k, the leading dimensions and batch_count fit cuBLAS's int
// parameters (strides are 64-bit there); else INVALID_ARGUMENT naming the
// first one that does not.
absl::Status CheckCublasIntRange(const CublasGemmArguments& arguments);

}  // namespace hmo::gpu

#endif  // HMO_BACKENDS_GPU_BLAS_CUBLAS_GEMM_ARGUMENTS_H_
