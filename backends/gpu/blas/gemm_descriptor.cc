#include "gpu/blas/gemm_descriptor.h"

#include "absl/strings/str_cat.h"

namespace hmo::gpu {
namespace {

// a * b for non-negative operands, false on int64 overflow.
bool MultiplyFits(int64_t a, int64_t b, int64_t& product) { return !__builtin_mul_overflow(a, b, &product); }

}  // namespace

std::string_view GemmElementTypeName(GemmElementType type) {
  switch (type) {
    case GemmElementType::kF32: return "f32";
    case GemmElementType::kF64: return "f64";
  }
  return "unknown";
}

int64_t GemmElementBytes(GemmElementType type) {
  switch (type) {
    case GemmElementType::kF32: return 4;
    case GemmElementType::kF64: return 8;
  }
  return 0;
}

std::string GemmDescriptor::ToString() const {
  return absl::StrCat(std::string(GemmElementTypeName(element_type)), "[", batch, "] ", m, "x", n, "x", k,
                      transpose_lhs ? " lhs^T" : "", transpose_rhs ? " rhs^T" : "", " strides(lhs ",
                      lhs_batch_stride, ", rhs ", rhs_batch_stride, ", out ", out_batch_stride, ")");
}

GemmDescriptor DenseGemmDescriptor(GemmElementType element_type, int64_t batch, int64_t m, int64_t n, int64_t k,
                                   bool transpose_lhs, bool transpose_rhs) {
  GemmDescriptor gemm;
  gemm.element_type = element_type;
  gemm.batch = batch;
  gemm.m = m;
  gemm.n = n;
  gemm.k = k;
  gemm.transpose_lhs = transpose_lhs;
  gemm.transpose_rhs = transpose_rhs;
  gemm.lhs_batch_stride = m * k;
  gemm.rhs_batch_stride = k * n;
  gemm.out_batch_stride = m * n;
  return gemm;
}

absl::Status ValidateGemmDescriptor(const GemmDescriptor& gemm) {
  auto invalid = [&](std::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("GEMM ", gemm.ToString(), ": ", std::string(why)));
  };
  if (gemm.element_type != GemmElementType::kF32 && gemm.element_type != GemmElementType::kF64) {
    return invalid("element type is neither f32 nor f64");
  }
  if (gemm.batch < 1) return invalid("batch must be at least 1");
  if (gemm.m < 0 || gemm.n < 0 || gemm.k < 0) return invalid("negative dimension");
  if (gemm.lhs_batch_stride < 0 || gemm.rhs_batch_stride < 0 || gemm.out_batch_stride < 0) {
    return invalid("negative batch stride");
  }
  // Every element offset (stride * (batch - 1) + matrix size), in bytes,
  // must be representable.
  const int64_t bytes = GemmElementBytes(gemm.element_type);
  const struct {
    int64_t rows, cols, stride;
  } operands[] = {{gemm.m, gemm.k, gemm.lhs_batch_stride},
                  {gemm.k, gemm.n, gemm.rhs_batch_stride},
                  {gemm.m, gemm.n, gemm.out_batch_stride}};
  for (const auto& operand : operands) {
    int64_t size = 0, last = 0, end = 0, end_bytes = 0;
    if (!MultiplyFits(operand.rows, operand.cols, size) || !MultiplyFits(operand.stride, gemm.batch - 1, last) ||
        __builtin_add_overflow(last, size, &end) || !MultiplyFits(end, bytes, end_bytes)) {
      return invalid("element offsets overflow int64");
    }
  }
  if (gemm.batch > 1 && gemm.out_batch_stride < gemm.m * gemm.n) {
    return invalid(absl::StrCat("output matrices overlap (out_batch_stride < m*n = ", gemm.m * gemm.n, ")"));
  }
  return absl::OkStatus();
}

}  // namespace hmo::gpu
