#include "gpu/blas/cublas_gemm_arguments.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"

namespace hmo::gpu {

absl::StatusOr<CublasGemmArguments> MapGemmToCublas(const GemmDescriptor& gemm) {
  if (absl::Status valid = ValidateGemmDescriptor(gemm); !valid.ok()) return valid;
  CublasGemmArguments arguments;
  // Column-major out^T (n x m) = op(rhs)^T (n x k) * op(lhs)^T (k x m).
  arguments.m = gemm.n;
  arguments.n = gemm.m;
  arguments.k = gemm.k;
  // A = rhs. Stored k x n row-major it reads column-major as n x k, which is
  // already op(rhs)^T; stored n x k (transposed) it reads as k x n and needs
  // a transpose. Its leading dimension is the stored row length.
  arguments.a = GemmOperand::kRhs;
  arguments.transa = gemm.transpose_rhs ? cublas_abi::kOpT : cublas_abi::kOpN;
  arguments.lda = std::max<int64_t>(1, gemm.transpose_rhs ? gemm.k : gemm.n);
  arguments.stride_a = gemm.rhs_batch_stride;
  // B = lhs: stored m x k it reads as k x m = op(lhs)^T; stored k x m
  // (transposed) it reads as m x k and needs a transpose.
  arguments.b = GemmOperand::kLhs;
  arguments.transb = gemm.transpose_lhs ? cublas_abi::kOpT : cublas_abi::kOpN;
  arguments.ldb = std::max<int64_t>(1, gemm.transpose_lhs ? gemm.m : gemm.k);
  arguments.stride_b = gemm.lhs_batch_stride;
  // C = out, m x n row-major = n x m column-major with leading dimension n.
  arguments.ldc = std::max<int64_t>(1, gemm.n);
  arguments.stride_c = gemm.out_batch_stride;
  arguments.batch_count = gemm.batch;
  return arguments;
}

absl::Status CheckCublasIntRange(const CublasGemmArguments& arguments) {
  const struct {
    const char* name;
    int64_t value;
  } values[] = {{"m", arguments.m},     {"n", arguments.n},     {"k", arguments.k},
                {"lda", arguments.lda}, {"ldb", arguments.ldb}, {"ldc", arguments.ldc},
                {"batch_count", arguments.batch_count}};
  for (const auto& value : values) {
    if (value.value > std::numeric_limits<int>::max()) {
      return absl::InvalidArgumentError(
          absl::StrCat("cuBLAS GEMM argument ", value.name, " = ", value.value, " does not fit its int parameter"));
    }
  }
  return absl::OkStatus();
}

}  // namespace hmo::gpu
